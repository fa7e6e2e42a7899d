//go:build !ecsdebug

package ecs

// debugChecks is off: the checks of debug.go compile away.
const debugChecks = false

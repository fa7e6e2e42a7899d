//go:build ecsdebug

package ecs

// debugChecks is on: built with -tags ecsdebug (see debug.go).
const debugChecks = true

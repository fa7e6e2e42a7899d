//go:build !ecsdebug

package inspector

// ecsDebugBuild says the kernel is built with its debug checks, which keep
// every component's change stamps from the world's start.
const ecsDebugBuild = false

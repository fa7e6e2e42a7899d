//go:build !race

package testpace

// Race says the tests run under the race detector (see race.go).
const Race = false

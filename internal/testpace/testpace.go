// Package testpace is the frame period of the tests' game loops: 2 ms, or
// what ECSINSPECT_TEST_FRAME says. Running the tests with a slow frame
// (ECSINSPECT_TEST_FRAME=40ms) or a fast one (50us) shakes out a test that
// counts on time slept, or on requests landing in frames of their own.
// Race says whether the race detector is on. Tests only.
//
//	loop(testpace.Frame(), step)
//	if testpace.Race { rounds /= 8 }
package testpace

import (
	"os"
	"testing"
	"time"
)

// Frame is the tests' frame period: ECSINSPECT_TEST_FRAME when it holds a
// positive duration, else 2 ms.
func Frame() time.Duration {
	if p, err := time.ParseDuration(os.Getenv("ECSINSPECT_TEST_FRAME")); err == nil && p > 0 {
		return p
	}
	return 2 * time.Millisecond
}

// SkipUnderRace skips a test under the race detector when its work, what
// says, has no goroutines to race (one decoding hundreds of MiB): the
// detector only makes it many times slower there, and the plain run
// covers it.
func SkipUnderRace(t testing.TB, what string) {
	t.Helper()
	if Race {
		t.Skip(what + ": nothing for the race detector to find; the plain run covers it")
	}
}

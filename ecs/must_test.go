package ecs

import "testing"

// must fails the test at once on an error from the code under test.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noErr is must for benchmark helpers that have no testing.TB: an error
// from the code under test panics, which fails the benchmark, at the cost
// of one comparison in the loop.
func noErr(err error) {
	if err != nil {
		panic(err)
	}
}

package ecs

import "testing"

// must fails the test at once on an error from the code under test.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

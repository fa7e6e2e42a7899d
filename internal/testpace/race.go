//go:build race

package testpace

// Race says the tests run under the race detector, which makes everything
// several times slower: a test may do less of work the plain run covers.
const Race = true

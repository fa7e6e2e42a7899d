package main

import (
	"os"
	"runtime/debug"
)

// collectLessOften lets the heap grow to five times what is live before
// the collector runs, within 256 MiB, for a process that is the UI alone
// (attach: no game shares its heap), and returns what puts it back. The
// UI attached keeps a few megabytes (a page, a summary, a chart's points)
// and makes garbage at each summary: at the default (twice what is live)
// the collector's work was a third of the UI's time at rest. A GOGC or
// GOMEMLIMIT the user set is kept.
func collectLessOften() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(256 << 20)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

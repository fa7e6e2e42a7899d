package ecs

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// What each system allocates.
//
// With Schedule.TrackAllocs on, a system's run reads the Go runtime's
// cumulative allocation counters (runtime/metrics: /gc/heap/allocs:bytes
// and :objects) before and after its function: 0.6 us a run on a quiet
// goroutine, 8-9 us in the 100k demo (Schedule.AllocReadCost says). The
// difference is the system's only where it ran alone: a sequential stage,
// a CommandsNow system, or a parallel stage where no other system ran
// beside it; otherwise the run is counted as shared and attributed to
// nobody. The runtime counts small objects a span at a time (when a
// goroutine's cache takes a new span), so one run may show a span's worth
// or nothing; the mean over the recent runs is what to read.

// allocMetrics are the counters read around a run, in this order.
var allocMetrics = [2]string{"/gc/heap/allocs:bytes", "/gc/heap/allocs:objects"}

// allocRun is one run's allocations, and whether they were the system's.
type allocRun struct {
	bytes, objects uint64
	alone          bool
}

// allocs keeps a system's recent runs' allocations (timingWindow of them)
// and the counters its run reads.
type allocs struct {
	mu     sync.Mutex
	recent [timingWindow]allocRun
	n      uint64 // runs measured in all

	// Read around the run (by the goroutine running it) and kept until
	// the worker knows whether it ran alone.
	samples [2]metrics.Sample
	before  [2]uint64
	pending allocRun
	measure bool // this run is measured
}

// start reads the counters before a run.
func (a *allocs) start(cost *readCost) {
	if a.samples[0].Name == "" {
		a.samples[0].Name, a.samples[1].Name = allocMetrics[0], allocMetrics[1]
	}
	cost.read(a.samples[:])
	a.before = [2]uint64{a.samples[0].Value.Uint64(), a.samples[1].Value.Uint64()}
	a.measure = true
}

// stop reads the counters after the run: its allocations, pending until
// note says whether they were its own.
func (a *allocs) stop(cost *readCost) {
	cost.read(a.samples[:])
	a.pending = allocRun{bytes: a.samples[0].Value.Uint64() - a.before[0], objects: a.samples[1].Value.Uint64() - a.before[1]}
}

// readCost measures what the reads of runtime/metrics take where the game
// makes them: a few hundred nanoseconds on a quiet goroutine, several
// microseconds in a game whose other goroutines allocate as it reads.
type readCost struct{ ns, reads atomic.Int64 }

// read reads samples, timed.
func (c *readCost) read(samples []metrics.Sample) {
	start := time.Now()
	metrics.Read(samples)
	c.ns.Add(int64(time.Since(start)))
	c.reads.Add(1)
}

// mean is what a read took on average (0: none made yet).
func (c *readCost) mean() time.Duration {
	n := c.reads.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(c.ns.Load() / n)
}

// note keeps the run just measured, alone or shared.
func (a *allocs) note(alone bool) {
	if !a.measure {
		return
	}
	a.measure = false
	r := a.pending
	r.alone = alone
	a.mu.Lock()
	a.recent[a.n%timingWindow] = r
	a.n++
	a.mu.Unlock()
}

// summary is the mean bytes and objects of the recent runs that were the
// system's own, how many those were, and how many were shared.
func (a *allocs) summary() (bytes, objects float64, alone, shared int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var sb, so uint64
	for k := a.n - min(a.n, timingWindow); k < a.n; k++ {
		r := a.recent[k%timingWindow]
		if !r.alone {
			shared++
			continue
		}
		alone++
		sb += r.bytes
		so += r.objects
	}
	if alone > 0 {
		bytes, objects = float64(sb)/float64(alone), float64(so)/float64(alone)
	}
	return bytes, objects, alone, shared
}

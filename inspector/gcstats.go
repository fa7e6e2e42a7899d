package inspector

import (
	"runtime/metrics"
	"sync"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The game's memory as the Go runtime counts it (runtime/metrics): its
// heap, the collector's cycles and pauses, what it allocated. Read when a
// summary is made (a client looks), never when nobody does; a read takes
// a few microseconds and stops nothing.

// gcMetrics are the runtime's metrics the summary reports, in the order
// gcStats reads them.
var gcMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/goal:bytes",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/sched/pauses/total/gc:seconds",
}

// gcSamples is reused between reads (summaries are made on the game
// goroutine, but snapshots' on others: a lock keeps it whole).
var gcSamples struct {
	sync.Mutex
	s []metrics.Sample
}

// gcStats reads the game's memory and collections now.
func gcStats() *protocol.GCStats {
	gcSamples.Lock()
	defer gcSamples.Unlock()
	if gcSamples.s == nil {
		for _, name := range gcMetrics {
			gcSamples.s = append(gcSamples.s, metrics.Sample{Name: name})
		}
	}
	s := gcSamples.s
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() == metrics.KindUint64 {
			return s[i].Value.Uint64()
		}
		return 0
	}
	st := &protocol.GCStats{Heap: u(0), Goal: u(1), Cycles: u(2), AllocBytes: u(3), AllocObjects: u(4)}
	if s[5].Value.Kind() == metrics.KindFloat64Histogram {
		st.Pauses, st.PauseNs = pauseTotal(s[5].Value.Float64Histogram())
	}
	return st
}

// pauseTotal is a histogram of pauses' count and their time in all, each
// taken at its bucket's middle (the runtime keeps no exact sum).
func pauseTotal(h *metrics.Float64Histogram) (n uint64, ns int64) {
	total := 0.0
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		switch {
		case lo < 0 || lo != lo:
			lo = 0
		case hi > 1e300:
			hi = lo
		}
		n += c
		total += float64(c) * (lo + hi) / 2
	}
	return n, int64(total * 1e9)
}

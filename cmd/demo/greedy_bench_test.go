package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// greedyClients connects n clients that each keep the most subscriptions
// the limits allow (64, at 60 a second) of a kind, and read everything
// they are sent; closing them ends the attack. Kinds: sorted pages of
// 10,000 rows, each its own query; entities, each its own; summaries;
// series aggregates of 32 terms, each its own; world streams at every
// frame (read-only sessions: none of these needs more); journals, read
// slowly. The clients read the bytes and do not decode them: decoding is
// the client's work, not the game's, and on these two cores it would be
// counted against the game.
func greedyClients(b *testing.B, addr string, n int, kind string) (stop func()) {
	b.Helper()
	var wg sync.WaitGroup
	var conns []*protocol.Conn
	for i := range n {
		nc, err := netDial(addr)
		if err != nil {
			b.Fatal(err)
		}
		c := protocol.NewConn(nc)
		if _, err := protocol.ClientHandshake(c, protocol.Hello{Client: "greedy"}, 2*time.Second); err != nil {
			b.Fatal(err)
		}
		for j := range protocol.MaxSubscriptions {
			sub := &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubSummary, Hz: 60}
			switch kind {
			case "pages":
				sub = &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubPage, Hz: 60, Limit: protocol.MaxPageRows,
					Query: fmt.Sprintf("Position Energy.Value>%d", j), Sort: "Energy.Value", Offset: 100 * i}
			case "entities":
				sub = &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubEntity, Hz: 60, Entity: protocol.MakeEntityID(uint32(64*i+j), 1)}
			case "series32":
				sub = &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubSeries, Hz: 60, Query: "mean Energy.Value " + series32(j)}
			case "world":
				sub = &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubWorld}
			case "journal": // each its own filter (a client may not follow one twice): the whole journal, its busiest parts, then entities
				sub = &protocol.Subscribe{ID: uint32(1 + j), What: protocol.SubJournal, Hz: 60, Filter: journalFilter(i, j)}
			}
			if err := c.Send(sub); err != nil {
				b.Fatal(err)
			}
		}
		conns = append(conns, c)
		wg.Go(func() {
			buf := make([]byte, 64<<10)
			for {
				if _, err := nc.Read(buf); err != nil {
					return
				}
				if kind == "journal" {
					time.Sleep(5 * time.Millisecond) // a slow reader: the agent holds what it has not taken
				}
			}
		})
	}
	return func() {
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
	}
}

// journalFilter is client i's j-th journal filter: none first, then each
// of the demo's busiest systems and components (whose entries are most of
// the journal), then entities.
func journalFilter(i, j int) string {
	busy := []string{"", "reproduction", "death", "hunting", "fleeing", "Fleeing", "Hunting", "Energy", "Position", "Herbivore", "Predator", "Velocity"}
	if j < len(busy) {
		return busy[j]
	}
	return protocol.MakeEntityID(uint32(64*i+j), 1).String()
}

// series32 is a query of 32 field tests over what the demo writes every
// frame, told apart by j.
func series32(j int) string {
	terms := make([]string, 0, protocol.MaxQueryTerms)
	for k := range protocol.MaxQueryTerms {
		terms = append(terms, fmt.Sprintf("Position.X>%d", -1000-j-k))
	}
	return strings.Join(terms, " ")
}

// BenchmarkSeries32Terms: BenchmarkGreedyClients with seven clients each
// keeping 64 series of a mean over 32 field tests at 60 Hz; the target is
// at most 1.10 x-baseline.
func BenchmarkSeries32Terms(b *testing.B) { greedyBench(b, "series32") }

// BenchmarkJournalReaders: BenchmarkGreedyClients with seven clients each
// keeping 64 journal subscriptions at 60 Hz, each with its own filter (the
// whole journal, its busiest systems and components, entities), and
// reading slowly (5 ms a read); the targets are at most 1.10 x-baseline
// and 256 MiB more heap.
func BenchmarkJournalReaders(b *testing.B) { greedyBench(b, "journal") }

// BenchmarkWorldStreams: BenchmarkGreedyClients with seven clients each
// keeping 64 world subscriptions at every frame; the targets are at most
// 1.10 x-baseline and 512 MiB more heap while attacked.
func BenchmarkWorldStreams(b *testing.B) { greedyBench(b, "world") }

// BenchmarkGreedyClients: the 100,000-animal demo's frame (systems and
// Sync, back to back) while seven clients each keep 64 subscriptions at
// 60 Hz (sorted pages of 10,000 rows, entities or summaries), against the
// same game with nobody attached. The
// clients' work runs off the game goroutine but on the same two cores, so
// the two can't share an iteration: each iteration runs a block of frames
// attacked and a block quiet (the clients gone and their work drained),
// in alternating order. Reported as the ratio of the blocks' median
// frames (x-baseline) and of their 90th percentiles.
func BenchmarkGreedyClients(b *testing.B) {
	for _, kind := range []string{"pages", "entities", "summaries"} {
		b.Run("kind="+kind, func(b *testing.B) { greedyBench(b, kind) })
	}
}

func greedyBench(b *testing.B, kind string) {
	sim := ecosystem.New(100_000, 1)
	agent := inspector.New(sim.World, inspector.Options{Addr: "127.0.0.1:0", Game: "greedy", Schedule: sim.Schedule})
	if err := agent.Start(); err != nil {
		b.Fatal(err)
	}
	defer agent.Close()
	frame := func() time.Duration {
		start := time.Now()
		sim.Step()
		agent.Sync()
		return time.Since(start)
	}
	const frames, warm = 30, 5
	var heapAttacked, heapQuiet uint64 // the most heap in use after a block of each
	block := func(attacked bool) []time.Duration {
		var stop func()
		if attacked {
			stop = greedyClients(b, agent.Addr(), 7, kind)
		}
		var ts []time.Duration
		for i := range frames {
			if t := frame(); i >= warm {
				ts = append(ts, t)
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if attacked {
			heapAttacked = max(heapAttacked, ms.HeapInuse)
		} else {
			heapQuiet = max(heapQuiet, ms.HeapInuse)
		}
		if stop != nil {
			stop()
			// The agent notices the clients left, and their last work ends.
			for deadline := time.Now().Add(10 * time.Second); agent.Clients() > 0; {
				if time.Now().After(deadline) {
					b.Fatalf("%d clients still counted 10 s after they left", agent.Clients())
				}
				frame()
			}
			time.Sleep(100 * time.Millisecond)
		}
		return ts
	}
	for range 10 {
		frame()
	}
	var attacked, quiet []time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			attacked = append(attacked, block(true)...)
			quiet = append(quiet, block(false)...)
		} else {
			quiet = append(quiet, block(false)...)
			attacked = append(attacked, block(true)...)
		}
		i++
	}
	slices.Sort(attacked)
	slices.Sort(quiet)
	at := func(ts []time.Duration, q float64) float64 { return float64(ts[int(q*float64(len(ts)-1))]) }
	b.ReportMetric(at(attacked, 0.5)/at(quiet, 0.5), "x-baseline")
	b.ReportMetric(at(attacked, 0.9)/at(quiet, 0.9), "x-baseline-p90")
	b.ReportMetric(at(attacked, 0.5)/1e6, "p50-ms")
	b.ReportMetric(at(quiet, 0.5)/1e6, "baseline-p50-ms")
	b.ReportMetric((float64(heapAttacked)-float64(heapQuiet))/(1<<20), "MiB-heap-over-baseline")
}

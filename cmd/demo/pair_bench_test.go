package main

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// framesPaired runs subject and baseline frames alternately, the order
// flipping each iteration (this VM drifts, and whichever runs second finds
// the caches the first left), and reports the ratio of their totals as
// x-baseline with each one's time per frame. It returns the iterations.
func framesPaired(b *testing.B, subject, baseline func() time.Duration) int {
	var tS, tB time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i%2 == 0 {
			tS += subject()
			tB += baseline()
		} else {
			tB += baseline()
			tS += subject()
		}
		i++
	}
	b.ReportMetric(float64(tS)/float64(tB), "x-baseline")
	b.ReportMetric(float64(tS.Nanoseconds())/float64(i), "ns/frame")
	b.ReportMetric(float64(tB.Nanoseconds())/float64(i), "baseline-ns/frame")
	return i
}

// demoFrames returns the frame of a demo world with its agent (none if
// nil) and the frame of the same world alone, after an equal warm-up,
// checked to be doing the same work.
func demoFrames(b *testing.B, subject *ecosystem.Sim, agent *inspector.Agent, plain *ecosystem.Sim) (withAgent, alone func() time.Duration) {
	withAgent = func() time.Duration {
		start := time.Now()
		subject.Step()
		if agent != nil {
			agent.Sync()
		}
		return time.Since(start)
	}
	alone = func() time.Duration {
		start := time.Now()
		plain.Step()
		return time.Since(start)
	}
	for range 3 {
		withAgent()
		alone()
	}
	if subject.World.Len() != plain.World.Len() {
		b.Fatalf("the worlds differ before the loop: %d and %d entities", subject.World.Len(), plain.World.Len())
	}
	return withAgent, alone
}

// demoPair starts two 100,000-animal demos from one seed, each with an
// agent on a free port, closed when the benchmark ends: a subject and its
// baseline, doing the same work.
func demoPair(b *testing.B, subject, baseline string) (s, p *ecosystem.Sim, agentS, agentP *inspector.Agent) {
	b.Helper()
	s, p = ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
	agentS = inspector.New(s.World, inspector.Options{Addr: "127.0.0.1:0", Game: subject, Schedule: s.Schedule})
	agentP = inspector.New(p.World, inspector.Options{Addr: "127.0.0.1:0", Game: baseline, Schedule: p.Schedule})
	for _, a := range []*inspector.Agent{agentS, agentP} {
		if err := a.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { a.Close() })
	}
	return s, p, agentS, agentP
}

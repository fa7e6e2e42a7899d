package main

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// hostile connects a client that, until stopped, sends the worst requests
// the limits allow as fast as the agent takes them: a page subscription of
// MaxQueryTerms field tests at the highest rate, the same as one-off
// queries of MaxPageRows rows, and queries of `terms` field tests (refused
// when over the limit). It reads everything it is sent.
func hostile(b *testing.B, addr string, terms int) func() {
	b.Helper()
	conn, err := dialBench(addr)
	if err != nil {
		b.Fatal(err)
	}
	worst := strings.TrimSpace(strings.Repeat("Position.X>=0 ", protocol.MaxQueryTerms))
	many := strings.TrimSpace(strings.Repeat("Energy.Value>-1 ", terms))
	if err := conn.Send(&protocol.Subscribe{ID: 1, What: protocol.SubPage, Query: worst, Hz: 1000, Limit: protocol.MaxPageRows}); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for id := uint32(2); ; id++ {
			select {
			case <-stop:
				return
			default:
			}
			expr := worst
			if id%2 == 0 {
				expr = many
			}
			if conn.Send(&protocol.Query{ID: id, Expr: expr, Limit: protocol.MaxPageRows}) != nil {
				return
			}
		}
	})
	wg.Go(func() {
		for {
			if _, err := conn.Receive(); err != nil {
				return
			}
		}
	})
	return func() { close(stop); conn.Close(); wg.Wait() }
}

func dialBench(addr string) (*protocol.Conn, error) {
	nc, err := netDial(addr)
	if err != nil {
		return nil, err
	}
	c := protocol.NewConn(nc)
	if _, err := protocol.ClientHandshake(c, protocol.Hello{Client: "hostile"}, 2*time.Second); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// BenchmarkHostileQuery: the game goroutine's time per frame (the
// systems and the agent's Sync) of the 100,000-animal demo while one client
// sends the worst queries the limits allow, against the same world with
// no client, interleaved in each iteration with the order alternating.
// Both worlds start from one seed, so they do the same work. Reported as
// x-baseline; the target is at most 1.10.
func BenchmarkHostileQuery(b *testing.B) {
	b.Run("predicates=1000", func(b *testing.B) {
		attacked, quiet, agentA, agentQ := demoPair(b, "attacked", "quiet")
		stop := hostile(b, agentA.Addr(), 1000)
		defer stop()
		var syncA, syncQ time.Duration
		frame := func(s *ecosystem.Sim, a *inspector.Agent) time.Duration {
			start := time.Now()
			s.Step()
			mid := time.Now()
			a.Sync()
			if a == agentA {
				syncA += time.Since(mid)
			} else {
				syncQ += time.Since(mid)
			}
			return time.Since(start)
		}
		for range 10 { // warm up both, and let the attack arrive
			frame(attacked, agentA)
			frame(quiet, agentQ)
		}
		if attacked.World.Len() != quiet.World.Len() {
			b.Fatalf("the worlds differ before the loop: %d and %d entities", attacked.World.Len(), quiet.World.Len())
		}
		syncA, syncQ = 0, 0
		i := framesPaired(b, func() time.Duration { return frame(attacked, agentA) }, func() time.Duration { return frame(quiet, agentQ) })
		// Sync alone: the agent's own share of the game goroutine. The
		// attacked agent's writer works on the other core meanwhile and
		// can slow whichever frame runs next, the quiet one's included,
		// which is why x-baseline can come out under 1 on two cores.
		b.ReportMetric(float64(syncA.Nanoseconds())/float64(i)/1e6, "sync-ms")
		b.ReportMetric(float64(syncQ.Nanoseconds())/float64(i)/1e6, "baseline-sync-ms")
	})
}

func netDial(addr string) (net.Conn, error) { return net.Dial("tcp", addr) }

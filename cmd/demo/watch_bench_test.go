package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// benchWatches are the value watchpoints BenchmarkWatchpoints sets, in
// order: none of them fires on the demo (log-only, so none would pause).
var benchWatches = []string{
	"Energy.Value<-1", "Position.X<-5", "Position.Y<-5", "Velocity.X>1000", "Velocity.Y>1000",
	"Energy.Value>100000", "Age.Frames>100000000", "Position.X>1000000", "Position.Y>1000000", "Energy.Value<-2",
}

// BenchmarkWatchpoints: the game goroutine's time per frame (the systems,
// which check the watchpoints as each ends, and the agent's Sync) of the
// 100,000-animal demo with 0, 1 and 10 value watchpoints set, against the
// same world with none, interleaved with the order alternating. Both
// worlds start from one seed, so they do the same work. The watchpoints
// test fields every system writes every frame (Energy, Position), the
// worst case for a check that looks only at rows written.
func BenchmarkWatchpoints(b *testing.B) {
	for _, n := range []int{0, 1, 10} {
		b.Run(fmt.Sprintf("watch=%d", n), func(b *testing.B) { watchBench(b, [][]string{benchWatches[:n]}, false) })
	}
}

// BenchmarkHostileWatch: BenchmarkWatchpoints with what read-only clients
// may send: one log-only watchpoint of 121 field tests true of every
// animal (refused at the door: 32 terms at most), and 64 log-only
// watchpoints that never fire from two clients (each holds 32 at most),
// on fields every system writes every frame; the target is at most 1.10
// x-baseline.
func BenchmarkHostileWatch(b *testing.B) {
	terms := make([]string, 121)
	for i := range terms {
		terms[i] = "Position.X>-1e30"
	}
	b.Run("terms=121", func(b *testing.B) { watchBench(b, [][]string{{strings.Join(terms, " ")}}, true) })
	never := func(from int) []string {
		var out []string
		for i := range inspector.MaxClientWatchpoints {
			out = append(out, fmt.Sprintf("Position.X<%d", -1-from-i))
		}
		return out
	}
	b.Run("never-true=64", func(b *testing.B) {
		watchBench(b, [][]string{never(0), never(inspector.MaxClientWatchpoints)}, true)
	})
}

// watchBench sets each list of watchpoints (log-only) from a client of its
// own, which stays connected, and times the watched demo's frames against
// the same demo with no watchpoint, interleaved. A watchpoint the agent
// refuses is left out (hostile ones are expected to be).
func watchBench(b *testing.B, lists [][]string, readOnly bool) {
	watched, plain, agentW, agentP := demoPair(b, "watched", "plain")
	frame := func(s *ecosystem.Sim, a *inspector.Agent) time.Duration {
		start := time.Now()
		s.Step()
		a.Sync()
		return time.Since(start)
	}
	// Set the watchpoints through the protocol, the games running.
	done := make(chan error, len(lists))
	for _, exprs := range lists {
		go func() {
			o, err := client.Dial(agentW.Addr(), "")
			if readOnly {
				o, err = dialReadOnly(agentW.Addr())
			}
			if err != nil {
				done <- err
				return
			}
			b.Cleanup(o.Close)
			for _, expr := range exprs {
				if _, err := o.Do(func(id uint32) protocol.Message { return &protocol.Watch{ID: id, Expr: expr, Log: true} }); err != nil && !readOnly {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for set := 0; set < len(lists); {
		select {
		case err := <-done:
			if err != nil {
				b.Fatal(err)
			}
			set++
		default:
		}
		frame(watched, agentW)
		frame(plain, agentP)
	}
	for range 5 {
		frame(watched, agentW)
		frame(plain, agentP)
	}
	if watched.World.Len() != plain.World.Len() {
		b.Fatalf("the worlds differ before the loop: %d and %d entities", watched.World.Len(), plain.World.Len())
	}
	framesPaired(b, func() time.Duration { return frame(watched, agentW) }, func() time.Duration { return frame(plain, agentP) })
}

// dialReadOnly connects as a session that asks for reads only.
func dialReadOnly(addr string) (*client.OneShot, error) {
	nc, err := netDial(addr)
	if err != nil {
		return nil, err
	}
	c := protocol.NewConn(nc)
	if _, err := protocol.ClientHandshake(c, protocol.Hello{Client: "read-only", Caps: []string{"read"}}, 2*time.Second); err != nil {
		nc.Close()
		return nil, err
	}
	return &client.OneShot{Conn: c, ID: 100}, nil
}

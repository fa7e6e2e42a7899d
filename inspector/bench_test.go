package inspector

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// benchWorld: n moving entities and the movement query.
func benchWorld(n int) (*ecs.World, *ecs.Query2[Position, Velocity]) {
	w := ecs.NewWorld()
	ecs.NewMap3[Position, Velocity, Health](w).SpawnBatch(n, func(i int, _ ecs.Entity, _ *Position, v *Velocity, h *Health) {
		v.X, h.HP = 1, i%100
	})
	return w, ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
}

// churn is how many entities a benchmark frame despawns and spawns, as a
// game's births and deaths would.
const churn = 500

//go:noinline
func frame(w *ecs.World, q *ecs.Query2[Position, Velocity], a *Agent) {
	for p, v := range q.All() {
		p.X += v.X * 0.016
		p.Y += v.Y * 0.016
	}
	// Structural churn, the same every frame whatever the agent: the
	// oldest entities die, as many are born.
	cmds := w.Commands()
	it := q.Iter()
	for dead := 0; dead < churn && it.Next(); dead++ {
		cmds.Despawn(it.Entity())
	}
	it.Close()
	for range churn {
		e := cmds.Spawn()
		ecs.AddLater(cmds, e, Position{})
		ecs.AddLater(cmds, e, Velocity{X: 1})
	}
	_ = w.Tick()
	if a != nil {
		a.Sync()
	}
}

// reader keeps a client's socket drained, as a TUI would.
func reader(b *testing.B, addr string, subs ...protocol.Subscribe) func() {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	conn := protocol.NewConn(nc)
	if _, err := protocol.ClientHandshake(conn, protocol.Hello{Client: "bench"}, 2*time.Second); err != nil {
		b.Fatal(err)
	}
	for i := range subs {
		if err := conn.Send(&subs[i]); err != nil {
			b.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := conn.Receive(); err != nil {
				return
			}
		}
	}()
	return func() { conn.Close(); <-done }
}

// BenchmarkFrame: one frame of a 100,000-entity world (movement, 500
// despawns and 500 spawns, Sync), without an agent, with an agent nobody
// connects to, and with two clients subscribed (10 Hz summary + 100-row
// page; 60 Hz summary). The agent has its defaults, the journal on.
func BenchmarkFrame(b *testing.B) {
	const n = 100_000
	for _, mode := range []string{"off", "idle", "subscribed"} {
		b.Run("agent="+mode, func(b *testing.B) {
			w, q := benchWorld(n)
			var a *Agent
			if mode != "off" {
				a = New(w, Options{Addr: "127.0.0.1:0"})
				if err := a.Start(); err != nil {
					b.Fatal(err)
				}
				defer a.Close()
			}
			if mode == "subscribed" {
				defer reader(b, a.Addr(),
					protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 10},
					protocol.Subscribe{ID: 2, What: protocol.SubPage, Hz: 10, Query: "Position Velocity", Limit: 100})()
				defer reader(b, a.Addr(), protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 60})()
				deadline := time.Now().Add(2 * time.Second)
				for a.srv.Counts().FramesSent < 3 && time.Now().Before(deadline) { // both connected and served
					frame(w, q, a)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				frame(w, q, a)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/frame")
		})
	}
}

func BenchmarkCaptureSummary(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			w, _ := benchWorld(n)
			a := New(w, Options{JournalSize: -1})
			a.summary() // the slot scan runs once a second: outside the loop
			b.ReportAllocs()
			for b.Loop() {
				a.summary()
			}
		})
	}
}

// BenchmarkSnapshot measures the game goroutine's share of a snapshot: the
// copy. Converting, encoding and writing happen on another goroutine.
func BenchmarkSnapshot(b *testing.B) {
	const n = 1_000_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		w, _ := benchWorld(n)
		a := New(w, Options{JournalSize: -1})
		b.ReportAllocs()
		for b.Loop() {
			a.lw.CopyAll()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/snapshot")
	})
}

package inspector

import (
	"math"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/internal/benchpair"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
)

// hostileGame is a small game (moving entities) holding one hostile
// shape, stepped with or without an idle agent.
type hostileGame struct {
	w     *ecs.World
	move  *ecs.Query2[Position, Velocity]
	a     *Agent
	churn func(*ecs.World) // the shape's own work each frame, if any
}

// newHostileGame builds the game with n moving entities and shape.
func newHostileGame(tb testing.TB, n int, shape string, agent bool) *hostileGame {
	w := ecs.NewWorld()
	ecs.NewMap2[Position, Velocity](w).SpawnBatch(n, func(i int, _ ecs.Entity, _ *Position, v *Velocity) { v.X = 1 })
	g := &hostileGame{w: w, move: ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())}
	switch shape {
	case "map":
		m := make(map[int]int, 1_000_000)
		for i := range 1_000_000 {
			m[i] = i
		}
		ecs.SetResource(w, hostileAssets{ByID: m})
	case "slice":
		ecs.SetResource(w, hostileSamples{Values: make([]float64, 12_500_000)}) // 100 MB
	case "graph", "interface":
		nav := hostileNav{Nodes: make([]*hostileNode, 1000)}
		for i := range nav.Nodes {
			nav.Nodes[i] = &hostileNode{ID: i}
		}
		for i, nd := range nav.Nodes {
			for j := 1; j <= 6; j++ {
				nd.Links = append(nd.Links, nav.Nodes[(i+j*37)%1000])
			}
			nd.Back = nav.Nodes[(i+999)%1000]
		}
		if shape == "graph" {
			ecs.SetResource(w, nav)
		} else {
			ecs.SetResource(w, hostileAny{V: nav})
		}
	case "shared":
		pool := make([]float64, 1<<20) // 8 MB every holder shares
		pools := ecs.NewMap[hostilePool](w)
		var holders []ecs.Entity
		for range 20_000 {
			e := w.Spawn()
			if err := pools.Add(e, hostilePool{Data: pool}); err != nil {
				tb.Fatal(err)
			}
			holders = append(holders, e)
		}
		g.churn = func(w *ecs.World) { // 256 die and as many are born
			for i := range 256 {
				if err := w.Despawn(holders[i]); err != nil {
					tb.Fatal(err)
				}
				e := w.Spawn()
				if err := pools.Add(e, hostilePool{Data: pool}); err != nil {
					tb.Fatal(err)
				}
				holders[i] = e
			}
			holders = append(holders[256:], holders[:256]...)
		}
	}
	if agent {
		g.a = New(w, Options{})
		tb.Cleanup(func() { g.a.Close() })
	}
	return g
}

// frame steps the game once and reports its time.
func (g *hostileGame) frame() time.Duration {
	start := time.Now()
	for p, v := range g.move.All() {
		p.X += v.X * 0.001
	}
	if g.churn != nil {
		g.churn(g.w)
	}
	_ = g.w.Tick()
	if g.a != nil {
		g.a.Sync()
	}
	return time.Since(start)
}

// BenchmarkHostileData: a game of 20,000 moving entities holding one
// hostile shape (a map of a million entries, a 100 MB slice, a 1,000-node
// graph with back pointers, the graph behind an interface, an 8 MB slice
// 20,000 entities share with 256 of them despawned and born a frame),
// with the agent idle against the same game without it, interleaved:
// x-baseline is the mean frame's ratio; max-ms the longest frame with the
// agent (its ring's capture once a second falls in it).
func BenchmarkHostileData(b *testing.B) {
	for _, shape := range []string{"map", "slice", "graph", "interface", "shared"} {
		b.Run(shape, func(b *testing.B) {
			subj, base := newHostileGame(b, 20_000, shape, true), newHostileGame(b, 20_000, shape, false)
			subj.frame()
			base.frame()
			if subj.w.Len() != base.w.Len() {
				b.Fatalf("the games differ before the loop: %d and %d entities", subj.w.Len(), base.w.Len())
			}
			var worst time.Duration
			benchpair.Run(b, 1, "ns/frame", func() { worst = max(worst, subj.frame()) }, func() { base.frame() })
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
		})
	}
}

// BenchmarkAgentIdle: the game's ticks a second with the agent linked and
// idle (nobody attached; its rewind ring, dangling-handle scan, graves
// and audit on), over the same game without it, unpaced and interleaved:
// world=small is a few thousand moving entities and a grid resource of
// 16,384 handles (a small game run at thousands of ticks a second);
// world=demo100k the demo's ecosystem at 100,000 animals.
func BenchmarkAgentIdle(b *testing.B) {
	b.Run("world=small", func(b *testing.B) {
		subj, base := newSmallGame(b, true), newSmallGame(b, false)
		subj.frame()
		base.frame()
		if subj.w.Len() != base.w.Len() {
			b.Fatalf("the games differ before the loop: %d and %d entities", subj.w.Len(), base.w.Len())
		}
		var ts, tb time.Duration
		benchpair.Run(b, 1, "ns/frame", func() { ts += subj.frame() }, func() { tb += base.frame() })
		reportTicks(b, ts, tb)
		b.ReportMetric(float64(subj.syncNs.Nanoseconds())/float64(b.N), "sync-ns")
		b.ReportMetric(float64(subj.runNs)/float64(max(base.runNs, 1)), "x-run")
	})
	b.Run("world=demo100k", func(b *testing.B) {
		subj, base := ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
		a := New(subj.World, Options{Schedule: subj.Schedule})
		defer a.Close()
		stepSim(subj, a)
		stepSim(base, nil)
		if subj.World.Len() != base.World.Len() {
			b.Fatalf("the worlds differ before the loop: %d and %d entities", subj.World.Len(), base.World.Len())
		}
		var ts, tb time.Duration
		benchpair.Run(b, 1, "ns/frame", func() { ts += stepSim(subj, a) }, func() { tb += stepSim(base, nil) })
		reportTicks(b, ts, tb)
	})
}

// stepSim runs one frame of the demo's simulation and a's Sync (none when
// nil), as the demo's loop does, and reports its time.
func stepSim(s *ecosystem.Sim, a *Agent) time.Duration {
	start := time.Now()
	s.Step()
	if a != nil {
		a.Sync()
	}
	return time.Since(start)
}

// reportTicks reports the subject's ticks a second (ts its frames' time
// in all), the baseline's (tb), and their ratio.
func reportTicks(b *testing.B, ts, tb time.Duration) {
	b.ReportMetric(float64(time.Second)/(float64(ts)/float64(b.N)), "ticks/s")
	b.ReportMetric(float64(time.Second)/(float64(tb)/float64(b.N)), "baseline-ticks/s")
	b.ReportMetric(float64(tb)/float64(max(ts, 1)), "x-ticks/s")
}

// smallGame is a small fast game: 4,000 movers that steer by their heading
// (trigonometry each frame, as arche's bees do) and write their handle into
// the cell of a 128x128 grid resource they stand on (a collision grid, as
// donburi's platformer keeps), cells cleared as they leave.
type smallGame struct {
	w     *ecs.World
	sched *ecs.Schedule
	a     *Agent
	// runNs and syncNs sum the frames' schedule (with the tick) and
	// Sync: where the agent's cost falls.
	runNs, syncNs time.Duration
}

// smallGrid is the small game's grid of handles.
type smallGrid struct{ Cells []ecs.Entity }

func newSmallGame(tb testing.TB, agent bool) *smallGame {
	w := ecs.NewWorld()
	ecs.NewMap2[Position, Velocity](w).SpawnBatch(4000, func(i int, _ ecs.Entity, p *Position, v *Velocity) {
		p.X, p.Y = float64(i%64)*2, float64(i/64)*2
		v.X, v.Y = float64(i%7)*0.1, 1
	})
	ecs.SetResource(w, smallGrid{Cells: make([]ecs.Entity, 128*128)})
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position](), ecs.Mut[Velocity]())
	g := &smallGame{w: w, sched: ecs.NewSchedule()}
	g.sched.Add("steer", func(w *ecs.World, _ *ecs.Commands) {
		grid := ecs.Resource[smallGrid](w)
		it := move.Iter()
		for it.Next() {
			p, v := it.Get()
			cell := int(p.X)&127 + (int(p.Y)&127)*128
			if grid.Cells[cell] == it.Entity() {
				grid.Cells[cell] = ecs.Entity{}
			}
			heading := math.Atan2(v.Y, v.X) + 0.01*math.Sin(p.X*0.1)
			v.X, v.Y = math.Cos(heading), math.Sin(heading)
			p.X, p.Y = wrap(p.X+v.X), wrap(p.Y+v.Y)
			grid.Cells[int(p.X)&127+(int(p.Y)&127)*128] = it.Entity()
		}
		it.Close()
	}, ecs.Writes[Position](), ecs.Writes[Velocity](), ecs.Writes[smallGrid]())
	if agent {
		g.a = New(w, Options{Schedule: g.sched})
		tb.Cleanup(func() { g.a.Close() })
	}
	return g
}

// frame steps the small game once, as its loop would (the schedule, the
// tick, the agent's Sync), and reports its time.
func (g *smallGame) frame() time.Duration {
	start := time.Now()
	g.sched.Run(g.w)
	_ = g.w.Tick()
	mid := time.Now()
	g.runNs += mid.Sub(start)
	if g.a != nil {
		g.a.Sync()
		g.syncNs += time.Since(mid)
	}
	return time.Since(start)
}

// wrap keeps a coordinate on the 128-cell torus.
func wrap(x float64) float64 {
	switch {
	case x < 0:
		return x + 128
	case x >= 128:
		return x - 128
	}
	return x
}

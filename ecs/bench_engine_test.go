package ecs

import (
	"fmt"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

// Benchmarks of the engine layer: schedule, commands, events, journal and
// the inspector's field setter.

// slot[N] is a distinct component type for each tag type N.
type slot[N any] struct{ V float64 }

type (
	n0 struct{}
	n1 struct{}
	n2 struct{}
	n3 struct{}
	n4 struct{}
	n5 struct{}
	n6 struct{}
	n7 struct{}
	// chain is a resource the last four systems all write: they conflict.
	chain struct{ N int }
)

type (
	sc0 = slot[n0]
	sc1 = slot[n1]
	sc2 = slot[n2]
	sc3 = slot[n3]
	sc4 = slot[n4]
	sc5 = slot[n5]
	sc6 = slot[n6]
	sc7 = slot[n7]
)

//go:noinline
func scaleAll[N any](q *Query1[slot[N]]) {
	for c := range q.All() {
		c.V = c.V*1.0001 + 1
	}
}

func addScaler[N any](s *Schedule, w *World, name string, access ...Access) {
	q := NewQuery1[slot[N]](w, Mut[slot[N]]())
	s.Add(name, func(*World, *Commands) { scaleAll(q) }, append(access, Writes[slot[N]]())...)
}

// scheduleWorld: 100,000 entities, 8 systems; the first four independent,
// the last four conflicting through a shared resource.
func scheduleWorld(parallel bool) (*World, *Schedule) {
	w := NewWorld()
	const n = 100_000
	NewMap4[sc0, sc1, sc2, sc3](w).SpawnBatch(n, nil)
	ents := make([]Entity, 0, n)
	it := NewQuery1[sc0](w).Iter()
	for it.Next() {
		ents = append(ents, it.Entity())
	}
	more := NewMap4[sc4, sc5, sc6, sc7](w)
	for _, e := range ents {
		noErr(more.Add(e, sc4{}, sc5{}, sc6{}, sc7{}))
	}
	SetResource(w, chain{})
	s := NewSchedule()
	s.Parallel = parallel
	addScaler[n0](s, w, "s0")
	addScaler[n1](s, w, "s1")
	addScaler[n2](s, w, "s2")
	addScaler[n3](s, w, "s3")
	addScaler[n4](s, w, "s4", Writes[chain]())
	addScaler[n5](s, w, "s5", Writes[chain]())
	addScaler[n6](s, w, "s6", Writes[chain]())
	addScaler[n7](s, w, "s7", Writes[chain]())
	return w, s
}

func BenchmarkSchedule(b *testing.B) {
	for _, mode := range []string{"parallel", "sequential"} {
		b.Run("mode="+mode, func(b *testing.B) {
			w, s := scheduleWorld(mode == "parallel")
			b.ReportAllocs()
			for b.Loop() {
				s.Run(w)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/frame")
		})
	}
	b.Run("mode=empty", func(b *testing.B) {
		w := NewWorld()
		s := NewSchedule()
		for i := range 8 {
			s.Add(fmt.Sprint("empty", i), func(*World, *Commands) {})
		}
		b.ReportAllocs()
		for b.Loop() {
			s.Run(w)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8, "ns/system-overhead")
	})
}

//go:noinline
func queuedSpawnDespawn(w *World, c *Commands, ents []Entity) {
	for i := range ents {
		ents[i] = c.Spawn()
	}
	noErr(c.Apply())
	for _, e := range ents {
		c.Despawn(e)
	}
	noErr(c.Apply())
}

//go:noinline
func directSpawnDespawn(w *World, ents []Entity) {
	for i := range ents {
		ents[i] = w.Spawn()
	}
	for _, e := range ents {
		noErr(w.Despawn(e))
	}
}

// BenchmarkCommands queues n spawns and applies them, then n despawns: ns
// per command. BenchmarkCommandsDirect does the same directly.
func BenchmarkCommands(b *testing.B) {
	const n = 100_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		w := NewWorld()
		c := w.NewCommands("bench")
		ents := make([]Entity, n)
		queuedSpawnDespawn(w, c, ents) // warm: storage grown
		b.ReportAllocs()
		for b.Loop() {
			queuedSpawnDespawn(w, c, ents)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/command")
	})
}

// BenchmarkCommandsDirect is BenchmarkCommands without the buffer.
func BenchmarkCommandsDirect(b *testing.B) {
	const n = 100_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		w := NewWorld()
		ents := make([]Entity, n)
		directSpawnDespawn(w, ents)
		b.ReportAllocs()
		for b.Loop() {
			directSpawnDespawn(w, ents)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*n), "ns/command")
	})
}

type hit struct {
	Target Entity
	Damage float32
}

//go:noinline
func sendAndRead(w *World, q *Events[hit], n int) float32 {
	for i := range n {
		q.Send(hit{Target: EntityOf(uint32(i), 1), Damage: 1})
	}
	var sum float32
	for ev := range q.All() {
		sum += ev.Damage
	}
	q.swap()
	return sum
}

// BenchmarkEvents sends and reads 1M small events per frame.
func BenchmarkEvents(b *testing.B) {
	const n = 1_000_000
	w := NewWorld()
	q := EventsOf[hit](w)
	sendAndRead(w, q, n)
	sendAndRead(w, q, n) // both buffers grown
	b.ReportAllocs()
	for b.Loop() {
		sendAndRead(w, q, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/event")
}

// BenchmarkJournal spawns and despawns 1M entities with the journal on
// (a 4096-entry ring) and off.
func BenchmarkJournal(b *testing.B) {
	const n = 1_000_000
	for _, on := range []bool{true, false} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			w := NewWorld()
			if on {
				w.Inspect().EnableJournal(4096)
			}
			ents := make([]Entity, n)
			directSpawnDespawn(w, ents)
			b.ReportAllocs()
			for b.Loop() {
				directSpawnDespawn(w, ents)
			}
			perEntity(b, n)
		})
	}
}

func BenchmarkSetFieldByPath(b *testing.B) {
	w := NewWorld()
	e := NewMap2[Position, Stats](w).Spawn(Position{}, Stats{})
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Inspect().SetField(e, "Position.X", 3.5); err != nil {
			b.Fatal(err)
		}
	}
}

// paired is benchpair.Run: subject against baseline, interleaved.
func paired(b *testing.B, per float64, unit string, subject, baseline func()) {
	benchpair.Run(b, per, unit, subject, baseline)
}

// BenchmarkJournalPaired is BenchmarkJournal/on against /off, interleaved.
func BenchmarkJournalPaired(b *testing.B) {
	const n = 1_000_000
	on, off := NewWorld(), NewWorld()
	on.Inspect().EnableJournal(4096)
	ents := make([]Entity, n)
	directSpawnDespawn(on, ents)
	directSpawnDespawn(off, ents)
	paired(b, n, "ns/entity", func() { directSpawnDespawn(on, ents) }, func() { directSpawnDespawn(off, ents) })
}

// BenchmarkCommandsPaired is BenchmarkCommands against
// BenchmarkCommandsDirect, interleaved.
func BenchmarkCommandsPaired(b *testing.B) {
	const n = 100_000
	queued, direct := NewWorld(), NewWorld()
	c := queued.NewCommands("bench")
	ents := make([]Entity, n)
	queuedSpawnDespawn(queued, c, ents)
	directSpawnDespawn(direct, ents)
	paired(b, 2*n, "ns/command", func() { queuedSpawnDespawn(queued, c, ents) }, func() { directSpawnDespawn(direct, ents) })
}

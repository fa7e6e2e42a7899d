package docexample_test

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/ecs"
)

type Position struct{ X, Y float64 }
type Velocity struct{ X, Y float64 }
type Health struct{ HP int }

// Fleeing is toggled often: sparse storage never moves table rows.
type Fleeing struct{}

func (Fleeing) Storage() ecs.StorageKind { return ecs.SparseStorage }

// The kernel's tour, as docs/KERNEL.md shows it.
func Example_kernelTour() {
	var targets []ecs.Entity
	w := ecs.NewWorld()
	movers := ecs.NewMap2[Position, Velocity](w)
	e := movers.Spawn(Position{}, Velocity{X: 1})
	movers.SpawnBatch(100_000, func(i int, e ecs.Entity, p *Position, v *Velocity) { v.Y = 1 })
	// The same, a block of up to 256 at a time: your loop, no call per entity.
	movers.SpawnBatchColumns(100_000, func(first int, es []ecs.Entity, ps []Position, vs []Velocity) {
		for i := range vs {
			vs[i].Y = 1
		}
	})
	// One component alone: Map has Spawn and SpawnBatch too.
	health := ecs.NewMap[Health](w)
	health.SpawnBatch(1000, func(i int, e ecs.Entity, h *Health) { h.HP = 100 })
	// Many handles at once (a list of targets, say): one loop in the kernel,
	// the loads of the entities overlapping. nil where a handle lacks Health.
	hs := health.ReadAll(targets, nil)
	// A handle you know is alive with Health: At compiles into your loop (no
	// call per lookup) and panics where Read would say nil, as ark's Get does.
	// It is the way to read by handle: Read for a handle that may be dead,
	// Get to write through the pointer where Changed and the inspector's
	// "written by" should see it (docs/PORTING.md has the figures).
	total := 0
	for _, e := range targets {
		total += health.At(e).HP
	}
	// A spawn loop of your own grows nothing if the room is made first;
	// ecs.NewWorld(ecs.Capacity(n)) makes room for n rows in every table it makes.
	w.Reserve(50_000, ecs.ComponentIDOf[Position](w), ecs.ComponentIDOf[Velocity](w))
	fmt.Println(e, len(hs), total)

	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position](), ecs.Without[Fleeing]())
	for p, v := range move.All() { // the fastest loop: compiles to a plain slice loop
		p.X += v.X
		p.Y += v.Y
	}

	moved := ecs.NewQuery1[Position](w, ecs.Changed[Position]())
	it := moved.Iter() // Next/Get/Entity when the body needs the handle
	for it.Next() {
		fmt.Println(it.Entity(), *it.Get()) // e.g. 42v3 {1 1}
	}
}

// The README's first kernel lines.
func Example_readme() {
	w := ecs.NewWorld()
	movers := ecs.NewMap2[Position, Velocity](w)
	movers.SpawnBatch(100_000, func(i int, e ecs.Entity, p *Position, v *Velocity) { v.Y = 1 })
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position](), ecs.Without[Fleeing]())
	for p, v := range move.All() { // compiles to a plain slice loop
		p.X += v.X
	}
}

type Asleep struct{}
type Dead struct{}

// Batch operations, as docs/KERNEL.md shows them.
func Example_batches() {
	w := ecs.NewWorld()
	pos, vel := ecs.ComponentIDOf[Position](w), ecs.ComponentIDOf[Velocity](w)
	asleep, dead := ecs.ComponentIDOf[Asleep](w), ecs.ComponentIDOf[Dead](w)
	still := ecs.Filter{With: []ecs.ComponentID{pos}, Without: []ecs.ComponentID{vel}}

	velocity := ecs.NewMap[Velocity](w)
	n, err := velocity.AddWhere(still, Velocity{X: 1}) // the same value for all
	n, err = velocity.AddWhereFunc(still, func(e ecs.Entity, v *Velocity) { v.Y = 2 })
	n, err = velocity.RemoveWhere(ecs.Filter{With: []ecs.ComponentID{vel}})
	n, err = w.ExchangeWhere(still, []ecs.ComponentID{vel}, []ecs.ComponentID{asleep}) // add some, remove some, one move
	n = w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{dead}})
	fmt.Println(n, err)
	cmds, f := w.NewCommands("tool"), still
	add, remove := []ecs.ComponentID{vel}, []ecs.ComponentID{asleep}

	cmds.DespawnWhere(f) // from a system: queued, applied at the stage's end
	cmds.ExchangeWhere(f, add, remove)
}

type Energy struct{ Value float64 }
type Died struct{ Who ecs.Entity }

// A schedule of stages, as docs/KERNEL.md shows it.
func Example_schedule() {
	w := ecs.NewWorld()
	running := false
	move := func(w *ecs.World, c *ecs.Commands) {}
	hunger, report := move, move
	s := ecs.NewSchedule()
	s.Add("movement", move, ecs.Reads[Velocity](), ecs.Writes[Position]())
	s.Add("hunger", hunger, ecs.Writes[Energy](), ecs.Writes[Died]()) // runs beside movement
	s.AddStage("late")
	s.Add("reporter", report, ecs.Reads[Died]())

	for running {
		s.Run(w) // stages in order; non-conflicting systems in parallel
		w.Tick() // apply the world's command buffer, swap event queues, frame++
	}
}

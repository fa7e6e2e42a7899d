package ecs_test

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/ecs"
)

type Position struct{ X, Y float64 }
type Velocity struct{ X, Y float64 }
type Energy struct{ Value float64 }
type Health struct{ HP int }

// Starved is an event: sent by the hunger system, read by the reporter.
type Starved struct{ Who ecs.Entity }

// Clock is a resource.
type Clock struct{ Frame int }

// Example shows a complete small game loop: components, a spawn, a schedule
// of systems with declared access, a command buffer, an event and a resource.
func Example() {
	w := ecs.NewWorld()
	ecs.SetResource(w, Clock{})
	spawn := ecs.NewMap3[Position, Velocity, Energy](w)
	for i := range 3 {
		spawn.Spawn(Position{}, Velocity{X: 1, Y: float64(i)}, Energy{Value: float64(2 + i)})
	}
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
	burn := ecs.NewQuery1[Energy](w, ecs.Mut[Energy]())
	starved := ecs.EventsOf[Starved](w)

	s := ecs.NewSchedule()
	s.Add("movement", func(w *ecs.World, _ *ecs.Commands) {
		for p, v := range move.All() {
			p.X += v.X
			p.Y += v.Y
		}
	}, ecs.Reads[Velocity](), ecs.Writes[Position]())
	s.Add("hunger", func(w *ecs.World, cmds *ecs.Commands) {
		it := burn.Iter()
		for it.Next() {
			e := it.Get()
			if e.Value--; e.Value <= 0 {
				starved.Send(Starved{Who: it.Entity()})
				cmds.Despawn(it.Entity()) // structural: queued, applied after the stage
			}
		}
	}, ecs.Writes[Energy](), ecs.Writes[Starved]())
	s.AddStage("report")
	s.Add("reporter", func(w *ecs.World, _ *ecs.Commands) {
		clock := ecs.Resource[Clock](w)
		clock.Frame++
		for ev := range starved.All() {
			fmt.Printf("frame %d: %v starved\n", clock.Frame, ev.Who)
		}
	}, ecs.Reads[Starved](), ecs.Writes[Clock]())

	for range 4 {
		s.Run(w)
		w.Tick()
	}
	fmt.Println("alive:", w.Len())
	// Output:
	// frame 2: 0v1 starved
	// frame 3: 0v1 starved
	// frame 3: 1v1 starved
	// frame 4: 1v1 starved
	// frame 4: 2v1 starved
	// alive: 0
}

// ExampleQuery2_All shows the fastest loop over a query.
func ExampleQuery2_All() {
	w := ecs.NewWorld()
	ecs.NewMap2[Position, Velocity](w).Spawn(Position{}, Velocity{X: 2})
	q := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
	for p, v := range q.All() {
		p.X += v.X
	}
	for p := range ecs.NewQuery1[Position](w).All() {
		fmt.Println(p.X)
	}
	// Output: 2
}

// ExampleWorld_SetField shows the inspector's way to edit a value.
func ExampleInspection_SetField() {
	w := ecs.NewWorld()
	e := ecs.NewMap2[Position, Energy](w).Spawn(Position{}, Energy{})
	fmt.Println(w.Inspect().SetField(e, "Position.X", 3.5))
	fmt.Println(w.Inspect().SetField(e, "Position.Z", 1))
	fmt.Println(w.Inspect().SetField(e, "Energy.Value", "abc"))
	// Output:
	// <nil>
	// ecs: component Position has no field Z
	// ecs: Energy.Value wants a number, got "abc"
}

// ExampleMap_SpawnBatch spawns entities with one component, values set as
// they are made.
func ExampleMap_SpawnBatch() {
	w := ecs.NewWorld()
	health := ecs.NewMap[Health](w)
	first := health.Spawn(Health{HP: 1})
	health.SpawnBatch(3, func(i int, _ ecs.Entity, h *Health) { h.HP = 10 * (i + 1) })
	total := 0
	for h := range ecs.NewQuery1[Health](w).All() {
		total += h.HP
	}
	fmt.Println(health.Len(), health.Get(first).HP, total)
	// Output: 4 1 61
}

// A world sized ahead: each table makes room for 10,000 rows when it is
// made, so filling it grows nothing.
func ExampleCapacity() {
	w := ecs.NewWorld(ecs.Capacity(10_000))
	movers := ecs.NewMap2[Position, Velocity](w)
	for i := range 10_000 {
		movers.Spawn(Position{X: float64(i)}, Velocity{Y: 1})
	}
	fmt.Println(w.Len())
	// Output: 10000
}

// ExampleMap_At reads by handle where the handles are known to be alive
// with the component: no call per lookup, and a panic (as ark's Get) where
// Read would say nil.
func ExampleMap_At() {
	w := ecs.NewWorld()
	health := ecs.NewMap[Health](w)
	var targets []ecs.Entity
	for hp := range 4 {
		targets = append(targets, health.Spawn(Health{HP: 10 * hp}))
	}
	total := 0
	for _, e := range targets {
		total += health.At(e).HP
	}
	fmt.Println(total)
	// Output: 60
}

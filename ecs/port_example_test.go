package ecs_test

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// The worked port of docs/PORTING.md: bees fly to the flower they work
// at; a flower that runs out is despawned, and its bees lose the relation.
type (
	Spot    struct{ X, Y float64 }
	Nectar  struct{ Left float64 }
	WorksAt struct{ ecs.Relation }
)

func Example_port() {
	w := ecs.NewWorld()
	s := ecs.NewSchedule()
	bees := ecs.NewQuery2[Spot, WorksAt](w, ecs.Mut[Spot]())
	spots := ecs.NewMap[Spot](w)
	flowers := ecs.NewQuery1[Nectar](w, ecs.Mut[Nectar]())

	s.Add("fly", func(w *ecs.World, _ *ecs.Commands) {
		for pos, works := range bees.All() {
			fp := spots.Read(works.Target()) // a despawned flower took the relation with it: no zero check
			pos.X += (fp.X - pos.X) * 0.1
			pos.Y += (fp.Y - pos.Y) * 0.1
		}
	}, ecs.Writes[Spot](), ecs.Reads[WorksAt]())

	s.Add("harvest", func(w *ecs.World, c *ecs.Commands) {
		for it := flowers.Iter(); it.Next(); {
			n := it.Get()
			if n.Left -= 0.01; n.Left <= 0 {
				c.Despawn(it.Entity()) // applies when the stage ends; its bees lose WorksAt then
			}
		}
	}, ecs.Writes[Nectar]())

	plants := ecs.NewMap2[Spot, Nectar](w)
	rich, poor := plants.Spawn(Spot{X: 10}, Nectar{Left: 1}), plants.Spawn(Spot{Y: 10}, Nectar{Left: 0.05})
	workers := ecs.NewMap2[Spot, WorksAt](w)
	workers.To(rich).SpawnBatch(400, nil)
	workers.To(poor).SpawnBatch(100, nil)
	works := ecs.NewRel[WorksAt](w)
	for range 10 {
		s.Run(w)
		if err := w.Tick(); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("bees at the rich flower:", works.Count(rich), "at the poor one:", works.Count(poor), "alive:", w.Alive(poor))
	fmt.Println("bees still working:", bees.Count())
	// Output:
	// bees at the rich flower: 400 at the poor one: 0 alive: false
	// bees still working: 400
}

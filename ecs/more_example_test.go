package ecs_test

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// A schedule runs systems in stages; systems that declare no conflicting
// access run in parallel, and every run is timed.
func ExampleSchedule() {
	w := ecs.NewWorld()
	spawn := ecs.NewMap2[Position, Velocity](w)
	spawn.Spawn(Position{}, Velocity{X: 1})
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())

	s := ecs.NewSchedule()
	s.Add("movement", func(w *ecs.World, _ *ecs.Commands) {
		for p, v := range move.All() {
			p.X += v.X
		}
	}, ecs.Reads[Velocity](), ecs.Writes[Position]())
	for range 3 {
		s.Run(w)
		must(w.Tick())
	}
	for _, si := range s.Systems() {
		fmt.Println(si.Name, si.Count, "runs")
	}
	for p := range ecs.NewQuery1[Position](w).All() {
		fmt.Println("x =", p.X)
	}
	// Output:
	// movement 3 runs
	// x = 3
}

// Structural changes inside a system go through a command buffer, applied
// in order after the stage; the world's own buffer applies at Tick.
func ExampleCommands() {
	w := ecs.NewWorld()
	c := w.NewCommands("spawner")
	e := c.Spawn()
	ecs.AddLater(c, e, Position{X: 5})
	fmt.Println("before Apply:", w.Len(), "entities")
	must(c.Apply())
	p := ecs.NewMap[Position](w).Read(e)
	fmt.Println("after Apply:", w.Len(), "entity at x =", p.X)
	// Output:
	// before Apply: 0 entities
	// after Apply: 1 entity at x = 5
}

// Events are double-buffered: readable the frame they are sent and the
// next, then gone.
func ExampleEventsOf() {
	w := ecs.NewWorld()
	starved := ecs.EventsOf[Starved](w)
	starved.Send(Starved{Who: w.Spawn()})
	for frame := range 3 {
		fmt.Println("frame", frame, "sees", starved.Len(), "event(s)")
		must(w.Tick())
	}
	// Output:
	// frame 0 sees 1 event(s)
	// frame 1 sees 1 event(s)
	// frame 2 sees 0 event(s)
}

// Relations: SetParent makes hierarchies; Despawn orphans the children,
// DespawnRecursive takes the subtree.
func ExampleWorld_SetParent() {
	w := ecs.NewWorld()
	leader, a, b := w.Spawn(), w.Spawn(), w.Spawn()
	must(w.SetParent(a, leader))
	must(w.SetParent(b, leader))
	fmt.Println("children of", leader, w.Children(leader))
	p, _ := w.Parent(a)
	fmt.Println("parent of", a, p)
	must(w.DespawnRecursive(leader))
	fmt.Println("alive after DespawnRecursive:", w.Len())
	// Output:
	// children of 0v1 [1v1 2v1]
	// parent of 1v1 0v1
	// alive after DespawnRecursive: 0
}

// must stops an example on an error from the code it shows.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// HomeHive is a relation: a bee's hive.
type HomeHive struct{ ecs.Relation }

func ExampleRel() {
	w := ecs.NewWorld()
	home := ecs.NewRel[HomeHive](w)
	hive, other := w.Spawn(), w.Spawn()
	bee := w.Spawn()
	must(home.Add(bee, hive, HomeHive{}))
	flyers := ecs.NewMap2[HomeHive, Position](w).To(hive)
	flyers.Spawn(HomeHive{}, Position{X: 1})
	fmt.Println(home.Count(hive), "bees at the hive")
	must(home.SetTarget(bee, other))
	q := ecs.NewQuery1[Position](w)
	n := 0
	for range q.AllOf(home.Of(hive)) {
		n++
	}
	fmt.Println(n, "with a position still there;", home.Count(other), "moved")
	must(w.Despawn(other))
	_, ok := home.Target(bee)
	fmt.Println("after its hive is gone, the bee has one:", ok)
	// Output:
	// 2 bees at the hive
	// 1 with a position still there; 1 moved
	// after its hive is gone, the bee has one: false
}

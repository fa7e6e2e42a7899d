package ecs_test

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// Asleep marks entities that skip movement.
type Asleep struct{}

// ExampleWorld_ExchangeWhere changes every entity a filter passes at once:
// a value for all, a component exchanged for another, a despawn.
func ExampleWorld_ExchangeWhere() {
	w := ecs.NewWorld()
	movers := ecs.NewMap2[Position, Velocity](w)
	movers.SpawnBatch(3, nil)
	still := ecs.NewMap[Position](w)
	still.SpawnBatch(2, nil)
	pos, vel, asleep := ecs.ComponentIDOf[Position](w), ecs.ComponentIDOf[Velocity](w), ecs.ComponentIDOf[Asleep](w)

	// Entities with a Position and no Velocity get one, each the same.
	n, err := ecs.NewMap[Velocity](w).AddWhere(ecs.Filter{With: []ecs.ComponentID{pos}, Without: []ecs.ComponentID{vel}}, Velocity{X: 1})
	fmt.Println(n, err)
	// Every mover falls asleep: Velocity goes, Asleep comes, one move a table.
	n, err = w.ExchangeWhere(ecs.Filter{With: []ecs.ComponentID{vel}}, []ecs.ComponentID{asleep}, []ecs.ComponentID{vel})
	fmt.Println(n, err)
	// And the sleepers go.
	fmt.Println(w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{asleep}}), w.Len())
	// Output:
	// 2 <nil>
	// 5 <nil>
	// 5 0
}

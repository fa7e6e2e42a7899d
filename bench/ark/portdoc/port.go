package portdoc

import "github.com/mlange-42/ark/ecs"

// Game holds the ark world and its filters, as the page's snippet uses
// them.
type Game struct {
	world        *ecs.World
	beeFilter    *ecs.Filter2[Spot, WorksAt]
	flowerFilter *ecs.Filter1[Nectar]
	spots        *ecs.Map1[Spot]
}

// ark
// Spot is where a bee or a flower is.
type Spot struct{ X, Y float64 }

// Nectar is what a flower has left.
type Nectar struct{ Left float64 }

// WorksAt is a bee's relation to its flower.
type WorksAt struct{ ecs.RelationMarker }

// Step runs the two systems the page shows.
func (g *Game) Step() {
	g.fly()
	g.harvest()
}

func (g *Game) fly() {
	q := g.beeFilter.Query() // NewFilter2[Spot, WorksAt]
	for q.Next() {
		pos, _ := q.Get()
		flower := q.GetRelation(0)
		if flower.IsZero() {
			continue // the flower was removed: target reset to zero
		}
		fp := g.spots.Get(flower)
		pos.X += (fp.X - pos.X) * 0.1
		pos.Y += (fp.Y - pos.Y) * 0.1
	}
}

func (g *Game) harvest() {
	var empty []ecs.Entity
	q := g.flowerFilter.Query() // NewFilter1[Nectar]
	for q.Next() {
		n := q.Get()
		if n.Left -= 0.01; n.Left <= 0 {
			empty = append(empty, q.Entity())
		}
	}
	for _, f := range empty {
		g.world.RemoveEntity(f)
	}
}

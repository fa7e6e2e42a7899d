package bees

import (
	"math"
	"math/rand/v2"
)

// The demo's parameters (arche-demo's bees/run.go), screen and all.
const (
	width, height    = 880, 480
	cellSize         = 10
	hiveCount        = 2
	patchCount       = 12
	releaseInterval  = 8
	releaseCount     = 8
	scoutProbability = 0.1
	danceSamples     = 2
	scoutRotation    = 90
	maxScoutTime     = 1500
	followRotation   = 45
	followScoutProb  = 0.2
	maxForagingTime  = 120
	maxCollect       = 0.001
	returnRotation   = 45
	maxDanceProb     = 0.5
	minDance         = 60
	maxDance         = 600
	maxBeeSpeed      = 1.0
)

// pos is a point or a direction.
type pos struct{ X, Y float64 }

// dance is a waggle dance a hive's idle bees may follow.
type dance struct {
	Target  pos
	Benefit float64
}

// grid maps cells to patch entities, as the demo's Patches resource does.
type grid[E comparable] struct {
	cols, rows int
	cells      [][]E
}

func newGrid[E comparable]() *grid[E] {
	cols, rows := (width+cellSize-1)/cellSize, (height+cellSize-1)/cellSize
	g := &grid[E]{cols: cols, rows: rows, cells: make([][]E, cols)}
	for i := range g.cells {
		g.cells[i] = make([]E, rows)
	}
	return g
}

func toCell(x, y float64) (int, int) { return int(x / cellSize), int(y / cellSize) }

func toCellCenter(x, y float64) (float64, float64) {
	return (math.Floor(x/cellSize) + 0.5) * cellSize, (math.Floor(y/cellSize) + 0.5) * cellSize
}

func norm(dx, dy float64) (float64, float64) {
	l := math.Sqrt(dx*dx + dy*dy)
	if l == 0 {
		return 0, 0
	}
	return dx / l, dy / l
}

func rotate(x, y, angle float64) (float64, float64) {
	sin, cos := math.Sincos(angle)
	return cos*x - sin*y, sin*x + cos*y
}

func distance(a, b pos) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// turn is a random rotation within half of maxDeg either way.
func turn(rng *rand.Rand, maxDeg float64) float64 {
	maxAng := (maxDeg * math.Pi / 180) / 2
	return rng.Float64()*2*maxAng - maxAng
}

// selectDance picks the best of danceSamples random dances.
func selectDance(rng *rand.Rand, dances []dance) (dance, bool) {
	var best dance
	most := -1.0
	for range danceSamples {
		d := dances[rng.IntN(len(dances))]
		if d.Benefit > most {
			best, most = d, d.Benefit
		}
	}
	return best, most >= 0
}

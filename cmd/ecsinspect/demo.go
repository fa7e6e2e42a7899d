package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// Components of the kernel demo: grazers wander, eat and starve; grazers that
// eat enough give birth, so entities are spawned and despawned every frame.
type (
	position struct{ X, Y float64 }
	velocity struct{ X, Y float64 }
	energy   struct{ Value float64 }
	// hungry is a sparse tag toggled as energy crosses a threshold.
	hungry struct{}
)

func (hungry) Storage() ecs.StorageKind { return ecs.SparseStorage }

type demoWorld struct {
	w      *ecs.World
	spawn  *ecs.Map3[position, velocity, energy]
	hungry *ecs.Map[hungry]
	pos    *ecs.Map[position]
	move   *ecs.Query2[position, velocity]
	burn   *ecs.Query1[energy]
	rng    *rand.Rand
	births int
	deaths int
}

const worldSize = 1000.0

func newDemoWorld(n int, seed uint64) *demoWorld {
	d := &demoWorld{w: ecs.NewWorld(), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	d.spawn = ecs.NewMap3[position, velocity, energy](d.w)
	d.hungry = ecs.NewMap[hungry](d.w)
	d.pos = ecs.NewMap[position](d.w)
	d.move = ecs.NewQuery2[position, velocity](d.w, ecs.Write[position]())
	d.burn = ecs.NewQuery1[energy](d.w, ecs.Write[energy]())
	d.spawn.SpawnBatch(n, func(_ int, _ ecs.Entity, p *position, v *velocity, e *energy) {
		*p = position{d.rng.Float64() * worldSize, d.rng.Float64() * worldSize}
		*v = velocity{d.rng.NormFloat64() * 20, d.rng.NormFloat64() * 20}
		e.Value = 1 + d.rng.Float64()*118
	})
	return d
}

// step advances the simulation by dt seconds.
func (d *demoWorld) step(dt float64) {
	for p, v := range d.move.All() {
		p.X += v.X * dt
		p.Y += v.Y * dt
		if p.X < 0 || p.X > worldSize {
			v.X = -v.X
		}
		if p.Y < 0 || p.Y > worldSize {
			v.Y = -v.Y
		}
	}
	var dead, parents, hungryFlip []ecs.Entity
	it := d.burn.Iter()
	for it.Next() {
		e := it.Get()
		e.Value += (d.rng.Float64() - 0.505) * 300 * dt
		switch ent := it.Entity(); {
		case e.Value <= 0:
			dead = append(dead, ent)
		case e.Value > 120:
			e.Value -= 60
			parents = append(parents, ent)
		case (e.Value < 20) != d.hungry.Has(ent):
			hungryFlip = append(hungryFlip, ent)
		}
	}
	for _, e := range hungryFlip {
		if d.hungry.Has(e) {
			_ = d.hungry.Remove(e)
		} else {
			_ = d.hungry.Add(e, hungry{})
		}
	}
	for _, e := range dead {
		_ = d.w.Despawn(e)
		d.deaths++
	}
	for _, e := range parents {
		p := *d.pos.Read(e)
		d.spawn.Spawn(p, velocity{d.rng.NormFloat64() * 20, d.rng.NormFloat64() * 20}, energy{Value: 60})
		d.births++
	}
}

func runDemo(args []string, out io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	entities := fs.Int("entities", 10_000, "entities to start with (100 to 1000000)")
	hz := fs.Float64("hz", 60, "simulation steps per second")
	frames := fs.Int("frames", 0, "stop after this many frames (0: run until Ctrl-C)")
	seed := fs.Uint64("seed", 1, "random seed; the same seed replays the same run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *entities < 100 || *entities > 1_000_000 {
		return fmt.Errorf("--entities %d: want 100 to 1000000", *entities)
	}
	if *hz <= 0 || *hz > 1000 {
		return fmt.Errorf("--hz %v: want more than 0, at most 1000", *hz)
	}
	d := newDemoWorld(*entities, *seed)
	dt := 1 / *hz
	ticker := time.NewTicker(time.Duration(float64(time.Second) * dt))
	defer ticker.Stop()
	fmt.Fprintf(out, "ecsinspect demo: %d grazers at %g Hz (Ctrl-C to stop)\n", *entities, *hz)
	var frame int
	var busy time.Duration
	lastReport := time.Now()
	framesSince := 0
	for *frames == 0 || frame < *frames {
		select {
		case <-stop:
			fmt.Fprintln(out)
			return nil
		case <-ticker.C:
		}
		start := time.Now()
		d.step(dt)
		busy += time.Since(start)
		frame++
		framesSince++
		if time.Since(lastReport) >= time.Second || (*frames != 0 && frame == *frames) {
			fmt.Fprintf(out, "tick %-7d entities %-8d hungry %-7d births %-7d deaths %-7d frame %v\n",
				frame, d.w.Len(), d.hungry.Len(), d.births, d.deaths, (busy / time.Duration(framesSince)).Round(time.Microsecond))
			busy, framesSince, lastReport = 0, 0, time.Now()
		}
	}
	return nil
}

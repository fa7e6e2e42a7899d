package ecosystem

import (
	"math"
	"math/rand/v2"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// spatialIndex is the resource type the spatial system declares it writes.
type spatialIndex struct{}

// build registers the systems with their declared access. Each system that
// draws random numbers has its own generator in the Dice resource, seeded
// from the run's seed, so a run replays exactly whatever runs in parallel,
// and a rewound run replays what it did.
func (s *Sim) build(seed uint64) {
	w := s.World
	sc := ecs.NewSchedule()
	s.Schedule = sc
	ecs.SetResource(w, newDice(seed))
	dice := ecs.Resource[Dice](w) // the resource stays where it is: a restore writes into it
	herbs := ecs.NewQuery2[Position, Velocity](w, ecs.With[Herbivore]())
	preds := ecs.NewQuery2[Position, Velocity](w, ecs.With[Predator]())
	grazers := ecs.NewQuery2[Position, Energy](w, ecs.With[Herbivore](), ecs.Mut[Energy]())
	members := ecs.NewQuery3[Position, Velocity, ecs.ChildOf](w, ecs.Mut[Velocity]())
	leaders := ecs.NewQuery2[Position, Velocity](w, ecs.With[Predator](), ecs.Without[ecs.ChildOf](), ecs.Mut[Velocity]())
	fleeing := ecs.NewQuery2[Position, Velocity](w, ecs.With[Herbivore](), ecs.Mut[Velocity]())
	movers := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
	hungry := ecs.NewQuery3[Energy, Age, Predator](w, ecs.Optional[Predator](), ecs.Mut[Energy](), ecs.Mut[Age]())
	parents := ecs.NewQuery3[Position, Energy, Predator](w, ecs.Optional[Predator](), ecs.Mut[Energy]())
	born, eaten, died := ecs.EventsOf[Born](w), ecs.EventsOf[Eaten](w), ecs.EventsOf[Died](w)
	_ = born
	herbTag, predTag := ecs.NewMap[Herbivore](w), ecs.NewMap[Predator](w)
	energy := ecs.NewMap[Energy](w)
	dt := func() float32 { return s.Dt }

	sc.Add("spatial", func(w *ecs.World, _ *ecs.Commands) {
		cells := int(s.side / cellSize)
		s.space.cells = cells
		s.space.herb.fill(cells, herbs)
		s.space.pred.fill(cells, preds)
	}, ecs.Reads[Position](), ecs.Reads[Herbivore](), ecs.Reads[Predator](), ecs.Writes[spatialIndex]())

	sc.Add("regrowth", func(w *ecs.World, _ *ecs.Commands) {
		g := ecs.Resource[Grid](w)
		for i := range g.Grass {
			g.Grass[i] = min(g.Grass[i]+grassGrowth*dt(), 1)
		}
	}, ecs.Writes[Grid]())

	bugRng := rand.New(&dice.Bug) // the starve bug's own: the simulation's draws are the same with it on or off
	sc.Add("grazing", func(w *ecs.World, _ *ecs.Commands) {
		g := ecs.Resource[Grid](w)
		victim := -1 // the starve bug: about every two seconds, one grazer
		if s.bug == "starve" && bugRng.IntN(120) == 0 {
			victim = bugRng.IntN(max(w.Len()/2, 1))
		}
		i := 0
		for p, e := range grazers.All() {
			c := cellOf(p.Y, g.Size, g.Cells)*g.Cells + cellOf(p.X, g.Size, g.Cells)
			bite := min(g.Grass[c], grazeRate*dt())
			g.Grass[c] -= bite
			e.Value += bite * grassEnergy
			if i == victim {
				e.Value = -40 // the bug: no legitimate system writes below zero by more than a frame's hunger
			}
			i++
		}
	}, ecs.Reads[Position](), ecs.Reads[Herbivore](), ecs.Writes[Energy](), ecs.Writes[Grid]())

	fleeRng := rand.New(&dice.Flee)
	sc.Add("fleeing", func(w *ecs.World, cmds *ecs.Commands) {
		s.fleeSearch()
		k := 0
		for it := fleeing.Iter(); it.Next(); k++ {
			p, v := it.Get()
			e := it.Entity()
			var from ecs.Entity
			var bx, by, best float32
			if o, indexed := s.space.fleeing(k, e); !indexed { // the herbivores changed since the spatial index: ask one by one
				from, bx, by, best = s.nearest(&s.space.pred, p.X, p.Y, fleeRadius, nil)
			} else if o != nil {
				// The spatial index's search, from the same positions:
				// the offset computed again is the one it compared.
				from, bx, by = o.e, torusDelta(p.X, o.x, s.side), torusDelta(p.Y, o.y, s.side)
				best = bx*bx + by*by
			}
			running := s.flee.Has(e)
			switch {
			case !from.IsZero():
				n := float32(math.Sqrt(float64(best))) + 1e-3
				v.X, v.Y = -bx/n*fleeSpeed, -by/n*fleeSpeed
				if !running {
					ecs.AddLater(cmds, e, Fleeing{From: from})
				}
			case running:
				ecs.RemoveLater[Fleeing](cmds, e)
				a := fleeRng.Float64() * 2 * math.Pi
				v.X, v.Y = float32(math.Cos(a))*herbSpeed, float32(math.Sin(a))*herbSpeed
			case fleeRng.IntN(120) == 0: // wander
				a := fleeRng.Float64() * 2 * math.Pi
				v.X, v.Y = float32(math.Cos(a))*herbSpeed, float32(math.Sin(a))*herbSpeed
			}
		}
	}, ecs.Reads[Position](), ecs.Reads[Herbivore](), ecs.Reads[spatialIndex](), ecs.Writes[Velocity](), ecs.Writes[Fleeing]())

	huntRng := rand.New(&dice.Hunt)
	sc.Add("hunting", func(w *ecs.World, cmds *ecs.Commands) {
		taken := map[ecs.Entity]bool{}
		stats := ecs.Resource[Stats](w)
		for it := leaders.Iter(); it.Next(); {
			p, v := it.Get()
			hunter := it.Entity()
			prey, bx, by, best := s.nearest(&s.space.herb, p.X, p.Y, huntRadius, taken)
			switch {
			case prey.IsZero():
				if huntRng.IntN(90) == 0 {
					a := huntRng.Float64() * 2 * math.Pi
					v.X, v.Y = float32(math.Cos(a))*predSpeed, float32(math.Sin(a))*predSpeed
				}
			case best < catchRadius*catchRadius:
				taken[prey] = true
				cmds.Despawn(prey)
				eaten.Send(Eaten{Prey: prey, Predator: hunter})
				stats.Eaten++
				if e := energy.Read(hunter); e != nil {
					ecs.SetLater(cmds, hunter, Energy{Value: e.Value + preyEnergy})
				}
			default:
				n := float32(math.Sqrt(float64(best))) + 1e-3
				v.X, v.Y = bx/n*huntSpeed, by/n*huntSpeed
			}
		}
	}, ecs.Reads[Position](), ecs.Reads[Predator](), ecs.Reads[spatialIndex](), ecs.Reads[Energy](), ecs.Writes[Velocity](), ecs.Writes[Eaten](), ecs.Writes[Stats]())

	sc.Add("pack steering", func(w *ecs.World, _ *ecs.Commands) {
		for it := members.Iter(); it.Next(); {
			p, v, c := it.Get()
			lp, lv := s.pos.Read(c.Parent()), s.vel.Read(c.Parent())
			if lp == nil || lv == nil {
				continue
			}
			dx, dy := torusDelta(p.X, lp.X, s.side), torusDelta(p.Y, lp.Y, s.side)
			v.X = 0.8*lv.X + 0.5*dx
			v.Y = 0.8*lv.Y + 0.5*dy
		}
	}, ecs.Reads[Position](), ecs.Reads[ecs.ChildOf](), ecs.Writes[Velocity]())

	sc.Add("movement", func(w *ecs.World, _ *ecs.Commands) {
		d := dt()
		for p, v := range movers.All() {
			p.X = s.wrap(p.X + v.X*d)
			p.Y = s.wrap(p.Y + v.Y*d)
		}
	}, ecs.Reads[Velocity](), ecs.Writes[Position]())

	sc.Add("hunger", func(w *ecs.World, cmds *ecs.Commands) {
		for r := range hungry.All() {
			r.B.Frames++
			if r.C != nil {
				r.A.Value -= predMetabolism * dt()
			} else {
				r.A.Value -= herbMetabolism * dt()
			}
		}
	}, ecs.Reads[Predator](), ecs.Writes[Energy](), ecs.Writes[Age]())

	sc.AddStage("lifecycle")
	birthRng := rand.New(&dice.Birth)
	sc.Add("reproduction", func(w *ecs.World, cmds *ecs.Commands) {
		stats := ecs.Resource[Stats](w)
		room := s.initial*6/5 - w.Len()
		for it := parents.Iter(); it.Next(); {
			p, e, pred := it.Get()
			threshold := float32(60)
			if pred != nil {
				threshold = 110
			}
			if e.Value < threshold || room <= 0 {
				continue
			}
			room--
			e.Value /= 2
			parent := it.Entity()
			child := cmds.Spawn()
			a := birthRng.Float64() * 2 * math.Pi
			ecs.AddLater(cmds, child, Position{s.wrap(p.X + float32(math.Cos(a))*2), s.wrap(p.Y + float32(math.Sin(a))*2)})
			ecs.AddLater(cmds, child, Velocity{float32(math.Cos(a)) * herbSpeed, float32(math.Sin(a)) * herbSpeed})
			ecs.AddLater(cmds, child, Energy{Value: e.Value})
			ecs.AddLater(cmds, child, Age{})
			if pred != nil {
				ecs.AddLater(cmds, child, Predator{})
				leader := parent
				if l, ok := w.Parent(parent); ok {
					leader = l
				}
				cmds.SetParent(child, leader) // cubs join the pack
			} else {
				ecs.AddLater(cmds, child, Herbivore{})
			}
			born.Send(Born{Who: child, Parent: parent})
			stats.Births++
		}
	}, ecs.Reads[Position](), ecs.Writes[Energy](), ecs.Reads[Predator](), ecs.Writes[Born](), ecs.Writes[Stats]())

	deathRng := rand.New(&dice.Death)
	ages := ecs.NewQuery2[Energy, Age](w)
	sc.Add("death", func(w *ecs.World, cmds *ecs.Commands) {
		stats := ecs.Resource[Stats](w)
		for it := ages.Iter(); it.Next(); {
			e, a := it.Get()
			cause := ""
			switch {
			case e.Value <= 0:
				cause = "hunger"
			case a.Frames > predMaxAge || (a.Frames > herbMaxAge && deathRng.IntN(600) == 0):
				cause = "age"
			}
			if cause != "" {
				cmds.Despawn(it.Entity()) // a leader's pack is orphaned: each member leads itself
				died.Send(Died{Who: it.Entity(), Cause: cause})
				stats.Deaths++
			}
		}
	}, ecs.Reads[Energy](), ecs.Reads[Age](), ecs.Writes[Died](), ecs.Writes[Stats]())

	sc.AddStage("bookkeeping")
	followers := ecs.NewQuery1[ecs.ChildOf](w)
	leadersSeen := map[ecs.Entity]bool{} // reused frame to frame
	sc.Add("clock and stats", func(w *ecs.World, _ *ecs.Commands) {
		c := ecs.Resource[Clock](w)
		c.Frame++
		c.Seconds += float64(dt())
		st := ecs.Resource[Stats](w)
		st.Herbivores, st.Predators = herbTag.Len(), predTag.Len()
		clear(leadersSeen) // a pack is a leader with members: count the leaders followed
		for link := range followers.All() {
			leadersSeen[link.Parent()] = true
		}
		st.Packs = len(leadersSeen)
	}, ecs.Reads[ecs.ChildOf](), ecs.Writes[Clock](), ecs.Writes[Stats]())
}

package bees

import (
	"math/rand/v2"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// The demo's components, for arche.
type (
	aPos       pos
	aDir       pos
	aHomeHive  struct{ ecs.Relation }
	aRandom256 struct{ Value uint8 }
	aHive      struct{}
	aPatch     struct {
		X, Y      int
		Resources float64
	}
	aScout  struct{ Start int64 }
	aFollow struct{ Target aPos }
	aForage struct {
		Start int64
		Load  float64
	}
	aReturn struct {
		Target, Source aPos
		Load           float64
	}
	aInHive struct{}
	aWaggle struct {
		End     int64
		Target  aPos
		Load    float64
		Benefit float64
	}
)

// archeBees is arche-demo's bees on arche v0.15, as the demo writes them
// (its systems in its order, without drawing and the mouse).
type archeBees struct {
	w       ecs.World
	rng     *rand.Rand
	tick    int64
	patches *grid[ecs.Entity]

	patchFilter generic.Filter1[aPatch]
	patchMap    generic.Map[aPatch]
	patchNew    generic.Map1[aPatch]
	hiveFilter  generic.Filter1[aRandom256]
	idleFilter  generic.Filter0
	waggleQ     generic.Filter1[aWaggle]
	scoutF      generic.Filter4[aPos, aDir, aScout, aRandom256]
	followF     generic.Filter4[aPos, aDir, aFollow, aRandom256]
	forageF     generic.Filter2[aPos, aForage]
	returnF     generic.Filter4[aPos, aDir, aReturn, aRandom256]
	waggleF     generic.Filter1[aWaggle]

	inHiveToScout, inHiveToFollow           *generic.Exchange
	scoutToForage, scoutToReturn            *generic.Exchange
	followToForage, followToReturn, fToScou *generic.Exchange
	forageToReturn                          *generic.Exchange
	returnToInHive, returnToWaggle          *generic.Exchange
	waggleToInHive                          *generic.Exchange

	scoutMap  generic.Map1[aScout]
	followMap generic.Map1[aFollow]
	forageMap generic.Map1[aForage]
	returnMap generic.Map2[aPos, aReturn]
	retMap    generic.Map1[aReturn]
	waggleMap generic.Map1[aWaggle]
	posMap    generic.Map1[aPos]
	homeMap   generic.Map[aHomeHive]

	hives          []ecs.Entity
	dances         []dance
	toLeave, toGo  []ecs.Entity
	toGo2, toStop2 []ecs.Entity
}

func newArcheBees(bees int, seed uint64) *archeBees {
	s := &archeBees{w: ecs.NewWorld(), rng: rand.New(rand.NewPCG(seed, 1)), patches: newGrid[ecs.Entity]()}
	w := &s.w
	s.patchFilter = *generic.NewFilter1[aPatch]()
	s.patchMap = generic.NewMap[aPatch](w)
	s.patchNew = generic.NewMap1[aPatch](w)
	s.hiveFilter = *generic.NewFilter1[aRandom256]().With(generic.T[aHive]())
	s.idleFilter = *generic.NewFilter0().With(generic.T2[aInHive, aHomeHive]()...).WithRelation(generic.T[aHomeHive]())
	s.waggleQ = *generic.NewFilter1[aWaggle]().With(generic.T[aHomeHive]()).WithRelation(generic.T[aHomeHive]())
	s.scoutF = *generic.NewFilter4[aPos, aDir, aScout, aRandom256]()
	s.followF = *generic.NewFilter4[aPos, aDir, aFollow, aRandom256]()
	s.forageF = *generic.NewFilter2[aPos, aForage]()
	s.returnF = *generic.NewFilter4[aPos, aDir, aReturn, aRandom256]()
	s.waggleF = *generic.NewFilter1[aWaggle]()
	ex := func(add, remove generic.Comp) *generic.Exchange {
		return generic.NewExchange(w).Adds(add).Removes(remove)
	}
	s.inHiveToScout, s.inHiveToFollow = ex(generic.T[aScout](), generic.T[aInHive]()), ex(generic.T[aFollow](), generic.T[aInHive]())
	s.scoutToForage, s.scoutToReturn = ex(generic.T[aForage](), generic.T[aScout]()), ex(generic.T[aReturn](), generic.T[aScout]())
	s.followToForage, s.followToReturn, s.fToScou = ex(generic.T[aForage](), generic.T[aFollow]()), ex(generic.T[aReturn](), generic.T[aFollow]()), ex(generic.T[aScout](), generic.T[aFollow]())
	s.forageToReturn = ex(generic.T[aReturn](), generic.T[aForage]())
	s.returnToInHive, s.returnToWaggle = ex(generic.T[aInHive](), generic.T[aReturn]()), ex(generic.T[aWaggle](), generic.T[aReturn]())
	s.waggleToInHive = ex(generic.T[aInHive](), generic.T[aWaggle]())
	s.scoutMap, s.followMap, s.forageMap = generic.NewMap1[aScout](w), generic.NewMap1[aFollow](w), generic.NewMap1[aForage](w)
	s.returnMap, s.retMap, s.waggleMap = generic.NewMap2[aPos, aReturn](w), generic.NewMap1[aReturn](w), generic.NewMap1[aWaggle](w)
	s.posMap, s.homeMap = generic.NewMap1[aPos](w), generic.NewMap[aHomeHive](w)

	hiveMap := generic.NewMap3[aPos, aHive, aRandom256](w)
	hq := hiveMap.NewBatchQ(hiveCount)
	var hives []ecs.Entity
	for hq.Next() {
		p, _, r := hq.Get()
		p.X, p.Y = s.rng.Float64()*width*0.8+width*0.1, s.rng.Float64()*height*0.8+height*0.1
		r.Value = uint8(s.rng.IntN(256))
		hives = append(hives, hq.Entity())
	}
	builder := generic.NewMap5[aPos, aDir, aHomeHive, aInHive, aRandom256](w, generic.T[aHomeHive]())
	for _, h := range hives {
		hp := *s.posMap.Get(h)
		q := builder.NewBatchQ(bees/hiveCount, h)
		for q.Next() {
			p, d, _, _, r := q.Get()
			*p = hp
			d.X, d.Y = norm(s.rng.NormFloat64(), s.rng.NormFloat64())
			r.Value = uint8(s.rng.IntN(256))
		}
	}
	s.newPatches(patchCount)
	return s
}

func (s *archeBees) newPatches(n int) {
	q := s.patchNew.NewBatchQ(n)
	for q.Next() {
		p := q.Get()
		for {
			x, y := s.rng.IntN(s.patches.cols), s.rng.IntN(s.patches.rows)
			if s.patches.cells[x][y].IsZero() {
				s.patches.cells[x][y] = q.Entity()
				p.X, p.Y, p.Resources = x, y, 1
				break
			}
		}
	}
}

// step runs one tick of every system.
func (s *archeBees) step() {
	s.managePatches()
	s.hiveDecisions()
	s.scouting()
	s.following()
	s.foraging()
	s.returning()
	s.waggleDance()
	s.tick++
}

func (s *archeBees) managePatches() {
	w := &s.w
	q := s.patchFilter.Query(w)
	count := 0
	for q.Next() {
		if q.Get().Resources <= 0 {
			s.toGo = append(s.toGo, q.Entity())
		} else {
			count++
		}
	}
	for _, e := range s.toGo {
		p := s.patchMap.Get(e)
		s.patches.cells[p.X][p.Y] = ecs.Entity{}
		w.RemoveEntity(e)
	}
	s.toGo = s.toGo[:0]
	if count < patchCount {
		s.newPatches(patchCount - count)
	}
}

func (s *archeBees) hiveDecisions() {
	w := &s.w
	mod := s.tick % releaseInterval
	q := s.hiveFilter.Query(w)
	for q.Next() {
		if mod == int64(q.Get().Value)%releaseInterval {
			s.hives = append(s.hives, q.Entity())
		}
	}
	for _, h := range s.hives {
		wq := s.waggleQ.Query(w, h)
		for wq.Next() {
			wag := wq.Get()
			s.dances = append(s.dances, dance{Target: pos(wag.Target), Benefit: wag.Benefit})
		}
		iq := s.idleFilter.Query(w, h)
		total, cnt := iq.Count(), 0
		for iq.Next() {
			if cnt >= releaseCount {
				break
			}
			s.toLeave = append(s.toLeave, iq.Entity())
			cnt++
		}
		if cnt < total {
			iq.Close()
		}
		for _, e := range s.toLeave {
			if len(s.dances) < 2 || s.rng.Float64() < scoutProbability {
				s.inHiveToScout.Exchange(e)
				s.scoutMap.Get(e).Start = s.tick
				continue
			}
			d, ok := selectDance(s.rng, s.dances)
			if !ok {
				panic("unable to select a waggle dance")
			}
			s.inHiveToFollow.Exchange(e)
			s.followMap.Get(e).Target = aPos(d.Target)
		}
		s.dances, s.toLeave = s.dances[:0], s.toLeave[:0]
	}
	s.hives = s.hives[:0]
}

func (s *archeBees) scouting() {
	w := &s.w
	q := s.scoutF.Query(w)
	for q.Next() {
		p, d, sc, r := q.Get()
		if s.tick%4 == int64(r.Value)%4 {
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, scoutRotation))
			cx, cy := toCell(p.X, p.Y)
			if !s.patches.cells[cx][cy].IsZero() {
				s.toGo = append(s.toGo, q.Entity())
				continue
			}
			if s.tick > sc.Start+maxScoutTime {
				s.toGo2 = append(s.toGo2, q.Entity())
				continue
			}
		}
		p.X += d.X * maxBeeSpeed
		p.Y += d.Y * maxBeeSpeed
		if p.X < 0 || p.X >= width {
			d.X *= -1
			p.X += d.X * maxBeeSpeed * 2
		}
		if p.Y < 0 || p.Y >= height {
			d.Y *= -1
			p.Y += d.Y * maxBeeSpeed * 2
		}
	}
	for _, e := range s.toGo {
		s.scoutToForage.Exchange(e)
		s.forageMap.Get(e).Start = s.tick
	}
	for _, e := range s.toGo2 {
		s.scoutToReturn.Exchange(e)
		s.setReturn(e, nil, 0)
	}
	s.toGo, s.toGo2 = s.toGo[:0], s.toGo2[:0]
}

// setReturn points e's ActReturn home, from source (nil: where e is).
func (s *archeBees) setReturn(e ecs.Entity, source *aPos, load float64) {
	p, ret := s.returnMap.Get(e)
	ret.Target = *s.posMap.Get(s.homeMap.GetRelation(e))
	ret.Source = *p
	if source != nil {
		ret.Source = *source
	}
	ret.Load = load
}

func (s *archeBees) following() {
	w := &s.w
	rad := float64(cellSize) / 2
	q := s.followF.Query(w)
	for q.Next() {
		p, d, f, r := q.Get()
		if s.tick%4 == int64(r.Value)%4 {
			dx, dy := f.Target.X-p.X, f.Target.Y-p.Y
			d.X, d.Y = norm(dx, dy)
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, followRotation))
			if dx*dx+dy*dy < rad {
				s.toGo = append(s.toGo, q.Entity())
				continue
			}
		}
		p.X += d.X * maxBeeSpeed
		p.Y += d.Y * maxBeeSpeed
	}
	for _, e := range s.toGo {
		trg := s.followMap.Get(e).Target
		cx, cy := toCell(trg.X, trg.Y)
		if !s.patches.cells[cx][cy].IsZero() {
			s.followToForage.Exchange(e)
			s.forageMap.Get(e).Start = s.tick
			continue
		}
		if s.rng.Float64() < followScoutProb {
			s.fToScou.Exchange(e)
			s.scoutMap.Get(e).Start = s.tick
			continue
		}
		s.followToReturn.Exchange(e)
		s.setReturn(e, nil, 0)
	}
	s.toGo = s.toGo[:0]
}

func (s *archeBees) foraging() {
	w := &s.w
	q := s.forageF.Query(w)
	for q.Next() {
		p, f := q.Get()
		if f.Load <= 0 {
			x, y := toCell(p.X, p.Y)
			pe := s.patches.cells[x][y]
			if pe.IsZero() {
				s.toGo = append(s.toGo, q.Entity())
				continue
			}
			patch := s.patchMap.Get(pe)
			if patch.Resources <= 0 {
				s.toGo = append(s.toGo, q.Entity())
				continue
			}
			f.Load = patch.Resources
			patch.Resources = max(patch.Resources-maxCollect, 0)
		}
		if s.tick > f.Start+maxForagingTime {
			s.toGo = append(s.toGo, q.Entity())
		}
	}
	for _, e := range s.toGo {
		load := s.forageMap.Get(e).Load
		s.forageToReturn.Exchange(e)
		p := s.posMap.Get(e)
		sx, sy := toCellCenter(p.X, p.Y)
		s.setReturn(e, &aPos{X: sx, Y: sy}, load)
	}
	s.toGo = s.toGo[:0]
}

func (s *archeBees) returning() {
	w := &s.w
	q := s.returnF.Query(w)
	for q.Next() {
		p, d, ret, r := q.Get()
		if s.tick%4 == int64(r.Value)%4 {
			dx, dy := ret.Target.X-p.X, ret.Target.Y-p.Y
			d.X, d.Y = norm(dx, dy)
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, returnRotation))
			if dx*dx+dy*dy < 4 {
				s.toGo = append(s.toGo, q.Entity())
				continue
			}
		}
		p.X += d.X * maxBeeSpeed
		p.Y += d.Y * maxBeeSpeed
	}
	for _, e := range s.toGo {
		ret := s.retMap.Get(e)
		if ret.Load <= 0 || s.rng.Float64() >= ret.Load*maxDanceProb {
			s.returnToInHive.Exchange(e)
			continue
		}
		trg, load := ret.Source, ret.Load
		bene := load / (distance(pos(trg), pos(ret.Target)) + 1)
		s.returnToWaggle.Exchange(e)
		wag := s.waggleMap.Get(e)
		wag.End, wag.Target, wag.Load, wag.Benefit = -1, trg, load, bene
	}
	s.toGo = s.toGo[:0]
}

func (s *archeBees) waggleDance() {
	w := &s.w
	q := s.waggleF.Query(w)
	for q.Next() {
		wag := q.Get()
		if wag.End <= 0 {
			wag.End = s.tick + int64(minDance+(maxDance-minDance)*wag.Load)
			continue
		}
		if s.tick > wag.End {
			s.toStop2 = append(s.toStop2, q.Entity())
		}
	}
	for _, e := range s.toStop2 {
		s.waggleToInHive.Exchange(e)
	}
	s.toStop2 = s.toStop2[:0]
}

// census counts the bees in each activity, for comparing the two ports.
func (s *archeBees) census() [6]int {
	count := func(f ecs.Filter) int {
		q := s.w.Query(f)
		n := q.Count()
		q.Close()
		return n
	}
	return [6]int{
		count(generic.NewFilter1[aInHive]().Filter(&s.w)), count(generic.NewFilter1[aScout]().Filter(&s.w)),
		count(generic.NewFilter1[aFollow]().Filter(&s.w)), count(generic.NewFilter1[aForage]().Filter(&s.w)),
		count(generic.NewFilter1[aReturn]().Filter(&s.w)), count(generic.NewFilter1[aWaggle]().Filter(&s.w)),
	}
}

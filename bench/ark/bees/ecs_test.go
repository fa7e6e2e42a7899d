package bees

import (
	"math/rand/v2"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// The demo's components, for ours.
type (
	ePos       pos
	eDir       pos
	eHomeHive  struct{ ecs.Relation }
	eRandom256 struct{ Value uint8 }
	eHive      struct{}
	ePatch     struct {
		X, Y      int
		Resources float64
	}
	eScout  struct{ Start int64 }
	eFollow struct{ Target ePos }
	eForage struct {
		Start int64
		Load  float64
	}
	eReturn struct {
		Target, Source ePos
		Load           float64
	}
	eInHive struct{}
	eWaggle struct {
		End     int64
		Target  ePos
		Load    float64
		Benefit float64
	}
)

// ecsBees is the same simulation on ours, written as PORTING.md says:
// HomeHive a relation, each state switch one Map.Exchange (the new
// state's value given, the old one's id removed), the per-hive queries a
// query's IterOf over the hive. Scheduled, its systems run in a Schedule
// and queue their switches, spawns and despawns (ExchangeLater and the
// rest), each applied as its system ends (CommandsNow), as the original
// switches at once; then the world's Tick.
type ecsBees struct {
	w       *ecs.World
	sched   *ecs.Schedule
	cmds    *ecs.Commands // the running system's, when scheduled
	rng     *rand.Rand
	tick    int64
	patches *grid[ecs.Entity]

	home     *ecs.Rel[eHomeHive]
	patchQ   *ecs.Query1[ePatch]
	patchMap *ecs.Map[ePatch]
	hiveQ    *ecs.Query1[eRandom256]
	idleQ    *ecs.Query1[eInHive]
	wagOfQ   *ecs.Query1[eWaggle]
	scoutQ   *ecs.Query4[ePos, eDir, eScout, eRandom256]
	followQ  *ecs.Query4[ePos, eDir, eFollow, eRandom256]
	forageQ  *ecs.Query2[ePos, eForage]
	returnQ  *ecs.Query4[ePos, eDir, eReturn, eRandom256]
	waggleQ  *ecs.Query1[eWaggle]

	scouts  *ecs.Map[eScout]
	follows *ecs.Map[eFollow]
	forages *ecs.Map[eForage]
	returns *ecs.Map[eReturn]
	inHives *ecs.Map[eInHive]
	waggles *ecs.Map[eWaggle]
	posMap  *ecs.Map[ePos]

	idScout, idFollow, idForage, idReturn, idInHive, idWaggle ecs.ComponentID

	hives          []ecs.Entity
	dances         []dance
	toLeave, toGo  []ecs.Entity
	toGo2, toStop2 []ecs.Entity
}

func newECSBees(bees int, seed uint64, scheduled bool) *ecsBees {
	w := ecs.NewWorld()
	s := &ecsBees{w: w, rng: rand.New(rand.NewPCG(seed, 1)), patches: newGrid[ecs.Entity]()}
	s.home = ecs.NewRel[eHomeHive](w)
	s.patchQ = ecs.NewQuery1[ePatch](w)
	s.patchMap = ecs.NewMap[ePatch](w)
	s.hiveQ = ecs.NewQuery1[eRandom256](w, ecs.With[eHive]())
	s.idleQ = ecs.NewQuery1[eInHive](w)
	s.wagOfQ = ecs.NewQuery1[eWaggle](w)
	s.scoutQ = ecs.NewQuery4[ePos, eDir, eScout, eRandom256](w, ecs.Mut[ePos](), ecs.Mut[eDir]())
	s.followQ = ecs.NewQuery4[ePos, eDir, eFollow, eRandom256](w, ecs.Mut[ePos](), ecs.Mut[eDir]())
	s.forageQ = ecs.NewQuery2[ePos, eForage](w, ecs.Mut[eForage]())
	s.returnQ = ecs.NewQuery4[ePos, eDir, eReturn, eRandom256](w, ecs.Mut[ePos](), ecs.Mut[eDir]())
	s.waggleQ = ecs.NewQuery1[eWaggle](w, ecs.Mut[eWaggle]())
	s.scouts, s.follows, s.forages = ecs.NewMap[eScout](w), ecs.NewMap[eFollow](w), ecs.NewMap[eForage](w)
	s.returns, s.inHives, s.waggles = ecs.NewMap[eReturn](w), ecs.NewMap[eInHive](w), ecs.NewMap[eWaggle](w)
	s.posMap = ecs.NewMap[ePos](w)
	s.idScout, s.idFollow, s.idForage = s.scouts.ID(), s.follows.ID(), s.forages.ID()
	s.idReturn, s.idInHive, s.idWaggle = s.returns.ID(), s.inHives.ID(), s.waggles.ID()

	var hives []ecs.Entity
	ecs.NewMap3[ePos, eHive, eRandom256](w).SpawnBatch(hiveCount, func(_ int, e ecs.Entity, p *ePos, _ *eHive, r *eRandom256) {
		p.X, p.Y = s.rng.Float64()*width*0.8+width*0.1, s.rng.Float64()*height*0.8+height*0.1
		r.Value = uint8(s.rng.IntN(256))
		hives = append(hives, e)
	})
	builder := ecs.NewMap5[ePos, eDir, eHomeHive, eInHive, eRandom256](w)
	for _, h := range hives {
		hp := *s.posMap.Read(h)
		builder.To(h).SpawnBatch(bees/hiveCount, func(_ int, _ ecs.Entity, p *ePos, d *eDir, _ *eHomeHive, _ *eInHive, r *eRandom256) {
			*p = hp
			d.X, d.Y = norm(s.rng.NormFloat64(), s.rng.NormFloat64())
			r.Value = uint8(s.rng.IntN(256))
		})
	}
	s.newPatches(patchCount)
	if scheduled {
		s.schedule()
	}
	return s
}

// schedule puts the systems in a schedule, in the original's order, each
// declaring what it reads and writes.
func (s *ecsBees) schedule() {
	sc := ecs.NewSchedule()
	add := func(name string, run func(), access ...ecs.Access) {
		sc.Add(name, func(_ *ecs.World, c *ecs.Commands) { s.cmds = c; run() }, append(access, ecs.CommandsNow())...)
	}
	add("patches", s.managePatches, ecs.Reads[ePatch]())
	add("hive decisions", s.hiveDecisions, ecs.Reads[eRandom256](), ecs.Reads[eHive](), ecs.Reads[eInHive](), ecs.Reads[eWaggle](), ecs.Reads[eHomeHive]())
	add("scouting", s.scouting, ecs.Writes[ePos](), ecs.Writes[eDir](), ecs.Reads[eScout](), ecs.Reads[eRandom256](), ecs.Reads[eHomeHive]())
	add("following", s.following, ecs.Writes[ePos](), ecs.Writes[eDir](), ecs.Reads[eFollow](), ecs.Reads[eRandom256](), ecs.Reads[eHomeHive]())
	add("foraging", s.foraging, ecs.Reads[ePos](), ecs.Writes[eForage](), ecs.Writes[ePatch](), ecs.Reads[eHomeHive]())
	add("returning", s.returning, ecs.Writes[ePos](), ecs.Writes[eDir](), ecs.Reads[eReturn](), ecs.Reads[eRandom256]())
	add("waggle dance", s.waggleDance, ecs.Writes[eWaggle]())
	s.sched = sc
}

func (s *ecsBees) newPatches(n int) {
	place := func(e ecs.Entity) ePatch {
		for {
			x, y := s.rng.IntN(s.patches.cols), s.rng.IntN(s.patches.rows)
			if s.patches.cells[x][y].IsZero() {
				s.patches.cells[x][y] = e
				return ePatch{X: x, Y: y, Resources: 1}
			}
		}
	}
	if s.cmds != nil {
		for range n {
			e := s.cmds.Spawn()
			ecs.AddLater(s.cmds, e, place(e))
		}
		return
	}
	s.patchMap.SpawnBatch(n, func(_ int, e ecs.Entity, p *ePatch) { *p = place(e) })
}

// switchTo switches e from the state from to T's, with the value v: at
// once, or queued when scheduled.
func switchTo[T any](s *ecsBees, m *ecs.Map[T], e ecs.Entity, v T, from ecs.ComponentID) {
	if s.cmds != nil {
		ecs.ExchangeLater(s.cmds, e, v, from)
		return
	}
	s.must(m.Exchange(e, v, from))
}

// step runs one tick of every system.
func (s *ecsBees) step() {
	if s.sched != nil {
		s.sched.Run(s.w)
		s.w.Tick()
		s.tick++
		return
	}
	s.managePatches()
	s.hiveDecisions()
	s.scouting()
	s.following()
	s.foraging()
	s.returning()
	s.waggleDance()
	s.tick++
}

func (s *ecsBees) must(err error) {
	if err != nil {
		panic(err)
	}
}

func (s *ecsBees) managePatches() {
	count := 0
	for it := s.patchQ.Iter(); it.Next(); {
		if it.Get().Resources <= 0 {
			s.toGo = append(s.toGo, it.Entity())
		} else {
			count++
		}
	}
	for _, e := range s.toGo {
		p := s.patchMap.Read(e)
		s.patches.cells[p.X][p.Y] = ecs.Entity{}
		if s.cmds != nil {
			s.cmds.Despawn(e)
		} else {
			s.must(s.w.Despawn(e))
		}
	}
	s.toGo = s.toGo[:0]
	if count < patchCount {
		s.newPatches(patchCount - count)
	}
}

func (s *ecsBees) hiveDecisions() {
	mod := s.tick % releaseInterval
	for it := s.hiveQ.Iter(); it.Next(); {
		if mod == int64(it.Get().Value)%releaseInterval {
			s.hives = append(s.hives, it.Entity())
		}
	}
	for _, h := range s.hives {
		for wag := range s.wagOfQ.AllOf(s.home.Of(h)) {
			s.dances = append(s.dances, dance{Target: pos(wag.Target), Benefit: wag.Benefit})
		}
		for it := s.idleQ.IterOf(s.home.Of(h)); it.Next(); {
			if len(s.toLeave) >= releaseCount {
				it.Close()
				break
			}
			s.toLeave = append(s.toLeave, it.Entity())
		}
		for _, e := range s.toLeave {
			if len(s.dances) < 2 || s.rng.Float64() < scoutProbability {
				switchTo(s, s.scouts, e, eScout{Start: s.tick}, s.idInHive)
				continue
			}
			d, ok := selectDance(s.rng, s.dances)
			if !ok {
				panic("unable to select a waggle dance")
			}
			switchTo(s, s.follows, e, eFollow{Target: ePos(d.Target)}, s.idInHive)
		}
		s.dances, s.toLeave = s.dances[:0], s.toLeave[:0]
	}
	s.hives = s.hives[:0]
}

func (s *ecsBees) scouting() {
	for it := s.scoutQ.Iter(); it.Next(); {
		p, d, sc, r := it.Get()
		if s.tick%4 == int64(r.Value)%4 {
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, scoutRotation))
			cx, cy := toCell(p.X, p.Y)
			if !s.patches.cells[cx][cy].IsZero() {
				s.toGo = append(s.toGo, it.Entity())
				continue
			}
			if s.tick > sc.Start+maxScoutTime {
				s.toGo2 = append(s.toGo2, it.Entity())
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
		switchTo(s, s.forages, e, eForage{Start: s.tick}, s.idScout)
	}
	for _, e := range s.toGo2 {
		switchTo(s, s.returns, e, s.returnOf(e, nil, 0), s.idScout)
	}
	s.toGo, s.toGo2 = s.toGo[:0], s.toGo2[:0]
}

// returnOf is the ActReturn that takes e home, from source (nil: where e
// is).
func (s *ecsBees) returnOf(e ecs.Entity, source *ePos, load float64) eReturn {
	h, _ := s.home.Target(e)
	ret := eReturn{Target: *s.posMap.Read(h), Source: *s.posMap.Read(e), Load: load}
	if source != nil {
		ret.Source = *source
	}
	return ret
}

func (s *ecsBees) following() {
	rad := float64(cellSize) / 2
	for it := s.followQ.Iter(); it.Next(); {
		p, d, f, r := it.Get()
		if s.tick%4 == int64(r.Value)%4 {
			dx, dy := f.Target.X-p.X, f.Target.Y-p.Y
			d.X, d.Y = norm(dx, dy)
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, followRotation))
			if dx*dx+dy*dy < rad {
				s.toGo = append(s.toGo, it.Entity())
				continue
			}
		}
		p.X += d.X * maxBeeSpeed
		p.Y += d.Y * maxBeeSpeed
	}
	for _, e := range s.toGo {
		trg := s.follows.Read(e).Target
		cx, cy := toCell(trg.X, trg.Y)
		if !s.patches.cells[cx][cy].IsZero() {
			switchTo(s, s.forages, e, eForage{Start: s.tick}, s.idFollow)
			continue
		}
		if s.rng.Float64() < followScoutProb {
			switchTo(s, s.scouts, e, eScout{Start: s.tick}, s.idFollow)
			continue
		}
		switchTo(s, s.returns, e, s.returnOf(e, nil, 0), s.idFollow)
	}
	s.toGo = s.toGo[:0]
}

func (s *ecsBees) foraging() {
	for it := s.forageQ.Iter(); it.Next(); {
		p, f := it.Get()
		if f.Load <= 0 {
			x, y := toCell(p.X, p.Y)
			pe := s.patches.cells[x][y]
			if pe.IsZero() {
				s.toGo = append(s.toGo, it.Entity())
				continue
			}
			patch := s.patchMap.Get(pe)
			if patch.Resources <= 0 {
				s.toGo = append(s.toGo, it.Entity())
				continue
			}
			f.Load = patch.Resources
			patch.Resources = max(patch.Resources-maxCollect, 0)
		}
		if s.tick > f.Start+maxForagingTime {
			s.toGo = append(s.toGo, it.Entity())
		}
	}
	for _, e := range s.toGo {
		load := s.forages.Read(e).Load
		p := s.posMap.Read(e)
		sx, sy := toCellCenter(p.X, p.Y)
		switchTo(s, s.returns, e, s.returnOf(e, &ePos{X: sx, Y: sy}, load), s.idForage)
	}
	s.toGo = s.toGo[:0]
}

func (s *ecsBees) returning() {
	for it := s.returnQ.Iter(); it.Next(); {
		p, d, ret, r := it.Get()
		if s.tick%4 == int64(r.Value)%4 {
			dx, dy := ret.Target.X-p.X, ret.Target.Y-p.Y
			d.X, d.Y = norm(dx, dy)
			d.X, d.Y = rotate(d.X, d.Y, turn(s.rng, returnRotation))
			if dx*dx+dy*dy < 4 {
				s.toGo = append(s.toGo, it.Entity())
				continue
			}
		}
		p.X += d.X * maxBeeSpeed
		p.Y += d.Y * maxBeeSpeed
	}
	for _, e := range s.toGo {
		ret := *s.returns.Read(e)
		if ret.Load <= 0 || s.rng.Float64() >= ret.Load*maxDanceProb {
			switchTo(s, s.inHives, e, eInHive{}, s.idReturn)
			continue
		}
		bene := ret.Load / (distance(pos(ret.Source), pos(ret.Target)) + 1)
		switchTo(s, s.waggles, e, eWaggle{End: -1, Target: ret.Source, Load: ret.Load, Benefit: bene}, s.idReturn)
	}
	s.toGo = s.toGo[:0]
}

func (s *ecsBees) waggleDance() {
	for it := s.waggleQ.Iter(); it.Next(); {
		wag := it.Get()
		if wag.End <= 0 {
			wag.End = s.tick + int64(minDance+(maxDance-minDance)*wag.Load)
			continue
		}
		if s.tick > wag.End {
			s.toStop2 = append(s.toStop2, it.Entity())
		}
	}
	for _, e := range s.toStop2 {
		switchTo(s, s.inHives, e, eInHive{}, s.idWaggle)
	}
	s.toStop2 = s.toStop2[:0]
}

// census counts the bees in each activity, for comparing the two ports.
func (s *ecsBees) census() [6]int {
	w := s.w
	return [6]int{
		ecs.NewQuery1[eInHive](w).Count(), ecs.NewQuery1[eScout](w).Count(), ecs.NewQuery1[eFollow](w).Count(),
		ecs.NewQuery1[eForage](w).Count(), ecs.NewQuery1[eReturn](w).Count(), ecs.NewQuery1[eWaggle](w).Count(),
	}
}

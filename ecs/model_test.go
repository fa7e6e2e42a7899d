package ecs

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// The model: a map per entity of component name to value, plus the change
// and add stamps the kernel's tick rules promise, kept with plain integers.

type modelComp struct {
	val            int
	changed, added uint32
}

type model struct {
	ents    map[Entity]map[string]*modelComp
	parent  map[Entity]Entity   // child -> parent
	kids    map[Entity][]Entity // parent -> children, in link order
	runs    uint32              // query runs so far: the last run tick
	lastRun map[string]uint32   // per query
}

func (m *model) writeStamp() uint32 { return m.runs + 1 }

// Name holds a pointer (its string), so it moves through the typed column
// path; the others are pointer-free and move as bytes.
var compNames = []string{"Position", "Health", "Frozen", "Fleeing", "Name"}

type kernel struct {
	w     *World
	pos   *Map[Position]
	hp    *Map[Health]
	froz  *Map[Frozen]
	flee  *Map[Fleeing]
	name  *Map[Name]
	qs    map[string]func() []Entity
	specs map[string]func(map[string]*modelComp, uint32) bool
	write *Query1[Position]
}

func newKernel() *kernel {
	w := NewWorld()
	k := &kernel{w: w, pos: NewMap[Position](w), hp: NewMap[Health](w), froz: NewMap[Frozen](w), flee: NewMap[Fleeing](w), name: NewMap[Name](w)}
	ents1 := func(q *Query1[Position]) func() []Entity {
		return func() []Entity {
			var out []Entity
			it := q.Iter()
			for it.Next() {
				out = append(out, it.Entity())
			}
			return out
		}
	}
	hpOptFlee := NewQuery2[Health, Fleeing](w, Optional[Fleeing]())
	changedCols := NewQuery1[Position](w, Changed[Position]())
	k.qs = map[string]func() []Entity{
		"pos":           ents1(NewQuery1[Position](w)),
		"pos !frozen":   ents1(NewQuery1[Position](w, Without[Frozen]())),
		"pos +fleeing":  ents1(NewQuery1[Position](w, With[Fleeing]())),
		"pos !fleeing":  ents1(NewQuery1[Position](w, Without[Fleeing]())),
		"changed(pos)":  ents1(NewQuery1[Position](w, Changed[Position]())),
		"added(health)": ents1(NewQuery1[Position](w, Added[Health]())),
		"changed(flee)": ents1(NewQuery1[Position](w, Changed[Fleeing]())),
		"hp ?flee": func() []Entity {
			var out []Entity
			it := hpOptFlee.Iter()
			for it.Next() {
				out = append(out, it.Entity())
			}
			return out
		},
		"changed(pos) columns": func() []Entity {
			var out []Entity
			it := changedCols.Iter()
			for it.NextTable() {
				out = append(out, it.Entities()...)
			}
			return out
		},
	}
	has := func(c map[string]*modelComp, n string) bool { return c[n] != nil }
	k.specs = map[string]func(map[string]*modelComp, uint32) bool{
		"pos":                  func(c map[string]*modelComp, _ uint32) bool { return has(c, "Position") },
		"pos !frozen":          func(c map[string]*modelComp, _ uint32) bool { return has(c, "Position") && !has(c, "Frozen") },
		"pos +fleeing":         func(c map[string]*modelComp, _ uint32) bool { return has(c, "Position") && has(c, "Fleeing") },
		"pos !fleeing":         func(c map[string]*modelComp, _ uint32) bool { return has(c, "Position") && !has(c, "Fleeing") },
		"changed(pos)":         func(c map[string]*modelComp, s uint32) bool { return has(c, "Position") && c["Position"].changed > s },
		"changed(pos) columns": func(c map[string]*modelComp, s uint32) bool { return has(c, "Position") && c["Position"].changed > s },
		"added(health)": func(c map[string]*modelComp, s uint32) bool {
			return has(c, "Position") && has(c, "Health") && c["Health"].added > s
		},
		"changed(flee)": func(c map[string]*modelComp, s uint32) bool {
			return has(c, "Position") && has(c, "Fleeing") && c["Fleeing"].changed > s
		},
		"hp ?flee": func(c map[string]*modelComp, _ uint32) bool { return has(c, "Health") },
	}
	k.write = NewQuery1[Position](w, Mut[Position]())
	return k
}

func (k *kernel) add(e Entity, name string, v int) error {
	switch name {
	case "Position":
		return k.pos.Add(e, Position{X: float64(v)})
	case "Health":
		return k.hp.Add(e, Health{HP: v})
	case "Frozen":
		return k.froz.Add(e, Frozen{})
	case "Name":
		return k.name.Add(e, Name{Value: strconv.Itoa(v)})
	default:
		return k.flee.Add(e, Fleeing{Since: v})
	}
}

func (k *kernel) remove(e Entity, name string) error {
	switch name {
	case "Position":
		return k.pos.Remove(e)
	case "Health":
		return k.hp.Remove(e)
	case "Frozen":
		return k.froz.Remove(e)
	case "Name":
		return k.name.Remove(e)
	default:
		return k.flee.Remove(e)
	}
}

// read returns e's components as the kernel sees them.
func (k *kernel) read(e Entity) map[string]int {
	out := map[string]int{}
	if p := k.pos.Read(e); p != nil {
		out["Position"] = int(p.X)
	}
	if h := k.hp.Read(e); h != nil {
		out["Health"] = h.HP
	}
	if k.froz.Has(e) {
		out["Frozen"] = 0
	}
	if f := k.flee.Read(e); f != nil {
		out["Fleeing"] = f.Since
	}
	if n := k.name.Read(e); n != nil {
		v, err := strconv.Atoi(n.Value)
		if err != nil {
			v = -1 // a value the model never holds: the comparison fails
		}
		out["Name"] = v
	}
	return out
}

func TestModelBased(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		k := newKernel()
		m := &model{ents: map[Entity]map[string]*modelComp{}, lastRun: map[string]uint32{},
			parent: map[Entity]Entity{}, kids: map[Entity][]Entity{}}
		unlink := func(child Entity) {
			if p, ok := m.parent[child]; ok {
				m.kids[p] = slices.DeleteFunc(m.kids[p], func(k Entity) bool { return k == child })
				if len(m.kids[p]) == 0 {
					delete(m.kids, p)
				}
				delete(m.parent, child)
			}
		}
		despawn := func(e Entity) {
			unlink(e)
			for _, k := range m.kids[e] {
				delete(m.parent, k)
			}
			delete(m.kids, e)
			delete(m.ents, e)
		}
		var despawnTree func(e Entity)
		despawnTree = func(e Entity) {
			for _, k := range slices.Clone(m.kids[e]) {
				despawnTree(k)
			}
			despawn(e)
		}
		var handles []Entity // every handle ever issued, alive or not
		pick := func() Entity {
			if len(handles) == 0 || rapid.IntRange(0, 20).Draw(rt, "forged") == 0 {
				return EntityOf(uint32(rapid.IntRange(0, 40).Draw(rt, "idx")), uint32(rapid.IntRange(0, 4).Draw(rt, "gen")))
			}
			return rapid.SampledFrom(handles).Draw(rt, "handle")
		}
		queryNames := slices.Sorted(maps.Keys(k.qs))
		steps := rapid.IntRange(1, 120).Draw(rt, "steps")
		for range steps {
			switch op := rapid.IntRange(0, 13).Draw(rt, "op"); op {
			case 11: // parent links
				child, parent := pick(), pick()
				err := k.w.SetParent(child, parent)
				_, cAlive := m.ents[child]
				_, pAlive := m.ents[parent]
				cycle := false
				for a := parent; ; {
					if a == child {
						cycle = true
						break
					}
					up, ok := m.parent[a]
					if !ok {
						break
					}
					a = up
				}
				if wantOK := cAlive && pAlive && !cycle; wantOK != (err == nil) {
					rt.Fatalf("SetParent(%v, %v) = %v; alive %v %v cycle %v", child, parent, err, cAlive, pAlive, cycle)
				}
				if err == nil {
					unlink(child)
					m.parent[child] = parent
					m.kids[parent] = append(m.kids[parent], child)
				}
			case 12: // clear a parent
				e := pick()
				err := k.w.ClearParent(e)
				if _, alive := m.ents[e]; alive != (err == nil) {
					rt.Fatalf("ClearParent(%v) = %v", e, err)
				}
				if err == nil {
					unlink(e)
				}
			case 13: // the same operations through a command buffer
				c := k.w.NewCommands("model")
				type queued struct {
					kind int
					e    Entity
					name string
					v    int
				}
				var plan []queued
				for range rapid.IntRange(1, 8).Draw(rt, "queued") {
					switch rapid.IntRange(0, 3).Draw(rt, "cmd") {
					case 0:
						e := c.Spawn()
						plan = append(plan, queued{kind: 0, e: e})
						handles = append(handles, e)
					case 1:
						e := pick()
						c.Despawn(e)
						plan = append(plan, queued{kind: 1, e: e})
					case 2:
						e, v := pick(), rapid.IntRange(0, 100).Draw(rt, "v")
						AddLater(c, e, Health{HP: v})
						plan = append(plan, queued{kind: 2, e: e, name: "Health", v: v})
					default:
						e := pick()
						RemoveLater[Health](c, e)
						plan = append(plan, queued{kind: 3, e: e, name: "Health"})
					}
				}
				// Queued commands on handles the plan made stale are skipped,
				// and said so; anything else is a failure.
				if err := c.Apply(); err != nil && !errors.Is(err, ErrNotAlive) {
					t.Fatal(err)
				}
				wt := m.writeStamp()
				for _, q := range plan {
					comps, alive := m.ents[q.e]
					switch q.kind {
					case 0:
						m.ents[q.e] = map[string]*modelComp{}
					case 1:
						if alive {
							despawn(q.e)
						}
					case 2:
						if alive {
							if c := comps["Health"]; c != nil {
								c.val, c.changed = q.v, wt
							} else {
								comps["Health"] = &modelComp{val: q.v, changed: wt, added: wt}
							}
						}
					case 3:
						if alive {
							delete(comps, "Health")
						}
					}
				}
			case 10: // batch spawn, enough to span chunks
				n := rapid.IntRange(0, 150).Draw(rt, "batch")
				wt := m.writeStamp()
				NewMap2[Position, Health](k.w).SpawnBatch(n, func(i int, e Entity, p *Position, h *Health) {
					p.X, h.HP = float64(i), i
					m.ents[e] = map[string]*modelComp{
						"Position": {val: i, changed: wt, added: wt},
						"Health":   {val: i, changed: wt, added: wt},
					}
					handles = append(handles, e)
				})
			case 0, 1: // spawn with some components
				e := k.w.Spawn()
				if _, dup := m.ents[e]; dup {
					rt.Fatalf("spawn returned live handle %v", e)
				}
				comps := map[string]*modelComp{}
				m.ents[e] = comps
				handles = append(handles, e)
				for _, n := range compNames {
					if rapid.Bool().Draw(rt, "with "+n) {
						v := rapid.IntRange(0, 100).Draw(rt, "v")
						if n == "Frozen" {
							v = 0
						}
						if err := k.add(e, n, v); err != nil {
							rt.Fatal(err)
						}
						wt := m.writeStamp()
						comps[n] = &modelComp{val: v, changed: wt, added: wt}
					}
				}
			case 2: // despawn
				e := pick()
				recursive := rapid.Bool().Draw(rt, "recursive")
				var err error
				if recursive {
					err = k.w.DespawnRecursive(e)
				} else {
					err = k.w.Despawn(e)
				}
				if _, alive := m.ents[e]; alive != (err == nil) {
					rt.Fatalf("despawn %v: err=%v alive=%v", e, err, alive)
				}
				if err == nil && recursive {
					despawnTree(e)
				} else if err == nil {
					despawn(e)
				}
			case 3, 4: // add
				e, n, v := pick(), rapid.SampledFrom(compNames).Draw(rt, "comp"), rapid.IntRange(0, 100).Draw(rt, "v")
				if n == "Frozen" {
					v = 0
				}
				err := k.add(e, n, v)
				comps, alive := m.ents[e]
				if alive != (err == nil) {
					rt.Fatalf("add %s to %v: err=%v alive=%v", n, e, err, alive)
				}
				if alive {
					wt := m.writeStamp()
					if c := comps[n]; c != nil {
						c.val, c.changed = v, wt
					} else {
						comps[n] = &modelComp{val: v, changed: wt, added: wt}
					}
				}
			case 5: // remove
				e, n := pick(), rapid.SampledFrom(compNames).Draw(rt, "comp")
				err := k.remove(e, n)
				comps, alive := m.ents[e]
				if alive != (err == nil) {
					rt.Fatalf("remove %s from %v: err=%v", n, e, err)
				}
				if alive {
					delete(comps, n)
				}
			case 6: // write through Map.Get
				e := pick()
				if p := k.pos.Get(e); p != nil {
					p.X++
					c := m.ents[e]["Position"]
					c.val++
					c.changed = m.writeStamp()
				} else if m.ents[e]["Position"] != nil {
					rt.Fatalf("Get(%v) nil, model has Position", e)
				}
				if f := k.flee.Get(e); f != nil {
					m.ents[e]["Fleeing"].changed = m.writeStamp()
				}
			case 7: // writable query pass
				m.runs++
				for p := range k.write.All() {
					p.X++
				}
				for _, comps := range m.ents {
					if c := comps["Position"]; c != nil {
						c.val++
						c.changed = m.runs
					}
				}
			default: // run a query and compare the matches
				name := rapid.SampledFrom(queryNames).Draw(rt, "query")
				m.runs++
				since := m.lastRun[name]
				m.lastRun[name] = m.runs
				got := k.qs[name]()
				var want []Entity
				for e, comps := range m.ents {
					if k.specs[name](comps, since) {
						want = append(want, e)
					}
				}
				byIndex := func(a, b Entity) int { return int(a.index) - int(b.index) }
				slices.SortFunc(got, byIndex)
				slices.SortFunc(want, byIndex)
				if !slices.Equal(got, want) {
					rt.Fatalf("query %q: got %v, want %v", name, got, want)
				}
			}
			// Every entity agrees, component by component.
			if k.w.Len() != len(m.ents) {
				rt.Fatalf("Len = %d, model %d", k.w.Len(), len(m.ents))
			}
			for e, comps := range m.ents {
				want := map[string]int{}
				for n, c := range comps {
					want[n] = c.val
				}
				if got := k.read(e); !maps.Equal(got, want) {
					rt.Fatalf("entity %v: got %v, want %v", e, got, want)
				}
			}
			for _, h := range handles {
				if _, alive := m.ents[h]; alive != k.w.Alive(h) {
					rt.Fatalf("Alive(%v) = %v, model %v", h, !alive, alive)
				}
			}
			for e := range m.ents {
				p, has := k.w.Parent(e)
				if mp, mhas := m.parent[e]; has != mhas || p != mp {
					rt.Fatalf("Parent(%v) = %v %v, model %v %v", e, p, has, mp, mhas)
				}
				if got := k.w.Children(e); !slices.Equal(got, m.kids[e]) {
					rt.Fatalf("Children(%v) = %v, model %v", e, got, m.kids[e])
				}
			}
		}
	})
}

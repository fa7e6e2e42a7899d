package ecs

import "testing"

// TestCaptureMarksNameTheWriters: a capturer that keeps marks lists, for
// every captured row of tables and sparse sets, a mark that names the same
// writer and adder as LastWrite does, through keyframes and deltas, writes
// by queries, single Gets, command buffers and a tool's edit.
func TestCaptureMarksNameTheWriters(t *testing.T) {
	type Tag struct{ N int }
	w := NewWorld()
	Register[Tag](w, SparseStorage)
	pos, hp, tag := NewMap[Position](w), NewMap[Health](w), NewMap[Tag](w)
	var ents []Entity
	for i := range 40 {
		e := pos.Spawn(Position{X: float64(i)})
		if i%3 == 0 {
			must(t, hp.Add(e, Health{HP: 10}))
		}
		if i%5 == 0 {
			must(t, tag.Add(e, Tag{N: i}))
		}
		ents = append(ents, e)
	}
	q := NewQuery1[Position](w, Mut[Position]())
	s := NewSchedule()
	s.Add("move", func(w *World, _ *Commands) {
		for it := q.Iter(); it.Next(); {
			it.Get().X++
		}
	}, Writes[Position]())
	s.Add("hurt", func(w *World, _ *Commands) {
		hp.Get(ents[3*int(w.Frame()%10)]).HP--
		tag.Get(ents[5*int(w.Frame()%8)]).N++
	}, Writes[Health](), Writes[Tag]())
	s.Add("grow", func(w *World, cmds *Commands) {
		AddLater(cmds, ents[int(w.Frame())%40], Health{HP: 1})
	}, Reads[Position]())
	c := w.Inspect().NewCapturer()
	c.Marks = true
	rows := map[uint64][]Entity{} // a table's entities by row, as the captures said
	checked := map[string]int{}
	check := func(cp *Capture) {
		t.Helper()
		for ti := range cp.Tables {
			tc := &cp.Tables[ti]
			key := uint64(tc.Archetype)
			if tc.Sparse {
				key |= 1 << 32
			}
			if tc.Entities != nil {
				rows[key] = tc.Entities
			}
			for _, cc := range tc.Columns {
				over := func(list []int32) []int {
					var out []int
					if tc.All {
						for r := range tc.Len {
							out = append(out, r)
						}
						return out
					}
					for _, r := range list {
						out = append(out, int(r))
					}
					return out
				}
				expand := func(runs []MarkRun, n int) []uint32 {
					var out []uint32
					for _, r := range runs {
						for range r.Rows {
							out = append(out, r.Mark)
						}
					}
					if len(out) != n {
						t.Fatalf("marks cover %d rows, the capture lists %d", len(out), n)
					}
					return out
				}
				wr, ad := over(cc.Changed), over(cc.Added)
				wm, am := expand(cc.WriteMarks, len(wr)), expand(cc.AddMarks, len(ad))
				for i, r := range wr {
					e := rows[key][r]
					want, _, ok := w.Inspect().LastWrite(e, cc.Component)
					if got := w.Inspect().MarkProvenance(cc.Component, wm[i]); !ok || got != want {
						t.Fatalf("frame %d, %v's component %d written: the mark says %+v, LastWrite %+v", w.Frame(), e, cc.Component, got, want)
					}
					checked[want.By]++
				}
				for i, r := range ad {
					e := rows[key][r]
					_, want, _ := w.Inspect().LastWrite(e, cc.Component)
					if got := w.Inspect().MarkProvenance(cc.Component, am[i]); got != want {
						t.Fatalf("frame %d, %v's component %d added: the mark says %+v, LastWrite %+v", w.Frame(), e, cc.Component, got, want)
					}
				}
			}
		}
	}
	check(c.Capture(true))
	for f := range 30 {
		s.Run(w)
		if f == 12 {
			w.Inspect().ActAs("client 1", func() { must(t, hp.Set(ents[0], Health{HP: 99})) })
		}
		must(t, w.Tick())
		check(c.Capture(f%7 == 0))
	}
	for _, by := range []string{"move", "hurt", "client 1"} {
		if checked[by] == 0 {
			t.Errorf("no captured row was written by %s: %v", by, checked)
		}
	}
}

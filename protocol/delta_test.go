package protocol

import "testing"

// TestPageDeltaIsSmall: a page where 1% of rows changed, one entity left
// and one came, travels as a delta of at most 5% of the full frame's bytes,
// and applying it rebuilds the full page.
func TestPageDeltaIsSmall(t *testing.T) {
	prev := samplePage(1000)
	next := samplePage(1000)
	next.Tick++
	for i := 0; i < 1000; i += 100 { // 1%
		next.Rows[i].Values[0] = MapValue(Field{"X", FloatValue(-1)}, Field{"Y", FloatValue(-1)})
	}
	next.Rows = next.Rows[1:]                      // one left
	next.Rows = append(next.Rows, sampleRow(5000)) // one came
	delta := DiffPage(prev, next)
	if delta.Full || len(delta.Rows) != 10 || len(delta.Removed) != 1 {
		t.Fatalf("delta: %d rows, %d removed, full=%v", len(delta.Rows), len(delta.Removed), delta.Full)
	}
	fullBytes, _ := Encode(next)
	deltaBytes, _ := Encode(delta)
	if ratio := float64(len(deltaBytes)) / float64(len(fullBytes)); ratio > 0.05 {
		t.Errorf("delta is %.1f%% of the full frame (%d of %d bytes)", 100*ratio, len(deltaBytes), len(fullBytes))
	} else {
		t.Logf("delta is %.2f%% of the full frame (%d of %d bytes)", 100*ratio, len(deltaBytes), len(fullBytes))
	}
	got, err := ApplyPage(prev, delta)
	if err != nil {
		t.Fatal(err)
	}
	next.Full = true
	if !sameMessage(got, next) {
		t.Error("applying the delta did not rebuild the next page")
	}
	if _, err := ApplyPage(nil, delta); err == nil {
		t.Error("a delta applied to nothing")
	}
}

func TestSummaryDelta(t *testing.T) {
	prev := sampleMessages()[17].(*Summary)
	next := *prev
	next.Tick++
	next.Archetypes = append([]Archetype{{ID: 1, Components: []uint16{1, 2}, Len: 4, Cap: 4, Bytes: 160}}, Archetype{ID: 2, Components: []uint16{1}, Len: 1, Cap: 1, Bytes: 40})
	next.Components = append(append([]Component(nil), prev.Components...), Component{ID: 2, Name: "game.Frozen", Short: "Frozen", Storage: "table"})
	d := DiffSummary(prev, &next)
	if d.Full || len(d.Archetypes) != 2 || len(d.Components) != 1 || d.Resources != nil || d.Recycled != nil {
		t.Errorf("delta = %+v", d)
	}
	got, err := ApplySummary(prev, d)
	if err != nil {
		t.Fatal(err)
	}
	next.Full = true
	if !sameMessage(got, &next) {
		t.Errorf("applied:\n%+v\nwant\n%+v", got, &next)
	}
}

// TestPageDeltaKeepsTheOrder: an entity that moves up in the window (a row
// removed before it, a new one appended) would land elsewhere by the rule;
// ord puts every row where a fresh page has it.
func TestPageDeltaKeepsTheOrder(t *testing.T) {
	row := func(i uint32, v float64) Row { return Row{Entity: MakeEntityID(i, 1), Values: []Value{FloatValue(v)}} }
	prev := &Page{Sub: 1, Full: true, Columns: []uint16{1}, Rows: []Row{row(1, 1), row(2, 2), row(3, 3)}}
	next := &Page{Sub: 1, Full: true, Columns: []uint16{1}, Rows: []Row{row(4, 4), row(1, 1), row(3, 3)}}
	d := DiffPage(prev, next)
	if len(d.Order) != 3 {
		t.Fatalf("the rule gives 1 3 4, the page is 4 1 3: ord must be sent, got %v", d.Order)
	}
	got, err := ApplyPage(prev, d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range next.Rows {
		if got.Rows[i].Entity != next.Rows[i].Entity {
			t.Fatalf("row %d is %v, want %v", i, got.Rows[i].Entity, next.Rows[i].Entity)
		}
	}
	same := &Page{Sub: 1, Full: true, Columns: []uint16{1}, Rows: []Row{row(1, 9), row(3, 3), row(5, 5)}}
	if d := DiffPage(prev, same); d.Order != nil {
		t.Errorf("the rule gives the page's order: no ord needed, got %v", d.Order)
	}
}

// FuzzApplyDeltas applies decoded, arbitrary summary and page deltas to
// full frames: an error is fine; a panic, or a page whose rows do not match
// its columns, is not.
func FuzzApplyDeltas(f *testing.F) {
	base := &Page{Sub: 1, Full: true, Columns: []uint16{1}, Rows: []Row{{Entity: MakeEntityID(1, 1), Values: []Value{IntValue(1)}}, {Entity: MakeEntityID(2, 1), Values: []Value{IntValue(2)}}}}
	sum := runFrames(130) // systems and frames whose windows a delta slides
	sum.Archetypes, sum.Components = []Archetype{{ID: 1, Len: 3}}, []Component{{ID: 1, Short: "A"}}
	for _, m := range []Message{
		DiffSummary(sum, runFrames(133)),
		&Page{Sub: 1, Columns: []uint16{1}, Rows: []Row{{Entity: MakeEntityID(3, 1), Values: []Value{IntValue(3)}}}, Removed: []EntityID{MakeEntityID(1, 1)}, Order: []EntityID{MakeEntityID(3, 1), MakeEntityID(2, 1)}},
		&Summary{Archetypes: []Archetype{{ID: 2, Len: 1}}},
	} {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		switch d := m.(type) {
		case *Page:
			if out, err := ApplyPage(base, d); err == nil {
				for _, r := range out.Rows {
					if len(r.Values) != len(out.Columns) && !d.Full {
						t.Fatalf("a row of %d values for %d columns", len(r.Values), len(out.Columns))
					}
				}
			}
		case *Summary:
			_, _ = ApplySummary(sum, d)
		}
	})
}

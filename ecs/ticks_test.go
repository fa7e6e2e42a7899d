package ecs

import (
	"testing"

	"pgregory.net/rapid"
)

// TestColumnTicksMatchAPlainModel drives one column's ticks (rows pushed
// one at a time and in batches, writes of one row and of ranges that stamp
// whole chunks, swap-removes, clears, rows appended from another column)
// against a plain list of each row's changed and added ticks: every row's
// changedSince, addedSince and the scan's nextChanged agree with the list
// for every tick since which a query may ask.
func TestColumnTicksMatchAPlainModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var col, other colTicks
		type pair struct{ changed, added uint32 }
		var model, otherModel []pair
		tick := uint32(1)
		next := func() uint32 { tick++; return tick }
		for range rapid.IntRange(1, 60).Draw(rt, "ops") {
			switch rapid.IntRange(0, 7).Draw(rt, "op") {
			case 0:
				tk := next()
				col.push(tk, tk)
				model = append(model, pair{tk, tk})
			case 1:
				n, tk := rapid.IntRange(1, 200).Draw(rt, "n"), next()
				col.pushN(n, tk)
				for range n {
					model = append(model, pair{tk, tk})
				}
			case 2:
				if len(model) > 0 {
					r, tk := rapid.IntRange(0, len(model)-1).Draw(rt, "row"), next()
					col.markWrite(r, tk)
					model[r].changed = tk
				}
			case 3:
				if len(model) > 0 {
					lo := rapid.IntRange(0, len(model)-1).Draw(rt, "lo")
					hi := rapid.IntRange(lo, len(model)).Draw(rt, "hi")
					tk := next()
					col.markRows(lo, hi, tk)
					for r := lo; r < hi; r++ {
						model[r].changed = tk
					}
				}
			case 4:
				if len(model) > 0 {
					r := rapid.IntRange(0, len(model)-1).Draw(rt, "removed")
					col.swapRemove(r)
					model[r] = model[len(model)-1]
					model = model[:len(model)-1]
				}
			case 5:
				if rapid.IntRange(0, 3).Draw(rt, "clear") == 0 {
					col.clearRows()
					model = model[:0]
				}
			case 6:
				n, tk := rapid.IntRange(1, 100).Draw(rt, "other"), next()
				other.pushN(n, tk)
				for range n {
					otherModel = append(otherModel, pair{tk, tk})
				}
				if rapid.Bool().Draw(rt, "stampOther") {
					tk := next()
					other.markRows(0, len(otherModel), tk)
					for i := range otherModel {
						otherModel[i].changed = tk
					}
				}
			case 7:
				if len(otherModel) > 0 {
					n := rapid.IntRange(1, len(otherModel)).Draw(rt, "moved")
					col.appendRows(&other, n)
					model = append(model, otherModel[:n]...)
					other.clearRows()
					otherModel = otherModel[:0]
				}
			}
			if len(col.rows) != len(model) {
				t.Fatalf("%d rows, the model %d", len(col.rows), len(model))
			}
			for since := uint32(0); since <= tick; since++ {
				first := len(model)
				for r, p := range model {
					if col.changedSince(r, since) != newer(p.changed, since) {
						t.Fatalf("row %d changed since %d: %v, the model's tick %d", r, since, col.changedSince(r, since), p.changed)
					}
					if col.addedSince(r, since) != newer(p.added, since) {
						t.Fatalf("row %d added since %d: %v, the model's tick %d", r, since, col.addedSince(r, since), p.added)
					}
					if first == len(model) && newer(p.changed, since) {
						first = r
					}
				}
				if got := col.nextChanged(0, len(model), since); got != first {
					t.Fatalf("the first row changed since %d: %d, the model's %d", since, got, first)
				}
			}
		}
	})
}

// TestNewerWrapsAround: ticks compare across the uint32 wrap.
func TestNewerWrapsAround(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		want bool
	}{{2, 1, true}, {1, 2, false}, {1, 1, false}, {0, ^uint32(0), true}, {5, ^uint32(0) - 3, true}, {^uint32(0), 0, false}} {
		if newer(c.a, c.b) != c.want || (newerBit(c.a, c.b) == 1) != c.want {
			t.Errorf("newer(%d, %d) = %v, bit %d; want %v", c.a, c.b, newer(c.a, c.b), newerBit(c.a, c.b), c.want)
		}
		want := c.a
		if newer(c.b, c.a) {
			want = c.b
		}
		if newest(c.a, c.b) != want {
			t.Errorf("newest(%d, %d) = %d, want %d", c.a, c.b, newest(c.a, c.b), want)
		}
	}
}

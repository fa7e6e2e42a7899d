package query

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// pageBounds is the paging rule as PROTOCOL.md and ecs.Pager state it:
// rows[lo:hi] of n, from offset (a negative one counts as 0), at most
// limit of them (a negative limit: every one).
func pageBounds(n, offset, limit int) (lo, hi int) {
	lo = min(max(offset, 0), n)
	if limit < 0 {
		return lo, n
	}
	return lo, min(n, lo+limit)
}

// TestOnePagingRule: one table of windows run through every pager there
// is, the kernel's Scan and ArchetypeEntities and the query language's
// Window with and without a sort, gives the same rows and totals.
func TestOnePagingRule(t *testing.T) {
	const n = 6
	w := ecs.NewWorld()
	type tag struct{ N int }
	id := ecs.Register[tag](w, ecs.TableStorage)
	var all []ecs.Entity
	for i := range n {
		all = append(all, ecs.NewMap[tag](w).Spawn(tag{i}))
	}
	arch, _, ok := w.Inspect().Location(all[0])
	if !ok {
		t.Fatal("no location for a live entity")
	}
	for _, offset := range []int{-2, 0, 1, 5, 6, 9} {
		for _, limit := range []int{-1, 0, 1, 4, 6, 20} {
			lo, hi := pageBounds(n, offset, limit)
			want := all[lo:hi]
			name := fmt.Sprintf("offset %d limit %d", offset, limit)
			check := func(pager string, got []ecs.Entity, total int) {
				t.Helper()
				if total != n || !slices.Equal(got, want) && len(got)+len(want) > 0 {
					t.Errorf("%s, %s: %v of %d, want %v of %d", name, pager, got, total, want, n)
				}
			}
			got, total := w.Inspect().Scan(ecs.Filter{With: []ecs.ComponentID{id}}, offset, limit)
			check("Scan", got, total)
			got, total = w.Inspect().ArchetypeEntities(arch, offset, limit)
			check("ArchetypeEntities", got, total)
			for _, key := range []*SortKey{nil, {}} {
				win := NewWindow(offset, limit, key, func(e ecs.Entity) (protocol.Value, bool) { return protocol.UintValue(uint64(e.Index())), true })
				for _, e := range all {
					win.Add(e)
				}
				check(fmt.Sprintf("Window (sorted %v)", key != nil), win.Rows(), win.Total())
			}
		}
	}
}

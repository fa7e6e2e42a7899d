package ecs

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPagerCutsThePage: rows met in runs of any lengths give the same page
// and total as the whole list cut at once.
func TestPagerCutsThePage(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "rows")
		all := make([]Entity, n)
		for i := range all {
			all[i] = Entity{index: uint32(i), gen: 1}
		}
		offset := rapid.IntRange(-3, 70).Draw(rt, "offset")
		limit := rapid.IntRange(-1, 70).Draw(rt, "limit")
		lo := min(max(offset, 0), n)
		hi := n
		if limit >= 0 {
			hi = min(n, lo+limit)
		}
		p := NewPager(offset, limit)
		var got []Entity
		for rest := all; len(rest) > 0; {
			k := rapid.IntRange(1, len(rest)).Draw(rt, "run")
			got = p.take(got, rest[:k])
			rest = rest[k:]
		}
		if !slices.Equal(got, all[lo:hi]) || p.Total() != n {
			rt.Fatalf("offset %d limit %d of %d: %v (total %d), want %v", offset, limit, n, got, p.total, all[lo:hi])
		}
	})
}

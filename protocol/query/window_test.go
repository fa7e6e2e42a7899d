package query

import (
	"slices"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
	"pgregory.net/rapid"
)

// TestWindowIsTheSortedSlice: a window over matches equals the whole list
// sorted stably by the key (rows without it last) and cut at offset and
// limit, or, without a key, the list cut; its total counts every match.
func TestWindowIsTheSortedSlice(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		type match struct {
			id  int
			v   int64
			has bool
		}
		n := rapid.IntRange(0, 300).Draw(rt, "n")
		var all []match
		for i := range n {
			all = append(all, match{i, int64(rapid.IntRange(-5, 5).Draw(rt, "v")), rapid.IntRange(0, 6).Draw(rt, "has") > 0})
		}
		offset, limit := rapid.IntRange(-3, n+5).Draw(rt, "offset"), rapid.IntRange(-1, n+5).Draw(rt, "limit")
		var key *SortKey
		if rapid.Bool().Draw(rt, "sorted") {
			key = &SortKey{Desc: rapid.Bool().Draw(rt, "desc")}
		}
		win := NewWindow(offset, limit, key, func(m match) (protocol.Value, bool) { return protocol.IntValue(m.v), m.has })
		for _, m := range all {
			win.Add(m)
		}
		want := slices.Clone(all)
		if key != nil {
			slices.SortStableFunc(want, func(a, b match) int { return key.Compare(protocol.IntValue(a.v), a.has, protocol.IntValue(b.v), b.has) })
		}
		lo, hi := pageBounds(len(want), offset, limit)
		want = want[lo:hi]
		got := win.Rows()
		if win.Total() != n || !slices.Equal(got, want) && len(got)+len(want) > 0 {
			rt.Fatalf("offset %d limit %d key %+v: total %d, rows %v; want %d, %v", offset, limit, key, win.Total(), got, n, want)
		}
	})
}

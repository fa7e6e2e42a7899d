package values

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestOneResourcePager: one table of windows over the same values, paged
// live from the game's memory (Page) and offline from the value a
// recording keeps (protocol.PageOfValue), gives the same page: the same
// total, offset, order, keys and kinds; a map past the sorting bound is
// unordered both ways, with no page past the bound.
func TestOneResourcePager(t *testing.T) {
	type cell struct {
		A, B, C int
		d, e    string
	}
	big := make(map[int]int, protocol.MaxSortedKeys+50)
	for i := range protocol.MaxSortedKeys + 50 {
		big[i] = i
	}
	small := map[string]int{}
	for i := range 12 {
		small[fmt.Sprintf("k%02d", 11-i)] = i
	}
	list := make([]int, 12)
	for i := range list {
		list[i] = i * i
	}
	for name, v := range map[string]any{"struct": cell{1, 2, 3, "x", "y"}, "list": list, "map": small, "big map": big} {
		rv := reflect.ValueOf(v)
		kept := Whole(rv)
		schema := TypeSchema(rv.Type())
		for _, offset := range []int{-1, 0, 3, 11, 12, 40, protocol.MaxSortedKeys + 10} {
			for _, limit := range []int{0, 1, 4, 12, 100} {
				w, err := Page(name, rv, "", offset, limit)
				if err != nil {
					t.Fatal(err)
				}
				live := w.Build()
				offline, err := protocol.PageOfValue(name, kept, schema, "", offset, limit, false)
				if err != nil {
					t.Fatal(err)
				}
				at := fmt.Sprintf("%s, offset %d limit %d", name, offset, limit)
				if live.Total != offline.Total || live.Offset != offline.Offset || live.Unordered != offline.Unordered || len(live.Items) != len(offline.Items) {
					t.Fatalf("%s: live total %d offset %d unordered %v, %d items; offline %d, %d, %v, %d items",
						at, live.Total, live.Offset, live.Unordered, len(live.Items), offline.Total, offline.Offset, offline.Unordered, len(offline.Items))
				}
				if want := min(protocol.ResourceLimit(limit), max(0, live.Total-max(live.Offset, 0))); len(live.Items) != want {
					t.Errorf("%s: %d items, want %d", at, len(live.Items), want)
				}
				for i := range live.Items {
					l, o := live.Items[i], offline.Items[i]
					if l.Kind != o.Kind || !live.Unordered && l.Key != o.Key {
						t.Errorf("%s: item %d live %q (%s), offline %q (%s)", at, i, l.Key, l.Kind, o.Key, o.Kind)
					}
				}
			}
		}
	}
}

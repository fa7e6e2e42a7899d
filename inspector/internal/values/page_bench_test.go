package values

import (
	"reflect"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

// hive is a resource as a game keeps one: a grid of a hundred thousand
// handles and a map of a hundred thousand counts.
type hive struct {
	Cells  []ecs.Entity
	Counts map[int]int
}

// BenchmarkResourcePage is what a page of a big resource costs the game
// goroutine (the part taken there: the window's copy), against plain Go
// copying the same children: a list's 1,000 items, and 1,000 entries of a
// map too big to sort, from its 4,096th. ns/child.
func BenchmarkResourcePage(b *testing.B) {
	const n, limit = 100_000, 1000
	h := &hive{Cells: make([]ecs.Entity, n), Counts: make(map[int]int, n)}
	for i := range n {
		h.Cells[i] = ecs.EntityOf(uint32(i), 1)
		h.Counts[i] = i
	}
	rv := reflect.ValueOf(h).Elem()
	take := func(path string, offset int) *Window {
		w, err := Page("hive", rv, path, offset, limit)
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	cells := make([]ecs.Entity, limit)
	keys, vals := make([]int, limit), make([]int, limit)
	b.Run("list", func(b *testing.B) {
		if p := take("Cells", 5000).Build(); len(p.Items) != limit || p.Items[0].Key != "5000" {
			b.Fatalf("the page starts at %s with %d items", p.Items[0].Key, len(p.Items))
		}
		benchpair.Run(b, limit, "ns/child", func() { take("Cells", 5000) }, func() {
			cells = make([]ecs.Entity, limit)
			copy(cells, h.Cells[5000:5000+limit])
		})
	})
	b.Run("big-map", func(b *testing.B) {
		if p := take("Counts", 1<<20).Build(); len(p.Items) != limit || p.Offset != 4096 {
			b.Fatalf("the page has %d items from %d", len(p.Items), p.Offset)
		}
		benchpair.Run(b, limit, "ns/child", func() { take("Counts", 1<<20) }, func() {
			keys, vals = make([]int, limit), make([]int, limit)
			i := 0
			for k, v := range h.Counts { // the same walk: past 4,096 entries, then 1,000 copied
				if i >= 4096+limit {
					break
				}
				if i >= 4096 {
					keys[i-4096], vals[i-4096] = k, v
				}
				i++
			}
		})
	})
	_, _, _ = cells, keys, vals
}

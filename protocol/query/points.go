package query

import "github.com/ecsinspect/ecsinspect/protocol"

// Points reads two numeric fields of every row w passes: x's sort field
// as x, y's as y (two plans of one query, each sorting by one field), and
// gives each pair to add. A row lacking either is passed over. The agent's
// points subscription and a recording's review both draw through it.
func Points(w World, x, y *Plan, add func(x, y float64)) {
	var xs []float64
	var ents []protocol.EntityID
	x.Each(w, func(h Hit) {
		if v, ok := h.SortValue(); ok {
			if n, ok := v.Number(); ok {
				xs, ents = append(xs, n), append(ents, h.Entity())
			}
		}
	})
	i := 0 // both plans visit the same rows in the same order
	y.Each(w, func(h Hit) {
		for i < len(ents) && ents[i] != h.Entity() {
			i++
		}
		if i == len(ents) {
			return
		}
		if v, ok := h.SortValue(); ok {
			if n, ok := v.Number(); ok {
				add(xs[i], n)
			}
		}
		i++
	})
}

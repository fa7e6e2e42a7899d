package ecs

import "slices"

// Exchange gives e the component T, with the value v (set in place if e
// has it), and takes the components remove away, in one move between
// tables: a state switch (Foraging for Returning) costs one row move where
// a remove then an add cost two. A component of remove that e lacks is
// passed over; T may not be among them, nor ChildOf (changed with
// [World.SetParent] and [World.ClearParent]). It returns an
// [*EntityError] if e is not alive. Panics if a query is iterating (queue
// it with [ExchangeLater]).
func (m *Map[T]) Exchange(e Entity, v T, remove ...ComponentID) error {
	w := m.w
	rec, err := w.changing("Exchange", e)
	if err != nil {
		return err
	}
	if m.id == childOfID || slices.Contains(remove, childOfID) {
		return errChildOfDirect
	}
	if slices.Contains(remove, m.id) {
		return errBothWays
	}
	for _, id := range remove {
		w.mustBeRegistered(id)
	}
	for _, id := range remove { // sparse components leave without a move
		if s := w.sparse[id]; s != nil && s.remove(e) {
			rec.nsparse--
			w.logStructural(OpRemove, e, int(id))
		}
	}
	from := rec.table
	if dst := w.exchangeTable(from, m.id, remove); dst != from {
		w.moveTo(e, rec, dst)
	}
	if m.sparse != nil {
		m.putSparse(e, rec, v)
		return nil
	}
	col := m.cols.of(rec.table)
	col.data[rec.row] = v
	if rec.table == from { // overwritten in place; a moved row came with this tick
		col.t.markWrite(int(rec.row), w.writeStamp())
	}
	return nil
}

// swapEdge is an exchange of one component for another from a table, and
// the table it reaches.
type swapEdge struct {
	add, remove ComponentID
	to          uint32 // table id + 1; 0: empty
}

// exchangeTable is the table of table t's components with add (if it is a
// table component) and without remove's table components. An exchange of
// one for one is looked up among the table's latest first (a state
// switch goes back and forth between a few tables).
func (w *World) exchangeTable(t uint32, add ComponentID, remove []ComponentID) uint32 {
	tb := w.tables[t]
	if len(remove) == 1 {
		for i := range tb.swaps {
			if s := &tb.swaps[i]; s.to != 0 && s.add == add && s.remove == remove[0] {
				return s.to - 1
			}
		}
		to := w.exchangeMask(t, add, remove)
		tb = w.tables[t] // tables may have grown
		tb.swaps[tb.nswap%uint8(len(tb.swaps))] = swapEdge{add: add, remove: remove[0], to: to + 1}
		tb.nswap++
		return to
	}
	return w.exchangeMask(t, add, remove)
}

// exchangeMask finds (or makes) the table exchangeTable names by its mask.
func (w *World) exchangeMask(t uint32, add ComponentID, remove []ComponentID) uint32 {
	m := w.tables[t].mask
	if w.sparse[add] == nil {
		m.Set(add)
	}
	for _, id := range remove {
		if w.sparse[id] == nil {
			m.Clear(id)
		}
	}
	if m == w.tables[t].mask {
		return t
	}
	return w.tableAimed(m, w.tables[t], noAim, Entity{})
}

// ExchangeLater queues [Map.Exchange]: at the apply, e gets T with the
// value v and loses the components remove, in one move. If e lacks a
// component of remove by then (another system switched its state first),
// nothing is done and the command counts as skipped, as a [RemoveLater]
// of a component e lacks does: a switch from a state the entity is no
// longer in would leave it in two.
func ExchangeLater[T any](c *Commands, e Entity, v T, remove ...ComponentID) {
	c.exchangeIDs = append(c.exchangeIDs, remove...) // taken in order by the apply
	c.exchangeEnds = append(c.exchangeEnds, int32(len(c.exchangeIDs)))
	queueValue(c, cmdExchange, e, v)
}

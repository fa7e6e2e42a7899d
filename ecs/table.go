package ecs

// table is an archetype: every entity with exactly one set of table-stored
// components, one row each, with one contiguous column per component.
type table struct {
	id       uint32
	mask     Mask
	ids      []ComponentID // ascending
	cols     []column      // parallel to ids
	ticks    []*colTicks   // parallel to ids: each column's ticks
	raw      []rawCol      // parallel to ids: the pointer-free columns as bytes
	colIndex [MaxComponents]int16
	entities []Entity
	// edges caches the table reached by adding (add) or removing (remove)
	// one component: table id + 1, 0 when not yet known.
	add, remove []uint32
}

func newTable(id uint32, mask Mask, reg *registry) *table {
	t := &table{id: id, mask: mask, ids: mask.IDs()}
	for i := range t.colIndex {
		t.colIndex[i] = -1
	}
	t.cols = make([]column, len(t.ids))
	t.ticks = make([]*colTicks, len(t.ids))
	t.raw = make([]rawCol, len(t.ids))
	for i, cid := range t.ids {
		t.colIndex[cid] = int16(i)
		t.cols[i] = reg.regs[cid].newColumn()
		t.ticks[i] = t.cols[i].ticks()
		t.raw[i] = t.cols[i].raw()
	}
	return t
}

func (t *table) len() int { return len(t.entities) }

// column returns the column index of id, or -1.
func (t *table) column(id ComponentID) int { return int(t.colIndex[id]) }

// pushZero appends a row of zero values for e, changed and added at tick.
func (t *table) pushZero(e Entity, tick uint32) int {
	row := len(t.entities)
	t.entities = append(t.entities, e)
	for _, c := range t.cols {
		c.pushZero(tick)
	}
	return row
}

// pushN appends n rows of zero values, changed and added at tick; the caller
// fills entities[first:].
func (t *table) pushN(n int, tick uint32) (first int) {
	first = len(t.entities)
	t.entities = growEntities(t.entities, n)
	for _, c := range t.cols {
		c.pushN(n, tick)
	}
	return first
}

func growEntities(s []Entity, n int) []Entity {
	if need := len(s) + n; need > cap(s) {
		grown := make([]Entity, len(s), max(need, 2*cap(s)))
		copy(grown, s)
		s = grown
	}
	return s[:len(s)+n]
}

// swapRemove deletes row by moving the last row into it; it returns the
// entity that moved (zero if none did).
func (t *table) swapRemove(row int) Entity {
	last := len(t.entities) - 1
	for i := range t.raw {
		if r := &t.raw[i]; r.ok {
			r.swapRemove(row, last)
		} else {
			t.cols[i].swapRemove(row)
		}
	}
	var moved Entity
	if row != last {
		moved = t.entities[last]
		t.entities[row] = moved
	}
	t.entities = t.entities[:last]
	return moved
}

// moveRowFrom moves row of src into a new row of t for the same entity:
// values and ticks of the components both tables hold move along, the others
// start zero, added at tick; components t lacks are dropped. It returns the
// new row and the entity that filled the hole in src (zero if none).
func (t *table) moveRowFrom(src *table, row int, tick uint32) (newRow int, moved Entity) {
	newRow = len(t.entities)
	t.entities = append(t.entities, src.entities[row])
	last := len(src.entities) - 1
	for i, cid := range t.ids {
		d := &t.raw[i]
		if j := src.colIndex[cid]; j >= 0 {
			if d.ok && d.roomFor() {
				d.moveFrom(&src.raw[j], row)
			} else {
				t.cols[i].moveFrom(src.cols[j], row)
			}
		} else if d.ok && d.roomFor() {
			d.pushZero(tick)
		} else {
			t.cols[i].pushZero(tick)
		}
	}
	for j, cid := range src.ids {
		if t.colIndex[cid] < 0 {
			if s := &src.raw[j]; s.ok {
				s.swapRemove(row, last)
			} else {
				src.cols[j].swapRemove(row)
			}
		}
	}
	if row != last {
		moved = src.entities[last]
		src.entities[row] = moved
	}
	src.entities = src.entities[:last]
	return newRow, moved
}

func (t *table) reserve(extra int) {
	if need := len(t.entities) + extra; need > cap(t.entities) {
		grown := make([]Entity, len(t.entities), max(need, 2*cap(t.entities)))
		copy(grown, t.entities)
		t.entities = grown
	}
	for _, c := range t.cols {
		c.reserve(extra)
	}
}

// bytes estimates the memory the table's rows take: values, entities, ticks.
func (t *table) bytes(reg *registry) (used, capacity int) {
	per := 8 // entity handle
	for _, cid := range t.ids {
		per += int(reg.regs[cid].info.Size) + 8 // value + changed and added ticks
	}
	return per * len(t.entities), per * cap(t.entities)
}

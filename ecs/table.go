package ecs

// table is an archetype: every entity with exactly one set of table-stored
// components, one row each, with one contiguous column per component.
type table struct {
	id       uint32
	mask     Mask
	ids      []ComponentID // ascending
	cols     []column      // parallel to ids
	ticks    []*colStamps  // parallel to ids: each column's ticks
	raw      []rawCol      // parallel to ids: the pointer-free columns as bytes
	colIndex [MaxComponents]int16
	entities []Entity
	// shape counts the changes of which entity sits in which row (pushes,
	// removals, moves): a capture copies the entity list only when it moved.
	shape uint64
	logs  bool // some column keeps a change log (changelog.go)
	// edges caches the table reached by adding (add) or removing (remove)
	// one component: table id + 1, 0 when not yet known.
	add, remove []uint32
	// swaps caches the tables the latest exchanges of one component for
	// another reached from here (exchange.go).
	swaps [4]swapEdge
	nswap uint8
	// aims are the aimed relation kinds among the table's components,
	// ascending, and targets where its holders of each point (aimed.go);
	// nil in a table aimed at nothing.
	aims    []ComponentID
	targets []Entity
	retired bool // aimed at a target gone, free for a table of its mask
}

func newTable(id uint32, mask Mask, reg *registry, stamps *stampState) *table {
	t := &table{id: id, mask: mask, ids: mask.IDs()}
	for i := range t.colIndex {
		t.colIndex[i] = -1
	}
	t.cols = make([]column, len(t.ids))
	t.ticks = make([]*colStamps, len(t.ids))
	t.raw = make([]rawCol, len(t.ids))
	for i, cid := range t.ids {
		t.colIndex[cid] = int16(i)
		t.cols[i] = reg.regs[cid].newColumn()
		if stamps.kept(cid) {
			t.cols[i].startStamps(0)
		}
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
	t.entities = growEntities(t.entities, 1)
	t.entities[row] = e
	t.shape++
	for i := range t.raw {
		if d := &t.raw[i]; d.ok && d.roomFor() {
			n := d.hdr.len
			d.clearTakenRow(n)
			d.hdr.len = n + 1
			if tk := d.ticks; tk != nil && !pushTicksFast(tk, n, tick, tick) {
				tk.push(tick, tick)
			}
		} else {
			t.cols[i].pushZero(tick)
		}
	}
	if t.logs {
		t.logNewTicks(row)
	}
	return row
}

// pushN appends n rows of zero values, changed and added at tick, their
// entities left to the caller. Only rows below a column's dirty mark are
// cleared (typedColumn.dirty): past a table emptied at once, none. A
// pointer-free column with room takes its rows here, with no call into
// the column (a batch of 16 entities of ten components made ten such
// calls).
func (t *table) pushN(n int, tick uint32) (first int) {
	first = len(t.entities)
	t.entities = growEntities(t.entities, n)
	t.shape++
	for i := range t.raw {
		d := &t.raw[i]
		if !d.ok || d.hdr.len+n > d.hdr.cap {
			t.cols[i].pushN(n, tick)
			continue
		}
		d.clearTaken(d.hdr.len, d.hdr.len+n)
		d.hdr.len += n
		if d.ticks != nil {
			d.ticks.pushN(n, tick)
		}
	}
	return first
}

func growEntities(s []Entity, n int) []Entity {
	if need := len(s) + n; need > cap(s) {
		s = withRoom(s, grownCap(need, cap(s)))
	}
	return s[:len(s)+n]
}

// swapRemove deletes row by moving the last row into it; it returns the
// entity that moved (zero if none did). Pointer-free columns are handled
// right here, with no call per column: Go keeps no register across a call,
// so a call in this loop would reload every value the loop holds.
func (t *table) swapRemove(row int) Entity {
	last := len(t.entities) - 1
	for i := range t.raw {
		c := &t.raw[i]
		if !c.ok {
			t.cols[i].swapRemove(row)
			continue
		}
		c.hdr.len = last
		tk := c.ticks
		if tk == nil { // no stamps: the last row's value fills the hole
			if row != last {
				copyBytes(c.at(row), c.at(last), c.size)
			}
			c.left(last)
			continue
		}
		rows := tk.header()
		if row != last { // the last row fills the hole, value and ticks
			copyBytes(c.at(row), c.at(last), c.size)
			// colStamps.fillHole, written out: a call per column here
			// reloads what the loop holds (add_remove_large one by one at
			// 64k: 1.44x ark written out, 1.75x through the call).
			changed, added, ok := tk.chunkOnly(last)
			if !ok {
				filler := *tickAt(rows, last)
				changed, added = newest(filler.changed, changed), newest(filler.added, added)
			}
			if cr := row >> chunkShift; cr != last>>chunkShift && tk.stampsOver(cr, changed, added) {
				tk.materialize(cr)
			}
			if c, a, ok := tk.chunkOnly(row); !ok || c != changed || a != added {
				*tickAt(rows, row) = stampPair{changed, added}
			}
			gmax := u32At(tk.max, row>>groupShift)
			*gmax = newest(*gmax, changed)
		}
		c.left(last)
		rows.len = last
	}
	if t.logs {
		t.logRemoval(row, row != last)
	}
	var moved Entity
	t.shape++
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
// Pointer-free columns are copied as bytes in the loop itself (see
// swapRemove for why there is no call per column).
func (t *table) moveRowFrom(src *table, row int, tick uint32) (newRow int, moved Entity) {
	newRow = len(t.entities)
	t.entities = growEntities(t.entities, 1)
	t.entities[newRow] = src.entities[row]
	t.shape++
	for i, cid := range t.ids {
		d := &t.raw[i]
		j := src.colIndex[cid]
		switch {
		case !d.ok || !d.roomFor(): // the typed path: pointers, or growth
			if j >= 0 {
				t.cols[i].appendFrom(src.cols[j], row)
			} else {
				t.cols[i].pushZero(tick)
			}
		default: // bytes: the value from src, or zero for a component src lacks
			n := d.hdr.len
			dt := d.ticks // src's column of the same component keeps stamps too, or neither does
			changed, added := tick, tick
			if j >= 0 {
				s := &src.raw[j]
				copyBytes(d.at(n), s.at(row), d.size)
				if dt != nil {
					st := s.ticks
					moving := *tickAt(st.header(), row)
					changed = newest(moving.changed, *u32At(st.stamp, row>>chunkShift))
					added = newest(moving.added, *u32At(st.astamp, row>>chunkShift))
				}
			} else {
				d.clearTakenRow(n)
			}
			d.hdr.len = n + 1
			if dt == nil {
				continue
			}
			if !pushTicksFast(dt, n, changed, added) {
				dt.push(changed, added)
			}
			if debugChecks {
				debugMovedStamps(dt, n, changed, added)
			}
		}
	}
	if t.logs {
		t.logNewTicks(newRow)
	}
	return newRow, src.swapRemove(row)
}

// appendTable moves every row of src to the end of t, for the same
// entities, as moveRowFrom would one row at a time from the first row on:
// values and ticks of the components both tables hold move along, the
// others start zero, added at tick; components t lacks are dropped. One
// copy per column, or none when t is empty (handOver), then src is empty.
// It returns the first new row.
func (t *table) appendTable(src *table, tick uint32) (first int) {
	first, n := len(t.entities), src.len()
	// Into an empty table the rows change hands, no memory moves. Columns
	// keep room together with the entity list (reserve): a column handed
	// over has room for src's list, which t takes, and src gets t's list
	// with t's columns; the columns that stay have room for their table's
	// old list. A change log belongs to its column, not to the rows: a
	// table keeping one takes the copy.
	handOver := first == 0 && !t.logs && !src.logs
	srcRoom := cap(src.entities)
	if handOver {
		t.entities, src.entities = src.entities, t.entities[:0]
	} else {
		t.entities = growEntities(t.entities, n)
		copy(t.entities[first:], src.entities)
	}
	t.shape++
	for i, cid := range t.ids {
		switch j := src.colIndex[cid]; {
		case j >= 0 && handOver:
			t.cols[i].takeRows(src.cols[j])
		case j >= 0:
			t.cols[i].appendAll(src.cols[j])
		default:
			t.cols[i].pushN(n, tick)
			if handOver {
				t.cols[i].reserve(cap(t.entities) - n)
			}
		}
	}
	src.clearRows()
	if cap(src.entities) > srcRoom {
		src.evenRoom()
	}
	return first
}

// clearRows empties the table, keeping its room, every row that held a
// value cleared (see typedColumn.clearRows): a pointer-free column here,
// with no call into it, the others through the column.
func (t *table) clearRows() {
	for i := range t.raw {
		if d := &t.raw[i]; d.ok {
			d.clearRows(0, max(d.hdr.len, *d.dirty))
			d.hdr.len, *d.dirty = 0, 0
			if d.ticks != nil {
				d.ticks.clearRows()
			}
			continue
		}
		t.cols[i].clearRows()
	}
	t.shape++
	t.entities = t.entities[:0]
}

// logRemoval tells the change logs of t's columns that a row left and,
// when filled, that row now holds the table's last row. The loops above
// leave logs to these calls, made only for tables with logs, so tables
// without pay one test per change.
func (t *table) logRemoval(row int, filled bool) {
	for _, tk := range t.ticks {
		if tk.log.on {
			tk.log.moved()
		}
	}
	if filled {
		t.logNewTicks(row)
	}
}

// logNewTicks logs row's changed ticks, new or from another row, in the
// columns that keep logs, unless a column's own code (push) logged them
// already.
func (t *table) logNewTicks(row int) {
	for _, tk := range t.ticks {
		if !tk.log.on {
			continue
		}
		ch := tk.effective(row) // a filled hole may keep its chunk's stamps (fillHole)
		if !newer(ch, tk.log.from) {
			continue
		}
		if e := tk.log.entries; len(e) > 0 && e[len(e)-1] == (logEntry{uint32(row), ch}) {
			continue
		}
		tk.logRow(row, ch)
	}
}

// reserve makes room for extra more rows. The columns keep room together
// with the entity list (they grow by the same rule at the same rows), so a
// list with room means columns with room: nothing to ask of them.
func (t *table) reserve(extra int) {
	need := len(t.entities) + extra
	if need <= cap(t.entities) {
		return
	}
	t.entities = withRoom(t.entities, grownCap(need, cap(t.entities)))
	for _, c := range t.cols {
		c.reserve(extra)
	}
}

// evenRoom gives every column room for as many rows as the entity list
// has, as reserve keeps them, after the list changed hands (appendTable).
func (t *table) evenRoom() {
	for _, c := range t.cols {
		c.reserve(cap(t.entities) - len(t.entities))
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

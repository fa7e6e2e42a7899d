package ecs

import (
	"reflect"
	"slices"
	"unsafe"
)

// Captures: the world's rows copied on the game goroutine at memory speed,
// whole or as what changed since the previous capture, for a recorder that
// turns them into files elsewhere. What changed comes from the kernel's own
// bookkeeping, never from comparing worlds: a table's shape counter says
// whether rows were added, removed or moved, and the change stamps say which
// rows' values were written.

// Capture is one capture of a world.
type Capture struct {
	// Tables holds every table with rows (Full), or the tables whose rows
	// moved or whose values changed since the previous capture. Sparse
	// components come as tables of one column with Sparse set.
	Tables []TableCapture
	// Links lists every parent's children in link order, when any link
	// changed since the previous capture (or Full); LinksChanged says so.
	Links        []ChildLinks
	LinksChanged bool
	// Full is set when the capture holds every table whole.
	Full bool
	// Alloc is the entity allocator: what the next spawns will get.
	Alloc AllocCapture
}

// AllocCapture is the entity allocator's state, whole or as it changed
// since the previous capture: with the live entities' handles it gives
// every slot's generation and the free list, which a restore needs so the
// spawns after it get the handles they got the first time.
type AllocCapture struct {
	Slots int // slots the world has (live, free and retired)
	// Gens holds every slot's generation, on a full capture only. A free
	// slot's generation changes only as it goes on the free list, so
	// later captures carry it in Free.
	Gens []uint32
	// Keep is how many entries at the bottom of the free list are as they
	// were at the previous capture (0 on a full one); Free lists the
	// entries above them, bottom first, each with its slot's generation
	// (the handle the slot's next entity gets).
	Keep int
	Free []Entity
}

// ChildLinks is one parent's children, in the order they were linked.
type ChildLinks struct {
	Parent   Entity
	Children []Entity
}

// TableCapture is one table's rows, or a sparse component's entities.
type TableCapture struct {
	// Archetype is the table's id; for a sparse component, its id.
	Archetype  uint32
	Sparse     bool
	Components []ComponentID
	// Len is the table's rows.
	Len int
	// Entities holds the entity of every row when rows were added, removed
	// or moved since the previous capture (or Full); nil when they did not.
	Entities []Entity
	// All is set when each column's values hold every row; otherwise they
	// hold the rows in the column's Changed list, in that order.
	All     bool
	Columns []ColumnCapture
}

// ColumnCapture is one column's changes and values.
type ColumnCapture struct {
	Component ComponentID
	// Changed and Added list the rows, ascending, whose value was written,
	// or whose component was added, since the previous capture.
	Changed, Added []int32
	// Size is the bytes of one value in Raw; 0 when values are in Values.
	Size int
	// Raw holds the values' memory, Size bytes each, for a component
	// without pointers (the platform's byte order).
	Raw []byte
	// Values is a slice of shallow copies of the values, for a component
	// with pointers (strings, slices, maps): Raw would hold addresses.
	Values reflect.Value
	// WriteMarks and AddMarks, when the capturer keeps marks, say who wrote
	// and who added each row: WriteMarks over the rows the values hold
	// (every row with All, else the Changed ones), AddMarks over every row
	// (All) or the Added ones (capturemarks.go).
	WriteMarks, AddMarks []MarkRun
}

// Capturer takes a world's captures, each relative to the one before.
// Use it on the game goroutine only.
type Capturer struct {
	// Marks makes each column carry its rows' write marks (WriteMarks,
	// AddMarks): a few runs a column, for a recording that must say who
	// wrote what it restores.
	Marks bool

	w      *World
	since  uint32
	shapes map[uint64]uint64 // table id, or 1<<32|sparse component id -> shape
	links  uint64
	seq    uint64 // the world's capture number of the previous capture (0: none)
	epoch  uint32 // the world's restore count at the previous capture
	taken  bool
	spare  *spareBufs // a pointer: the timer that lets it go must not keep the capturer, and its world, alive
}

// inspectNewCapturer is [Inspection.NewCapturer].
func (w *World) inspectNewCapturer() *Capturer {
	w.trackAllChanges() // deltas and marks read every column's stamps
	return &Capturer{w: w, shapes: map[uint64]uint64{}, spare: &spareBufs{}}
}

// Capture copies the world: every table whole when full (or on the first
// capture), else what changed since the previous capture. A column whose
// changed rows are more than half its rows is copied whole (All).
func (c *Capturer) Capture(full bool) *Capture {
	w := c.w
	full = full || !c.taken || c.epoch != w.reserve.epoch // a restore changed what no delta says
	since := c.since
	if !c.taken {
		// Every stamp handed out, and the next write's, is newer: the
		// newest is the write stamp, and newer spans 2^31 - 1 stamps back.
		since = w.writeStamp() + 1 - (1<<31 - 1)
	}
	out := &Capture{Full: full}
	for _, t := range w.tables {
		key := uint64(t.id)
		prev, seen := c.shapes[key]
		moved := !seen || prev != t.shape
		if t.len() == 0 && (full || !seen || !moved) {
			c.shapes[key] = t.shape // nothing to show, or nothing left to say
			continue
		}
		tc := TableCapture{Archetype: t.id, Components: t.ids, Len: t.len()}
		if full || moved {
			tc.Entities = append(takeSpare(&c.spare.mu, &c.spare.ents, len(t.entities)), t.entities...)
		}
		tc.Columns = make([]ColumnCapture, len(t.ids))
		dirty := moved || full
		most := 0
		for j, id := range t.ids {
			cc := &tc.Columns[j]
			cc.Component = id
			cc.Changed, cc.Added = c.rowsSince(t.ticks[j], t.len(), since)
			most = max(most, len(cc.Changed))
			dirty = dirty || len(cc.Changed) > 0
		}
		if !dirty {
			continue
		}
		tc.All = full || moved || 2*most > t.len()
		for j := range tc.Columns {
			c.copyColumn(t, j, &tc.Columns[j], tc.All)
			if c.Marks {
				captureMarks(t.ticks[j], t.len(), &tc.Columns[j], tc.All)
			}
		}
		c.shapes[key] = t.shape
		out.Tables = append(out.Tables, tc)
	}
	for id, s := range w.sparse {
		if s == nil {
			continue
		}
		key := 1<<32 | uint64(id)
		prev, seen := c.shapes[key]
		shape := s.shapeCount()
		tc := TableCapture{Archetype: uint32(id), Sparse: true, Components: []ComponentID{ComponentID(id)}}
		s.capture(since, prev, full || !seen, c.Marks, &tc)
		c.shapes[key] = shape
		if tc.Entities != nil || len(tc.Columns[0].Changed) > 0 {
			out.Tables = append(out.Tables, tc)
		}
	}
	if full || c.links != w.links {
		out.LinksChanged = true
		out.Links = w.linkList()
		c.links = w.links
	}
	out.Alloc = c.alloc(full)
	c.since = w.changeStamp.Add(1)
	c.taken, c.epoch = true, w.reserve.epoch
	return out
}

// alloc captures the allocator: every generation when full, and the free
// list's entries pushed since the previous capture.
func (c *Capturer) alloc(full bool) AllocCapture {
	w := c.w
	a := AllocCapture{Slots: len(w.records)}
	if full {
		a.Gens = takeSpare(&c.spare.mu, &c.spare.gens, len(w.records))[:len(w.records)]
		for i := range w.records {
			a.Gens[i] = w.records[i].gen
		}
	} else {
		a.Keep = w.freeKept(c.seq)
	}
	a.Free = make([]Entity, 0, len(w.free)-a.Keep)
	for _, slot := range w.free[a.Keep:] {
		a.Free = append(a.Free, Entity{index: slot, gen: w.records[slot].gen})
	}
	c.seq = w.closeFreePeriod()
	return a
}

// rowsSince lists the rows of a column changed, and added, after since.
func (c *Capturer) rowsSince(tk *colStamps, n int, since uint32) (changed, added []int32) {
	dirty := 0 // rows of groups written since: room for them all, made once
	for g := 0; g<<groupShift < n; g++ {
		if tk.groupDirty(g, since) {
			dirty += groupRows
		}
	}
	if dirty == 0 {
		return nil, nil
	}
	changed = takeSpare(&c.spare.mu, &c.spare.rows, min(dirty, n))
	for lo := 0; lo < n; lo += chunkRows {
		c, hi := lo>>chunkShift, min(lo+chunkRows, n)
		if newer(tk.stamp[c], since) {
			// A query or batch wrote the whole chunk since: every row
			// changed, and only the added ticks need a look (all added
			// too, if its added stamp is newer).
			k := len(changed)
			changed = changed[:k+hi-lo]
			for r := lo; r < hi; r++ {
				changed[k+r-lo] = int32(r)
			}
			if newer(tk.astamp[c], since) {
				for r := lo; r < hi; r++ {
					added = append(added, int32(r))
				}
				continue
			}
			for g := lo >> groupShift; g<<groupShift < hi; g++ {
				if !newer(tk.max[g], since) { // max bounds the rows' own added stamps too
					continue
				}
				glo, ghi := g<<groupShift, min((g+1)<<groupShift, hi)
				for r, tp := range tk.rows[glo:ghi] {
					if newer(tp.added, since) {
						added = append(added, int32(glo+r))
					}
				}
			}
			continue
		}
		for g := lo >> groupShift; g<<groupShift < hi; g++ {
			if !newer(tk.max[g], since) {
				continue
			}
			glo, ghi := g<<groupShift, min((g+1)<<groupShift, n)
			for r, tp := range tk.rows[glo:ghi] { // the chunk's stamp is not newer: the rows' own ticks decide
				if newer(tp.changed, since) {
					changed = append(changed, int32(glo+r))
				}
				if newer(tp.added, since) {
					added = append(added, int32(glo+r))
				}
			}
		}
	}
	return changed, added
}

// copyColumn copies column j's values: every row, or the changed ones.
func (c *Capturer) copyColumn(t *table, j int, cc *ColumnCapture, all bool) {
	n := t.len()
	if d := &t.raw[j]; d.ok {
		size := int(d.size)
		cc.Size = size
		if size == 0 {
			return
		}
		mem := unsafe.Slice((*byte)(d.hdr.ptr), n*size)
		if all {
			cc.Raw = append(takeSpare(&c.spare.mu, &c.spare.bytes, len(mem)), mem...)
			return
		}
		cc.Raw = takeSpare(&c.spare.mu, &c.spare.bytes, len(cc.Changed)*size)
		for _, r := range cc.Changed {
			cc.Raw = append(cc.Raw, mem[int(r)*size:int(r+1)*size]...)
		}
		return
	}
	if n == 0 {
		return
	}
	src := t.cols[j].value(0).Addr()
	typ := src.Type().Elem()
	whole := reflect.NewAt(reflect.ArrayOf(n, typ), src.UnsafePointer()).Elem()
	if all {
		cc.Values = reflect.MakeSlice(reflect.SliceOf(typ), n, n)
		reflect.Copy(cc.Values, whole)
		return
	}
	cc.Values = reflect.MakeSlice(reflect.SliceOf(typ), len(cc.Changed), len(cc.Changed))
	for i, r := range cc.Changed {
		cc.Values.Index(i).Set(whole.Index(int(r)))
	}
}

func (s *sparseSet[T]) shapeCount() uint64 { return s.shape }

// capture fills dst with the set's entities (when they moved, or whole)
// and its values, every one or the changed ones.
func (s *sparseSet[T]) capture(since uint32, shape uint64, whole, marks bool, dst *TableCapture) {
	n := len(s.dense)
	dst.Len = n
	moved := whole || shape != s.shape
	cc := ColumnCapture{Component: s.id}
	for i := range n {
		if newer(s.changed[i], since) {
			cc.Changed = append(cc.Changed, int32(i))
		}
		if newer(s.added[i], since) {
			cc.Added = append(cc.Added, int32(i))
		}
	}
	if moved {
		dst.Entities = append(make([]Entity, 0, n), s.ents...)
	}
	dst.All = moved || 2*len(cc.Changed) > n
	var zero T
	size := int(unsafe.Sizeof(zero))
	if !hasPointers(reflect.TypeFor[T]()) {
		cc.Size = size
		if size > 0 && n > 0 {
			mem := unsafe.Slice((*byte)(unsafe.Pointer(&s.dense[0])), n*size)
			if dst.All {
				cc.Raw = slices.Clone(mem)
			} else {
				for _, r := range cc.Changed {
					cc.Raw = append(cc.Raw, mem[int(r)*size:int(r+1)*size]...)
				}
			}
		}
	} else if dst.All {
		cc.Values = reflect.ValueOf(slices.Clone(s.dense))
	} else {
		vals := make([]T, len(cc.Changed))
		for i, r := range cc.Changed {
			vals[i] = s.dense[r]
		}
		cc.Values = reflect.ValueOf(vals)
	}
	if marks {
		s.captureMarks(&cc, dst.All)
	}
	dst.Columns = []ColumnCapture{cc}
}

// freeLowsKept is how many captures back the world remembers the free
// list's low marks: a capturer whose previous capture is older (another
// capturer took that many since) gets the whole free list again.
const freeLowsKept = 64

// freeKept is how many entries at the bottom of the free list no pop
// touched since capture number since: the lowest length the list had
// since then.
func (w *World) freeKept(since uint64) int {
	if since == 0 || w.captures-since >= freeLowsKept {
		return 0
	}
	keep := w.freeLow
	for k := since + 1; k <= w.captures; k++ {
		keep = min(keep, w.freeLows[k%freeLowsKept])
	}
	return min(keep, len(w.free))
}

// closeFreePeriod ends the free list's period at a capture and returns the
// capture's number.
func (w *World) closeFreePeriod() uint64 {
	w.captures++
	w.freeLows[w.captures%freeLowsKept] = w.freeLow
	w.freeLow = len(w.free)
	return w.captures
}

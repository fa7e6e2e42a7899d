package record

import (
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Who wrote what a rewind restores. The in-memory ring's captures keep
// their rows' write marks (ecs.Capturer.Marks) beside each frame; a rewind
// replays them with the frames, so each restored row keeps the marks of
// its last recorded write and add, and the detail names those writers
// (ecs.Inspection.MarkProvenance) under "restored at tick T", for every
// entity, followed or not. The marks cost a few runs a column a frame (a
// query run's rows share one mark) and nothing in files or streams.

// tableMarks is one captured table's write marks, column by column in the
// table's order.
type tableMarks struct {
	key  uint64 // the table's key in a recording.WorldState
	all  bool   // marks for every row, else for the rows the frame lists
	cols []colMarks
}

// colMarks is a column's marks: over its written rows and its added rows.
type colMarks struct {
	id         ecs.ComponentID
	write, add []ecs.MarkRun
}

// stateKey is a table's key in a recording.WorldState.
func stateKey(archetype uint32, sparse bool) uint64 {
	if sparse {
		return 1<<32 | uint64(archetype)
	}
	return uint64(archetype)
}

// marksOf takes a capture's marks (slices the capture does not recycle).
func marksOf(c *ecs.Capture) []tableMarks {
	out := make([]tableMarks, len(c.Tables))
	for i := range c.Tables {
		tc := &c.Tables[i]
		tm := tableMarks{key: stateKey(tc.Archetype, tc.Sparse), all: tc.All, cols: make([]colMarks, len(tc.Columns))}
		for j, cc := range tc.Columns {
			tm.cols[j] = colMarks{id: cc.Component, write: cc.WriteMarks, add: cc.AddMarks}
		}
		out[i] = tm
	}
	return out
}

// marksBytes is what a frame's marks hold in memory.
func marksBytes(ms []tableMarks) int64 {
	n := int64(0)
	for _, tm := range ms {
		n += 32
		for _, cm := range tm.cols {
			n += 48 + 8*int64(len(cm.write)+len(cm.add))
		}
	}
	return n
}

// RestoredMarks is every recorded table's marks, row by row, as the frames
// replayed so far leave them; nil when a frame came without marks.
type RestoredMarks map[uint64]*rowMarks

// rowMarks is a table's entities and each column's marks by row.
type rowMarks struct {
	ents []protocol.EntityID
	cols map[ecs.ComponentID]*[2][]uint32 // written, added
}

// follow updates the marks with a frame's, once st has applied the frame.
func (rm RestoredMarks) follow(st *recording.WorldState, ms []tableMarks) {
	for _, tm := range ms {
		t := st.Tables[tm.key]
		if t == nil { // emptied
			delete(rm, tm.key)
			continue
		}
		n := len(t.Entities)
		r := rm[tm.key]
		if r == nil || tm.all || len(r.ents) != n {
			r = &rowMarks{cols: map[ecs.ComponentID]*[2][]uint32{}}
			rm[tm.key] = r
		}
		r.ents = t.Entities
		for j, cm := range tm.cols {
			m := r.cols[cm.id]
			if m == nil {
				m = &[2][]uint32{make([]uint32, n), make([]uint32, n)}
				r.cols[cm.id] = m
			}
			var written, added []int32
			if j < len(t.Columns) && !tm.all {
				written, added = t.Columns[j].Changed, t.Columns[j].Added
			}
			spreadMarks(m[0], tm.all, written, cm.write)
			spreadMarks(m[1], tm.all, added, cm.add)
		}
	}
}

// spreadMarks writes runs of marks over every row (all) or the rows
// listed, in order; runs past the rows are ignored.
func spreadMarks(dst []uint32, all bool, rows []int32, runs []ecs.MarkRun) {
	i := 0
	for _, run := range runs {
		for range run.Rows {
			r := i
			if !all {
				if i >= len(rows) {
					return
				}
				r = int(rows[i])
			}
			if r < 0 || r >= len(dst) {
				return
			}
			dst[r] = run.Mark
			i++
		}
	}
}

// Provenance is who wrote and who added e's component id as the rewind
// restored it (nil where the marks or the writer log do not say).
func (rm RestoredMarks) Provenance(w *ecs.World, e ecs.Entity, id ecs.ComponentID) (written, added *protocol.Provenance) {
	m := rm.Find(w, e, id)
	if m == nil {
		return nil, nil
	}
	at := func(mark uint32) *protocol.Provenance {
		if mark == 0 {
			return nil
		}
		return values.Provenance(w.Inspect().MarkProvenance(id, mark))
	}
	return at(m[0]), at(m[1])
}

// Find is the marks of e's component id: a [written, added] pair.
func (rm RestoredMarks) Find(w *ecs.World, e ecs.Entity, id ecs.ComponentID) *[2]uint32 {
	if rm == nil {
		return nil
	}
	we := values.Handle(e)
	pick := func(r *rowMarks, row int) *[2]uint32 {
		m := r.cols[id]
		if m == nil || row < 0 || row >= len(r.ents) || r.ents[row] != we {
			return nil
		}
		return &[2]uint32{m[0][row], m[1][row]}
	}
	if arch, row, ok := w.Inspect().Location(e); ok {
		if r := rm[stateKey(arch, false)]; r != nil {
			if m := pick(r, row); m != nil {
				return m
			}
		}
	}
	// A sparse component, or an entity that moved since the restore.
	for _, r := range rm {
		if r.cols[id] == nil {
			continue
		}
		for row, x := range r.ents {
			if x == we {
				return pick(r, row)
			}
		}
	}
	return nil
}

// Through resolves the marks that are an earlier rewind's own writes (its
// restore wrote the change stamps from up to, not including, to) into the
// marks that rewind kept for the same entity's component (prev): a frame
// captured after that rewind holds its restore's stamps for every row not
// written since, and those name the client that rewound, not the writers
// of the values it put back. prev is itself resolved, so one step does.
// A mark prev does not know becomes 0 (not known).
func (rm RestoredMarks) Through(prev RestoredMarks, from, to uint32) {
	if rm == nil || from == to {
		return
	}
	inRestore := func(m uint32) bool { return m != 0 && int32(m-from) >= 0 && int32(to-m) > 0 }
	rows := map[uint64]map[protocol.EntityID]int{} // prev's rows by entity, table by table, built as needed
	markOf := func(e protocol.EntityID, id ecs.ComponentID, k int) uint32 {
		for key, r := range prev {
			m := r.cols[id]
			if m == nil {
				continue
			}
			idx := rows[key]
			if idx == nil {
				idx = make(map[protocol.EntityID]int, len(r.ents))
				for row, x := range r.ents {
					idx[x] = row
				}
				rows[key] = idx
			}
			if row, ok := idx[e]; ok {
				return m[k][row]
			}
		}
		return 0
	}
	for _, r := range rm {
		for id, m := range r.cols {
			for row, e := range r.ents {
				for k := range 2 {
					if inRestore(m[k][row]) {
						m[k][row] = markOf(e, id, k)
					}
				}
			}
		}
	}
}

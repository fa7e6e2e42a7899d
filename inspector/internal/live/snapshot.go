package live

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// SparseCopy is one sparse component's entities and values.
type SparseCopy struct {
	id   ecs.ComponentID
	ents []ecs.Entity
	vals reflect.Value
}

// WorldCopy is the world copied on the game goroutine for a snapshot: its
// tables and sparse components, and the values of the columns that share
// memory with the game (their type holds pointers, slices or maps: a copy
// of the column still reaches the game's memory), converted there, within
// sharedValues, before the game changes them. The rest are converted off
// the game goroutine (BuildSnapshot).
type WorldCopy struct {
	Tables []ecs.TableCopy
	Sparse []SparseCopy
	shared map[[2]int][]protocol.Value // {table, column}; a sparse component's is {-1-i, 0}
}

// sharedValues bounds what CopyAll converts on the game goroutine, as a
// world stream's capture does.
const sharedValues = 1 << 18

// CopyAll copies every table and sparse set, and converts the columns
// that share memory with the game: the game goroutine's share of a
// snapshot.
func (lw *World) CopyAll() *WorldCopy {
	c := &WorldCopy{Tables: lw.w.Inspect().CopyTables()}
	for _, comp := range lw.w.Inspect().Components() {
		if comp.Storage == ecs.SparseStorage {
			ents, vals := lw.w.Inspect().CopySparse(comp.ID)
			if len(ents) > 0 {
				c.Sparse = append(c.Sparse, SparseCopy{id: comp.ID, ents: ents, vals: vals})
			}
		}
	}
	b := values.NewBudget(snapshotValueValues, sharedValues)
	convert := func(key [2]int, col reflect.Value, ents []ecs.Entity) {
		if !col.IsValid() || !values.HoldsPointers(col.Type().Elem()) {
			return
		}
		if c.shared == nil {
			c.shared = map[[2]int][]protocol.Value{}
		}
		vals := make([]protocol.Value, col.Len())
		for i := range vals {
			vals[i] = b.Convert(col.Index(i), values.Handle(ents[i]).String())
		}
		c.shared[key] = vals
	}
	for ti, t := range c.Tables {
		for ci, col := range t.Columns {
			convert([2]int{ti, ci}, col, t.Entities)
		}
	}
	for i, sp := range c.Sparse {
		convert([2]int{-1 - i, 0}, sp.vals, sp.ents)
	}
	return c
}

// A snapshot converts at most snapshotValueValues values of one
// component's value and snapshotValues in all, by identity across rows
// (values.Budget): a slice every entity shares shows whole once.
const (
	snapshotValueValues = 1 << 16
	snapshotValues      = 1 << 24
)

// BuildSnapshot turns a world copy into a Snapshot message, off the game
// goroutine. Each sparse component becomes a table of its own.
func BuildSnapshot(c *WorldCopy, tick uint64, game string, st ecs.EntityStats, schemas []protocol.Component) *protocol.Snapshot {
	b := values.NewBudget(snapshotValueValues, snapshotValues)
	s := &protocol.Snapshot{Tick: tick, Game: game, Components: schemas,
		Stats: protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved}}
	column := func(key [2]int, col reflect.Value) []protocol.Value {
		if vals, ok := c.shared[key]; ok {
			return vals
		}
		vals := make([]protocol.Value, col.Len())
		for i := range vals {
			vals[i] = b.Convert(col.Index(i), "") // pointer-free: nothing repeats
		}
		return vals
	}
	for ti, t := range c.Tables {
		pt := protocol.Table{Components: make([]uint16, len(t.Components)), Entities: make([]protocol.EntityID, len(t.Entities))}
		for i, comp := range t.Components {
			pt.Components[i] = uint16(comp)
		}
		for i, e := range t.Entities {
			pt.Entities[i] = values.Handle(e)
		}
		for ci, col := range t.Columns {
			pt.Columns = append(pt.Columns, column([2]int{ti, ci}, col))
		}
		s.Tables = append(s.Tables, pt)
	}
	for i, sp := range c.Sparse {
		pt := protocol.Table{Components: []uint16{uint16(sp.id)}, Entities: make([]protocol.EntityID, len(sp.ents))}
		for j, e := range sp.ents {
			pt.Entities[j] = values.Handle(e)
		}
		pt.Columns = [][]protocol.Value{column([2]int{-1 - i, 0}, sp.vals)}
		s.Sparse = append(s.Sparse, pt)
	}
	return s
}

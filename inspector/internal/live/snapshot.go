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

// CopyAll copies every table and sparse set: the game goroutine's share of
// a snapshot, at memory speed.
func (lw *World) CopyAll() ([]ecs.TableCopy, []SparseCopy) {
	tables := lw.w.Inspect().CopyTables()
	var sparse []SparseCopy
	for _, c := range lw.w.Inspect().Components() {
		if c.Storage == ecs.SparseStorage {
			ents, vals := lw.w.Inspect().CopySparse(c.ID)
			if len(ents) > 0 {
				sparse = append(sparse, SparseCopy{id: c.ID, ents: ents, vals: vals})
			}
		}
	}
	return tables, sparse
}

// BuildSnapshot turns copies into a Snapshot message, off the game goroutine.
// Each sparse component becomes a table of its own.
func BuildSnapshot(tables []ecs.TableCopy, sparse []SparseCopy, tick uint64, game string, st ecs.EntityStats, schemas []protocol.Component) *protocol.Snapshot {
	s := &protocol.Snapshot{Tick: tick, Game: game, Components: schemas,
		Stats: protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved}}
	for _, t := range tables {
		pt := protocol.Table{Components: make([]uint16, len(t.Components)), Entities: make([]protocol.EntityID, len(t.Entities))}
		for i, c := range t.Components {
			pt.Components[i] = uint16(c)
		}
		for i, e := range t.Entities {
			pt.Entities[i] = values.Handle(e)
		}
		for _, col := range t.Columns {
			vals := make([]protocol.Value, col.Len())
			for i := range vals {
				vals[i] = values.Whole(col.Index(i))
			}
			pt.Columns = append(pt.Columns, vals)
		}
		s.Tables = append(s.Tables, pt)
	}
	for _, sp := range sparse {
		pt := protocol.Table{Components: []uint16{uint16(sp.id)}, Entities: make([]protocol.EntityID, len(sp.ents))}
		vals := make([]protocol.Value, len(sp.ents))
		for i, e := range sp.ents {
			pt.Entities[i] = values.Handle(e)
			vals[i] = values.Whole(sp.vals.Index(i))
		}
		pt.Columns = [][]protocol.Value{vals}
		s.Sparse = append(s.Sparse, pt)
	}
	return s
}

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

// A snapshot converts at most snapshotValueValues values of one
// component's value and snapshotValues in all, by identity across rows
// (values.Budget): a slice every entity shares shows whole once.
const (
	snapshotValueValues = 1 << 16
	snapshotValues      = 1 << 24
)

// BuildSnapshot turns copies into a Snapshot message, off the game goroutine.
// Each sparse component becomes a table of its own.
func BuildSnapshot(tables []ecs.TableCopy, sparse []SparseCopy, tick uint64, game string, st ecs.EntityStats, schemas []protocol.Component) *protocol.Snapshot {
	b := values.NewBudget(snapshotValueValues, snapshotValues)
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
			deep := values.HoldsPointers(col.Type().Elem())
			for i := range vals {
				at := ""
				if deep {
					at = pt.Entities[i].String()
				}
				vals[i] = b.Convert(col.Index(i), at)
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
			vals[i] = b.Convert(sp.vals.Index(i), pt.Entities[i].String())
		}
		pt.Columns = [][]protocol.Value{vals}
		s.Sparse = append(s.Sparse, pt)
	}
	return s
}

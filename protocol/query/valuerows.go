package query

import "github.com/ecsinspect/ecsinspect/protocol"

// ValueRow is one entity with its components as the wire shows them, by
// component id: what a plan tests where no table holds the entity any
// more (the last state of a dead one).
type ValueRow struct {
	Entity, Parent protocol.EntityID
	Components     map[uint16]protocol.Value
}

// ValueRows is entities' values as one table a plan runs over (World);
// their changed() and added() tests never hold.
type ValueRows []ValueRow

// Tables implements World.
func (r ValueRows) Tables() []Table { return []Table{r} }

// Filtered implements World: nothing was filtered before.
func (r ValueRows) Filtered() bool { return false }

// Parent implements World.
func (r ValueRows) Parent(e protocol.EntityID) protocol.EntityID {
	for i := range r {
		if r[i].Entity == e {
			return r[i].Parent
		}
	}
	return 0
}

// Len implements Table.
func (r ValueRows) Len() int { return len(r) }

// Entity implements Table.
func (r ValueRows) Entity(row int) protocol.EntityID { return r[row].Entity }

// Column implements Table.
func (r ValueRows) Column(c uint16) Column { return valueColumn{rows: r, c: c} }

// valueColumn is one component over ValueRows.
type valueColumn struct {
	rows ValueRows
	c    uint16
}

func (v valueColumn) Has(row int) bool { _, ok := v.rows[row].Components[v.c]; return ok }
func (v valueColumn) Raw(int) []byte   { return nil }
func (v valueColumn) Value(row int) protocol.Value {
	return v.rows[row].Components[v.c]
}
func (v valueColumn) Changed(int) bool { return false }
func (v valueColumn) Added(int) bool   { return false }

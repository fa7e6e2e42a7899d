package ecs

import (
	"fmt"
	"slices"
)

// SpawnIDs creates an entity with the components ids, each its zero value,
// placed at once in the table that holds them all (no move per component,
// as Spawn then adding would make); set the values through Maps. It is the
// way to entities wider than the typed maps, or built from data. It
// returns an error, creating nothing, for an id not registered or for
// ChildOf (set a parent with SetParent). Panics if a query is iterating.
//
//	e, err := w.SpawnIDs(ecs.ComponentIDOf[Position](w), ecs.ComponentIDOf[Health](w))
func (w *World) SpawnIDs(ids ...ComponentID) (Entity, error) {
	w.checkUnlocked("Spawn")
	t, sparse, err := w.tableOfIDs(ids)
	if err != nil {
		return Entity{}, err
	}
	e, _, rec, tick := w.spawnRow(t)
	if len(sparse) > 0 {
		w.addSparseZero(e, rec, sparse, tick)
	}
	return e, nil
}

// SpawnBatchIDs creates n entities with the components ids, each its zero
// value, growing the storage once; init, if not nil, gets each block of up
// to 256 new entities (first counts those before it) to set values through
// Maps. The errors are SpawnIDs'. Panics if a query is iterating, and if
// init spawns, despawns, adds or removes.
func (w *World) SpawnBatchIDs(n int, ids []ComponentID, init func(first int, ents []Entity)) error {
	w.checkUnlocked("Spawn")
	t, sparse, err := w.tableOfIDs(ids)
	if err != nil {
		return err
	}
	w.spawnBlocks(t, n, init != nil, func(done, _ int, ents []Entity, tick uint32) {
		for _, e := range ents {
			if len(sparse) > 0 {
				w.addSparseZero(e, &w.records[e.index], sparse, tick)
			}
		}
		if init != nil {
			init(done, ents)
		}
	})
	return nil
}

// spawnBlocks spawns n entities into t, growing it once, a block of up to
// spawnBlock at a time, and hands each block to fill: its entities, the
// row of the first, and done, the entities of the batch before it. Blocks
// stay in cache: making a block's handles, then setting it up, touches
// each line once, not twice (rows below a column's dirty mark are cleared
// as they are taken: see typedColumn.dirty). With userCode, fill runs the
// caller's code, and the world refuses structural changes meanwhile.
func (w *World) spawnBlocks(t *table, n int, userCode bool, fill func(done, first int, ents []Entity, tick uint32)) {
	w.checkUnlocked("Spawn")
	if n <= 0 {
		return
	}
	tick := w.writeStamp()
	t.reserve(n)
	w.reserveRecords(n)
	if userCode {
		w.lockForInit()
		defer w.unlockForInit()
	}
	for done := 0; done < n; {
		k := min(n-done, spawnBlock)
		var first int
		if k <= smallMove { // a row or two: a column call each costs more than a push
			first = len(t.entities)
			for range k {
				t.pushZero(Entity{}, tick) // the entity comes from allocEntities
			}
		} else {
			first = t.pushN(k, tick)
		}
		ents := t.entities[first : first+k]
		w.allocEntities(ents, t.id, first)
		fill(done, first, ents, tick)
		done += k
	}
}

// tableOfIDs is the table of the table-stored components among ids, and
// the sparse ones. The last answer is kept: a spawn loop asks again and
// again for the same ids, and a table, once made, stays.
func (w *World) tableOfIDs(ids []ComponentID) (*table, []ComponentID, error) {
	if m := &w.spawnMemo; m.t != nil && slices.Equal(m.ids, ids) {
		return m.t, m.sparse, nil
	}
	var mask Mask
	var sparse []ComponentID
	for _, id := range ids {
		switch {
		case int(id) >= len(w.reg.regs) || w.reg.regs[id].info.Type == nil:
			return nil, nil, fmt.Errorf("ecs: component id %d is not registered", id)
		case w.relation(id) != nil:
			return nil, nil, errRelationDirect(w.rels[id].short)
		case w.sparse[id] == nil:
			mask.Set(id)
		default:
			sparse = append(sparse, id)
		}
	}
	t := w.tables[w.tableFor(mask)]
	w.spawnMemo = idsTable{ids: slices.Clone(ids), t: t, sparse: sparse}
	return t, sparse, nil
}

// idsTable is tableOfIDs' last answer.
type idsTable struct {
	ids    []ComponentID
	t      *table
	sparse []ComponentID
}

// addSparseZero gives a new entity the sparse components ids.
func (w *World) addSparseZero(e Entity, rec *entityRecord, ids []ComponentID, tick uint32) {
	for _, id := range ids {
		if s := w.sparse[id]; s != nil && s.addZero(e, tick) {
			rec.nsparse++
			w.logStructural(OpAdd, e, int(id))
		}
	}
}

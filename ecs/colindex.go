package ecs

// colIndex is one component type's column in each table, by table id (nil
// where the table lacks it), kept current by the world as it makes tables.
// A Map reads it with no refresh to do, so a lookup by handle needs no
// call ([Map.At] compiles into the caller's loop).
type colIndex[T any] struct {
	cols []*typedColumn[T]
}

// tableIndex is a colIndex as the world holds it, whatever its type.
type tableIndex interface {
	addTable(t *table, col column)
}

func (x *colIndex[T]) addTable(t *table, col column) {
	for len(x.cols) < int(t.id) {
		x.cols = append(x.cols, nil)
	}
	x.cols = append(x.cols, col.(*typedColumn[T]))
}

// of is the column of T in table id, nil if it has none.
func (x *colIndex[T]) of(id uint32) *typedColumn[T] {
	if int(id) < len(x.cols) {
		return x.cols[id]
	}
	return nil
}

// indexOf is the world's column index of component id, of type T, made on
// first use from the tables there are.
func indexOf[T any](w *World, id ComponentID) *colIndex[T] {
	for len(w.colIndexes) <= int(id) {
		w.colIndexes = append(w.colIndexes, nil)
	}
	if x, ok := w.colIndexes[id].(*colIndex[T]); ok {
		return x
	}
	x := &colIndex[T]{}
	for _, t := range w.tables {
		if j := t.column(id); j >= 0 {
			x.addTable(t, t.cols[j])
		}
	}
	w.colIndexes[id] = x
	return x
}

// indexTable adds a new table's columns to the indexes kept.
func (w *World) indexTable(t *table) {
	for j, cid := range t.ids {
		if int(cid) < len(w.colIndexes) && w.colIndexes[cid] != nil {
			w.colIndexes[cid].addTable(t, t.cols[j])
		}
	}
}

package ecs

import "reflect"

// column is one table column: the values of one component type for every row
// of a table, contiguous, with their change stamps. The world sees it through
// this interface on structural changes, one call per column per change;
// queries and maps reach the typed slice directly.
type column interface {
	ticks() *colStamps
	pushZero(tick uint32)
	appendFrom(src column, row int)
	pushN(n int, tick uint32)
	appendAll(src column)
	takeRows(src column)
	clearRows()
	swapRemove(row int)
	reserve(extra int)
	value(row int) reflect.Value
	raw() rawCol
	startStamps(fill uint32)
}

// typedColumn stores the values of component type T and their ticks.
type typedColumn[T any] struct {
	data []T
	// The rows from the length up to dirty may hold the values of rows
	// that left one at a time (a despawn, a move), which the byte path
	// leaves in place; every row past them is zero. A push clears the
	// rows it takes below dirty; emptying the column clears them all.
	// Columns with pointers clear each row as it leaves, for the
	// collector, and keep dirty at zero.
	dirty    int
	t        colStamps
	pointers bool // T holds pointers: the typed path moves its rows
}

func newTypedColumn[T any](pointers bool) column { return &typedColumn[T]{pointers: pointers} }

func (c *typedColumn[T]) ticks() *colStamps { return &c.t }

// startStamps makes the column keep change stamps, its rows changed and
// added at fill (tracking.go).
func (c *typedColumn[T]) startStamps(fill uint32) { c.t.start(len(c.data), cap(c.data), fill) }

// pushZero and appendFrom grow a full column as reserve does, never by
// append: columns of a table keep room together, so the byte path
// (rawcol.go) finds room next time, zero-size types included.
func (c *typedColumn[T]) pushZero(tick uint32) {
	if len(c.data) == cap(c.data) {
		c.reserve(1)
	}
	c.lengthen(1)
	c.t.push(tick, tick)
}

// appendFrom appends row of src (a column of the same type), value and
// ticks; the caller then swap-removes the row from src's table.
func (c *typedColumn[T]) appendFrom(src column, row int) {
	s := src.(*typedColumn[T])
	if len(c.data) == cap(c.data) {
		c.reserve(1)
	}
	c.data = append(c.data, s.data[row])
	if c.t.on {
		c.t.push(s.t.effective(row), s.t.effectiveAdded(row))
	}
}

// pushN appends n zero rows.
func (c *typedColumn[T]) pushN(n int, tick uint32) {
	c.reserve(n)
	c.lengthen(n)
	c.t.pushN(n, tick)
}

// lengthen lengthens the column by n rows, which have room, clearing those
// of them below the dirty mark: the others are zero.
func (c *typedColumn[T]) lengthen(n int) {
	old := len(c.data)
	c.data = c.data[:old+n]
	if c.dirty > old {
		clear(c.data[old:min(old+n, c.dirty)])
	}
}

// appendAll appends every row of src (a column of the same type), values
// and ticks, in one copy: a batch operation moving a whole table.
func (c *typedColumn[T]) appendAll(src column) {
	s := src.(*typedColumn[T])
	c.reserve(len(s.data))
	c.data = append(c.data, s.data...)
	c.t.appendRows(&s.t, len(s.data))
}

// takeRows trades rows with src, a column of the same type, while this
// one is empty: src's rows, values and stamps, become this column's, and
// src is left empty with this one's room. A batch moving a whole table into
// an empty one moves no memory.
func (c *typedColumn[T]) takeRows(src column) {
	s := src.(*typedColumn[T])
	c.data, s.data = s.data, c.data[:0]
	c.dirty, s.dirty = s.dirty, c.dirty
	c.t.takeRows(&s.t)
}

// clearRows empties the column, values and ticks, keeping its room, and
// clears every row that held a value: a table emptied at once (a batch
// despawn or move) leaves only zero rows, so the spawns that follow write
// no values (see dirty).
func (c *typedColumn[T]) clearRows() {
	clear(c.data[:max(len(c.data), c.dirty)])
	c.data, c.dirty = c.data[:0], 0
	c.t.clearRows()
}

// reserve makes room for extra rows.
func (c *typedColumn[T]) reserve(extra int) {
	if need := len(c.data) + extra; need > cap(c.data) {
		c.data, c.dirty = withRoom(c.data, grownCap(need, cap(c.data))), 0
	}
	c.t.reserve(extra)
}

func (c *typedColumn[T]) swapRemove(row int) {
	last := len(c.data) - 1
	if row != last {
		c.data[row] = c.data[last]
	}
	var zero T
	c.data[last] = zero
	c.data = c.data[:last]
	c.t.swapRemove(row)
}

func (c *typedColumn[T]) value(row int) reflect.Value {
	return reflect.ValueOf(&c.data[row]).Elem()
}

// hasPointers reports whether values of t refer to memory the GC tracks.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.String, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// minRoom is the least room a table or the entity records get when they
// first grow: a table that holds one entity soon holds more, and growing
// one row at a time from nothing copies a small table ten times before it
// holds a thousand (at 64 rows of 24 bytes a column, an empty archetype
// keeps 1.5 KB).
const minRoom = 64

// grownCap is the capacity a slice of have elements grows to when it must
// hold need: four times over below 4,096 (a table filled one row at a time
// from 64 to 1,024 grows twice, not four times: create2comp_alloc at 1k
// 1.55-1.94x -> 1.09x ark, whose worlds start with room for 1,024 in every
// table), doubling to 64k, then by half, so a million-row table carries
// at most half its rows as room (doubling left up to all of them; the demo
// at a million animals: 339 -> 271 bytes an entity), for a few more
// copies while it grows (a quarter cost Spawn2 at a million 15%, a half
// nothing measurable).
func grownCap(need, have int) int {
	if have < 1<<12 {
		return max(need, 4*have, minRoom)
	}
	if have < 1<<16 {
		return max(need, 2*have, minRoom)
	}
	return max(need, have+have/2)
}

// withRoom is s with room for c elements (c > cap(s)): s's elements, the
// rest zero. (Growing through append(s, make([]T, n)...), which clears
// only the new part, measured four times slower for a million records
// grown one at a time.)
func withRoom[T any](s []T, c int) []T {
	grown := make([]T, len(s), c)
	copy(grown, s)
	return grown
}

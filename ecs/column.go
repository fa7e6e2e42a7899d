package ecs

import "reflect"

// column is one table column: the values of one component type for every row
// of a table, contiguous. The world sees it through this interface on
// structural changes; queries reach the typed slice directly.
type column interface {
	length() int
	appendZero()
	appendFrom(src column, row int)
	growZero(n int)
	reserve(extra int)
	swapRemove(row int)
	value(row int) reflect.Value
}

// typedColumn stores the values of component type T.
type typedColumn[T any] struct {
	data []T
}

func (c *typedColumn[T]) length() int { return len(c.data) }

func (c *typedColumn[T]) appendZero() {
	var zero T
	c.data = append(c.data, zero)
}

func (c *typedColumn[T]) appendFrom(src column, row int) {
	c.data = append(c.data, src.(*typedColumn[T]).data[row])
}

func (c *typedColumn[T]) growZero(n int) {
	c.reserve(n)
	c.data = c.data[:len(c.data)+n]
}

func (c *typedColumn[T]) reserve(extra int) {
	if need := len(c.data) + extra; need > cap(c.data) {
		grown := make([]T, len(c.data), max(need, 2*cap(c.data)))
		copy(grown, c.data)
		c.data = grown
	}
}

func (c *typedColumn[T]) swapRemove(row int) {
	last := len(c.data) - 1
	if row != last {
		c.data[row] = c.data[last]
	}
	var zero T
	c.data[last] = zero // release what the value referenced
	c.data = c.data[:last]
}

func (c *typedColumn[T]) value(row int) reflect.Value {
	return reflect.ValueOf(&c.data[row]).Elem()
}

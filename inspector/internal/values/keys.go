package values

import (
	"cmp"
	"reflect"
	"sort"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Map keys: their text on the wire, and the order a map's entries go in.

// KeyText is a map key as the wire names its entry: a string as itself, a
// handle as 42v3, anything else as its value prints.
func KeyText(k reflect.Value) string {
	switch {
	case k.Kind() == reflect.String:
		return k.String()
	case k.Type() == entityType:
		return Handle(k.Interface().(ecs.Entity)).String()
	}
	return Preview(k).String()
}

// Entries is n entries of map v from the skip-th, as two slices of the
// map's key and value types, in the order a map's entries show: by key
// (numbers by value, handles by slot then generation, the rest by text)
// when the map has at most protocol.MaxSortedKeys entries or all is set;
// else in Go's map order, which changes from one call to the next
// (ordered false), so that a frame never sorts a huge map on the game's
// time. The entries are copied into the slices (a pointer in them still
// points into the game's memory); nothing is allocated per entry passed
// over.
func Entries(v reflect.Value, skip, n int, all bool) (keys, vals reflect.Value, ordered bool) {
	t := v.Type()
	skip = min(skip, v.Len())
	n = min(n, v.Len()-skip)
	vals = reflect.MakeSlice(reflect.SliceOf(t.Elem()), n, n)
	if v.Len() > protocol.MaxSortedKeys && !all {
		keys = reflect.MakeSlice(reflect.SliceOf(t.Key()), n, n)
		it := v.MapRange()
		for range skip {
			it.Next()
		}
		for i := 0; i < n && it.Next(); i++ {
			keys.Index(i).SetIterKey(it)
			vals.Index(i).SetIterValue(it)
		}
		return keys, vals, false
	}
	every := reflect.MakeSlice(reflect.SliceOf(t.Key()), v.Len(), v.Len())
	it := v.MapRange()
	for i := 0; it.Next(); i++ {
		every.Index(i).SetIterKey(it)
	}
	sort.Sort(keySorter{every, reflect.Swapper(every.Interface())})
	keys = every.Slice(skip, skip+n)
	for i := range n {
		vals.Index(i).Set(v.MapIndex(keys.Index(i)))
	}
	return keys, vals, true
}

// keySorter sorts a slice of map keys by compareKeys.
type keySorter struct {
	keys reflect.Value
	swap func(i, j int)
}

func (s keySorter) Len() int           { return s.keys.Len() }
func (s keySorter) Less(i, j int) bool { return compareKeys(s.keys.Index(i), s.keys.Index(j)) < 0 }
func (s keySorter) Swap(i, j int)      { s.swap(i, j) }

// compareKeys orders two keys of one map.
func compareKeys(a, b reflect.Value) int {
	if a.Type() == entityType {
		x, y := a.Interface().(ecs.Entity), b.Interface().(ecs.Entity)
		return cmp.Or(cmp.Compare(x.Index(), y.Index()), cmp.Compare(x.Generation(), y.Generation()))
	}
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.Float32, reflect.Float64:
		return cmp.Compare(a.Float(), b.Float())
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	}
	return strings.Compare(KeyText(a), KeyText(b))
}

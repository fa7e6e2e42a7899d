package ecs

import (
	"reflect"
	"sort"
)

// Resources are typed singletons on a world: the clock, the random seed, the
// grid, settings. One value per type.

// SetResource stores v as w's resource of type T, replacing any before it.
func SetResource[T any](w *World, v T) {
	t := reflect.TypeFor[T]()
	if p, ok := w.resources[t]; ok {
		*p.(*T) = v
		return
	}
	p := new(T)
	*p = v
	w.resources[t] = p
}

// Resource returns a pointer to w's resource of type T, nil if there is none.
// Keep the pointer rather than looking it up in a hot loop.
func Resource[T any](w *World) *T {
	if p, ok := w.resources[reflect.TypeFor[T]()]; ok {
		return p.(*T)
	}
	return nil
}

// RemoveResource deletes w's resource of type T, if any.
func RemoveResource[T any](w *World) {
	delete(w.resources, reflect.TypeFor[T]())
}

// ResourceInfo describes one resource for the inspector.
type ResourceInfo struct {
	Name   string        // package-qualified type name
	Short  string        // type name alone
	Value  reflect.Value // the resource itself, addressable
	Fields []Field       // its type's fields, as for components
}

// inspectResources is [Inspection.Resources].
func (w *World) inspectResources() []ResourceInfo {
	out := make([]ResourceInfo, 0, len(w.resources))
	for t, p := range w.resources {
		fs, ok := w.resourceFields[t]
		if !ok {
			fs = describeFields(t)
			w.resourceFields[t] = fs
		}
		out = append(out, ResourceInfo{Name: typeName(t), Short: shortName(t), Value: reflect.ValueOf(p).Elem(), Fields: fs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func shortName(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

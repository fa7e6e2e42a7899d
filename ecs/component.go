package ecs

import (
	"fmt"
	"reflect"
)

// ComponentID identifies a component type within one [World]. Ids are handed
// out in registration order, starting at 0.
type ComponentID uint8

// StorageKind says where a component type's values live.
type StorageKind uint8

const (
	// TableStorage keeps values in the archetype tables, one contiguous column
	// per component: the fastest to iterate, but adding or removing the
	// component moves the entity's row to another table.
	TableStorage StorageKind = iota
	// SparseStorage keeps values in a sparse set beside the tables: adding or
	// removing the component never moves a row. Choose it for tags and flags
	// toggled often.
	SparseStorage
)

// String names the storage kind: "table" or "sparse".
func (k StorageKind) String() string {
	if k == SparseStorage {
		return "sparse"
	}
	return "table"
}

// StorageChooser is implemented by component types that pick their storage
// themselves, so that whichever use registers them first gets it right:
//
//	type Fleeing struct{}
//	func (Fleeing) Storage() ecs.StorageKind { return ecs.SparseStorage }
type StorageChooser interface {
	Storage() StorageKind
}

// ComponentInfo describes a registered component type. It is computed once, at
// registration, and is what the inspector shows of the type.
type ComponentInfo struct {
	ID      ComponentID
	Name    string // package-qualified Go type name, e.g. "github.com/x/game.Position"
	Short   string // type name without its package path, e.g. "Position"
	Type    reflect.Type
	Size    uintptr
	Storage StorageKind
	Fields  []Field // the exported fields of a struct component, in order (a relation's target among them, see RelationField)
	// Relation says the type embeds [Relation]: its values point at a
	// target entity.
	Relation bool
}

// IsTag reports whether the component carries no data (a zero-size type).
func (c *ComponentInfo) IsTag() bool { return c.Size == 0 }

// registration holds what the world needs to make storage for one type.
type registration struct {
	info      ComponentInfo
	newColumn func() column
	newSparse func(ComponentID) sparseStore
}

type registry struct {
	byType map[reflect.Type]ComponentID
	regs   []registration
}

func (r *registry) lookup(t reflect.Type) (ComponentID, bool) {
	id, ok := r.byType[t]
	return id, ok
}

func typeName(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// registerType records T with the given storage; want == nil means "as T asks".
func registerType[T any](w *World, want *StorageKind) ComponentID {
	t := reflect.TypeFor[T]()
	if id, ok := w.reg.lookup(t); ok {
		if want != nil && w.reg.regs[id].info.Storage != *want {
			panic(fmt.Sprintf("ecs: component %s is already registered with %s storage; register it with %s storage before its first use",
				typeName(t), w.reg.regs[id].info.Storage, *want))
		}
		return id
	}
	if w.inSystems.Load() != 0 {
		panic(fmt.Sprintf("ecs: component %s registered inside a system; register it before running the schedule (ecs.ComponentIDOf[T](w) at setup)", typeName(t)))
	}
	if len(w.reg.regs) >= MaxComponents {
		panic(fmt.Sprintf("ecs: cannot register %s: a world holds at most %d component types", typeName(t), MaxComponents))
	}
	storage := TableStorage
	if c, ok := any(*new(T)).(StorageChooser); ok {
		storage = c.Storage()
	}
	if want != nil {
		storage = *want
	}
	id := ComponentID(len(w.reg.regs))
	pointers := hasPointers(t)
	name := t.Name()
	if name == "" {
		name = t.String()
	}
	w.reg.regs = append(w.reg.regs, registration{
		info: ComponentInfo{
			ID: id, Name: typeName(t), Short: name, Type: t, Size: t.Size(),
			Storage: storage, Fields: describeFields(t), Relation: RelationField(t) != "",
		},
		newColumn: func() column { return newTypedColumn[T](pointers) },
		newSparse: func(id ComponentID) sparseStore { return &sparseSet[T]{id: id} },
	})
	w.reg.byType[t] = id
	w.sparse = append(w.sparse, nil)
	if storage == SparseStorage {
		w.sparse[id] = w.reg.regs[id].newSparse(id)
	}
	w.rels = append(w.rels, nil)
	if ri := relationOf[T](id); ri != nil {
		w.rels[id] = ri
		w.relKinds = append(w.relKinds, ri)
		if storage == SparseStorage {
			w.sparseRelations = true
		} else {
			w.relMask.Set(id)
			if id != childOfID {
				w.aimMask.Set(id)
			}
		}
	}
	return id
}

// ComponentIDOf returns T's id in w, registering T on first use with the
// storage T chooses through [StorageChooser] (table storage otherwise).
func ComponentIDOf[T any](w *World) ComponentID {
	return registerType[T](w, nil)
}

// Register registers T with the given storage kind and returns its id. Call it
// before T's first use to choose sparse storage for a type you do not own.
// Panics if T is already registered with another storage kind.
func Register[T any](w *World, storage StorageKind) ComponentID {
	return registerType[T](w, &storage)
}

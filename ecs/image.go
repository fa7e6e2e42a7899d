package ecs

import (
	"errors"
	"fmt"
	"reflect"
)

// Images: a world's whole state, taken and put back, for rewinding a game
// to a moment: every slot's generation and the free list (so every handle
// the game holds means after a restore what it meant then, and the next
// spawns get the same handles they got then), every live entity with its
// components' values and its parent, the resources and the frame counter.
// Event queues, change ticks, the journal and query state are not part of
// it: after a restore every value counts as written and added then. Take
// images between frames, with the command buffers applied: a buffer
// returns the handles it reserved and did not use when applied, so the
// free list then is the whole of what the next spawns get.

// Image is a world's state as [World.Image] took it. Its values are
// copies: what the world does afterwards does not change them (slices,
// maps and pointers reached through exported fields are copied too;
// unexported ones are shared).
type Image struct {
	Frame     uint64
	Slots     []uint32 // each slot's generation
	Free      []uint32 // the free list, in the order slots are reused (last first)
	Entities  []ImageEntity
	Resources map[reflect.Type]reflect.Value
}

// ImageEntity is one live entity of an image.
type ImageEntity struct {
	Entity     Entity
	Parent     Entity   // zero: none
	Children   []Entity // in link order (the order a recursive despawn frees them in)
	Components []ComponentID
	Values     []reflect.Value // parallel to Components: copies, of each component's type
}

// Image takes the world's state. It fails while command buffers hold
// handles for spawns not yet applied (take images between frames). Panics
// if a query iterates or systems run.
func (w *World) Image() (*Image, error) {
	w.checkUnlocked("Image")
	if w.reserve.pending > 0 {
		return nil, errors.New("ecs: image: command buffers hold entities reserved for spawns not yet applied: take images between frames")
	}
	img := &Image{Frame: w.frame, Free: append([]uint32(nil), w.free...), Resources: map[reflect.Type]reflect.Value{}}
	plain := w.plainComponents()
	img.Slots = make([]uint32, len(w.records))
	for i := range w.records {
		img.Slots[i] = w.records[i].gen
	}
	for i := range w.records {
		rec := &w.records[i]
		if rec.table == deadTable {
			continue
		}
		e := Entity{index: uint32(i), gen: rec.gen}
		ie := ImageEntity{Entity: e}
		if p, ok := w.Parent(e); ok {
			ie.Parent = p
		}
		ie.Children = w.Children(e)
		for _, id := range w.ComponentsOf(e) {
			if id == childOfID {
				continue // the parent, above
			}
			v, _ := w.Value(e, id)
			c := reflect.New(v.Type()).Elem()
			setCopy(c, v, plain[id])
			ie.Components = append(ie.Components, id)
			ie.Values = append(ie.Values, c)
		}
		img.Entities = append(img.Entities, ie)
	}
	for t, p := range w.resources {
		img.Resources[t] = copyValue(reflect.ValueOf(p).Elem())
	}
	return img, nil
}

// Restore puts the world back as the image says: the same live entities
// under the same handles, the same free list and generations, component
// values, parents, resources (written into the resource pointers the game
// holds) and frame counter. Entities alive now that the image lacks are
// despawned; handles issued since the image are stale after it. It checks
// the image first and changes nothing if it does not fit the world (a slot
// out of range, a component not registered, a value of another type).
// Panics if a query iterates or systems run.
func (w *World) Restore(img *Image) error {
	w.checkUnlocked("Restore")
	if err := w.checkImage(img); err != nil {
		return err
	}
	// Handles command buffers reserved and have not used (a buffer not
	// applied) belong to the timeline left behind: they are dropped.
	w.recordPending()
	w.reserve.epoch++
	defer w.actingAs(w.actorID("restore"), false)()
	for i := range w.records { // every entity now goes
		if rec := &w.records[i]; rec.table != deadTable {
			if err := w.despawn(Entity{index: uint32(i), gen: rec.gen}); err != nil {
				return err
			}
		}
	}
	w.records = w.records[:0]
	for _, gen := range img.Slots {
		w.records = append(w.records, entityRecord{gen: gen, table: deadTable})
	}
	w.free = append(w.free[:0], img.Free...)
	w.alive, w.retired = 0, 0
	used := make([]bool, len(img.Slots)) // live or free: not retired
	for _, ie := range img.Entities {
		used[ie.Entity.index] = true
	}
	for _, f := range img.Free {
		used[f] = true
	}
	for i, gen := range img.Slots {
		if gen == maxGeneration && !used[i] {
			w.retired++
		}
	}
	tick := w.writeTick()
	plain := w.plainComponents()
	for _, ie := range img.Entities {
		// Straight into the table of its table components (no move per
		// component), then the values; sparse components are added.
		e := ie.Entity
		var m Mask
		for _, id := range ie.Components {
			if w.sparse[id] == nil {
				m.Set(id)
			}
		}
		t := w.tables[w.tableFor(m)]
		row := t.pushZero(e, tick)
		rec := &w.records[e.index]
		rec.table, rec.row = t.id, uint32(row)
		w.alive++
		w.logStructural(OpSpawn, e, NoComponent)
		for k, id := range ie.Components {
			if w.sparse[id] != nil {
				if err := w.AddValue(e, id, copyValue(ie.Values[k])); err != nil {
					return err // checked above: not reached
				}
				continue
			}
			dst, _ := w.Value(e, id)
			setCopy(dst, ie.Values[k], plain[id])
		}
	}
	for _, ie := range img.Entities { // each parent's children, in their link order
		for _, kid := range ie.Children {
			if err := w.SetParent(kid, ie.Entity); err != nil {
				return err
			}
		}
	}
	for t, v := range img.Resources {
		if p, ok := w.resources[t]; ok {
			setCopy(reflect.ValueOf(p).Elem(), v, false)
			continue
		}
		p := reflect.New(t)
		p.Elem().Set(copyValue(v))
		w.resources[t] = p.Interface()
	}
	w.frame = img.Frame
	return nil
}

// checkImage reports what makes img unfit for the world, before anything
// changes.
func (w *World) checkImage(img *Image) error {
	if img == nil {
		return errors.New("ecs: restore: no image")
	}
	n := uint32(len(img.Slots))
	seen := make([]bool, n)
	for _, f := range img.Free {
		if f >= n || seen[f] {
			return fmt.Errorf("ecs: restore: free slot %d is out of range or listed twice", f)
		}
		seen[f] = true
	}
	for _, ie := range img.Entities {
		e := ie.Entity
		switch {
		case e.index >= n || e.gen != img.Slots[e.index]:
			return fmt.Errorf("ecs: restore: entity %v does not match its slot", e)
		case seen[e.index]:
			return fmt.Errorf("ecs: restore: entity %v is also free, or listed twice", e)
		case len(ie.Values) != len(ie.Components):
			return fmt.Errorf("ecs: restore: entity %v: %d values for %d components", e, len(ie.Values), len(ie.Components))
		}
		seen[e.index] = true
		for k, id := range ie.Components {
			if int(id) >= len(w.reg.regs) || id == childOfID {
				return fmt.Errorf("ecs: restore: entity %v: component %d is not registered", e, id)
			}
			if t := w.reg.regs[id].info.Type; ie.Values[k].Type() != t {
				return fmt.Errorf("ecs: restore: entity %v: a %s value for %s", e, ie.Values[k].Type(), t)
			}
		}
	}
	inImage := func(e Entity) bool { return e.index < n && seen[e.index] && img.Slots[e.index] == e.gen }
	parents := 0
	for _, ie := range img.Entities {
		if !ie.Parent.IsZero() {
			parents++
			if !inImage(ie.Parent) {
				return fmt.Errorf("ecs: restore: entity %v: parent %v is not in the image", ie.Entity, ie.Parent)
			}
		}
		for _, kid := range ie.Children {
			if !inImage(kid) {
				return fmt.Errorf("ecs: restore: entity %v: child %v is not in the image", ie.Entity, kid)
			}
			parents--
		}
	}
	if parents != 0 {
		return errors.New("ecs: restore: the image's parents and children do not agree")
	}
	return nil
}

// copyValue copies v, following exported slices, maps, pointers, arrays
// and struct fields so the copy shares no memory with v through them.
func copyValue(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	deepen(out, 0)
	return out
}

// setCopy sets dst to a copy of v: plain data (no pointers) is copied by
// the setting.
func setCopy(dst, v reflect.Value, plain bool) {
	if !plain {
		v = copyValue(v)
	}
	dst.Set(v)
}

// plainComponents says, per component id, whether its values hold no
// pointers.
func (w *World) plainComponents() []bool {
	plain := make([]bool, len(w.reg.regs))
	for i := range w.reg.regs {
		if t := w.reg.regs[i].info.Type; t != nil {
			plain[i] = !hasPointers(t)
		}
	}
	return plain
}

// deepen replaces what v refers to through settable fields by copies.
func deepen(v reflect.Value, depth int) {
	if depth > 32 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			deepen(c.Index(i), depth+1)
		}
		v.Set(c)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), copyValue(it.Value()))
		}
		v.Set(c)
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(v.Elem())
		deepen(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Array:
		for i := range v.Len() {
			deepen(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			deepen(v.Field(i), depth+1)
		}
	}
}

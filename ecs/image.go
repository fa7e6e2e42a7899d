package ecs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Images: a world's whole state, taken and put back, for rewinding a game
// to a moment: every slot's generation and the free list (so every handle
// the game holds means after a restore what it meant then, and the next
// spawns get the same handles they got then), every table's rows in their
// order (so systems meet the entities in the order they met them then),
// sparse components, parents and children in link order, resources, event
// queues and the frame counter. Change ticks, the journal and query state
// are not part of it: after a restore every value counts as written and
// added then. Take images between frames, with the command buffers applied:
// a buffer returns the handles it reserved and did not use when applied, so
// the free list then is the whole of what the next spawns get.

// Image is a world's state as [World.Image] took it, or as a tool rebuilt
// it (the inspector builds one from a recording). Its values are copies:
// what the world does afterwards does not change them (slices, maps and
// pointers reached through exported fields are copied too; unexported ones
// are shared).
type Image struct {
	Frame  uint64
	Slots  []uint32 // each slot's generation
	Free   []uint32 // the free list, in the order slots are reused (last first)
	Tables []ImageTable
	// Sparse holds each sparse component's entities and values, in the
	// order the component keeps them; Components has that one component.
	Sparse    []ImageTable
	Links     []ChildLinks // every parent's children, in link order
	Resources map[reflect.Type]reflect.Value
	Events    map[reflect.Type]ImageEvents
}

// ImageTable is one archetype's rows in row order: each column a slice of
// its component's type, one value per entity. Components lists the table
// components, ChildOf included (its column holds each row's parent).
type ImageTable struct {
	Components []ComponentID
	Entities   []Entity
	Columns    []reflect.Value
}

// ImageEvents is one event queue: slices of the event type, sent last
// frame (Previous) and this frame (Current), and the count sent ever.
type ImageEvents struct {
	Previous, Current reflect.Value
	Total             uint64
}

// Image takes the world's state: memory copies of every table, the rest
// through reflection. It fails while command buffers hold handles for
// spawns not yet applied (take images between frames). Panics if a query
// iterates or systems run.
func (w *World) Image() (*Image, error) {
	w.checkUnlocked("Image")
	if w.reserve.pending > 0 {
		return nil, errors.New("ecs: image: command buffers hold entities reserved for spawns not yet applied: take images between frames")
	}
	img := &Image{Frame: w.frame, Free: slices.Clone(w.free), Resources: map[reflect.Type]reflect.Value{}, Events: map[reflect.Type]ImageEvents{}}
	img.Slots = make([]uint32, len(w.records))
	for i := range w.records {
		img.Slots[i] = w.records[i].gen
	}
	plain := w.plainComponents()
	for _, t := range w.tables {
		if t.len() == 0 {
			continue
		}
		it := ImageTable{Components: slices.Clone(t.ids), Entities: slices.Clone(t.entities)}
		for j, id := range t.ids {
			col := w.columnSlice(t, j, 0, t.len())
			c := reflect.MakeSlice(col.Type(), col.Len(), col.Len())
			reflect.Copy(c, col)
			if !plain[id] {
				deepen(c, 0)
			}
			it.Columns = append(it.Columns, c)
		}
		img.Tables = append(img.Tables, it)
	}
	for id, s := range w.sparse {
		if s == nil || s.length() == 0 {
			continue
		}
		ents, vals := w.Inspect().CopySparse(ComponentID(id))
		if !plain[id] {
			deepen(vals, 0)
		}
		img.Sparse = append(img.Sparse, ImageTable{Components: []ComponentID{ComponentID(id)}, Entities: ents, Columns: []reflect.Value{vals}})
	}
	img.Links = w.linkList()
	for t, p := range w.resources {
		img.Resources[t] = copyValue(reflect.ValueOf(p).Elem())
	}
	for t, q := range w.eventsByType {
		img.Events[t] = q.image()
	}
	return img, nil
}

// linkList lists every parent's children in link order, by parent slot.
func (w *World) linkList() []ChildLinks {
	children := w.rels[childOfID].holders
	out := make([]ChildLinks, 0, len(children))
	total := 0
	for _, kids := range children {
		total += len(kids)
	}
	all := make([]Entity, 0, total) // one copy of every list: a capture takes this each time a link changes
	for slot, kids := range children {
		if len(kids) > 0 {
			at := len(all)
			all = append(all, kids...)
			out = append(out, ChildLinks{Parent: Entity{index: slot, gen: w.records[slot].gen}, Children: all[at:len(all):len(all)]})
		}
	}
	slices.SortFunc(out, func(a, b ChildLinks) int { return int(a.Parent.index) - int(b.Parent.index) })
	return out
}

// columnSlice is rows [from, from+n) of table t's column j as a slice of
// the component's type, sharing the table's memory.
func (w *World) columnSlice(t *table, j, from, n int) reflect.Value {
	typ := w.reg.regs[t.ids[j]].info.Type
	if n == 0 {
		return reflect.MakeSlice(reflect.SliceOf(typ), 0, 0)
	}
	first := t.cols[j].value(from).Addr().UnsafePointer()
	return reflect.NewAt(reflect.ArrayOf(n, typ), first).Elem().Slice(0, n)
}

// Restore puts the world back as the image says: the same live entities
// under the same handles in the same rows, the same free list and
// generations, component values, parents and children, resources (written
// into the resource pointers the game holds), event queues and frame
// counter. Entities alive now that the image lacks are gone; handles
// issued since the image are stale after it. It checks the image first and
// changes nothing if it does not fit the world (a slot out of range, a
// component not registered, a value of another type, a child whose parent
// disagrees). Panics if a query iterates or systems run.
func (w *World) Restore(img *Image) error {
	w.checkUnlocked("Restore")
	if err := w.checkImage(img); err != nil {
		return err
	}
	// Handles command buffers reserved and have not used (a buffer not
	// applied) belong to the timeline left behind: they are dropped.
	w.recordPending()
	w.reserve.epoch++
	defer w.actingAs(w.actorID("restore"), false).end()
	w.despawnAll()
	w.records = w.records[:0]
	for _, gen := range img.Slots {
		w.records = append(w.records, entityRecord{gen: gen, table: deadTable, row: noDeathFrame})
	}
	w.free = append(w.free[:0], img.Free...)
	w.freeLow = 0 // every entry is new to every capturer
	w.alive, w.retired = 0, 0
	used := make([]bool, len(img.Slots)) // live or free: not retired
	for _, f := range img.Free {
		used[f] = true
	}
	tick := w.writeStamp()
	plain := w.plainComponents()
	for _, it := range img.Tables {
		var m Mask
		for _, id := range it.Components {
			m.Set(id)
		}
		t := w.tables[w.tableFor(m)]
		n := len(it.Entities)
		first := t.pushN(n, tick)
		copy(t.entities[first:], it.Entities)
		for i, e := range it.Entities {
			rec := &w.records[e.index]
			rec.table, rec.row = t.id, uint32(first+i)
			used[e.index] = true
			w.logStructural(OpSpawn, e, NoComponent)
		}
		w.alive += n
		for k, id := range it.Components {
			dst := w.columnSlice(t, t.column(id), first, n)
			reflect.Copy(dst, it.Columns[k])
			if !plain[id] {
				deepen(dst, 0)
			}
		}
	}
	for _, st := range img.Sparse {
		id, vals := st.Components[0], st.Columns[0]
		for i, e := range st.Entities {
			if err := w.addValue(e, id, copyValue(vals.Index(i))); err != nil {
				return err // checked above: not reached
			}
		}
	}
	w.relinkAll(img.Links)
	for i, gen := range img.Slots {
		if gen == maxGeneration && !used[i] {
			w.retired++
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
	for t, ev := range img.Events {
		w.eventsByType[t].restore(ev)
	}
	if w.recycled.kept() { // from the restored slots
		w.recycled.rebuild(w)
	}
	w.frame = img.Frame
	return nil
}

// relinkAll builds every relation's index anew: ChildOf's from links (in
// the order the image lists the children), the others from their values'
// targets, in table order.
func (w *World) relinkAll(links []ChildLinks) {
	children := w.rels[childOfID]
	clear(children.holders)
	for _, l := range links {
		w.linkAll(children, l.Children, l.Parent)
	}
	w.links++
	for _, ri := range w.relKinds {
		if ri.id == childOfID {
			continue
		}
		clear(ri.holders)
		var holders []Entity
		if s := w.sparse[ri.id]; s != nil {
			for i := range s.length() {
				holders = append(holders, s.entityAt(i))
			}
		} else {
			for _, t := range w.tables {
				if t.mask.Has(ri.id) {
					holders = append(holders, t.entities...)
				}
			}
		}
		for _, e := range holders {
			rec := &w.records[e.index]
			r := ri.at(w, e, rec)
			if r == nil {
				continue
			}
			w.link(ri, e, r.target)
			if tb := w.tables[rec.table]; w.aimMask.Has(ri.id) && tb.target(ri.id) != r.target {
				w.moveTo(e, rec, w.tableAimed(tb.mask, tb, ri.id, r.target))
			}
		}
	}
}

// despawnAll despawns every entity, each table's rows from the last (so no
// row moves).
func (w *World) despawnAll() {
	// Links go first: despawning a parent would move each child to a table
	// without ChildOf.
	for _, ri := range w.relKinds {
		for slot := range ri.holders {
			w.records[slot].flags &^= flagTarget
		}
		clear(ri.holders)
	}
	for _, t := range w.tables {
		for t.len() > 0 {
			if err := w.despawn(t.entities[t.len()-1]); err != nil {
				panic("ecs: internal error: a table row's entity is not alive: " + err.Error())
			}
		}
	}
	w.retireAllAimed()
	for i := range w.records { // what is left lives in sparse sets alone
		if rec := &w.records[i]; rec.table != deadTable {
			if err := w.despawn(Entity{index: uint32(i), gen: rec.gen}); err != nil {
				panic("ecs: internal error: " + err.Error())
			}
		}
	}
}

// checkImage reports what makes img unfit for the world, before anything
// changes.
func (w *World) checkImage(img *Image) error {
	if img == nil {
		return errors.New("ecs: restore: no image")
	}
	n := uint32(len(img.Slots))
	seen := make([]bool, n) // free, or an entity's
	free := make([]bool, n)
	for _, f := range img.Free {
		if f >= n || seen[f] {
			return fmt.Errorf("ecs: restore: free slot %d is out of range or listed twice", f)
		}
		seen[f], free[f] = true, true
	}
	parentOf := map[Entity]Entity{} // every child's parent, from its ChildOf column
	masks := map[Mask]bool{}
	for ti, it := range img.Tables {
		var m Mask
		for _, id := range it.Components {
			if int(id) >= len(w.reg.regs) || w.sparse[id] != nil || m.Has(id) {
				return fmt.Errorf("ecs: restore: table %d: component %d is not a registered table component, or listed twice", ti, id)
			}
			m.Set(id)
		}
		if masks[m] {
			return fmt.Errorf("ecs: restore: table %d: two tables have the same components", ti)
		}
		masks[m] = true
		if len(it.Columns) != len(it.Components) {
			return fmt.Errorf("ecs: restore: table %d: %d columns for %d components", ti, len(it.Columns), len(it.Components))
		}
		if err := w.checkColumns(it, ti); err != nil {
			return err
		}
		if err := checkEntities(img, it.Entities, seen, true); err != nil {
			return err
		}
		if k := slices.Index(it.Components, childOfID); k >= 0 {
			for i, e := range it.Entities {
				parentOf[e] = it.Columns[k].Index(i).Interface().(ChildOf).target
			}
		}
	}
	for _, st := range img.Sparse {
		if len(st.Components) != 1 || len(st.Columns) != 1 {
			return errors.New("ecs: restore: a sparse table holds one component")
		}
		if id := st.Components[0]; int(id) >= len(w.sparse) || w.sparse[id] == nil {
			return fmt.Errorf("ecs: restore: component %d is not a registered sparse component", id)
		}
		if err := w.checkColumns(st, -1); err != nil {
			return err
		}
		if err := checkEntities(img, st.Entities, seen, false); err != nil {
			return err
		}
	}
	alive := func(e Entity) bool {
		return e.index < n && seen[e.index] && img.Slots[e.index] == e.gen && !free[e.index]
	}
	linked := 0
	for _, l := range img.Links {
		if !alive(l.Parent) {
			return fmt.Errorf("ecs: restore: parent %v is not in the image", l.Parent)
		}
		for _, kid := range l.Children {
			if p, ok := parentOf[kid]; !ok || p != l.Parent {
				return fmt.Errorf("ecs: restore: %v is listed as a child of %v, and its ChildOf disagrees", kid, l.Parent)
			}
			linked++
		}
	}
	if linked != len(parentOf) {
		return fmt.Errorf("ecs: restore: %d entities have a parent and %d are listed as children", len(parentOf), linked)
	}
	for _, group := range [][]ImageTable{img.Tables, img.Sparse} {
		for _, it := range group {
			for k, id := range it.Components {
				off, ok := relationOffset(w.reg.regs[id].info.Type)
				if !ok || id == childOfID {
					continue
				}
				for i, e := range it.Entities {
					r := (*Relation)(unsafe.Add(it.Columns[k].Index(i).Addr().UnsafePointer(), off))
					if !alive(r.target) {
						return fmt.Errorf("ecs: restore: %v's %s points at %v, which is not in the image", e, w.reg.regs[id].info.Short, r.target)
					}
				}
			}
		}
	}
	for t, ev := range img.Events {
		if _, ok := w.eventsByType[t]; !ok {
			return fmt.Errorf("ecs: restore: no event queue for %s", t)
		}
		for _, v := range []reflect.Value{ev.Previous, ev.Current} {
			if v.IsValid() && v.Type() != reflect.SliceOf(t) {
				return fmt.Errorf("ecs: restore: events of %s come as a %s", t, v.Type())
			}
		}
	}
	return nil
}

// checkColumns checks that each column is a slice of its component's type
// with one value per entity.
func (w *World) checkColumns(it ImageTable, ti int) error {
	for k, id := range it.Components {
		want := reflect.SliceOf(w.reg.regs[id].info.Type)
		if c := it.Columns[k]; !c.IsValid() || c.Type() != want || c.Len() != len(it.Entities) {
			return fmt.Errorf("ecs: restore: table %d: component %s wants a %s of %d values", ti, w.reg.regs[id].info.Short, want, len(it.Entities))
		}
	}
	return nil
}

// checkEntities checks that each entity matches its slot; in a table (own)
// each must be new to the image, in a sparse set it must be in a table.
func checkEntities(img *Image, ents []Entity, seen []bool, own bool) error {
	n := uint32(len(img.Slots))
	for _, e := range ents {
		switch {
		case e.index >= n || e.gen != img.Slots[e.index]:
			return fmt.Errorf("ecs: restore: entity %v does not match its slot", e)
		case own && seen[e.index]:
			return fmt.Errorf("ecs: restore: entity %v is also free, or listed twice", e)
		case !own && !seen[e.index]:
			return fmt.Errorf("ecs: restore: entity %v has a sparse component and no row", e)
		}
		seen[e.index] = true
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

// deepen replaces what v refers to through settable fields (or, for a
// slice, its elements) by copies.
func deepen(v reflect.Value, depth int) {
	if depth > 32 {
		return
	}
	if v.Kind() == reflect.Slice && !v.CanSet() { // a slice value itself: its elements are settable
		for i := range v.Len() {
			deepen(v.Index(i), depth+1)
		}
		return
	}
	if !v.CanSet() {
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

package record

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Rewind's rebuild: the frames from a keyframe to a recorded tick,
// replayed off the game goroutine into an image of the world that
// ecs.World.Restore puts back.

// Types is what rebuilding a world from frames needs to know of the
// world's types, taken on the game goroutine (TypesOf).
type Types struct {
	comps  []ecs.ComponentInfo
	events map[string]reflect.Type // by name; nil where two share one
}

// TypesOf takes w's types; call it on the game goroutine.
func TypesOf(w *ecs.World) *Types {
	rt := &Types{comps: w.Inspect().Components(), events: map[string]reflect.Type{}}
	for _, q := range w.Inspect().EventQueues(0) {
		if _, twice := rt.events[q.Name]; twice {
			rt.events[q.Name] = nil
			continue
		}
		rt.events[q.Name] = q.Type
	}
	return rt
}

// Rebuilt is a recorded tick made ready to restore: the image, and the
// resources as recorded (to convert on the game goroutine, over the
// values the game holds, so fields a recording lacks keep theirs).
type Rebuilt struct {
	Image     *ecs.Image
	Resources []protocol.Resource
	Notes     []string      // what was kept as it is, or restored in part
	Marks     RestoredMarks // who wrote each restored row; nil where not known
}

// Rebuild replays frames (a keyframe and the deltas after it) and turns
// the tick they reach into an image of the world.
func Rebuild(frames []Frame, types *Types) (*Rebuilt, error) {
	st := recording.NewWorldState()
	marks := RestoredMarks{}
	for i, fr := range frames {
		apply := st.Pass // the frames on the way: the last one's events count
		if i == len(frames)-1 {
			apply = st.Apply
		}
		if err := apply(fr.f); err != nil {
			return nil, err
		}
		if fr.marks == nil {
			marks = nil // a frame without marks: who wrote its rows is not known
		}
		if marks != nil {
			marks.follow(st, fr.marks)
		}
	}
	if !st.Alloc.Known {
		return nil, errors.New("the recording does not hold the entity allocator")
	}
	al := &st.Alloc
	img := &ecs.Image{Frame: st.Tick, Slots: make([]uint32, al.Slots), Events: map[reflect.Type]ecs.ImageEvents{}}
	copy(img.Slots, al.Gens)
	for i := len(al.Gens); i < al.Slots; i++ {
		img.Slots[i] = 1 // a slot made after the keyframe: alive or free below, or never retired
	}
	for _, e := range al.Free {
		img.Slots[e.Index()] = e.Generation()
		img.Free = append(img.Free, e.Index())
	}
	keys := make([]uint64, 0, len(st.Tables))
	for k := range st.Tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t := st.Tables[k]
		it, err := imageTable(t, types, img.Slots)
		if err != nil {
			return nil, err
		}
		if t.Sparse {
			img.Sparse = append(img.Sparse, it)
		} else {
			img.Tables = append(img.Tables, it)
		}
	}
	for _, l := range st.Links {
		cl := ecs.ChildLinks{Parent: values.Entity(l.Parent), Children: make([]ecs.Entity, len(l.Children))}
		for i, kid := range l.Children {
			cl.Children[i] = values.Entity(kid)
		}
		img.Links = append(img.Links, cl)
	}
	rb := &Rebuilt{Image: img, Resources: st.Summary.Resources, Marks: marks}
	for _, q := range st.Events {
		typ := types.events[q.Name]
		if typ == nil {
			rb.Notes = append(rb.Notes, fmt.Sprintf("events %s kept as they are", q.Name))
			continue
		}
		ev, note, err := imageEvents(typ, q)
		if err != nil {
			return nil, fmt.Errorf("events %s: %w", q.Name, err)
		}
		if note != "" {
			rb.Notes = append(rb.Notes, note)
		}
		img.Events[typ] = ev
	}
	return rb, nil
}

// imageTable turns a recorded table into an image's: its entities (whose
// generations it writes into slots) and a slice per column.
func imageTable(t *recording.StateTable, types *Types, slots []uint32) (ecs.ImageTable, error) {
	it := ecs.ImageTable{Entities: make([]ecs.Entity, len(t.Entities))}
	for i, e := range t.Entities {
		if int(e.Index()) >= len(slots) {
			return it, fmt.Errorf("entity %v is past the recorded slots", e)
		}
		it.Entities[i] = values.Entity(e)
		slots[e.Index()] = e.Generation()
	}
	for j, id := range t.Components {
		if int(id) >= len(types.comps) || types.comps[id].Type == nil {
			return it, fmt.Errorf("component %d is not registered", id)
		}
		info := &types.comps[id]
		col, err := columnOf(info, &t.Columns[j], len(t.Entities))
		if err != nil {
			return it, fmt.Errorf("component %s: %w", info.Short, err)
		}
		it.Components = append(it.Components, ecs.ComponentID(id))
		it.Columns = append(it.Columns, col)
	}
	return it, nil
}

// columnOf turns a recorded column into a slice of the component's type:
// raw memory is copied as it is; values are converted one by one.
func columnOf(info *ecs.ComponentInfo, c *recording.StateColumn, n int) (reflect.Value, error) {
	out := reflect.MakeSlice(reflect.SliceOf(info.Type), n, n)
	switch c.Kind {
	case protocol.ColumnRaw:
		size := int(info.Size)
		if c.Size != size || len(c.Raw) != n*size || values.HoldsPointers(info.Type) {
			return out, fmt.Errorf("recorded as %d bytes a value, %d in all; the type is %d bytes", c.Size, len(c.Raw), size)
		}
		if size > 0 && n > 0 {
			copy(unsafeBytes(out, n*size), c.Raw)
		}
	case protocol.ColumnValues:
		if len(c.Values) != n {
			return out, fmt.Errorf("%d values for %d rows", len(c.Values), n)
		}
		for i := range c.Values {
			if err := ecs.RestoreValue(out.Index(i), c.Values[i].Interface()); err != nil {
				return out, err
			}
		}
	default:
		return out, fmt.Errorf("a column of kind %d", c.Kind)
	}
	return out, nil
}

// imageEvents splits a recorded queue's events into last frame's and this
// frame's; a queue that held more than a frame records says so.
func imageEvents(typ reflect.Type, q protocol.EventQueue) (ecs.ImageEvents, string, error) {
	all := reflect.MakeSlice(reflect.SliceOf(typ), len(q.Recent), len(q.Recent))
	for i := range q.Recent {
		if err := ecs.RestoreValue(all.Index(i), q.Recent[i].Interface()); err != nil {
			return ecs.ImageEvents{}, "", err
		}
	}
	cur := min(q.Current, len(q.Recent))
	prev := min(q.Previous, len(q.Recent)-cur)
	note := ""
	if prev+cur < q.Previous+q.Current {
		note = fmt.Sprintf("events %s: the last %d of %d were recorded and restored", q.Name, prev+cur, q.Previous+q.Current)
	}
	n := all.Len()
	return ecs.ImageEvents{Previous: all.Slice(n-cur-prev, n-cur), Current: all.Slice(n-cur, n), Total: q.Total}, note, nil
}

// unsafeBytes is the first n bytes of a slice's memory (a slice of a
// pointer-free type).
func unsafeBytes(s reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(s.UnsafePointer()), n)
}

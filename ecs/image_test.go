package ecs

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Components of the image tests: a plain value, one with a slice (copied
// deep), a sparse one, and a tag.
type (
	imgPos   struct{ X, Y float64 }
	imgBag   struct{ Items []int }
	imgMark  struct{ N int }
	imgTag   struct{}
	imgClock struct{ Frames int }
)

func (imgMark) Storage() StorageKind { return SparseStorage }

// imageOps drives a world with random operations drawn from rt: spawns with
// random components, despawns (some recursive), adds, removes, writes
// (through slices too), parents, resource changes, frames.
type imageOps struct {
	w     *World
	pos   *Map[imgPos]
	bag   *Map[imgBag]
	mark  *Map[imgMark]
	tag   *Map[imgTag]
	alive []Entity
}

func newImageOps() *imageOps {
	w := NewWorld()
	SetResource(w, imgClock{})
	return &imageOps{w: w, pos: NewMap[imgPos](w), bag: NewMap[imgBag](w), mark: NewMap[imgMark](w), tag: NewMap[imgTag](w)}
}

// refresh lists the entities alive now, in slot order.
func (o *imageOps) refresh() {
	o.alive = o.alive[:0]
	for i := range o.w.records {
		if rec := o.w.records[i]; rec.table != deadTable {
			o.alive = append(o.alive, Entity{index: uint32(i), gen: rec.gen})
		}
	}
}

// run applies n operations, each chosen by pick(k) in [0, k).
func (o *imageOps) run(t *testing.T, n int, pick func(label string, k int) int) {
	for range n {
		o.refresh()
		some := func() Entity {
			if len(o.alive) == 0 {
				return Entity{}
			}
			return o.alive[pick("who", len(o.alive))]
		}
		switch pick("op", 9) {
		case 0, 1:
			e := o.w.Spawn()
			if pick("pos", 2) == 1 {
				must(t, o.pos.Add(e, imgPos{X: float64(pick("x", 100))}))
			}
			if pick("bag", 2) == 1 {
				must(t, o.bag.Add(e, imgBag{Items: []int{pick("i", 9), pick("i", 9)}}))
			}
			if pick("mark", 3) == 0 {
				must(t, o.mark.Add(e, imgMark{N: pick("n", 50)}))
			}
		case 2:
			if e := some(); !e.IsZero() {
				if pick("rec", 3) == 0 {
					must(t, o.w.DespawnRecursive(e))
				} else {
					must(t, o.w.Despawn(e))
				}
			}
		case 3:
			if e := some(); !e.IsZero() {
				must(t, o.tag.Add(e, imgTag{}))
			}
		case 4:
			if e := some(); !e.IsZero() && o.pos.Has(e) {
				must(t, o.pos.Remove(e))
			}
		case 5:
			if e := some(); !e.IsZero() {
				if b := o.bag.Get(e); b != nil && len(b.Items) > 0 {
					b.Items[0]++ // through the slice: an image must not see it
				}
				if p := o.pos.Get(e); p != nil {
					p.Y += 1.5
				}
			}
		case 6:
			c, p := some(), some()
			if !c.IsZero() && !p.IsZero() && c != p {
				if err := o.w.SetParent(c, p); err != nil && !o.w.Alive(p) {
					t.Fatal(err)
				} // a cycle is refused: fine
			}
		case 7:
			Resource[imgClock](o.w).Frames++
		case 8:
			must(t, o.w.Tick())
		}
	}
}

// imageText prints an image's entities, values and resources.
func imageText(img *Image) string {
	out := fmt.Sprint(img.Frame, img.Slots, img.Free)
	for _, e := range img.Entities {
		out += fmt.Sprint("\n", e.Entity, e.Parent, e.Children, e.Components)
		for _, v := range e.Values {
			out += fmt.Sprintf(" %+v", v.Interface())
		}
	}
	for t, v := range img.Resources {
		out += fmt.Sprintf("\n%s %+v", t, v.Interface())
	}
	return out
}

// imagesEqual says how two images differ, "" if they do not.
func imagesEqual(a, b *Image) string {
	switch {
	case a.Frame != b.Frame:
		return fmt.Sprintf("frame %d and %d", a.Frame, b.Frame)
	case !slices.Equal(a.Slots, b.Slots):
		return fmt.Sprintf("slots %v and %v", a.Slots, b.Slots)
	case !slices.Equal(a.Free, b.Free):
		return fmt.Sprintf("free lists %v and %v", a.Free, b.Free)
	case len(a.Entities) != len(b.Entities):
		return fmt.Sprintf("%d and %d entities", len(a.Entities), len(b.Entities))
	}
	for i := range a.Entities {
		x, y := a.Entities[i], b.Entities[i]
		if x.Entity != y.Entity || x.Parent != y.Parent || !slices.Equal(x.Children, y.Children) || !slices.Equal(x.Components, y.Components) {
			return fmt.Sprintf("entity %v (parent %v, children %v, %v) and %v (parent %v, children %v, %v)", x.Entity, x.Parent, x.Children, x.Components, y.Entity, y.Parent, y.Children, y.Components)
		}
		for k := range x.Values {
			if !reflect.DeepEqual(x.Values[k].Interface(), y.Values[k].Interface()) {
				return fmt.Sprintf("entity %v component %d: %v and %v", x.Entity, x.Components[k], x.Values[k], y.Values[k])
			}
		}
	}
	for typ, v := range a.Resources {
		if !reflect.DeepEqual(v.Interface(), b.Resources[typ].Interface()) {
			return fmt.Sprintf("resource %s: %v and %v", typ, v, b.Resources[typ])
		}
	}
	return ""
}

// TestRestoreReplays: take an image, go on with random operations, restore
// it: the world is the image again (handles, free list, values, parents,
// resources, frame), and the same operations replayed from there end in
// the same world as the first time, handles included.
func TestRestoreReplays(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := newImageOps()
		draw := func(label string, k int) int { return rapid.IntRange(0, k-1).Draw(rt, label) }
		o.run(t, rapid.IntRange(0, 80).Draw(rt, "before"), draw)
		img := mustImage(t, o.w)
		wantText := imageText(img) // what the image holds now: it must hold it still after the world moves on
		// The operations after the image, drawn once, replayed twice.
		var picks []int
		record := func(label string, k int) int { v := draw(label, k); picks = append(picks, v); return v }
		nAfter := rapid.IntRange(0, 80).Draw(rt, "after")
		o.run(t, nAfter, record)
		after := mustImage(t, o.w)
		resPtr := Resource[imgClock](o.w)
		must(t, o.w.Restore(img))
		if diff := imagesEqual(img, mustImage(t, o.w)); diff != "" {
			t.Fatalf("restored, the world differs from its image: %s", diff)
		}
		if got := imageText(mustImage(t, o.w)); got != wantText {
			t.Fatalf("the image changed as the world went on (it shares memory with it):\n%s\nwant\n%s", got, wantText)
		}
		if Resource[imgClock](o.w) != resPtr {
			t.Fatal("a resource moved: the game's pointer to it no longer sees it")
		}
		next := 0
		o.run(t, nAfter, func(label string, k int) int {
			if next == len(picks) {
				t.Fatalf("the replay asks for more draws than the first run took (%s)", label)
			}
			next++
			return picks[next-1]
		})
		if next != len(picks) {
			t.Fatalf("the replay took %d of %d draws", next, len(picks))
		}
		if diff := imagesEqual(after, mustImage(t, o.w)); diff != "" {
			t.Fatalf("the replay after a restore went elsewhere: %s", diff)
		}
	})
}

// TestRestoreRefusesABadImage: an image that does not fit changes nothing.
func TestRestoreRefusesABadImage(t *testing.T) {
	o := newImageOps()
	e := o.w.Spawn()
	must(t, o.pos.Add(e, imgPos{X: 1}))
	img := mustImage(t, o.w)
	bad := *img
	bad.Entities = append([]ImageEntity(nil), img.Entities...)
	bad.Entities[0].Values = []reflect.Value{reflect.ValueOf(imgBag{})}
	before := mustImage(t, o.w)
	if err := o.w.Restore(&bad); err == nil {
		t.Fatal("a value of another type was taken")
	}
	if diff := imagesEqual(before, mustImage(t, o.w)); diff != "" {
		t.Fatalf("a refused image changed the world: %s", diff)
	}
}

func mustImage(t testing.TB, w *World) *Image {
	t.Helper()
	img, err := w.Image()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

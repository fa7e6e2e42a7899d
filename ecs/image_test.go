package ecs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
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
	imgPing  struct{ From Entity }
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
	EventsOf[imgPing](w)
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
		switch pick("op", 10) {
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
		case 9:
			EventsOf[imgPing](o.w).Send(imgPing{From: some()})
		}
	}
}

// imageText prints an image: slots, tables row by row, sparse sets,
// links, resources and events.
func imageText(img *Image) string {
	out := fmt.Sprint(img.Frame, img.Slots, img.Free)
	for _, tabs := range [][]ImageTable{img.Tables, img.Sparse} {
		for _, it := range tabs {
			out += fmt.Sprint("\ntable ", it.Components, it.Entities)
			for _, c := range it.Columns {
				out += fmt.Sprintf(" %+v", c.Interface())
			}
		}
	}
	out += fmt.Sprint("\nlinks ", img.Links)
	for _, t := range sortedTypes(img.Resources) {
		out += fmt.Sprintf("\n%s %+v", t, img.Resources[t].Interface())
	}
	for t, ev := range img.Events {
		out += fmt.Sprintf("\n%s %+v %+v %d", t, ev.Previous.Interface(), ev.Current.Interface(), ev.Total)
	}
	return out
}

func sortedTypes(m map[reflect.Type]reflect.Value) []reflect.Type {
	var out []reflect.Type
	for t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// imagesEqual says how two images differ, "" if they do not.
func imagesEqual(a, b *Image) string {
	x, y := imageText(a), imageText(b)
	if x == y {
		return ""
	}
	xs, ys := strings.Split(x, "\n"), strings.Split(y, "\n")
	for i := range min(len(xs), len(ys)) {
		if xs[i] != ys[i] {
			return fmt.Sprintf("line %d:\n%s\n%s", i, xs[i], ys[i])
		}
	}
	return fmt.Sprintf("%d and %d lines", len(xs), len(ys))
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
	bad.Tables = slices.Clone(img.Tables)
	bad.Tables[0].Columns = []reflect.Value{reflect.ValueOf([]imgBag{{}})}
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

// TestCaptureCarriesTheAllocator: a reader that applies each capture's
// allocator part (a full one, then deltas) holds the world's free list and
// every free slot's generation after every capture, with up to three
// capturers taking turns at random (a recording, a client's stream, the
// rewind ring), each with its own reader.
func TestCaptureCarriesTheAllocator(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := newImageOps()
		draw := func(label string, k int) int { return rapid.IntRange(0, k-1).Draw(rt, label) }
		type reader struct {
			c     *Capturer
			gens  []uint32
			free  []Entity
			taken bool
		}
		readers := make([]reader, rapid.IntRange(1, 3).Draw(rt, "capturers"))
		for i := range readers {
			readers[i].c = o.w.Inspect().NewCapturer()
		}
		for step := range rapid.IntRange(1, 16).Draw(rt, "captures") {
			o.run(t, rapid.IntRange(0, 30).Draw(rt, "ops"), draw)
			if step > 0 && rapid.IntRange(0, 6).Draw(rt, "restore") == 0 {
				must(t, o.w.Restore(mustImage(t, o.w))) // a restore: the next capture must be whole
			}
			r := &readers[draw("capturer", len(readers))]
			a := r.c.Capture(!r.taken || rapid.IntRange(0, 4).Draw(rt, "full") == 0).Alloc
			if a.Gens != nil {
				r.gens, r.free = slices.Clone(a.Gens), nil
			} else if !r.taken {
				t.Fatal("a capturer's first capture carries no generations")
			}
			r.taken = true
			checkAllocReader(t, o.w, a, &r.gens, &r.free, step)
		}
	})
}

// TestCaptureAfterManyOthers: a capturer whose previous capture is more
// captures back than the world remembers low marks for gets the whole free
// list, and its reader stays right.
func TestCaptureAfterManyOthers(t *testing.T) {
	w := NewWorld()
	var ents []Entity
	for range 100 {
		ents = append(ents, w.Spawn())
	}
	for _, e := range ents[:50] {
		must(t, w.Despawn(e))
	}
	late, busy := w.Inspect().NewCapturer(), w.Inspect().NewCapturer()
	a := late.Capture(true).Alloc
	gens, free := slices.Clone(a.Gens), append([]Entity(nil), a.Free...)
	checkAllocReader(t, w, a, &gens, &free, 0)
	for i := range freeLowsKept + 1 {
		must(t, w.Despawn(ents[50+i%50]))
		ents[50+i%50] = w.Spawn()
		busy.Capture(false)
	}
	a = late.Capture(false).Alloc
	if a.Keep != 0 || len(a.Free) != len(w.free) {
		t.Fatalf("after %d captures by another capturer, kept %d entries and sent %d of %d", freeLowsKept+1, a.Keep, len(a.Free), len(w.free))
	}
	checkAllocReader(t, w, a, &gens, &free, 1)
}

// checkAllocReader applies a capture's allocator part to a reader's free
// list and generations and checks them against the world.
func checkAllocReader(t *testing.T, w *World, a AllocCapture, gens *[]uint32, free *[]Entity, step int) {
	t.Helper()
	*free = append((*free)[:a.Keep], a.Free...)
	for len(*gens) < a.Slots {
		*gens = append(*gens, 0)
	}
	for _, e := range a.Free {
		(*gens)[e.index] = e.gen
	}
	want := make([]Entity, len(w.free))
	for i, slot := range w.free {
		want[i] = Entity{index: slot, gen: w.records[slot].gen}
	}
	if !slices.Equal(*free, want) {
		t.Fatalf("capture %d: the reader's free list is %v, the world's %v", step, *free, want)
	}
	for i := range w.records {
		if rec := w.records[i]; rec.table == deadTable && (*gens)[i] != rec.gen {
			t.Fatalf("capture %d: free slot %d has generation %d, the reader says %d", step, i, rec.gen, (*gens)[i])
		}
	}
}

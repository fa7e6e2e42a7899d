package ecs

import (
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// TestCaptureReusesRecycledMemory: a capture handed back is where the next
// capture's values, row lists and entities go, and what that capture holds
// is the world as it is then, not the recycled capture's leftovers.
func TestCaptureReusesRecycledMemory(t *testing.T) {
	type pos struct{ X, Y float32 }
	w := NewWorld()
	ents := make([]Entity, 0, 5000)
	m := NewMap[pos](w)
	for i := range 5000 {
		e := w.Spawn()
		must(t, m.Add(e, pos{X: float32(i)}))
		ents = append(ents, e)
	}
	all := NewQuery1[pos](w, Mut[pos]())
	c := w.Inspect().NewCapturer()
	first := c.Capture(true)
	raw, rows := unsafe.SliceData(first.Tables[0].Columns[0].Raw), unsafe.SliceData(first.Tables[0].Columns[0].Changed)
	c.Recycle(first)
	for p := range all.All() {
		p.Y = p.X * 2
	}
	must(t, w.Tick())
	must(t, w.Despawn(ents[0])) // the last row moves into row 0: the entities are captured again
	next := c.Capture(false)
	if len(next.Tables) != 1 {
		t.Fatalf("%d tables captured", len(next.Tables))
	}
	tc := &next.Tables[0]
	col := &tc.Columns[0]
	if unsafe.SliceData(col.Raw) != raw || unsafe.SliceData(col.Changed) != rows {
		t.Fatal("the capture after a recycled one took new memory for its values or rows")
	}
	if !tc.All || len(col.Raw) != 4999*8 || len(tc.Entities) != 4999 || len(col.Changed) != 4999 {
		t.Fatalf("all %v, %d bytes of values, %d entities, %d rows changed", tc.All, len(col.Raw), len(tc.Entities), len(col.Changed))
	}
	for row, e := range tc.Entities {
		x := math.Float32frombits(binary.NativeEndian.Uint32(col.Raw[row*8:]))
		y := math.Float32frombits(binary.NativeEndian.Uint32(col.Raw[row*8+4:]))
		if want := m.Read(e); want == nil || want.X != x || want.Y != y || y != 2*x {
			t.Fatalf("row %d (%v) captured (%v, %v), the world holds %+v", row, e, x, y, want)
		}
	}
	c.Recycle(next)
	held := func() int {
		c.spare.mu.Lock()
		defer c.spare.mu.Unlock()
		return len(c.spare.bytes) + len(c.spare.rows) + len(c.spare.ents)
	}
	if held() == 0 {
		t.Fatal("a recycled capture left nothing to reuse")
	}
	for deadline := time.Now().Add(time.Minute); held() != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d buffers still held a minute after the last capture handed back (spareLife %v)", held(), spareLife)
		}
	}
}

// TestCapturerLetsGo: Release drops the recycled memory at once, and the
// timer that drops it otherwise does not keep the capturer's world alive
// (it kept a closed agent's whole world for two seconds).
func TestCapturerLetsGo(t *testing.T) {
	old := spareLife
	spareLife = time.Hour // the timer stays pending for the whole test
	t.Cleanup(func() { spareLife = old })
	type pos struct{ X, Y float32 }
	freed := make(chan struct{})
	var c *Capturer
	func() {
		w := NewWorld()
		m := NewMap[pos](w)
		for range 1000 {
			must(t, m.Add(w.Spawn(), pos{}))
		}
		runtime.AddCleanup(w, func(ch chan struct{}) { close(ch) }, freed)
		c = w.Inspect().NewCapturer()
		c.Recycle(c.Capture(true))
		c.Release()
		c.spare.mu.Lock()
		held := len(c.spare.bytes) + len(c.spare.rows) + len(c.spare.ents) + len(c.spare.gens)
		c.spare.mu.Unlock()
		if held != 0 {
			t.Fatalf("%d buffers held after Release", held)
		}
		c.Recycle(c.Capture(true)) // a timer pending again
		c = nil
	}()
	for deadline := time.Now().Add(time.Minute); !time.Now().After(deadline); {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the world was still alive a minute after its capturer was let go, a recycle's timer pending")
}

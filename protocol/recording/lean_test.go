package recording

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// leanInput is a capture of a table of n positions: every one changed
// since the last (moved: all values new), or one (still), keyframe or not;
// lean as a capture read it from the encoder.
func leanInput(tick uint64, n int, full, moved, lean bool, rng *rand.Rand) *WorldInput {
	sum := &protocol.Summary{Full: true, Components: worldSchemas()}
	tc := TableChange{Archetype: 1, Components: []uint16{1}, Len: n}
	cc := ColumnChange{Kind: protocol.ColumnRaw, Size: 8}
	switch {
	case full || moved:
		tc.All = true
		if full {
			for i := range n {
				tc.Entities = append(tc.Entities, protocol.MakeEntityID(uint32(i+1), 1))
			}
		}
		for i := range n {
			cc.Changed = append(cc.Changed, int32(i))
			cc.Raw = append(cc.Raw, posBytes(rng.Float32(), rng.Float32())...)
		}
	default:
		cc.Changed, cc.Raw = []int32{0}, posBytes(float32(tick), 0)
	}
	tc.Columns = []ColumnChange{cc}
	return &WorldInput{Tick: tick, Full: full, Summary: sum, Tables: []TableChange{tc}, Lean: lean}
}

// TestLeanEncoderDropsTheCopyWhereDeltasDoNotPay: a lean encoder over a
// world whose every value changes between frames goes to keyframes only,
// keeps no world copy between them (a delta then is refused, asking for a
// keyframe), tries a delta again after leanProbe keyframes, and every
// frame it makes rebuilds the world. Over a world where little changes it
// codes deltas and keeps its copy; an encoder that is not lean always does.
func TestLeanEncoderDropsTheCopyWhereDeltasDoNotPay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 2000
	enc := NewWorldEncoder()
	enc.Lean = true
	reader := NewWorldState()
	tick := uint64(0)
	step := func(moved bool) *protocol.WorldFrame {
		t.Helper()
		tick++
		lean := enc.LeanNow()
		in := leanInput(tick, n, enc.TakeKeyframe(), moved, lean, rng)
		f, err := enc.Encode(in)
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if err := reader.Apply(f); err != nil {
			t.Fatalf("tick %d: the frame does not rebuild the world: %v", tick, err)
		}
		return f
	}
	if f := step(true); !f.Full || enc.LeanNow() {
		t.Fatalf("the first frame: full %v, lean %v", f.Full, enc.LeanNow())
	}
	if f := step(true); f.Full || !enc.LeanNow() || !enc.WantKeyframe() {
		t.Fatalf("after a delta as large as the keyframe: full %v, lean %v, want a keyframe %v", f.Full, enc.LeanNow(), enc.WantKeyframe())
	}
	for k := range leanProbe {
		if f := step(true); !f.Full || enc.StateBytes() != 0 || !enc.WantKeyframe() {
			t.Fatalf("lean keyframe %d: full %v, copy %d bytes, want a keyframe %v", k, f.Full, enc.StateBytes(), enc.WantKeyframe())
		}
	}
	// A delta captured before the encoder went lean has nothing to be coded
	// against: refused, and the next capture is a keyframe.
	if _, err := enc.Encode(leanInput(tick+1, n, false, false, false, rng)); !errors.Is(err, ErrNeedKeyframe) || !enc.WantKeyframe() {
		t.Fatalf("a delta with no copy: %v", err)
	}
	// The probe keeps the copy, and a small delta keeps the encoder out of
	// lean until deltas stop paying again.
	if f := step(true); !f.Full || enc.StateBytes() < n*8 || enc.LeanNow() || enc.WantKeyframe() {
		t.Fatalf("the probe: full %v, copy %d bytes, lean %v, want a keyframe %v", f.Full, enc.StateBytes(), enc.LeanNow(), enc.WantKeyframe())
	}
	for range 5 {
		if f := step(false); f.Full || enc.LeanNow() || enc.StateBytes() < n*8 {
			t.Fatalf("a small delta: full %v, lean %v, copy %d", f.Full, enc.LeanNow(), enc.StateBytes())
		}
	}
	plain := NewWorldEncoder()
	for k := range 4 {
		f, err := plain.Encode(leanInput(uint64(k+1), n, plain.TakeKeyframe(), true, plain.LeanNow(), rng))
		if err != nil || (k > 0 && f.Full) || plain.StateBytes() < n*8 {
			t.Fatalf("an encoder that is not lean, frame %d: %v, full %v, copy %d", k, err, f.Full, plain.StateBytes())
		}
	}
}

// TestLeanEncoderDropsACopyNoDeltaUses: when the stream's reader asks for
// a keyframe after every frame (the ring does once its frames are large),
// the copy kept after a keyframe goes unused: a lean encoder stops keeping
// it, tries again after leanProbe keyframes and twice as many after each
// try that fails, and frames still rebuild the world.
func TestLeanEncoderDropsACopyNoDeltaUses(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	enc := NewWorldEncoder()
	enc.Lean = true
	reader := NewWorldState()
	// Kept after the first two keyframes (the second shows the first went
	// unused), then none for a gap, then kept for the probe and the frame
	// that shows it unused again; the gaps double.
	var want []bool
	want = append(want, true, true)
	for gap := leanProbe; gap <= 4*leanProbe; gap *= 2 {
		for range gap {
			want = append(want, false)
		}
		want = append(want, true, true)
	}
	var copies []int64
	for k := range want {
		in := leanInput(uint64(k+1), 500, true, true, enc.LeanNow(), rng)
		if k > 0 && !enc.WantKeyframe() {
			t.Fatalf("frame %d: the keyframe asked for after the last is not wanted", k)
		}
		f, err := enc.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := reader.Apply(f); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		enc.RequestKeyframe() // the reader's policy
		copies = append(copies, enc.StateBytes())
	}
	for k, c := range copies {
		if want[k] != (c != 0) {
			t.Fatalf("frame %d: the copy kept after each keyframe: %v", k, copies)
		}
	}
}

// TestDropCopy: an encoder that let its copy go refuses a delta and asks
// for a keyframe, which continues the stream (the reader takes it after
// the frames before); one that never coded a frame, or holds no copy, is
// left as it was.
func TestDropCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 500
	enc := NewWorldEncoder()
	enc.DropCopy() // nothing coded yet: nothing to drop
	if !enc.WantKeyframe() || enc.StateBytes() != 0 {
		t.Fatalf("a new encoder after DropCopy: want a keyframe %v, copy %d", enc.WantKeyframe(), enc.StateBytes())
	}
	reader := NewWorldState()
	var last *protocol.WorldFrame
	for tick := uint64(1); tick <= 3; tick++ {
		f, err := enc.Encode(leanInput(tick, n, enc.TakeKeyframe(), false, false, rng))
		if err != nil {
			t.Fatal(err)
		}
		if err := reader.Apply(f); err != nil {
			t.Fatal(err)
		}
		last = f
	}
	if last.Full || enc.StateBytes() < n*8 {
		t.Fatalf("before the drop: full %v, copy %d", last.Full, enc.StateBytes())
	}
	enc.DropCopy()
	if enc.StateBytes() != 0 || !enc.WantKeyframe() {
		t.Fatalf("after the drop: copy %d, want a keyframe %v", enc.StateBytes(), enc.WantKeyframe())
	}
	if _, err := enc.Encode(leanInput(4, n, false, false, false, rng)); !errors.Is(err, ErrNeedKeyframe) {
		t.Fatalf("a delta after the drop: %v", err)
	}
	f, err := enc.Encode(leanInput(5, n, true, false, false, rng))
	if err != nil || !f.Full || f.Seq != last.Seq+1 {
		t.Fatalf("the keyframe after the drop: %v, full %v, seq %d after %d", err, f != nil && f.Full, f.Seq, last.Seq)
	}
	if err := reader.Apply(f); err != nil {
		t.Fatal(err)
	}
	if f, err := enc.Encode(leanInput(6, n, false, false, false, rng)); err != nil || f.Full {
		t.Fatalf("a delta after that keyframe: %v", err)
	} else {
		if err := reader.Apply(f); err != nil {
			t.Fatal(err)
		}
	}
	enc.DropCopy()
	enc.DropCopy() // twice: as once
	if enc.StateBytes() != 0 || !enc.WantKeyframe() {
		t.Fatalf("after dropping twice: copy %d", enc.StateBytes())
	}
}

// TestEncoderBehindCodesDeltas: the game captures on while the encoder
// codes two frames behind. A keyframe is taken once: the captures after it
// are deltas against it, not keyframe after keyframe until the encoder
// catches up (each dearer to take and code, putting it further behind).
// A lean encoder so behind still comes out of lean when the world settles
// (its probe is not judged by the keyframes lean took before the probe
// was coded), and every frame rebuilds the world.
func TestEncoderBehindCodesDeltas(t *testing.T) {
	for _, lean := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 8))
		const n, behind = 2000, 2
		enc := NewWorldEncoder()
		enc.Lean = lean
		reader := NewWorldState()
		var waiting []*WorldInput
		var kinds []byte // K or D, a frame coded
		tick := uint64(0)
		frame := func(moved bool) {
			tick++
			wasLean := enc.LeanNow()
			waiting = append(waiting, leanInput(tick, n, enc.TakeKeyframe(), moved, wasLean, rng))
			if len(waiting) <= behind {
				return
			}
			in := waiting[0]
			waiting = waiting[1:]
			f, err := enc.Encode(in)
			if err != nil {
				t.Fatalf("lean %v, tick %d: %v", lean, in.Tick, err)
			}
			if err := reader.Apply(f); err != nil {
				t.Fatalf("lean %v, tick %d: the frame does not rebuild the world: %v", lean, in.Tick, err)
			}
			kinds = append(kinds, "DK"[b2i(f.Full)])
		}
		for range 40 {
			frame(true) // every value changes: deltas as large as keyframes
		}
		for range 200 {
			frame(false) // one value a frame
		}
		if !lean && strings.Contains(string(kinds), "KK") {
			t.Errorf("keyframes in a row from an encoder behind: %s", kinds)
		}
		settled := string(kinds[len(kinds)-100:])
		if strings.Count(settled, "D") < 95 || enc.LeanNow() {
			t.Errorf("lean %v: the last 100 frames of a settled world are %s (lean now %v)", lean, settled, enc.LeanNow())
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

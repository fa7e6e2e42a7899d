package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// TestUpkeepAllowsAShareOfTheGamesWork: the allowance is the share of the
// game's work plus the floor, and the units that fit it follow what a
// unit was measured to cost, within the bounds given.
func TestUpkeepAllowsAShareOfTheGamesWork(t *testing.T) {
	var u upkeep
	u.frame(time.Millisecond, 0)
	if want := time.Duration(upkeepShare*float64(time.Millisecond)) + upkeepFloor; u.allowed != want {
		t.Fatalf("a 1 ms frame allows %v, want %v", u.allowed, want)
	}
	if n := u.units(64, 1<<15); n != 64 {
		t.Fatalf("before any measure: %d units, want the least", n)
	}
	u.spent(1000, 10*time.Microsecond) // 10 ns a unit
	if n := u.units(64, 1<<15); n != int(u.allowed.Nanoseconds()/10) {
		t.Fatalf("at 10 ns a unit, %v allows %d units", u.allowed, n)
	}
	if n := u.units(64, 100); n != 100 {
		t.Fatalf("the most given is %d, yet %d units", 100, n)
	}
	u.frame(0, 0) // a frame with no work: the floor alone
	if n := u.units(64, 1<<15); n != max(64, int(upkeepFloor.Nanoseconds()/10)) {
		t.Fatalf("the floor allows %d units", n)
	}
	// One budget: what the frame's despawns spent keeping last states is
	// not Sync's to spend again.
	u.frame(10*time.Millisecond, 0)
	whole := u.units(1, 1<<30)
	u.frame(10*time.Millisecond, u.allowed/2)
	if half := u.units(1, 1<<30); half > whole/2+1 || half < whole/2-1 {
		t.Fatalf("with half the allowance spent at despawns, %d units of %d fit", half, whole)
	}
	u.frame(10*time.Millisecond, time.Second)
	if n := u.units(64, 1<<30); n != 64 {
		t.Fatalf("with the allowance overspent, %d units, want the least", n)
	}
}

// TestIdleDanglingScanIsPaced: with nobody attached, the dangling scan of
// a small world makes a pass at most each danglingEvery however fast the
// game runs, and reads no more a frame than the share allows; a client
// attached has it read every frame.
func TestIdleDanglingScanIsPaced(t *testing.T) {
	w := ecs.NewWorld()
	type cells struct{ C []ecs.Entity }
	grid := make([]ecs.Entity, 2000)
	for i := range grid {
		grid[i] = w.Spawn()
	}
	ecs.SetResource(w, cells{C: grid})
	a := New(w, Options{RewindBytes: -1})
	defer a.Close()
	// The scan's clock is the test's: each look at it is a millisecond on.
	now := time.Unix(1000, 0)
	start := now
	a.dangling.Clock = func() time.Time { now = now.Add(time.Millisecond); return now }
	const frames = 2000
	for range frames {
		must(t, w.Tick())
		a.Sync()
	}
	passes, read, _ := a.dangling.Passes()
	if most := uint64(now.Sub(start)/danglingEvery) + 1; passes > most {
		t.Fatalf("%d frames over %v of the scan's clock made %d passes, want at most %d", frames, now.Sub(start), passes, most)
	}
	if passes == 0 || read != 2000 {
		t.Fatalf("%d passes, the last reading %d handles of 2000", passes, read)
	}
}

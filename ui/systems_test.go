package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestSystemsPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&systemsPane{common: c}, 140, 20)
	v := screenText(p.View())
	// By stage, and in each the systems, in the order the schedule runs
	// them (move before hunt, though hunt costs more); each stage against
	// the game's own frame (the fixture's: 2 ms, a 500 Hz game).
	update, render := strings.Index(v, "stage update: 4.00ms"), strings.Index(v, "stage render")
	hunt, move := strings.Index(v, "hunt"), strings.Index(v, "move")
	if update < 0 || render < update || move > hunt || move < update || !strings.Contains(v, "of the game's 2.00ms frame (500 Hz)") {
		t.Fatalf("systems not grouped by stage against the budget:\n%s", v)
	}
	mustContain(t, p.View(), "r:Target", "w:Position", "(declares no access)")
	// The cursor moves over the stage lines and the systems: five rows.
	pressPane(p, "G")
	if p.cursor != 4 {
		t.Fatalf("G put the cursor on row %d, want 4", p.cursor)
	}
	narrow := sized(&systemsPane{common: c}, 80, 20)
	mustContain(t, narrow.View(), "w:Position")
	// What a run allocates: bytes and objects wide, bytes narrow; a system
	// whose runs ran beside others is "shared"; one not measured "-".
	mustContain(t, p.View(), "alloc/run", "12.5 KiB 3.5 obj", "shared")
	mustContain(t, narrow.View(), "12.5 KiB", "shared")
}

// TestSystemsPaneShowsSkippedCommands: a system whose queued commands were
// skipped says how many under its row, with the newest reason.
func TestSystemsPaneShowsSkippedCommands(t *testing.T) {
	c, _, _ := fixture()
	c.summary.Systems[0].Skipped = 3
	c.summary.Systems[0].SkippedWhy = []protocol.SkipReason{{Tick: 810, Why: "older"}, {Tick: 812, Why: "ecs: 4v1 has no Foraging to remove"}}
	p := sized(&systemsPane{common: c}, 140, 20)
	v := screenText(p.View())
	if !strings.Contains(v, "⚠ 3 commands it queued were skipped; newest, tick 812: ecs: 4v1 has no Foraging to remove") || strings.Count(v, "skipped") != 1 {
		t.Fatalf("the skipped commands are not shown under move:\n%s", v)
	}
}

// TestFrameTimeline: b turns the Systems view into the frame timeline:
// the frames as bars stacked by stage, a slow frame and a frame with a
// garbage collection marked, the newest picked with its systems listed
// under the chart; ← picks the frame before; b turns back.
func TestFrameTimeline(t *testing.T) {
	c, _, _ := fixture()
	s := c.summary
	for i := range 40 {
		f := protocol.FrameStat{Tick: uint64(100 + i), Ns: 2_000_000, Work: 1_000_000}
		switch i {
		case 20:
			f.Ns, f.Work = 9_000_000, 8_000_000 // a hitch
		case 30:
			f.GC, f.GCPauseNs = 1, 300_000
		}
		s.Frames = append(s.Frames, f)
	}
	for j := range s.Systems {
		s.Systems[j].Recent = nil
		for i := range 40 {
			s.Systems[j].Recent = append(s.Systems[j].Recent, int64(100_000*(j+1)+1000*i))
		}
	}
	p := sized(&systemsPane{common: c}, 100, 30)
	pressPane(p, "b")
	v := screenText(p.View())
	lines := strings.Split(v, "\n")
	marks := lines[1]
	if !strings.ContainsRune(marks, '!') || !strings.ContainsRune(marks, '▼') {
		t.Fatalf("no slow frame or no pick marked:\n%s", v)
	}
	if !strings.Contains(v, "g") || !strings.Contains(v, "█ update") || !strings.Contains(v, "▓ render") {
		t.Fatalf("no collection marked, or no stage legend:\n%s", v)
	}
	mustContain(t, p.View(), "frame 139: 2.00ms, work 1.00ms", "hunt               239.0µs  update")
	for range 9 {
		pressPane(p, "h")
	}
	mustContain(t, p.View(), "frame 130: 2.00ms, work 1.00ms; 1 garbage collection(s), 300.0µs paused", "hunt               230.0µs")
	for range 10 {
		pressPane(p, "h")
	}
	mustContain(t, p.View(), "frame 120: 9.00ms, work 8.00ms (slow: the game's interval is 2.00ms)")
	pressPane(p, "b")
	mustContain(t, p.View(), "alloc/run")
}

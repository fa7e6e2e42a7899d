package protocol

import (
	"reflect"
	"testing"
)

// runFrames is a summary after frames frames of two systems, each run
// once a frame (the second skipping every third frame): their windows of
// runs and the frames' window, as the agent keeps them.
func runFrames(frames int) *Summary {
	s := &Summary{Full: true, Tick: uint64(frames)}
	s.Systems = []System{{Name: "move", Stage: "update", Writes: []string{"Position"}}, {Name: "eat", Stage: "update", Reads: []string{"Position"}}}
	for f := 1; f <= frames; f++ {
		for i := range s.Systems {
			if i == 1 && f%3 == 0 {
				continue
			}
			sys := &s.Systems[i]
			sys.Count++
			sys.Last = int64(1000*i + f)
			sys.Recent = append(sys.Recent, sys.Last)
			sys.Recent = sys.Recent[max(len(sys.Recent)-MaxFrames, 0):]
		}
		s.Frames = append(s.Frames, FrameStat{Tick: uint64(f), Ns: int64(f % 7), Work: int64(f % 5)})
		s.Frames = s.Frames[max(len(s.Frames)-MaxFrames, 0):]
	}
	return s
}

// TestSummaryWindowsSlide: between two summaries a few frames apart, the
// delta carries only the runs and frames that came (whatever the windows'
// fill, past 120 too) and applying it rebuilds the later summary; a
// system that changed otherwise (its reads) goes whole.
func TestSummaryWindowsSlide(t *testing.T) {
	for _, c := range []struct{ from, to int }{{1, 2}, {10, 13}, {118, 125}, {200, 212}, {300, 300 + MaxFrames}} {
		prev, next := runFrames(c.from), runFrames(c.to)
		d := DiffSummary(prev, next)
		came := c.to - c.from
		if d.Systems != nil || len(d.SystemTails) != 2 || d.Frames != nil {
			t.Fatalf("%d -> %d: systems %d whole, %d tails, %d frames whole", c.from, c.to, len(d.Systems), len(d.SystemTails), len(d.Frames))
		}
		if got := len(d.SystemTails[0].Recent); got != min(came, MaxFrames) || len(d.FrameTail) != min(came, MaxFrames) {
			t.Errorf("%d -> %d: %d runs and %d frames sent, want the %d that came", c.from, c.to, got, len(d.FrameTail), came)
		}
		if d.SystemTails[0].Writes != nil || d.SystemTails[1].Stage != "" {
			t.Errorf("%d -> %d: a tail repeats what did not change: %+v", c.from, c.to, d.SystemTails)
		}
		got, err := ApplySummary(prev, d)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Systems, next.Systems) || !reflect.DeepEqual(got.Frames, next.Frames) || got.SystemTails != nil || got.FrameTail != nil {
			t.Fatalf("%d -> %d: applied\n%+v\nwant\n%+v", c.from, c.to, got.Systems, next.Systems)
		}
		if len(prev.Systems[0].Recent) > 0 && &got.Systems[0].Recent[0] == &prev.Systems[0].Recent[0] {
			t.Errorf("%d -> %d: the new window shares the base's memory", c.from, c.to)
		}
	}
	// Past a whole window, the windows go whole; applied, the same.
	prev, next := runFrames(300), runFrames(300+MaxFrames+1)
	d := DiffSummary(prev, next)
	if got, err := ApplySummary(prev, d); err != nil || d.SystemTails != nil || !reflect.DeepEqual(got.Systems, next.Systems) || !reflect.DeepEqual(got.Frames, next.Frames) {
		t.Errorf("past a whole window: tails %v, %v", d.SystemTails != nil, err)
	}
	prev, next = runFrames(50), runFrames(52)
	next.Systems[1].Reads = []string{"Position", "Energy"}
	if d := DiffSummary(prev, next); d.SystemTails != nil || len(d.Systems) != 2 {
		t.Errorf("a system whose reads changed: %d tails, %d whole", len(d.SystemTails), len(d.Systems))
	}
	d = DiffSummary(prev, runFrames(52))
	other := runFrames(50)
	other.Systems[0].Name = "walk"
	if _, err := ApplySummary(other, d); err == nil {
		t.Error("tails applied to other systems")
	}
	if _, err := ApplySummary(&Summary{Full: true, Systems: prev.Systems[:1]}, d); err == nil {
		t.Error("two tails applied to one system")
	}
}

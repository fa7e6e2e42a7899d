package ui

import (
	"math"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// brailleDots counts the cells of a screen drawn with braille dots.
func brailleDots(lines []string) int {
	n := 0
	for _, l := range lines {
		for _, r := range l {
			if r > 0x2800 && r <= 0x28ff {
				n++
			}
		}
	}
	return n
}

// TestChartPane: pins subscribe to series; samples draw a line over the
// ticks with a legend; two pins overlay; x unpins; a tick going back (a
// rewind) starts a pin's history again; a bad pin says why.
func TestChartPane(t *testing.T) {
	c, src, nav := fixture()
	p := sized(&chartPane{common: c}, 100, 20)
	mustContain(t, p.View(), "no pins", ":pin mean Energy.Value Herbivore")
	p.add("3v1 Energy.Value")
	s := src.subs[len(src.subs)-1]
	if s.What != protocol.SubSeries || s.Query != "3v1 Energy.Value" || s.ID != subSeriesFirst {
		t.Fatalf("pin subscribed %+v", s)
	}
	mustContain(t, p.View(), "1 3v1 Energy.Value", "no samples yet")
	for tick := uint64(100); tick < 160; tick++ {
		v := 50 + 40*math.Sin(float64(tick)/8)
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: tick, Value: &v, N: 1}})
	}
	one := p.View()
	mustContain(t, one, "now", "min 10", "max 90", "60 samples, ticks 100-159", "tick 100", "tick 159")
	if brailleDots(one) < 40 {
		t.Fatalf("a 60-sample line drew %d cells:\n%s", brailleDots(one), screenText(one))
	}
	p.add("count Herbivore")
	for tick := uint64(100); tick < 160; tick++ {
		v := float64(1000 + tick)
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst + 1, Tick: tick, Value: &v, N: 1}})
	}
	two := p.View()
	mustContain(t, two, "2 count Herbivore", "1159")
	if len(p.pins) != 2 || brailleDots(two) <= brailleDots(one)/2 {
		t.Fatalf("two pins: %d, %d cells", len(p.pins), brailleDots(two))
	}
	// A rewind: the first pin's next sample is at an earlier tick.
	v := 1.0
	p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: 120, Value: &v, N: 1}})
	if got := len(p.pins[0].samples); got != 1 {
		t.Fatalf("after the tick went back the pin holds %d samples, want a new history of 1", got)
	}
	// x removes the pin under the cursor (the first).
	pressPane(p, "x")
	if len(p.pins) != 1 || p.pins[0].expr != "count Herbivore" || len(src.unsubs) != 1 || src.unsubs[0] != subSeriesFirst {
		t.Fatalf("x left %v, unsubscribed %v", p.pins, src.unsubs)
	}
	p.add("median Energy.Value")
	if len(p.pins) != 1 || !strings.Contains(nav.flashes[len(nav.flashes)-1], "neither an entity nor one of count") {
		t.Fatalf("a bad pin: %d pins, flash %q", len(p.pins), nav.flashes[len(nav.flashes)-1])
	}
	// The agent refusing a pin shows on its legend line.
	p.Update(replyMsg{r: &protocol.Reply{ID: p.pins[0].sub, Code: protocol.ErrBadQuery, Message: "no component named Herbivore"}})
	mustContain(t, p.View(), "no component named Herbivore")
}

// TestDetailPinsAField: p on a numeric field of the detail pins it.
func TestDetailPinsAField(t *testing.T) {
	c, _, nav := fixture()
	p := sized(&detailPane{common: c}, 100, 20)
	e := protocol.MakeEntityID(3, 1)
	p.open(e)
	p.Update(detailMsg{&protocol.Detail{Sub: subDetail, Entity: e, Alive: true, Tick: 5,
		Components: []protocol.ComponentValue{{Component: "Energy", Value: protocol.MapValue(protocol.Field{Name: "Value", Value: protocol.FloatValue(12)})}}}})
	pressPane(p, "j", "p")
	if len(nav.pinned) != 1 || nav.pinned[0] != "3v1 Energy.Value" {
		t.Fatalf("p pinned %v", nav.pinned)
	}
}

// TestPinOnARecording: in a recording a pin's history is there at once,
// one sample a recorded frame up to the position, each what the recorded
// world held then.
func TestPinOnARecording(t *testing.T) {
	p, err := openPlayer(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	msg := p.subscribe(protocol.Subscribe{ID: subSeriesFirst, What: protocol.SubSeries, Query: "count Position"})()
	h, ok := msg.(seriesHistoryMsg)
	if !ok {
		t.Fatalf("a pin on a recording answered %#v", msg)
	}
	if len(h.samples) != min(len(p.rec.Frames), historyFrames+1) {
		t.Fatalf("%d samples for %d frames", len(h.samples), len(p.rec.Frames))
	}
	for i, s := range h.samples {
		if !s.ok || i > 0 && s.tick <= h.samples[i-1].tick {
			t.Fatalf("sample %d: %+v after %+v", i, s, h.samples[max(i-1, 0)])
		}
	}
	last := h.samples[len(h.samples)-1]
	if last.tick != p.state.Tick || int(last.v) != p.state.Entities() {
		t.Fatalf("the last sample %+v; the position holds tick %d, %d entities (every animal has a Position)", last, p.state.Tick, p.state.Entities())
	}
	bad := p.subscribe(protocol.Subscribe{ID: subSeriesFirst + 1, What: protocol.SubSeries, Query: "mean Nope.X"})()
	if r, ok := bad.(replyMsg); !ok || r.r.Code != protocol.ErrBadQuery {
		t.Fatalf("a pin on a missing component: %#v", bad)
	}
}

// TestChartKeepsHistoryThroughPauses: the same tick again (the game
// paused, a step, a watchpoint's stop) keeps the history, the newest
// sample standing for the tick; a pin whose entity dies ends with a mark
// in the legend, and the axis never shows NaN or Inf.
func TestChartKeepsHistoryThroughPauses(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&chartPane{common: c}, 100, 20)
	p.add("3v1 Energy.Value")
	for tick := uint64(100); tick < 140; tick++ {
		v := float64(tick)
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: tick, Value: &v, N: 1}})
	}
	for range 5 { // paused at 139: samples keep coming with the same tick
		v := 139.0
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: 139, Value: &v, N: 1}})
	}
	mustContain(t, p.View(), "40 samples, ticks 100-139")
	// The entity dies at 140: samples without a value (and a NaN).
	p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: 140}})
	nan := math.NaN()
	p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: 141, Value: &nan}})
	v := p.View()
	mustContain(t, v, "none since tick 140 (✕)", "42 samples")
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(screenText(v), bad) {
			t.Fatalf("the chart shows %s:\n%s", bad, screenText(v))
		}
	}
	// A pin that never had a value: no numbers on the axis.
	p.add("9v1 Energy.Value")
	p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst + 1, Tick: 141}})
	p.cursor = 1
	if v := screenText(p.View()); strings.Contains(v, "NaN") || strings.Contains(v, "Inf") {
		t.Fatalf("an empty pin's axis:\n%s", v)
	}
}

// TestChartScales: pins of the same field share a scale (a series flat at
// 0 is drawn at its place on it, on the zero line, not at mid-height), a
// count keeps its own, s splits them; a pin with one sample is drawn.
func TestChartScales(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&chartPane{common: c}, 60, 14)
	p.add("3v1 Energy.Value")
	p.add("4v1 Energy.Value")
	for tick := uint64(100); tick < 140; tick++ {
		hi, zero := float64(tick-100), 0.0 // one climbs from 0 to 39, the other stays at 0
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: tick, Value: &hi, N: 1}})
		p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst + 1, Tick: tick, Value: &zero, N: 1}})
	}
	lo0, hi0, _ := p.scaleOf(0)
	lo1, hi1, _ := p.scaleOf(1)
	if lo0 != lo1 || hi0 != hi1 || lo1 != 0 || hi1 != 39 {
		t.Fatalf("two pins of Energy.Value: scales %v-%v and %v-%v, want both 0-39", lo0, hi0, lo1, hi1)
	}
	p.split = true
	if lo, hi, _ := p.scaleOf(1); lo != -1 || hi != 1 {
		t.Fatalf("split, the flat pin's scale: %v-%v", lo, hi)
	}
	p.split = false
	p.add("count Herbivore")
	n := 5000.0
	p.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst + 2, Tick: 139, Value: &n, N: 1}})
	if lo, hi, _ := p.scaleOf(2); lo != 4999 || hi != 5001 {
		t.Fatalf("a count beside two fields: scale %v-%v, want its own", lo, hi)
	}
	if lo, _, _ := p.scaleOf(0); lo != 0 {
		t.Fatalf("the fields' scale moved with the count: from %v", lo)
	}
	// The count has one sample: drawn, a mark at the right.
	p.cursor = 2
	only := sized(&chartPane{common: c}, 60, 14)
	only.add("count Herbivore")
	only.Update(seriesMsg{&protocol.Series{Sub: subSeriesFirst, Tick: 139, Value: &n, N: 1}})
	if brailleDots(only.View()) < 2 {
		t.Fatalf("a pin of one sample draws nothing:\n%s", strings.Join(only.View(), "\n"))
	}
}

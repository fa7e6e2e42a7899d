package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestMapShowsWhereTheFilteredAreAndOpensOne: m in the Entities view
// draws the filter's entities by position; the title counts them; enter
// on a cell that holds some opens one of them; + halves the area around
// the cursor; a shows them all again; m goes back to the rows.
func TestMapShowsWhereTheFilteredAreAndOpensOne(t *testing.T) {
	h := newHarnessWith(t, 80, 24, "")
	h.keys("3")
	h.waitFor("matches")
	h.keys("m")
	v := h.waitFor(" entities, x ")
	if !strings.Contains(v, "Map of Position.X Position.Y") || !strings.ContainsAny(v, "⠁⠂⠄⡀⠈⠐⠠⢀⣿") {
		t.Fatalf("no map on screen:\n%s", v)
	}
	checkFits(t, v, 80, 24)
	s := &h.m.entities.mapView
	before := s.last.Box
	// The cursor onto a cell that holds entities, then enter.
	found := false
	for r := 0; r < s.plotRows() && !found; r++ {
		for c := 0; c < s.width && !found; c++ {
			if s.cellCount(s.last, c, r) > 0 {
				s.col, s.row, found = c, r, true
			}
		}
	}
	if !found {
		t.Fatalf("every cell is empty: %v", s.last.Counts)
	}
	h.keys("enter")
	h.waitFor("archetype") // the detail of the entity found there
	h.keys("esc")
	h.keys("+")
	h.until("the area halved", func() bool {
		b := s.last.Box
		return s.area != nil && b[2]-b[0] < 0.51*(before[2]-before[0]) && b[3]-b[1] < 0.51*(before[3]-before[1])
	})
	h.keys("a")
	h.until("the whole area again", func() bool { return s.area == nil && s.last.Box[2]-s.last.Box[0] > 0.9*(before[2]-before[0]) })
	// Another view: the grids stop (those on their way aside); back, they
	// come again.
	h.keys("1")
	h.summaries(5)
	away := s.last
	h.summaries(20)
	if s.last != away {
		t.Fatal("grids kept coming while another view was on screen")
	}
	h.keys("3")
	h.until("a grid on return", func() bool { return s.last != away })
	h.keys("m")
	h.waitFor("matches")
}

// summaries feeds messages to the model until n summaries have come.
func (h *harness) summaries(n int) {
	h.t.Helper()
	seen := 0
	deadline := time.After(15 * time.Second)
	for seen < n {
		select {
		case msg := <-h.msgs:
			if _, ok := msg.(summaryMsg); ok {
				seen++
			}
			h.update(msg)
		case <-deadline:
			h.t.Fatalf("%d of %d summaries in 15 s", seen, n)
		}
	}
}

// until feeds messages to the model until cond holds, for up to 15 s.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-deadline:
			h.t.Fatalf("%s never came; the screen:\n%s", what, h.m.View())
		}
	}
}

// TestMapInReview: the map draws a recording's entities at the frame
// shown, binned by the rule the agent uses, and enter opens one from the
// recorded state.
func TestMapInReview(t *testing.T) {
	m := reviewModel(t, testgame.Record(t))
	press(m, "3", "m")
	s := &m.entities.mapView
	if s.last == nil || s.last.Total != m.play.state.Entities() || !strings.Contains(m.View(), "Map of Position.X Position.Y") {
		t.Fatalf("the map of frame %d: %+v (the frame holds %d entities)\n%s", m.play.idx, s.last, m.play.state.Entities(), m.View())
	}
	want, err := m.play.state.Points(protocol.PointsSpec{X: "Position.X", Y: "Position.Y"}, nil, s.last.W, s.last.H, nil)
	if err != nil || !slices.Equal(want.Counts, s.last.Counts) {
		t.Fatalf("the map differs from the frame's points (%v)", err)
	}
	for r := 0; r < s.plotRows(); r++ {
		for c := 0; c < s.width; c++ {
			if s.cellCount(s.last, c, r) > 0 {
				s.col, s.row = c, r
			}
		}
	}
	press(m, "enter")
	if !strings.Contains(m.View(), "archetype") {
		t.Fatalf("enter on a full cell opened nothing:\n%s", m.View())
	}
}

// TestHeatMapOfAGridResource: m on the demo's Grid.Grass (a list of
// numbers beside Grid.Cells) draws it as a grid of shades, each cell the
// mean of the grid cells it covers; m on something else says why not; esc
// goes back to the resource.
func TestHeatMapOfAGridResource(t *testing.T) {
	h := newHarnessWith(t, 80, 24, "")
	h.keys("7")
	h.waitFor("Clock")
	for i := 0; i < 10 && !strings.HasPrefix(h.m.summary.Resources[h.m.panes[viewResources].(*resourcesPane).cursor].Name, "Grid"); i++ {
		h.keys("j")
	}
	h.keys("enter")
	h.waitFor("Grass")
	h.keys("m") // on Cells, a number
	h.waitFor("m draws a list of numbers as a heat map")
	h.keys("j", "j", "m") // on Grass
	v := h.waitFor("Grid.Grass: heat map, ")
	checkFits(t, v, 80, 24)
	shaded := 0
	for _, s := range heatShades[1:] {
		shaded += strings.Count(v, s)
	}
	if shaded < 100 {
		t.Fatalf("%d shaded cells:\n%s", shaded, v)
	}
	hm := h.m.panes[viewResources].(*resourcesPane).heat
	if hm.width*hm.width != len(hm.values) {
		t.Fatalf("a %d-wide grid of %d numbers: the demo's grass is square", hm.width, len(hm.values))
	}
	// Another view: the list is not asked for; back, at once.
	h.keys("1")
	h.summaries(3)
	at := hm.at
	h.summaries(25) // over two seconds of summaries at 10 Hz
	if hm.at != at {
		t.Fatal("the heat map asked for its list while another view was on screen")
	}
	h.keys("7")
	if hm.at == at {
		t.Fatal("back on the heat map, it did not ask at once")
	}
	h.keys("esc")
	h.waitFor("Grass")
}

// TestHeatShadesAreMeans: each terminal cell is the mean of the grid
// cells it covers, shaded from the least to the most, the grid's first
// row at the bottom.
func TestHeatShadesAreMeans(t *testing.T) {
	c := &common{styles: DefaultStyles()}
	hm := &heatmap{name: "G", path: "V", width: 4, values: []float64{
		0, 0, 4, 4, // row 0: drawn at the bottom
		0, 0, 4, 4,
		1, 1, 3, 3,
		1, 1, 3, 3,
	}}
	// 4 columns by 2 rows of the pane (the title and the last line
	// besides): each terminal cell one grid column of two grid rows, a
	// cell about twice as tall as wide.
	rows := hm.view(c, 4, 4)
	got := []string{rows[1], rows[2]}
	s1, s3 := heatShades[1], heatShades[3] // means 1 and 3 of 0 to 4
	want := []string{s1 + s1 + s3 + s3, "  " + heatShades[4] + heatShades[4]}
	if !slices.Equal(got, want) {
		t.Fatalf("shades %q, want %q", got, want)
	}
	// A grid smaller than the pane: each grid cell repeats, none read
	// past the grid (a 3x3 grid on a pane of 40 by 20).
	small := &heatmap{name: "G", path: "V", width: 3, values: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}}
	if rows := small.view(c, 40, 20); len(rows) < 5 || !strings.Contains(rows[len(rows)-2], heatShades[0]) {
		t.Fatalf("a small grid on a big pane: %q", rows)
	}
	if w := gridWidth(12, []protocol.ResourceItem{{Key: "Size", Kind: "float"}, {Key: "W", Kind: "int", Value: protocol.IntValue(3)}}); w != 3 {
		t.Fatalf("a 12-item list beside W=3 is %d wide", w)
	}
	if w := gridWidth(10, nil); w != 0 {
		t.Fatalf("10 items with nothing beside them are a grid %d wide", w)
	}
}

// TestTrendsScaleAsTheySay: a sparkline runs from zero to the greatest
// (all zero: the lowest block), a trendline from the least to the
// greatest (all alike: the middle); both pad to their width.
func TestTrendsScaleAsTheySay(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{sparkline([]int64{0, 4, 8}, 4), "▁▄█ "},
		{sparkline([]int64{0, 0}, 2), "▁▁"},
		{trendline([]int64{100, 104, 108}, 3), "▁▄█"},
		{trendline([]int64{7, 7}, 2), "▅▅"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

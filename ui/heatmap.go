package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The heat map (m on a list of numbers in the Resources view): a resource
// holding a grid of numbers (a tile map's heights, the demo's grass) drawn
// as shades at the pane's size, each terminal cell the mean of the grid
// cells it covers, the grid's first row at the bottom as the map draws
// y. The grid's width is a sibling whole number that divides the list's
// length (Grid.Cells beside Grid.Grass), else the square root of a square
// length. The list comes whole (GetResource with all, within the agent's
// bound on a whole value), again every second while shown.

// heatShades are the shades from the least to the most.
var heatShades = []string{" ", "░", "▒", "▓", "█"}

// heatEvery is how often the shown grid is asked for again.
const heatEvery = time.Second

type heatmap struct {
	name, path string // the list's place
	width      int    // grid cells a row
	values     []float64
	tick       uint64
	err        string
	asked      uint32
	at         time.Time
}

// gridWidth is the width of a grid of n numbers: a sibling whole number
// that divides n (the first), else the side of a square; 0: not a grid.
func gridWidth(n int, siblings []protocol.ResourceItem) int {
	for _, it := range siblings {
		if it.Kind != "int" && it.Kind != "uint" {
			continue
		}
		f, _ := it.Value.Number()
		if w := int(f); w > 1 && w < n && n%w == 0 {
			return w
		}
	}
	if side := int(math.Sqrt(float64(n))); side > 1 && side*side == n {
		return side
	}
	return 0
}

// ask requests the list whole.
func (h *heatmap) ask(c *common) tea.Cmd {
	h.at = time.Now()
	return c.src.request("heat map", func(id uint32) protocol.Message {
		h.asked = id
		return &protocol.GetResource{ID: id, Name: h.name, Path: h.path, All: true}
	})
}

// take keeps the list a page brings, or says why it is not a grid.
func (h *heatmap) take(p *protocol.ResourcePage) {
	v := p.Value
	if v.Kind() != protocol.KindList {
		h.err = fmt.Sprintf("%s is a %s, not a list of numbers", h.path, p.Kind)
		return
	}
	vals := make([]float64, v.Len())
	for i := range vals {
		x, ok := v.Index(i).Number()
		if !ok {
			h.err = fmt.Sprintf("item %d of %s is not a number", i, h.path)
			return
		}
		vals[i] = x
	}
	if len(vals)%h.width != 0 {
		h.err = fmt.Sprintf("%d numbers are not rows of %d", len(vals), h.width)
		return
	}
	h.values, h.tick, h.err = vals, p.Tick, ""
}

// view draws the grid in cols x rows terminal cells at most.
func (h *heatmap) view(c *common, cols, rows int) []string {
	title := fmt.Sprintf("%s.%s: heat map", h.name, h.path)
	switch {
	case h.err != "":
		return []string{c.styles.Title.Render(title), c.styles.Error.Render(h.err), c.styles.Faint.Render("esc goes back")}
	case h.values == nil:
		return []string{c.styles.Title.Render(title), c.styles.Faint.Render("waiting for the agent…")}
	}
	gw, gh := h.width, len(h.values)/h.width
	lo, hi := h.values[0], h.values[0]
	for _, v := range h.values {
		lo, hi = min(lo, v), max(hi, v)
	}
	width := cols
	// The whole pane, the grid's cells square on screen (a terminal cell
	// is about twice as tall as wide): a small grid's cells repeat.
	rows = max(rows-2, 1)
	cols = max(min(cols, 2*rows*gw/gh), 1)
	rows = max(min(rows, cols*gh/(2*gw)), 1)
	out := []string{c.styles.Title.Render(fit(fmt.Sprintf("%s, %dx%d at tick %d, %s to %s (%s)", title, gw, gh, h.tick, g4(lo), g4(hi), strings.Join(heatShades[1:], "")), width))}
	for r := range rows {
		var b strings.Builder
		// The grid rows [t0, t1) counted from the top, which holds the
		// grid's last row (its first is at the bottom); at least one, so
		// a grid smaller than the pane repeats its cells.
		t0, t1 := span(r, rows, gh)
		for col := range cols {
			x0, x1 := span(col, cols, gw)
			sum, n := 0.0, 0
			for t := t0; t < t1; t++ {
				y := gh - 1 - t
				for x := x0; x < x1; x++ {
					sum, n = sum+h.values[y*gw+x], n+1
				}
			}
			shade := 0
			if hi > lo {
				shade = min(int((sum/float64(n)-lo)/(hi-lo)*float64(len(heatShades))), len(heatShades)-1)
			}
			b.WriteString(heatShades[shade])
		}
		out = append(out, b.String())
	}
	return append(out, c.styles.Faint.Render(fit("each cell the mean of the grid cells it covers · esc back", width)))
}

// span is the grid cells [lo, hi) that screen cell i of n covers, of a
// grid m cells long: at least one, within the grid.
func span(i, n, m int) (lo, hi int) {
	lo = min(i*m/n, m-1)
	return lo, min(max((i+1)*m/n, lo+1), m)
}

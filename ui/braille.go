package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// canvas is a grid of terminal cells drawn with braille dots: each cell
// holds 2x4 dots, so a 60x12 cell chart has 120x48 points. Each cell takes
// the colour of the last series that set a dot in it.
type canvas struct {
	w, h  int // in cells
	dots  []uint8
	color []int // series index + 1 per cell; 0: none
}

func newCanvas(w, h int) *canvas {
	return &canvas{w: w, h: h, dots: make([]uint8, w*h), color: make([]int, w*h)}
}

// brailleBit is the bit of the dot at (column 0-1, row 0-3) of a cell.
var brailleBit = [4][2]uint8{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}

// set lights the dot at (x, y), in dots from the top left, for series s.
func (c *canvas) set(x, y, s int) {
	if x < 0 || y < 0 || x >= 2*c.w || y >= 4*c.h {
		return
	}
	i := (y/4)*c.w + x/2
	c.dots[i] |= brailleBit[y%4][x%2]
	c.color[i] = s + 1
}

// line draws from (x0, y0) to (x1, y1) (Bresenham).
func (c *canvas) line(x0, y0, x1, y1, s int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		c.set(x0, y0, s)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

// rows renders the canvas, each series in its style.
func (c *canvas) rows(styles []lipgloss.Style) []string {
	out := make([]string, c.h)
	for r := range c.h {
		var b strings.Builder
		for col := range c.w {
			i := r*c.w + col
			if c.dots[i] == 0 {
				b.WriteByte(' ')
				continue
			}
			ch := string(rune(0x2800 + int(c.dots[i])))
			if s := c.color[i] - 1; s >= 0 && s < len(styles) {
				ch = styles[s].Render(ch)
			}
			b.WriteString(ch)
		}
		out[r] = b.String()
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

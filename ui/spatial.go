package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The spatial map (m in the Entities view): where the entities the
// filter selects are, by two numeric fields (a position's X and Y unless
// asked otherwise), as a braille density plot at the pane's size. Each
// terminal cell is 2x4 dots, a dot lit where any entity is; a cell's
// colour says how many are in it. The agent bins (a points subscription:
// its bytes are the grid's, whatever the entities), so a million entities
// cost what a page of them does. The cursor is a cell: arrows move it,
// enter opens an entity in it, + and - zoom around it, c centres on it, a
// shows every entity again; the entity last opened and the last
// watchpoint hit's are marked, f keeps the first in the middle.

type pointsMsg struct{ p *protocol.Points }

type spatial struct {
	*common
	box
	on     bool
	fields string    // the two fields, "Position.X Position.Y" by default
	area   []float64 // the area shown; nil: every entity's bounds
	follow bool      // keep the marked entity in the middle
	col    int       // the cursor's cell
	row    int
	last   *protocol.Points
	err    string
	marks  []protocol.EntityID // the entity last opened, the last hit's
	opened protocol.EntityID
	hit    protocol.EntityID
	asked  uint32        // the query for an entity under the cursor
	query  func() string // the filter the Entities view shows
}

// plotRows is the rows the plot takes: the pane less its title and the
// cursor's line.
func (s *spatial) plotRows() int { return max(s.height-2, 1) }

// subscribe asks for the grid at the pane's size.
func (s *spatial) subscribe() tea.Cmd {
	if !s.on || s.common == nil {
		return nil
	}
	if s.fields == "" {
		s.fields = protocol.DefaultPoints
		if s.summary != nil {
			s.fields = protocol.PointsFor(s.summary.Components)
		}
	}
	w, h := max(s.width, 1)*2, s.plotRows()*4
	for w*h > protocol.MaxPointsCells {
		h--
	}
	return s.src.subscribe(protocol.Subscribe{ID: subPoints, What: protocol.SubPoints, Hz: 5,
		Query: strings.TrimSpace(s.fields + " " + s.query()), Box: s.area, Dots: []int{w, h}, Marks: s.marks})
}

// toggle shows or hides the map.
func (s *spatial) toggle() tea.Cmd {
	s.on, s.last, s.err = !s.on, nil, ""
	if !s.on {
		return s.src.unsubscribe(subPoints)
	}
	s.col, s.row = s.width/2, s.plotRows()/2
	return s.subscribe()
}

// mark sets the entities marked on the map: the one last opened, the last
// hit's.
func (s *spatial) mark(opened, hit protocol.EntityID) tea.Cmd {
	s.opened, s.hit = opened, hit
	var marks []protocol.EntityID
	for _, e := range []protocol.EntityID{opened, hit} {
		if e != 0 {
			marks = append(marks, e)
		}
	}
	if slices.Equal(marks, s.marks) {
		return nil
	}
	s.marks = marks
	return s.subscribe()
}

// Update takes the grids and a refusal.
func (s *spatial) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pointsMsg:
		if msg.p.Sub != subPoints || !s.on {
			return nil
		}
		s.last, s.err = msg.p, ""
		if s.follow && len(msg.p.Marks) > 0 && s.area != nil {
			m := msg.p.Marks[0]
			w, h := s.area[2]-s.area[0], s.area[3]-s.area[1]
			if m.X < s.area[0]+w/3 || m.X > s.area[2]-w/3 || m.Y < s.area[1]+h/3 || m.Y > s.area[3]-h/3 {
				s.area = []float64{m.X - w/2, m.Y - h/2, m.X + w/2, m.Y + h/2}
				return s.subscribe()
			}
		}
	case replyMsg:
		if !msg.r.OK && msg.r.ID == subPoints {
			s.err, s.last = msg.r.Message, nil
		}
	}
	return nil
}

// cellArea is the area of the cursor's cell (2x4 grid cells).
func (s *spatial) cellArea() []float64 {
	a := s.last.CellBox(s.col*2, s.row*4)
	b := s.last.CellBox(s.col*2+1, s.row*4+3)
	return []float64{a[0], b[1], b[2], a[3]}
}

// key moves the cursor, zooms, pans and opens.
func (s *spatial) key(msg tea.KeyMsg) tea.Cmd {
	k := s.keys
	switch {
	case key.Matches(msg, k.Up):
		s.row = max(s.row-1, 0)
	case key.Matches(msg, k.Down):
		s.row = min(s.row+1, s.plotRows()-1)
	case key.Matches(msg, k.Left):
		s.col = max(s.col-1, 0)
	case key.Matches(msg, k.Right):
		s.col = min(s.col+1, s.width-1)
	case msg.String() == "+" || msg.String() == "=":
		return s.zoom(0.5)
	case msg.String() == "-":
		return s.zoom(2)
	case msg.String() == "c":
		return s.zoom(1)
	case msg.String() == "a":
		s.area, s.follow = nil, false
		return s.subscribe()
	case msg.String() == "f":
		s.follow = !s.follow && len(s.marks) > 0
		if s.follow && s.last != nil && len(s.last.Marks) > 0 {
			m := s.last.Marks[0]
			b := s.last.Box
			w, h := b[2]-b[0], b[3]-b[1]
			s.area = []float64{m.X - w/2, m.Y - h/2, m.X + w/2, m.Y + h/2}
			return s.subscribe()
		}
	case key.Matches(msg, k.Enter):
		return s.openUnderCursor()
	}
	return nil
}

// zoom scales the area shown by f around the cursor's cell, which moves
// to the middle.
func (s *spatial) zoom(f float64) tea.Cmd {
	if s.last == nil {
		return nil
	}
	c := s.cellArea()
	cx, cy := (c[0]+c[2])/2, (c[1]+c[3])/2
	b := s.last.Box
	w, h := (b[2]-b[0])*f/2, (b[3]-b[1])*f/2
	if w <= 0 || h <= 0 || protocol.CheckBox([]float64{cx - w, cy - h, cx + w, cy + h}) != nil {
		return nil
	}
	s.area = []float64{cx - w, cy - h, cx + w, cy + h}
	s.col, s.row = s.width/2, s.plotRows()/2
	return s.subscribe()
}

// openUnderCursor asks for an entity in the cursor's cell and opens it.
func (s *spatial) openUnderCursor() tea.Cmd {
	if s.last == nil {
		return nil
	}
	c := s.cellArea()
	fx, fy, _ := strings.Cut(s.fields, " ")
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	expr := strings.TrimSpace(fmt.Sprintf("%s>=%s %s<=%s %s>=%s %s<=%s %s", fx, num(c[0]), fx, num(c[2]), fy, num(c[1]), fy, num(c[3]), s.query()))
	return s.src.request("open from the map", func(id uint32) protocol.Message {
		s.asked = id
		return &protocol.Query{ID: id, Expr: expr, Limit: 1}
	})
}

// View draws the title, the plot and the cursor's line.
func (s *spatial) View() []string {
	title := fmt.Sprintf("Map of %s %s", s.fields, s.query())
	if s.err != "" {
		return append([]string{s.styles.Title.Render(s.cut(title))}, s.box.wrapIn(s.styles.Error, s.err)...)
	}
	if s.last == nil {
		return []string{s.styles.Title.Render(s.cut(title)), s.styles.Faint.Render(s.cut("waiting for the agent's grid…"))}
	}
	p := s.last
	follow := ""
	if s.follow {
		follow = ", following the marked entity"
	}
	title += fmt.Sprintf(" — %d entities, x %s..%s, y %s..%s%s", p.Total, g4(p.Box[0]), g4(p.Box[2]), g4(p.Box[1]), g4(p.Box[3]), follow)
	rows := s.plot(p)
	c := s.cellArea()
	n := s.cellCount(p, s.col, s.row)
	line := fmt.Sprintf("cursor x %s..%s, y %s..%s: %d here   enter open · +/- zoom · c centre · a all · f follow · m table", g4(c[0]), g4(c[2]), g4(c[1]), g4(c[3]), n)
	return append(append([]string{s.styles.Title.Render(s.cut(title))}, rows...), s.styles.Faint.Render(s.cut(line)))
}

// cut fits a line of the map's to the pane's width: the title and the
// cursor's line are one row each, whatever the terminal.
func (s *spatial) cut(line string) string { return ansi.Truncate(line, s.width, "…") }

// cellCount is the entities in a terminal cell: its 2x4 grid cells.
func (s *spatial) cellCount(p *protocol.Points, col, row int) uint32 {
	var n uint32
	for dy := range 4 {
		for dx := range 2 {
			x, y := col*2+dx, row*4+dy
			if x < p.W && y < p.H {
				n += p.Counts[y*p.W+x]
			}
		}
	}
	return n
}

// plot draws the grid as braille, a cell's colour by its count, the
// marks and the cursor over it.
func (s *spatial) plot(p *protocol.Points) []string {
	cols, rows := min(s.width, (p.W+1)/2), min(s.plotRows(), (p.H+3)/4)
	marked := map[[2]int]bool{}
	for _, m := range p.Marks {
		if m.X >= p.Box[0] && m.X <= p.Box[2] && m.Y >= p.Box[1] && m.Y <= p.Box[3] {
			col := min(int((m.X-p.Box[0])/(p.Box[2]-p.Box[0])*float64(p.W)), p.W-1) / 2
			row := (p.H - 1 - min(int((m.Y-p.Box[1])/(p.Box[3]-p.Box[1])*float64(p.H)), p.H-1)) / 4
			marked[[2]int{col, row}] = true
		}
	}
	levels := []lipgloss.Style{s.styles.Faint, lipgloss.NewStyle(), s.styles.Title}
	out := make([]string, rows)
	for r := range rows {
		var b strings.Builder
		for c := range cols {
			var bits uint8
			for dy := range 4 {
				for dx := range 2 {
					x, y := c*2+dx, r*4+dy
					if x < p.W && y < p.H && p.Counts[y*p.W+x] > 0 {
						bits |= brailleBit[dy][dx]
					}
				}
			}
			ch := " "
			if bits != 0 {
				ch = string(rune(0x2800 + int(bits)))
			}
			n := s.cellCount(p, c, r)
			style := levels[0]
			switch {
			case n >= 16:
				style = levels[2]
			case n >= 4:
				style = levels[1]
			}
			if marked[[2]int{c, r}] {
				ch, style = "◆", s.styles.Error
			}
			if c == s.col && r == s.row {
				style = style.Reverse(true)
				if ch == " " {
					ch = "·"
				}
			}
			b.WriteString(style.Render(ch))
		}
		out[r] = b.String()
	}
	return out
}

// g4 prints a coordinate to 4 significant digits.
func g4(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The chart pane: pinned numbers over time (a field of one entity, or an
// aggregate of a field over a query), overlaid, with a legend. Live, each
// pin is a series subscription and its history starts when it is pinned;
// in a recording, the player computes each pin's past from the frames.

const (
	// subSeriesFirst is the first pin's subscription id.
	subSeriesFirst uint32 = 2000
	// maxPins is how many pins a chart overlays.
	maxPins = 6
	// maxSamples is how many samples a pin keeps, oldest dropped first.
	maxSamples = 2400
)

type (
	// seriesMsg is one live sample.
	seriesMsg struct{ s *protocol.Series }
	// seriesHistoryMsg is a pin's whole history, from a recording.
	seriesHistoryMsg struct {
		sub     uint32
		samples []sample
	}
)

// sample is one point of a pin's history; ok is false where there was no
// value (the entity dead, nothing matched).
type sample struct {
	tick uint64
	v    float64
	ok   bool
}

// pin is one pinned series.
type pin struct {
	expr    string
	sub     uint32
	samples []sample // oldest first
	err     string
}

// pinColors are the series' colours, in pin order.
var pinColors = []lipgloss.Color{"12", "10", "11", "13", "14", "9"}

type chartPane struct {
	*common
	box
	// split draws each pin on its own scale (s toggles it); by default
	// pins whose values are alike (the same field, or counts) share one,
	// so they read together.
	split bool
	list
	pins []*pin
	next uint32
}

func (p *chartPane) Title() string { return "Chart" }

func (p *chartPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Palette, k.Unpin, k.SplitScales, k.Up, k.Down, k.Views, k.Help, k.Quit}
}

// add pins a series expression and subscribes to it.
func (p *chartPane) add(expr string) tea.Cmd {
	spec, err := protocol.ParseSeries(expr)
	if err != nil {
		p.nav.flash("pin: "+err.Error(), true)
		return nil
	}
	if len(p.pins) >= maxPins {
		p.nav.flash(fmt.Sprintf("pin: the chart overlays %d pins at most: x removes one (9)", maxPins), true)
		return nil
	}
	pn := &pin{expr: spec.String(), sub: subSeriesFirst + p.next}
	p.next++
	p.pins = append(p.pins, pn)
	p.nav.flash("pinned "+pn.expr+" (9: the chart)", false)
	return p.src.subscribe(protocol.Subscribe{ID: pn.sub, What: protocol.SubSeries, Query: pn.expr, Hz: 30})
}

// remove unpins pin i.
func (p *chartPane) remove(i int) tea.Cmd {
	if i < 0 || i >= len(p.pins) {
		return nil
	}
	pn := p.pins[i]
	p.pins = append(p.pins[:i], p.pins[i+1:]...)
	p.nav.flash("unpinned "+pn.expr, false)
	return p.src.unsubscribe(pn.sub)
}

func (p *chartPane) pinOf(sub uint32) *pin {
	for _, pn := range p.pins {
		if pn.sub == sub {
			return pn
		}
	}
	return nil
}

func (p *chartPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case seriesMsg:
		if pn := p.pinOf(msg.s.Sub); pn != nil {
			s := sample{tick: msg.s.Tick, ok: msg.s.Value != nil && !math.IsNaN(*msg.s.Value) && !math.IsInf(*msg.s.Value, 0)}
			if s.ok {
				s.v = *msg.s.Value
			}
			switch n := len(pn.samples); {
			case n > 0 && pn.samples[n-1].tick == s.tick:
				// The same tick again: the game is paused, or stepped no
				// further. The history stays; the newest sample says it.
				pn.samples[n-1] = s
				pn.err = ""
				return nil
			case n > 0 && pn.samples[n-1].tick > s.tick:
				pn.samples = pn.samples[:0] // the game went back (a rewind): a new history
			}
			pn.samples = append(pn.samples, s)
			if len(pn.samples) > maxSamples {
				pn.samples = append(pn.samples[:0], pn.samples[len(pn.samples)-maxSamples:]...)
			}
			pn.err = ""
		}
	case seriesHistoryMsg:
		if pn := p.pinOf(msg.sub); pn != nil {
			pn.samples, pn.err = msg.samples, ""
		}
	case replyMsg:
		if pn := p.pinOf(msg.r.ID); pn != nil && !msg.r.OK {
			pn.err = msg.r.Message
		}
	case tea.KeyMsg:
		if key.Matches(msg, p.keys.Unpin) {
			return p.remove(p.cursor)
		}
		if key.Matches(msg, p.keys.SplitScales) {
			p.split = !p.split
			return nil
		}
		p.move(p.keys, msg, len(p.pins), len(p.pins))
	}
	return nil
}

func (p *chartPane) View() []string {
	if len(p.pins) == 0 {
		return p.box.wrap(
			p.styles.Title.Render("no pins"),
			"",
			"Pin a number to follow it over time:",
			"  p on a field of an entity's detail",
			"  :pin 42v3 Energy.Value",
			"  :pin count Herbivore",
			"  :pin mean Energy.Value Herbivore    (min, mean, max, sum)",
			"",
			"Live, a pin's history starts when it is pinned; in a recording, it is the frames before the position.",
		)
	}
	legend := p.legend()
	chartH := max(p.height-len(legend)-1, 2)
	labelW := 10
	plotW := max(p.width-labelW-1, 8)
	from, to, any := p.ticks()
	out := legend
	if !any {
		return append(out, "", "waiting for samples…")
	}
	// Pins whose values are alike share a scale (the same field, or
	// counts); others, or all when split, each fill the height. The axis
	// is the selected pin's scale, its zero drawn when in range.
	cv := newCanvas(plotW, chartH)
	xOf := func(t uint64) int {
		if to == from {
			return 2*plotW - 1
		}
		return int(float64(t-from) / float64(to-from) * float64(2*plotW-1))
	}
	yOf := func(v, lo, hi float64) int { return int(math.Round((hi - v) / (hi - lo) * float64(4*chartH-1))) }
	if lo, hi, ok := p.scaleOf(p.cursor); ok && lo < 0 && hi > 0 {
		y := yOf(0, lo, hi)
		for x := 0; x < 2*plotW; x += 2 {
			cv.set(x, y, len(p.pins)) // the zero line, in the axis's faint style
		}
	}
	for i, pn := range p.pins {
		lo, hi, ok := p.scaleOf(i)
		if !ok {
			continue
		}
		prevX, prevY, have, drawn := 0, 0, false, 0
		for _, s := range pn.samples {
			if !s.ok {
				have = false
				continue
			}
			x, y := xOf(s.tick), yOf(s.v, lo, hi)
			if have {
				cv.line(prevX, prevY, x, y, i)
			} else {
				cv.set(x, y, i)
			}
			prevX, prevY, have = x, y, true
			drawn++
		}
		if drawn == 1 { // one sample: a short mark, not a dot lost at the edge
			cv.line(max(prevX-3, 0), prevY, prevX, prevY, i)
		}
	}
	styles := make([]lipgloss.Style, len(pinColors)+1)
	for i := range len(p.pins) {
		styles[i] = lipgloss.NewStyle().Foreground(pinColors[i%len(pinColors)])
	}
	styles[len(p.pins)] = p.styles.Faint
	lo, hi, scaled := p.scaleOf(p.cursor)
	axisStyle := styles[p.cursor%len(styles)]
	for r, row := range cv.rows(styles) {
		label := ""
		switch {
		case !scaled: // the selected pin has no value to scale by
		case r == 0:
			label = shortNumber(hi)
		case r == chartH-1:
			label = shortNumber(lo)
		case r == (chartH-1)/2:
			label = shortNumber((hi + lo) / 2)
		}
		out = append(out, axisStyle.Render(fmt.Sprintf("%*s", labelW, label))+"│"+row)
	}
	axis := fmt.Sprintf("tick %d", from)
	end := fmt.Sprintf("tick %d", to)
	pad := max(plotW-len(axis)-len(end), 1)
	out = append(out, strings.Repeat(" ", labelW)+"└"+axis+strings.Repeat("─", pad)+end)
	return out
}

// ended reports the tick from which the pin has had no value after having
// one (its entity died, or lost the field): where its line ends.
func (pn *pin) ended() (uint64, bool) {
	i := len(pn.samples)
	for i > 0 && !pn.samples[i-1].ok {
		i--
	}
	if i == len(pn.samples) || i == 0 {
		return 0, false // a value now, or never one
	}
	return pn.samples[i].tick, true
}

// valueRange is the range of the pin's samples.
func (pn *pin) valueRange() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range pn.samples {
		if s.ok {
			lo, hi, ok = min(lo, s.v), max(hi, s.v), true
		}
	}
	return lo, hi, ok
}

// scaleOf is the range pin i is drawn over: its values', or, unless the
// scales are split, those of every pin alike to it; widened when flat.
func (p *chartPane) scaleOf(i int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for j, pn := range p.pins {
		if j != i && (p.split || pn.unit() != p.pins[i].unit()) {
			continue
		}
		if l, h, has := pn.valueRange(); has {
			lo, hi, ok = min(lo, l), max(hi, h), true
		}
	}
	if ok && lo == hi {
		lo, hi = lo-1, hi+1
	}
	return lo, hi, ok
}

// unit is what a pin's values are, for sharing a scale: a count, or the
// field they are of ("Energy.Value" for one entity's, a mean, a max...).
func (pn *pin) unit() string {
	spec, err := protocol.ParseSeries(pn.expr)
	switch {
	case err != nil:
		return pn.expr
	case spec.Field == "":
		return "count"
	case spec.Aggregate == "sum":
		return "sum " + spec.Field // a sum is of another size than its field
	}
	return spec.Field
}

// ticks is the tick range of every pin's samples.
func (p *chartPane) ticks() (from, to uint64, any bool) {
	from = math.MaxUint64
	for _, pn := range p.pins {
		for _, s := range pn.samples {
			from, to = min(from, s.tick), max(to, s.tick)
			any = any || s.ok
		}
	}
	return from, to, any
}

// legend is a line per pin: its colour, expression, last value and range.
func (p *chartPane) legend() []string {
	var out []string
	p.clamp(len(p.pins))
	for i, pn := range p.pins {
		mark := "  "
		if i == p.cursor {
			mark = "▸ "
		}
		swatch := lipgloss.NewStyle().Foreground(pinColors[i%len(pinColors)]).Render("━━")
		line := fmt.Sprintf("%s%s %d %s", mark, swatch, i+1, pn.expr)
		switch {
		case pn.err != "":
			line += "  " + p.styles.Error.Render(pn.err)
		case len(pn.samples) == 0:
			line += "  (no samples yet)"
		default:
			last := pn.samples[len(pn.samples)-1]
			now := "none"
			if last.ok {
				now = shortNumber(last.v)
			} else if end, ok := pn.ended(); ok {
				now = fmt.Sprintf("none since tick %d (✕)", end)
			}
			line += fmt.Sprintf("  now %s", now)
			if lo, hi, ok := pn.valueRange(); ok {
				line += fmt.Sprintf("  min %s  max %s", shortNumber(lo), shortNumber(hi))
			}
			line += fmt.Sprintf("  (%d samples, ticks %d-%d)", len(pn.samples), pn.samples[0].tick, last.tick)
		}
		out = append(out, fit(line, p.width))
	}
	return out
}

// shortNumber prints a value in at most about nine characters.
func shortNumber(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1e6 || a < 1e-3:
		return fmt.Sprintf("%.3g", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

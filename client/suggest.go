package client

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Suggestion is a narrower watchpoint the hits of a broad one point to.
type Suggestion struct {
	Expr string // the watchpoint to set, "Energy.Value<-20"
	Why  string // in words: whose hits it keeps and whose it leaves out
}

// Suggest reads a value watchpoint's hit groups, when it is one field test
// against a number ("Energy.Value<0"): if one writer's values lie beyond
// every other writer's, on the side the test looks, it suggests the same
// test at a round number between them, which only that writer's hits
// reach. It suggests nothing otherwise: a watch that fires on what the
// other writers do in normal play is no lead.
func Suggest(w protocol.Watchpoint) (Suggestion, bool) {
	if w.Kind != "value" {
		return Suggestion{}, false
	}
	ex, err := query.ParseQuery(w.Expr)
	if err != nil || len(ex.Terms) != 1 || ex.Terms[0].Kind != query.TermField {
		return Suggestion{}, false
	}
	t := ex.Terms[0]
	below := strings.HasPrefix(t.Op, "<")
	if !below && !strings.HasPrefix(t.Op, ">") {
		return Suggestion{}, false
	}
	var odd *protocol.HitGroup
	for i := range w.Groups {
		g := &w.Groups[i]
		if !g.Numeric || g.By == "others" {
			return Suggestion{}, false
		}
		if odd == nil || below && g.Min < odd.Min || !below && g.Max > odd.Max {
			odd = g
		}
	}
	if odd == nil || len(w.Groups) < 2 {
		return Suggestion{}, false
	}
	// The others' values nearest the odd one's.
	edge, rest := math.Inf(1), uint64(0)
	if !below {
		edge = math.Inf(-1)
	}
	var others []string
	for _, g := range w.Groups {
		if g.By == odd.By && g.Component == odd.Component {
			continue
		}
		rest += g.Hits
		others = append(others, fmt.Sprintf("%s %d", g.By, g.Hits))
		if below {
			edge = min(edge, g.Min)
		} else {
			edge = max(edge, g.Max)
		}
	}
	near := odd.Max // the odd group's values nearest the others'
	if !below {
		near = odd.Min
	}
	if below && near >= edge || !below && near <= edge {
		return Suggestion{}, false // they overlap: no test tells them apart
	}
	cut := roundBetween(near, edge)
	op := "<"
	if !below {
		op = ">"
	}
	expr := fmt.Sprintf("%s.%s%s%s", t.Component, t.Path, op, strconv.FormatFloat(cut, 'g', -1, 64))
	side := "above"
	if !below {
		side = "below"
	}
	why := fmt.Sprintf("only %s's hits (%d) reach %s; the other %d (%s) stay %s %s",
		odd.By, odd.Hits, strconv.FormatFloat(cut, 'g', -1, 64), rest, strings.Join(others, ", "), side, strconv.FormatFloat(edge, 'g', 3, 64))
	return Suggestion{Expr: expr, Why: why}, true
}

// roundBetween is the roundest number strictly between a and b: the
// fewest significant digits that land between them.
func roundBetween(a, b float64) float64 {
	lo, hi := min(a, b), max(a, b)
	mid := lo + (hi-lo)/2
	for digits := 1; digits <= 15; digits++ {
		v, err := strconv.ParseFloat(strconv.FormatFloat(mid, 'g', digits, 64), 64)
		if err == nil && v > lo && v < hi {
			return v
		}
	}
	return mid
}

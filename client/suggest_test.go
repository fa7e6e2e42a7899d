package client

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// A broad watch's hits: one writer far below the others gives a narrower
// watch only it reaches; overlapping writers, a single writer, or a test
// that is not one field against a number give none.
func TestSuggest(t *testing.T) {
	group := func(by string, n uint64, lo, hi float64) protocol.HitGroup {
		return protocol.HitGroup{By: by, Component: "Energy", Hits: n, Min: lo, Max: hi, Numeric: true}
	}
	w := protocol.Watchpoint{Kind: "value", Expr: "Energy.Value<0", Groups: []protocol.HitGroup{
		group("hunger", 1800, -0.04, -0.0001), group("grazing", 8, -40, -40)}}
	s, ok := Suggest(w)
	if !ok || s.Expr != "Energy.Value<-20" {
		t.Fatalf("suggested %+v, %v; want Energy.Value<-20", s, ok)
	}
	if want := "only grazing's hits (8) reach -20; the other 1800 (hunger 1800) stay above -0.04"; s.Why != want {
		t.Fatalf("why: %q\nwant %q", s.Why, want)
	}
	w.Expr, w.Groups = "Energy.Value>100", []protocol.HitGroup{group("grazing", 40, 100.5, 130), group("spawner", 2, 900, 1000)}
	if s, ok := Suggest(w); !ok || s.Expr != "Energy.Value>500" {
		t.Fatalf("above: %+v, %v", s, ok)
	}
	for name, w := range map[string]protocol.Watchpoint{
		"overlap":     {Kind: "value", Expr: "Energy.Value<0", Groups: []protocol.HitGroup{group("hunger", 10, -5, -0.1), group("grazing", 8, -40, -1)}},
		"one writer":  {Kind: "value", Expr: "Energy.Value<0", Groups: []protocol.HitGroup{group("grazing", 8, -40, -40)}},
		"two tests":   {Kind: "value", Expr: "Energy.Value<0 Position.X>1", Groups: w.Groups},
		"not a value": {Kind: "despawn", Expr: "despawn"},
	} {
		if s, ok := Suggest(w); ok {
			t.Errorf("%s: suggested %+v", name, s)
		}
	}
}

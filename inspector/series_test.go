package inspector

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// sample subscribes to a series and returns its first sample.
func (c *testClient) sample(expr string) *protocol.Series {
	c.t.Helper()
	r := c.reply(&protocol.Subscribe{What: protocol.SubSeries, Query: expr, Hz: 60})
	if !r.OK {
		c.t.Fatalf("subscribe %q: %s %s", expr, r.Code, r.Message)
	}
	return c.await(func(m protocol.Message) bool {
		s, ok := m.(*protocol.Series)
		return ok && s.Sub == r.ID
	}).(*protocol.Series)
}

// TestSeries: a field of one entity follows the game; aggregates fold a
// field over a query's matches; a dead entity gives no sample; bad
// expressions get the documented codes.
func TestSeries(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	// The harness's Health.HP are 0..19; ents[0] moves along X.
	for _, tc := range []struct {
		expr string
		want float64
		n    int
	}{
		{"count Health", 20, 20},
		{"count Health Health.HP>=15", 5, 5},
		{"sum Health.HP", 190, 20},
		{"mean Health.HP", 9.5, 20},
		{"min Health.HP Health.HP>5", 6, 14},
		{"max Health.HP", 19, 20},
		{wire(g.ents[7]).String() + " Health.HP", 7, 1},
	} {
		s := c.sample(tc.expr)
		if s.Value == nil || *s.Value != tc.want || s.N != tc.n {
			t.Errorf("%s: %+v, want %v over %d", tc.expr, s, tc.want, tc.n)
		}
	}
	first := c.sample(wire(g.ents[0]).String() + " Position.X")
	var later *protocol.Series
	for later == nil || later.Tick < first.Tick+3 {
		later = c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Series); return ok && s.Sub == c.id }).(*protocol.Series)
	}
	if first.Value == nil || later.Value == nil || *later.Value <= *first.Value {
		t.Errorf("Position.X of a mover over ticks %d to %d: %v to %v", first.Tick, later.Tick, first.Value, later.Value)
	}
	if r := c.reply(&protocol.Despawn{Entity: wire(g.ents[9])}); !r.OK {
		t.Fatal(r.Message)
	}
	if s := c.sample(wire(g.ents[9]).String() + " Health.HP"); s.Value != nil || s.N != 0 {
		t.Errorf("a dead entity's field: %+v", s)
	}
	if s := c.sample("mean Health.HP Health.HP>1000"); s.Value != nil || s.N != 0 {
		t.Errorf("a mean over nothing: %+v", s)
	}
	for expr, code := range map[string]string{
		"median Health.HP":     protocol.ErrBadValue,
		"mean Health.Nope":     protocol.ErrBadQuery,
		"count Nothing":        protocol.ErrBadQuery,
		"42v3 Health":          protocol.ErrBadValue,
		"mean Health.HP HP>>3": protocol.ErrBadQuery,
	} {
		if r := c.reply(&protocol.Subscribe{What: protocol.SubSeries, Query: expr}); r.OK || r.Code != code {
			t.Errorf("%q: %s %s, want %s", expr, r.Code, r.Message, code)
		}
	}
}

package client_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestHoldingMatch: an instance holds a match when its total is one or
// more; none, and failures (no total), do not count.
func TestHoldingMatch(t *testing.T) {
	for _, c := range []struct {
		totals []int
		want   int
	}{{nil, 0}, {[]int{0, 0}, 0}, {[]int{1}, 1}, {[]int{0, 1, 2, 40}, 3}} {
		if got := client.HoldingMatch(c.totals); got != c.want {
			t.Errorf("HoldingMatch(%v) = %d, want %d", c.totals, got, c.want)
		}
	}
}

// TestAFleetUsesOneConnection: a client's fan-out to every instance, and
// the sessions it opens with them, travel over the one broker connection
// the Fleet holds; results name each instance, in the members' order.
func TestAFleetUsesOneConnection(t *testing.T) {
	b, agents := testgame.Fleet(t, 4, 200, "", -1)
	games := b.Connections() // the agents'
	f, err := client.OpenFleet(b.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var members []fleet.Member
	for deadline := time.Now().Add(20 * time.Second); len(members) < len(agents); {
		if members, err = f.List(""); err != nil && time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	res := f.QueryEach(members, "Position", 2)
	if len(res) != len(members) {
		t.Fatalf("%d results for %d instances", len(res), len(members))
	}
	totals := make([]int, len(res))
	for i, r := range res {
		if r.Err != nil || r.Instance != members[i].Instance || r.Total == 0 || !strings.Contains(r.Text, "match") {
			t.Fatalf("instance %s: %+v", members[i].Instance, r)
		}
		totals[i] = r.Total
	}
	if got := client.HoldingMatch(totals); got != len(agents) {
		t.Fatalf("%d instances hold a Position, want %d", got, len(agents))
	}
	o, err := f.Game(members[0].Instance).Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if n := b.Connections() - games; n != 1 {
		t.Fatalf("the fleet's client holds %d broker connections, want 1", n)
	}
}

package ui

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestOverviewPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&overviewPane{common: c}, 100, 20)
	mustContain(t, p.View(), "tick 40000", "entities 30", "running", "free slots 2", "most recycled: 5 (gen 4)")
	c.summary.Paused = true
	mustContain(t, p.View(), "paused")
	c.summary.Stale = &protocol.StaleAudit{Total: 4, By: []protocol.StaleCount{{By: "hunting", Count: 3}, {By: "pack steering", Count: 1}},
		Recent: []protocol.StaleUse{{Entity: protocol.MakeEntityID(9, 1), Generation: 2, By: "hunting", Tick: 812}}}
	mustContain(t, p.View(), "4 uses of handles to dead entities, by: hunting 3, pack steering 1", "last: 9v1 at tick 812 by hunting")
}

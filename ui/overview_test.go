package ui

import "testing"

func TestOverviewPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&overviewPane{common: c}, 100, 20)
	mustContain(t, p.View(), "tick 40000", "entities 30", "running", "free slots 2", "most recycled: 5 (gen 4)")
	c.summary.Paused = true
	mustContain(t, p.View(), "paused")
}

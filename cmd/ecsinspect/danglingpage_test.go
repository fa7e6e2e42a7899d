package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// Chases keeps a handle, as a component.
type Chases struct{ Target ecs.Entity }

// TestDumpPagesEveryDanglingHandle: 150 chasers whose targets were
// despawned (past the summary's 100) are all listed by dump --dangling, a
// page at a time: oldest first, each chaser's handles together, the next
// page's offset given until the last; without --dangling the summary's
// list says how to see them all.
func TestDumpPagesEveryDanglingHandle(t *testing.T) {
	sim, addr, _, onGame := testgame.LiveSim(t, 200, 3)
	var chasers []ecs.Entity
	onGame(func() {
		chase := ecs.NewMap[Chases](sim.World)
		for range 150 {
			target := sim.World.Spawn()
			c := sim.World.Spawn()
			if err := chase.Add(c, Chases{Target: target}); err != nil {
				t.Error(err)
				return
			}
			if err := sim.World.Despawn(target); err != nil {
				t.Error(err)
				return
			}
			chasers = append(chasers, c)
		}
	})
	var page struct {
		Dangling      []dumpDangling `json:"dangling"`
		DanglingTotal int            `json:"dangling_total"`
		Paged         *dumpPaging    `json:"dangling_page"`
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // until a pass has found them all
		code, out, errs := cli("dump", addr, "--dangling", "--limit", "100", "--json")
		if code != 0 {
			t.Fatalf("dump --dangling: %s", errs)
		}
		must(t, json.Unmarshal([]byte(out), &page))
		if page.DanglingTotal >= 150 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute dump lists %d dangling handles", page.DanglingTotal)
		}
	}
	if len(page.Dangling) != 100 || page.Paged == nil || page.Paged.Next != 100 {
		t.Fatalf("the first page: %d listed, paging %+v", len(page.Dangling), page.Paged)
	}
	// Oldest first: one pass found them in the chasers' table order.
	if page.Dangling[0].In != chasers[0].String() || page.Dangling[99].In != chasers[99].String() {
		t.Fatalf("the first page runs from %s to %s; want %v to %v", page.Dangling[0].In, page.Dangling[99].In, chasers[0], chasers[99])
	}
	seen := map[string]bool{}
	for _, d := range page.Dangling {
		seen[d.In] = true
	}
	code, out, errs := cli("dump", addr, "--dangling", "--offset", "100", "--limit", "100", "--json")
	if code != 0 {
		t.Fatalf("the second page: %s", errs)
	}
	page.Paged = nil
	must(t, json.Unmarshal([]byte(out), &page))
	if len(page.Dangling) < 50 || page.Paged == nil || page.Paged.Next != 0 {
		t.Fatalf("the second page: %d listed, paging %+v", len(page.Dangling), page.Paged)
	}
	for _, d := range page.Dangling {
		seen[d.In] = true
	}
	for _, c := range chasers {
		if !seen[c.String()] {
			t.Fatalf("chaser %v is on no page", c)
		}
	}
	if code, out, _ := cli("dump", addr); code != 0 || !strings.Contains(out, "dump --dangling lists them all") {
		t.Fatalf("the summary's cut list does not say how to see them all:\n%s", out)
	}
}

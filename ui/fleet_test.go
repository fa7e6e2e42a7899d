package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
)

// fakeFleet announces instances on a local broker, as games' agents do.
func fakeFleet(t *testing.T, statuses ...fleet.Status) (fleet.Target, map[string]*fleet.Presence) {
	t.Helper()
	of := make([]func() fleet.Status, len(statuses))
	for i, s := range statuses {
		of[i] = func() fleet.Status { return s }
	}
	_, target, out := fakeFleetOf(t, of...)
	return target, out
}

// fakeFleetOf is fakeFleet with each instance's status read when it
// announces, and the broker, for a test that changes either.
func fakeFleetOf(t *testing.T, statuses ...func() fleet.Status) (*localbroker.Broker, fleet.Target, map[string]*fleet.Presence) {
	t.Helper()
	b, err := localbroker.Start(localbroker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	target, err := fleet.ParseURL(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := fleet.Connect(target, "fake games", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	out := map[string]*fleet.Presence{}
	for _, status := range statuses {
		p, err := fleet.Present(nc, target.Prefix, 50*time.Millisecond, fleet.NewInstanceKey(), status)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		out[status().Instance] = p
	}
	return b, target, out
}

// fleetScreen updates f until its screen holds want (or 5 s pass).
func fleetScreen(t *testing.T, f *fleetModel, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.Update(fleetTickMsg{})
		s := ansi.Strip(f.View())
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the Fleet view in 5 s:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openFleet opens the Fleet view on target at width x height, closed when
// the test ends.
func openFleet(t *testing.T, target fleet.Target, width, height int) *fleetModel {
	t.Helper()
	fl, err := client.OpenFleet(target.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fl.Close)
	f, err := newFleetModel(fl)
	if err != nil {
		t.Fatal(err)
	}
	f.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return f
}

// screenHolds fails the test unless the screen s shows every one of want.
func screenHolds(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("the Fleet view lacks %q:\n%s", w, s)
		}
	}
}

func keys(f *fleetModel, ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			f.Update(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			f.Update(tea.KeyMsg{Type: tea.KeyEsc})
		default:
			f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		}
	}
}

// rowOrder is the instances in the order the table shows them.
func rowOrder(f *fleetModel) string {
	var names []string
	for _, r := range f.rows {
		names = append(names, r.Instance)
	}
	return strings.Join(names, " ")
}

// TestFleetView: instances are listed with their discovery fields, sorted
// and filtered like the entities table; one that closes stays, marked
// gone; enter on a live one attaches to it, on a gone one says why not.
func TestFleetView(t *testing.T) {
	target, games := fakeFleet(t,
		fleet.Status{Game: "arena", Instance: "match-1", Host: "box-a", Tick: 900, TPS: 60, FrameP99: 4.5, Entities: 1200},
		fleet.Status{Game: "arena", Instance: "match-2", Host: "box-b", Tick: 300, TPS: 59, FrameP99: 9.25, Entities: 50000, Paused: true, Hits: 2},
		fleet.Status{Game: "lobby", Instance: "lobby-1", Host: "box-a", Tick: 10, TPS: 20, FrameP99: 1, Entities: 40},
	)
	f := openFleet(t, target, 120, 20)
	screenHolds(t, fleetScreen(t, f, "3 instances, 3 live"), "match-2", "INSTANCE↑", "FRAME p99", "50000", "9.2 ms", "yes")
	fleetScreen(t, f, "lobby-1")
	if got := rowOrder(f); got != "lobby-1 match-1 match-2" {
		t.Fatalf("by instance: %s", got)
	}
	keys(f, "s", "s", "s", "S") // TICK, descending
	if got := rowOrder(f); got != "match-1 match-2 lobby-1" {
		t.Fatalf("by tick, descending: %s", got)
	}
	keys(f, "s", "s", "s", "S") // ENTITIES, ascending (numbers as numbers)
	if got := rowOrder(f); got != "lobby-1 match-1 match-2" {
		t.Fatalf("by entities: %s", got)
	}
	keys(f, "/arena")
	if got := rowOrder(f); got != "match-1 match-2" {
		t.Fatalf("filtered by a word as typed: %s", got)
	}
	keys(f, "enter", "esc", "/hits>0,host=box-*", "enter")
	if got := rowOrder(f); got != "match-2" {
		t.Fatalf("filtered on fields: %s", got)
	}
	keys(f, "esc")
	games["match-1"].Stop()
	s := fleetScreen(t, f, "gone")
	if !strings.Contains(s, "(closed)") || !strings.Contains(s, "3 instances, 2 live") {
		t.Fatalf("a closed instance:\n%s", s)
	}
	f.moveTo("match-1")
	keys(f, "enter")
	if f.attach != "" || !strings.Contains(f.flashText, "gone") {
		t.Fatalf("enter on a gone instance: attach %q, %q", f.attach, f.flashText)
	}
	f.moveTo("match-2")
	_, cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if f.attach != "match-2" || cmd == nil {
		t.Fatalf("enter on match-2: attach %q", f.attach)
	}
	// Keys typed in a burst open the command line and fill it.
	f.attach = ""
	f.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":query Energy")})
	if f.inputKind != ':' || f.input.Value() != "query Energy" {
		t.Fatalf("a burst: input %q %q", string(f.inputKind), f.input.Value())
	}
}

// TestFleetViewAt80Columns: on a narrow terminal the columns that say
// what an instance is doing stay, and the descriptive ones go first.
func TestFleetViewAt80Columns(t *testing.T) {
	target, _ := fakeFleet(t, fleet.Status{Game: "arena", Instance: "match-1", Host: "box-a", Tick: 900, TPS: 60, Entities: 1200, Paused: true, Hits: 3})
	f := openFleet(t, target, 80, 24)
	s := fleetScreen(t, f, "match-1")
	screenHolds(t, s, "TICK", "ENTITIES", "PAUSED", "HITS", "SEEN", "yes")
	if strings.Contains(s, "HOST") {
		t.Fatalf("at 80 columns HOST should make room:\n%s", s)
	}
}

// TestFleetViewSaysWhatItKnows: a log-only hit does not say the instance
// is paused; results longer than their pane say how many more and page;
// with the broker gone, the view says the broker cannot be reached rather
// than that the games went silent, and the rows are what was last heard.
func TestFleetViewSaysWhatItKnows(t *testing.T) {
	var mu sync.Mutex
	status := fleet.Status{Game: "arena", Instance: "match-1", Host: "box", Tick: 10, TPS: 60}
	b, target, _ := fakeFleetOf(t, func() fleet.Status { mu.Lock(); defer mu.Unlock(); return status })
	f := openFleet(t, target, 100, 20)
	fleetScreen(t, f, "match-1")
	mu.Lock()
	status.Hits = 1 // a log-only watchpoint fired: the game runs on
	mu.Unlock()
	s := fleetScreen(t, f, "a watchpoint fired on match-1")
	screenHolds(t, s, "log only: it runs on")
	if strings.Contains(s, "is paused") {
		t.Fatalf("a log-only hit said the instance is paused:\n%s", s)
	}

	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("instance-%02d 1 match", i))
	}
	f.Update(fleetResultMsg{lines: lines, flash: "query: 40 hold a match"})
	s = ansi.Strip(f.View())
	screenHolds(t, s, "instance-00", "more (pgdn")
	f.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if s = ansi.Strip(f.View()); strings.Contains(s, "instance-00 ") || !strings.Contains(s, "instance-05") {
		t.Fatalf("pgdn did not page the results:\n%s", s)
	}

	b.Shutdown()
	s = fleetScreen(t, f, "broker unreachable")
	screenHolds(t, s, "match-1")
	if strings.Contains(s, "gone") {
		t.Fatalf("with the broker down, the game is shown gone:\n%s", s)
	}
}

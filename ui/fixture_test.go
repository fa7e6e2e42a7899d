package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// A pane on its own: a source that notes what is asked of it, a navigator
// that notes where the pane sends the user, and a small world's summary.

type fakeSource struct {
	subs   []protocol.Subscribe
	unsubs []uint32
	reqs   []protocol.Message
	next   uint32
}

func (f *fakeSource) subscribe(s protocol.Subscribe) tea.Cmd { f.subs = append(f.subs, s); return nil }
func (f *fakeSource) unsubscribe(id uint32) tea.Cmd          { f.unsubs = append(f.unsubs, id); return nil }
func (f *fakeSource) request(_ string, build func(uint32) protocol.Message) tea.Cmd {
	f.next++
	f.reqs = append(f.reqs, build(1<<20+f.next))
	return nil
}

type fakeNav struct {
	opened, followed []protocol.EntityID
	shown            []int
	archs            []int64
	queries          []string
	pushed           []modal
	flashes          []string
	pinned           []string
	unpinned         []int
	browsed          []string
}

func (n *fakeNav) openEntity(e protocol.EntityID) tea.Cmd { n.opened = append(n.opened, e); return nil }
func (n *fakeNav) followEntity(e protocol.EntityID) tea.Cmd {
	n.followed = append(n.followed, e)
	return nil
}
func (n *fakeNav) showPane(v int) tea.Cmd        { n.shown = append(n.shown, v); return nil }
func (n *fakeNav) listArchetype(a int64) tea.Cmd { n.archs = append(n.archs, a); return nil }
func (n *fakeNav) listQuery(q string) tea.Cmd    { n.queries = append(n.queries, q); return nil }
func (n *fakeNav) browseResource(name, path string) tea.Cmd {
	n.browsed = append(n.browsed, name+" "+path)
	return nil
}
func (n *fakeNav) push(m modal) tea.Cmd          { n.pushed = append(n.pushed, m); return nil }
func (n *fakeNav) flash(text string, isErr bool) { n.flashes = append(n.flashes, text) }
func (n *fakeNav) pin(expr string) tea.Cmd       { n.pinned = append(n.pinned, expr); return nil }
func (n *fakeNav) unpin(i int) tea.Cmd           { n.unpinned = append(n.unpinned, i); return nil }

var (
	fxPosition = protocol.Component{ID: 1, Short: "Position", Storage: "table", Size: 8, Fields: []protocol.FieldSchema{
		{Name: "X", Kind: "float", Type: "float32", Size: 4}, {Name: "Y", Kind: "float", Type: "float32", Offset: 4, Size: 4}}}
	fxEnergy  = protocol.Component{ID: 2, Short: "Energy", Storage: "table", Size: 4, Fields: []protocol.FieldSchema{{Name: "Value", Kind: "float", Type: "float32", Size: 4}}}
	fxTarget  = protocol.Component{ID: 3, Short: "Target", Storage: "table", Size: 8, Fields: []protocol.FieldSchema{{Name: "Who", Kind: "entity", Type: "ecs.Entity", Size: 8}}}
	fxFleeing = protocol.Component{ID: 4, Short: "Fleeing", Storage: "sparse"}
)

// fixture is a pane's world: a summary of a few archetypes, systems in two
// stages, a resource, an event queue and a journal.
func fixture() (*common, *fakeSource, *fakeNav) {
	src, nav := &fakeSource{}, &fakeNav{}
	c := &common{src: src, nav: nav, addr: "test", styles: DefaultStyles(), keys: defaultKeys(), conn: connMsg{state: stateConnected}}
	c.summary = &protocol.Summary{Tick: 40000, Entities: 30, FrameNs: 2_000_000,
		Stats:      protocol.Stats{Alive: 30, Free: 2, Slots: 32},
		Components: []protocol.Component{fxPosition, fxEnergy, fxTarget, fxFleeing},
		Archetypes: []protocol.Archetype{{ID: 0, Len: 0}, {ID: 1, Len: 20, Components: []uint16{1, 2}, Bytes: 240}, {ID: 2, Len: 10, Components: []uint16{1, 3}, Bytes: 160}},
		Systems: []protocol.System{{Name: "move", Stage: "update", Mean: 1_000_000, Writes: []string{"Position"}, AllocShared: 120},
			{Name: "hunt", Stage: "update", Mean: 3_000_000, Reads: []string{"Target"}, AllocBytes: 12800, AllocObjects: 3.5, AllocRuns: 120},
			{Name: "draw", Stage: "render", Mean: 500_000}},
		Resources: []protocol.Resource{{Name: "Gravity", Value: protocol.MapValue(protocol.Field{Name: "G", Value: protocol.FloatValue(9.8)})}},
		Recycled:  []protocol.Slot{{Index: 5, Generation: 4}},
	}
	c.events = &protocol.Events{Queues: []protocol.EventQueue{{Name: "Attack", Previous: 2, Total: 9,
		Fields: []protocol.FieldSchema{{Name: "Damage", Kind: "int"}, {Name: "By", Kind: "entity"}, {Name: "Target", Kind: "entity"}},
		Recent: []protocol.Value{
			protocol.MapValue(protocol.Field{Name: "Damage", Value: protocol.IntValue(3)}, protocol.Field{Name: "By", Value: protocol.UintValue(0)},
				protocol.Field{Name: "Target", Value: protocol.UintValue(uint64(protocol.MakeEntityID(7, 2)))}),
			protocol.MapValue(protocol.Field{Name: "Damage", Value: protocol.IntValue(1)}),
		}}}}
	return c, src, nav
}

// sized gives a pane its size, failing on a command it should not need.
func sized[P interface{ SetSize(int, int) tea.Cmd }](p P, w, h int) P {
	p.SetSize(w, h)
	return p
}

// pressPane gives a pane keys, one at a time.
func pressPane(p pane, keys ...string) {
	for _, k := range keys {
		p.Update(keyMsg(k))
	}
}

// screenText is a pane's lines without styles, joined.
func screenText(lines []string) string {
	return ansi.Strip(strings.Join(lines, "\n"))
}

// mustContain fails unless the pane's view says each of want.
func mustContain(t *testing.T, lines []string, want ...string) {
	t.Helper()
	text := screenText(lines)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("the view does not say %q:\n%s", w, text)
		}
	}
}

// fixtureModel is the whole UI on the fixture's summary and connection,
// 100x24, its requests going to src.
func fixtureModel(src *fakeSource) *model {
	m := newModel(src, "test")
	fx, _, _ := fixture()
	m.summary, m.conn = fx.summary, fx.conn
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	return m
}

package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The hierarchy: a tree of ChildOf links around an entity, from its
// topmost ancestor down, each node with its count of children, expanded
// and collapsed by hand. Nodes are learnt one GetEntity at a time (a
// Detail names the parent and the children), so the tree never asks the
// agent for more than what is open.

// maxTreeChildren bounds the children fetched when a node opens.
const maxTreeChildren = 200

type treeNode struct {
	parent   protocol.EntityID
	children []protocol.EntityID
	total    int // children in all: a Detail lists a window of them
	loaded   bool
	open     bool
	alive    bool
}

// treeView is the hierarchy as a modal over the detail view.
type treeView struct {
	*common
	box
	focus   protocol.EntityID // the entity the tree was opened on
	root    protocol.EntityID // the highest ancestor known
	nodes   map[protocol.EntityID]*treeNode
	pending map[uint32]protocol.EntityID // request id -> the entity asked for
	cursor  int
}

// newTree makes the hierarchy around e; Init asks for e.
func newTree(c *common, e protocol.EntityID) *treeView {
	return &treeView{common: c, focus: e, root: e, nodes: map[protocol.EntityID]*treeNode{}, pending: map[uint32]protocol.EntityID{}}
}

// Init asks for the entity the tree opened on.
func (t *treeView) Init() tea.Cmd { return t.load(t.focus) }

func (t *treeView) Line() string     { return "" }
func (t *treeView) SetSize(w, h int) { t.box = box{w, h} }

func (t *treeView) KeyMap() []key.Binding {
	k := t.keys
	return []key.Binding{k.Enter, k.Up, k.Down, k.Open, k.Back}
}

// load asks for one entity's detail, for the tree.
func (t *treeView) load(e protocol.EntityID) tea.Cmd {
	return t.src.request("hierarchy", func(id uint32) protocol.Message {
		t.pending[id] = e
		return &protocol.GetEntity{ID: id, Entity: e}
	})
}

// Update takes the Details the tree asked for, and keys.
func (t *treeView) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case detailMsg:
		return t.take(msg.d), false
	case tea.KeyMsg:
		return t.key(msg)
	}
	return nil, false
}

// take takes a Detail the tree asked for (and ignores others).
func (t *treeView) take(d *protocol.Detail) tea.Cmd {
	e, ok := t.pending[d.Sub]
	if !ok {
		return nil
	}
	delete(t.pending, d.Sub)
	n := t.node(e)
	n.loaded, n.alive, n.parent, n.children, n.total = true, d.Alive, d.Parent, d.Children, max(d.ChildCount, len(d.Children))
	var cmds []tea.Cmd
	if e == t.root && d.Parent != 0 { // climb to the top
		t.root = d.Parent
		t.node(d.Parent).open = true
		cmds = append(cmds, t.load(d.Parent))
	}
	if n.open {
		cmds = append(cmds, t.loadChildren(e)...)
	}
	return tea.Batch(cmds...)
}

func (t *treeView) node(e protocol.EntityID) *treeNode {
	n := t.nodes[e]
	if n == nil {
		n = &treeNode{}
		t.nodes[e] = n
	}
	return n
}

// loadChildren asks for the children of an open node not known yet.
func (t *treeView) loadChildren(e protocol.EntityID) []tea.Cmd {
	var cmds []tea.Cmd
	for i, k := range t.node(e).children {
		if i == maxTreeChildren {
			break
		}
		if !t.node(k).loaded {
			cmds = append(cmds, t.load(k))
		}
	}
	return cmds
}

// treeRow is one line of the tree.
type treeRow struct {
	e     protocol.EntityID
	depth int
}

func (t *treeView) rows() []treeRow {
	var out []treeRow
	var walk func(e protocol.EntityID, depth int)
	walk = func(e protocol.EntityID, depth int) {
		out = append(out, treeRow{e, depth})
		n := t.nodes[e]
		if n == nil || !n.open || depth > 64 {
			return
		}
		for i, k := range n.children {
			if i == maxTreeChildren {
				break
			}
			walk(k, depth+1)
		}
	}
	walk(t.root, 0)
	return out
}

// View draws the tree around the cursor.
func (t *treeView) View() []string {
	rows := t.rows()
	t.cursor = max(0, min(t.cursor, len(rows)-1))
	out := []string{t.styles.Header.Render(fmt.Sprintf("Hierarchy of %s (ChildOf) — enter opens or closes, o shows the entity, esc back", t.focus))}
	lo, hi := window(t.cursor, len(rows), t.height-1)
	for i := lo; i < hi; i++ {
		r := rows[i]
		n := t.nodes[r.e]
		mark, count := "·", ""
		switch {
		case n == nil || !n.loaded:
			mark = "…"
		case len(n.children) > 0 && n.open:
			mark, count = "▾", fmt.Sprintf(" (%d children)", n.total)
		case len(n.children) > 0:
			mark, count = "▸", fmt.Sprintf(" (%d children)", n.total)
		}
		if n != nil && n.loaded && !n.alive {
			count += " despawned"
		}
		line := strings.Repeat("  ", r.depth) + mark + " " + r.e.String() + count
		if r.e == t.focus {
			line += "  ◀"
		}
		if i == t.cursor {
			line = t.styles.Selected.Render(fit(line, t.width))
		}
		out = append(out, line)
	}
	return out
}

// key moves, opens and closes nodes, shows an entity (o) or closes (esc).
func (t *treeView) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := t.keys
	rows := t.rows()
	switch {
	case key.Matches(msg, k.Back):
		return nil, true
	case key.Matches(msg, k.Up):
		t.cursor = max(t.cursor-1, 0)
	case key.Matches(msg, k.Down):
		t.cursor = min(t.cursor+1, len(rows)-1)
	case key.Matches(msg, k.Enter), key.Matches(msg, k.Right), key.Matches(msg, k.Left):
		if t.cursor < len(rows) {
			n := t.node(rows[t.cursor].e)
			n.open = !n.open
			if key.Matches(msg, k.Left) {
				n.open = false
			}
			if n.open {
				return tea.Batch(t.loadChildren(rows[t.cursor].e)...), false
			}
		}
	case key.Matches(msg, k.Open):
		if t.cursor < len(rows) {
			return t.nav.followEntity(rows[t.cursor].e), true
		}
	}
	return nil, false
}

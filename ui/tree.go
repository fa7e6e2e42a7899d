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
	loaded   bool
	open     bool
	alive    bool
}

type treeView struct {
	focus   protocol.EntityID // the entity the tree was opened on
	root    protocol.EntityID // the highest ancestor known
	nodes   map[protocol.EntityID]*treeNode
	pending map[uint32]protocol.EntityID // request id -> the entity asked for
	cursor  int
}

// openTree opens the hierarchy around e.
func (m *model) openTree(e protocol.EntityID) tea.Cmd {
	m.tree = &treeView{focus: e, root: e, nodes: map[protocol.EntityID]*treeNode{}, pending: map[uint32]protocol.EntityID{}}
	return m.treeLoad(e)
}

// treeLoad asks for one entity's detail, for the tree.
func (m *model) treeLoad(e protocol.EntityID) tea.Cmd {
	t := m.tree
	return m.src.request("hierarchy", func(id uint32) protocol.Message {
		t.pending[id] = e
		return &protocol.GetEntity{ID: id, Entity: e}
	})
}

// treeDetail takes a Detail the tree asked for; false if it did not.
func (m *model) treeDetail(d *protocol.Detail) (tea.Cmd, bool) {
	t := m.tree
	if t == nil {
		return nil, false
	}
	e, ok := t.pending[d.Sub]
	if !ok {
		return nil, false
	}
	delete(t.pending, d.Sub)
	n := t.node(e)
	n.loaded, n.alive, n.parent, n.children = true, d.Alive, d.Parent, d.Children
	var cmds []tea.Cmd
	if e == t.root && d.Parent != 0 { // climb to the top
		t.root = d.Parent
		t.node(d.Parent).open = true
		cmds = append(cmds, m.treeLoad(d.Parent))
	}
	if n.open {
		cmds = append(cmds, m.treeLoadChildren(e)...)
	}
	return tea.Batch(cmds...), true
}

func (t *treeView) node(e protocol.EntityID) *treeNode {
	n := t.nodes[e]
	if n == nil {
		n = &treeNode{}
		t.nodes[e] = n
	}
	return n
}

// treeLoadChildren asks for the children of an open node not known yet.
func (m *model) treeLoadChildren(e protocol.EntityID) []tea.Cmd {
	var cmds []tea.Cmd
	for i, k := range m.tree.node(e).children {
		if i == maxTreeChildren {
			break
		}
		if !m.tree.node(k).loaded {
			cmds = append(cmds, m.treeLoad(k))
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

func (m *model) treeLines() []string {
	t := m.tree
	rows := t.rows()
	t.cursor = max(0, min(t.cursor, len(rows)-1))
	out := []string{m.styles.Header.Render(fmt.Sprintf("Hierarchy of %s (ChildOf) — enter opens or closes, o shows the entity, esc back", t.focus))}
	lo, hi := window(t.cursor, len(rows), m.bodyHeight()-1)
	for i := lo; i < hi; i++ {
		r := rows[i]
		n := t.nodes[r.e]
		mark, count := "·", ""
		switch {
		case n == nil || !n.loaded:
			mark = "…"
		case len(n.children) > 0 && n.open:
			mark, count = "▾", fmt.Sprintf(" (%d children)", len(n.children))
		case len(n.children) > 0:
			mark, count = "▸", fmt.Sprintf(" (%d children)", len(n.children))
		}
		if n != nil && n.loaded && !n.alive {
			count += " despawned"
		}
		line := strings.Repeat("  ", r.depth) + mark + " " + r.e.String() + count
		if r.e == t.focus {
			line += "  ◀"
		}
		if i == t.cursor {
			line = m.styles.Selected.Render(fit(line, m.width))
		}
		out = append(out, line)
	}
	return out
}

func (m *model) treeKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	t, k := m.tree, m.keys
	rows := t.rows()
	switch {
	case key.Matches(msg, k.Back):
		m.tree = nil
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
				return m, tea.Batch(m.treeLoadChildren(rows[t.cursor].e)...)
			}
		}
	case key.Matches(msg, k.Open):
		if t.cursor < len(rows) {
			e := rows[t.cursor].e
			m.tree = nil
			return m, m.followEntity(e)
		}
	}
	return m, nil
}

package recording

import (
	"bytes"
	"slices"
	"sort"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WorldDiff is what changed between two states of a world: entities
// spawned and despawned, entities whose components or values changed
// (field by field), archetypes whose counts changed, resources that
// changed. Lists are sorted by entity (index, then generation).
type WorldDiff struct {
	From      uint64              `json:"from"`
	To        uint64              `json:"to"`
	Spawned   []protocol.EntityID `json:"spawned"`
	Despawned []protocol.EntityID `json:"despawned"`
	Changed   []EntityDiff        `json:"changed"`
	// Unlisted counts changed entities left out of Changed by a reader
	// that keeps only the first (text shows a few).
	Unlisted   int               `json:"-"`
	Archetypes []ArchetypeDiff   `json:"archetypes"`
	Resources  []ComponentChange `json:"resources"`
	// FromAsOf and ToAsOf say, when a tick compared was not recorded (a
	// recording at a rate), which recorded state stands for it.
	FromAsOf string `json:"from_as_of,omitempty"`
	ToAsOf   string `json:"to_as_of,omitempty"`
}

// EntityDiff is one entity's changes.
type EntityDiff struct {
	Entity     protocol.EntityID `json:"entity"`
	Components []ComponentChange `json:"components"`
}

// ComponentChange is one component (or resource) that was added, removed
// or whose fields changed.
type ComponentChange struct {
	Name    string        `json:"name"`
	Added   bool          `json:"added,omitempty"`
	Removed bool          `json:"removed,omitempty"`
	Fields  []FieldChange `json:"fields,omitempty"`
}

// FieldChange is one field's old and new value ("" path: the whole value).
type FieldChange struct {
	Path string         `json:"path"`
	Old  protocol.Value `json:"old"`
	New  protocol.Value `json:"new"`
}

// ArchetypeDiff is one archetype's entity count before and after.
type ArchetypeDiff struct {
	ID         uint32   `json:"id"`
	Components []string `json:"components"`
	From       int      `json:"from"`
	To         int      `json:"to"`
}

// Diff compares two states (a before b).
func Diff(a, b *WorldState) *WorldDiff {
	d := DiffParts(a, b)
	d.EachChanged(a, b, func(ed EntityDiff) error {
		d.Changed = append(d.Changed, ed)
		return nil
	})
	return d
}

// DiffParts is Diff without its Changed list, which EachChanged then
// hands out an entity at a time: a diff of a million changed entities is
// gigabytes held, and a writer can stream it instead.
func DiffParts(a, b *WorldState) *WorldDiff {
	d := &WorldDiff{From: a.Tick, To: b.Tick}
	va, vb := a.v(), b.v()
	for e := range vb.where {
		if _, ok := va.where[e]; !ok {
			d.Spawned = append(d.Spawned, e)
		}
	}
	for e := range va.where {
		if _, ok := vb.where[e]; !ok {
			d.Despawned = append(d.Despawned, e)
		}
	}
	slices.SortFunc(d.Spawned, byEntity)
	slices.SortFunc(d.Despawned, byEntity)
	d.Archetypes = archetypeDiff(a, b)
	d.Resources = resourceDiff(a, b)
	return d
}

// EachChanged calls each with every entity in both states whose
// components or values changed from a to b, in entity order, until each
// returns an error, which it returns.
func (d *WorldDiff) EachChanged(a, b *WorldState, each func(EntityDiff) error) error {
	va, vb := a.v(), b.v()
	both := make([]protocol.EntityID, 0, len(va.where))
	for e := range va.where {
		if _, ok := vb.where[e]; ok {
			both = append(both, e)
		}
	}
	slices.SortFunc(both, byEntity)
	for _, e := range both {
		if ed := entityDiff(a, b, e, va.where[e], vb.where[e]); len(ed.Components) > 0 {
			if err := each(ed); err != nil {
				return err
			}
		}
	}
	return nil
}

// byEntity orders handles by index, then generation.
func byEntity(x, y protocol.EntityID) int {
	if x.Index() != y.Index() {
		return int(x.Index()) - int(y.Index())
	}
	return int(x.Generation()) - int(y.Generation())
}

// entityDiff compares one entity's components in two states.
func entityDiff(a, b *WorldState, e protocol.EntityID, la, lb entityLoc) EntityDiff {
	ed := EntityDiff{Entity: e}
	var buf [32]uint16
	ids := append(append(buf[:0], la.t.Components...), lb.t.Components...)
	for c := range a.v().sparse {
		ids = append(ids, c)
	}
	for c := range b.v().sparse {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, c := range ids {
		ra, oka := a.rawOf(e, c)
		rb, okb := b.rawOf(e, c)
		switch {
		case !oka && !okb:
			continue
		case oka && okb && ra != nil && rb != nil && bytes.Equal(ra, rb):
			continue
		}
		va, _ := a.ComponentValue(e, c)
		vb, _ := b.ComponentValue(e, c)
		if sc := b.v().schemas[c]; sc != nil { // handles as 40v1, as everywhere people read them
			va, vb = protocol.HandlesAsText(va, sc.Fields), protocol.HandlesAsText(vb, sc.Fields)
		}
		cc := ComponentChange{Name: b.componentName(c), Added: !oka && okb, Removed: oka && !okb}
		if oka && okb {
			cc.Fields = fieldChanges("", va, vb, nil)
			if len(cc.Fields) == 0 {
				continue
			}
		}
		ed.Components = append(ed.Components, cc)
	}
	return ed
}

// rawOf returns component c of e as memory (nil for values kept as
// Values) and whether e has it.
func (s *WorldState) rawOf(e protocol.EntityID, c uint16) ([]byte, bool) {
	v := s.v()
	t, row := (*StateTable)(nil), 0
	j := -1
	if l, ok := v.where[e]; ok {
		if j = slices.Index(l.t.Components, c); j >= 0 {
			t, row = l.t, l.row
		}
	}
	if t == nil {
		r, ok := v.sparse[c][e]
		if !ok {
			return nil, false
		}
		t, row, j = s.Tables[tableKey(uint32(c), true)], r, 0
	}
	col := &t.Columns[j]
	if col.Kind != protocol.ColumnRaw {
		return nil, true
	}
	if col.Size == 0 {
		return []byte{}, true
	}
	return col.Raw[row*col.Size : (row+1)*col.Size], true
}

// fieldChanges lists the leaves that differ between two values.
func fieldChanges(path string, a, b protocol.Value, out []FieldChange) []FieldChange {
	if a.Kind() == protocol.KindMap && b.Kind() == protocol.KindMap && a.Len() == b.Len() {
		for i := range a.Len() {
			ka, xa := a.Entry(i)
			kb, xb := b.Entry(i)
			if ka != kb {
				return append(out, FieldChange{Path: path, Old: a, New: b})
			}
			out = fieldChanges(joinPath(path, ka), xa, xb, out)
		}
		return out
	}
	if a.Kind() == protocol.KindList && b.Kind() == protocol.KindList && a.Len() == b.Len() {
		for i := range a.Len() {
			out = fieldChanges(path+"["+itoa(i)+"]", a.Index(i), b.Index(i), out)
		}
		return out
	}
	if !a.Equal(b) {
		out = append(out, FieldChange{Path: path, Old: a, New: b})
	}
	return out
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}

func archetypeDiff(a, b *WorldState) []ArchetypeDiff {
	counts := map[uint32]*ArchetypeDiff{}
	add := func(s *WorldState, to bool) {
		if s.Summary == nil {
			return
		}
		for _, ar := range s.Summary.Archetypes {
			d := counts[ar.ID]
			if d == nil {
				d = &ArchetypeDiff{ID: ar.ID}
				for _, c := range ar.Components {
					d.Components = append(d.Components, s.componentName(c))
				}
				counts[ar.ID] = d
			}
			if to {
				d.To = ar.Len
			} else {
				d.From = ar.Len
			}
		}
	}
	add(a, false)
	add(b, true)
	var out []ArchetypeDiff
	for _, d := range counts {
		if d.From != d.To {
			out = append(out, *d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func resourceDiff(a, b *WorldState) []ComponentChange {
	if a.Summary == nil || b.Summary == nil {
		return nil
	}
	old := map[string]protocol.Value{}
	for _, r := range a.Summary.Resources {
		old[r.Name] = r.Value
	}
	var out []ComponentChange
	for _, r := range b.Summary.Resources {
		prev, ok := old[r.Name]
		if !ok {
			out = append(out, ComponentChange{Name: r.Name, Added: true})
			continue
		}
		delete(old, r.Name)
		if f := fieldChanges("", prev, r.Value, nil); len(f) > 0 {
			out = append(out, ComponentChange{Name: r.Name, Fields: f})
		}
	}
	for name := range old {
		out = append(out, ComponentChange{Name: name, Removed: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

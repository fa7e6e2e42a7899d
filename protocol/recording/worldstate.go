package recording

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WorldState is the world as a stream of WorldFrames rebuilds it: every
// entity with its handle, row and component values, parents and children,
// resources, event queues, system timings and the journal of the last
// frame. A recording's reader keeps one and applies frames in order from a
// keyframe; the agent's encoder keeps one too, to code each frame against
// what the reader will hold.
type WorldState struct {
	Tick    uint64
	Summary *protocol.Summary // full: stats, archetypes, schemas, systems, events, resources
	Tables  map[uint64]*StateTable
	Links   []protocol.ChildList // every parent's children, in link order, by parent index
	Journal []protocol.JournalEntry
	Events  []protocol.EventQueue
	Alloc   protocol.AllocState // the entity allocator, where the frames carry it
	// Limits bound what frames read into the state may make it hold
	// (the zero value: DefaultReadLimits); a frame past them is an error
	// and changes nothing.
	Limits protocol.ReadLimits
	seq    uint64
	valid  bool
	bytes  int64      // the tables' footprint (StateTable.footprint)
	view   *stateView // derived indexes, built on first use after a change
	// owned: the state copies the values and entities it keeps into its
	// own memory and keeps no row lists, so the changes it applies can be
	// reused by their maker (an encoder's state; a reader's shares the
	// decoded frames).
	owned bool
	dead  deadKept        // the last state of the dead the frames carried (worlddead.go)
	res   resourceNumbers // what the next frame's resource changes are read against (worldresources.go)
	// inflated is the bytes the last frame applied decompressed to.
	inflated int
}

// StateTable is one table's rows: an archetype's, or a sparse component's.
type StateTable struct {
	Archetype  uint32
	Sparse     bool
	Components []uint16
	Entities   []protocol.EntityID
	Columns    []StateColumn
}

// StateColumn is one column's values and what the last frame changed.
type StateColumn struct {
	Kind           uint8
	Size           int
	Raw            []byte           // ColumnRaw: Size bytes per row
	Prev           []byte           // ColumnRaw: each row's value before Raw's (what a prediction extends); nil: none yet
	Values         []protocol.Value // ColumnValues: one per row
	Changed, Added []int32          // rows written, or added, by the last frame applied
}

// TableChange is one table's change with its values in the clear: what
// the agent hands an encoder, and what a reader decodes a TableFrame into.
type TableChange struct {
	Archetype  uint32
	Sparse     bool
	Components []uint16
	Len        int
	Entities   []protocol.EntityID // every row's entity, when rows moved; nil when not
	All        bool
	Columns    []ColumnChange
}

// ColumnChange is one column's change in the clear.
type ColumnChange struct {
	Kind           uint8
	Size           int
	Changed, Added []int32
	Raw            []byte           // ColumnRaw: every row's (All) or the Changed rows' values
	Values         []protocol.Value // ColumnValues: likewise
}

// ErrNeedKeyframe is returned when a delta frame does not follow the frame
// applied last: the state waits for the next full frame.
var ErrNeedKeyframe = errors.New("protocol: a delta frame without the frame before it; waiting for a keyframe")

// NewWorldState returns an empty state.
func NewWorldState() *WorldState { return &WorldState{Tables: map[uint64]*StateTable{}} }

// newOwnedState is an empty state that copies what it keeps into its own
// memory: an encoder's.
func newOwnedState() *WorldState {
	s := NewWorldState()
	s.owned = true
	return s
}

func tableKey(archetype uint32, sparse bool) uint64 {
	if sparse {
		return 1<<32 | uint64(archetype)
	}
	return uint64(archetype)
}

// Valid reports whether the state holds a keyframe and every frame since.
func (s *WorldState) Valid() bool { return s.valid }

// Apply applies one frame. A bad frame is an error and changes nothing;
// a delta that does not follow the last frame applied is ErrNeedKeyframe.
func (s *WorldState) Apply(f *protocol.WorldFrame) error { return s.apply(f, false) }

// Pass applies a frame on the way to a later one: its entities, values,
// links, summary and allocator, not its journal and events (left empty),
// which cost most to decode and which the next frame replaces.
func (s *WorldState) Pass(f *protocol.WorldFrame) error { return s.apply(f, true) }

func (s *WorldState) apply(f *protocol.WorldFrame, passing bool) error {
	if !f.Full && (!s.valid || f.Seq != s.seq+1) {
		return ErrNeedKeyframe
	}
	body, budget, err := protocol.OpenBodyLimited(f, passing, s.Limits)
	if err != nil {
		return err
	}
	if err := s.applyBody(f, body, budget); err != nil {
		return err
	}
	s.inflated = budget.Inflated() // after: a keyframe replaces the state whole
	return nil
}

// ApplyBody is Apply for a body already opened.
func (s *WorldState) ApplyBody(f *protocol.WorldFrame, body *protocol.WorldBody) error {
	return s.applyBody(f, body, nil)
}

// applyBody is ApplyBody charging what decoding allocates to budget (nil:
// a body the caller made, not bytes from outside).
func (s *WorldState) applyBody(f *protocol.WorldFrame, body *protocol.WorldBody, budget *protocol.AllocBudget) error {
	base := s
	if f.Full {
		base = NewWorldState()
		base.Limits, base.owned = s.Limits, s.owned
	}
	sum := &body.Summary
	if !f.Full {
		var err error
		if sum, err = protocol.ApplySummary(s.Summary, &body.Summary); err != nil {
			return fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
		}
	} else if !body.Summary.Full {
		return fmt.Errorf("world frame at tick %d: a keyframe with a delta summary", f.Tick)
	}
	resListed := resourcesListed(f.Full, body)
	var resSteps []numbersStep
	if len(body.ResourcesChanged) > 0 {
		if resListed {
			return fmt.Errorf("world frame at tick %d: %w", f.Tick, errResourcesTwice)
		}
		res, steps, err := s.res.undoResources(sum.Resources, body.ResourcesChanged, budget)
		if err != nil {
			return fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
		}
		sum.Resources, resSteps = res, steps
	}
	changes := make([]TableChange, len(body.Tables))
	seen := map[uint64]bool{}
	for i := range body.Tables {
		tf := &body.Tables[i]
		key := tableKey(tf.Archetype, tf.Sparse)
		if seen[key] {
			return fmt.Errorf("world frame at tick %d: table %d twice", f.Tick, tf.Archetype)
		}
		seen[key] = true
		if err := base.decodeTable(tf, &changes[i], budget); err != nil {
			return fmt.Errorf("world frame at tick %d: table %d: %w", f.Tick, tf.Archetype, err)
		}
	}
	if err := base.checkGrowth(changes); err != nil {
		return fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
	}
	alloc := s.Alloc
	if err := alloc.Apply(body.Alloc, f.Full); err != nil {
		return fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
	}
	// Everything checked: from here on nothing fails.
	if f.Full {
		dead := s.dead
		*s = *base
		s.dead = dead
	}
	s.dead.add(body.Dead)
	s.Alloc = alloc
	s.applyChanges(changes)
	s.res.step(resListed, resSteps)
	s.Tick, s.Summary, s.seq, s.valid = f.Tick, sum, f.Seq, true
	switch {
	case body.LinksSet || f.Full:
		s.Links = body.Links
	case body.LinksChanged != nil:
		s.Links = protocol.ApplyLinks(s.Links, body.LinksChanged)
	}
	s.Journal, s.Events = body.Journal, body.Events
	return nil
}

// applyChanges applies checked table changes: the rows and values of each.
func (s *WorldState) applyChanges(changes []TableChange) {
	for _, t := range s.Tables {
		for j := range t.Columns {
			t.Columns[j].Changed, t.Columns[j].Added = nil, nil
		}
	}
	for i := range changes {
		s.applyTable(&changes[i])
	}
	s.view = nil
}

func (s *WorldState) applyTable(c *TableChange) {
	key := tableKey(c.Archetype, c.Sparse)
	t := s.Tables[key]
	if t != nil {
		s.bytes -= t.footprint()
	}
	defer func() {
		if t := s.Tables[key]; t != nil {
			s.bytes += t.footprint()
		}
	}()
	if t == nil {
		t = &StateTable{Archetype: c.Archetype, Sparse: c.Sparse, Components: slices.Clone(c.Components), Columns: make([]StateColumn, len(c.Columns))}
		s.Tables[key] = t
	}
	switch {
	case c.Entities != nil && s.owned: // into its own memory, which it reuses
		t.Entities = append(t.Entities[:0], c.Entities...)
	case c.Entities != nil:
		t.Entities = c.Entities
	}
	n := len(t.Entities)
	for j := range c.Columns {
		cc, col := &c.Columns[j], &t.Columns[j]
		same := col.Kind == cc.Kind && col.Size == cc.Size && cc.Kind == protocol.ColumnRaw
		if !same {
			col.Prev, col.Raw = nil, nil // nothing before to predict from
		}
		col.Kind, col.Size = cc.Kind, cc.Size
		col.Changed, col.Added = cc.Changed, cc.Added
		if s.owned {
			col.Changed, col.Added = nil, nil
		}
		switch {
		case cc.Kind == protocol.ColumnRaw && c.All && s.owned: // the old values become the ones before, the old ones before take the new
			old := col.Raw
			col.Raw, col.Values = append(col.Prev[:0], cc.Raw...), nil
			col.Prev = old[:min(len(old), len(cc.Raw))]
		case cc.Kind == protocol.ColumnRaw && c.All:
			col.Prev = col.Raw[:min(len(col.Raw), len(cc.Raw))]
			col.Raw, col.Values = cc.Raw, nil
		case cc.Kind == protocol.ColumnRaw:
			had := len(col.Raw) // rows past it had no value before this frame's
			col.Raw = resize(col.Raw, n*cc.Size)
			col.Prev = prevOf(col.Prev, col.Raw)
			for i, r := range cc.Changed {
				at, v := col.Raw[int(r)*cc.Size:int(r+1)*cc.Size], cc.Raw[i*cc.Size:(i+1)*cc.Size]
				if int(r+1)*cc.Size <= had {
					copy(col.Prev[int(r)*cc.Size:], at)
				} else {
					copy(col.Prev[int(r)*cc.Size:], v)
				}
				copy(at, v)
			}
		case c.All:
			col.Values, col.Raw = cc.Values, nil
		default:
			col.Values = resize(col.Values, n)
			for i, r := range cc.Changed {
				col.Values[r] = cc.Values[i]
			}
		}
	}
	if n == 0 {
		delete(s.Tables, key)
	}
}

// prevOf is prev as long as raw: a row it has no value before raw's for
// takes raw's (a prediction from it is then the last value). Prev may be
// shorter than Raw between frames (a frame covering every row leaves the
// old values as they were, no longer): a row past its end has its own
// value as the one before (prevBase), made real here only when a frame
// writes rows one by one.
func prevOf(prev, raw []byte) []byte {
	if len(prev) >= len(raw) {
		return prev[:len(raw)]
	}
	return append(prev, raw[len(prev):]...)
}

func resize[T any](s []T, n int) []T {
	if len(s) >= n {
		return s[:n]
	}
	return append(s, make([]T, n-len(s))...)
}

// valueBytes is what the state counts for a converted value.
const valueBytes = int64(unsafe.Sizeof(protocol.Value{}))

// footprint is the bytes a table holds, as the limits count them.
func (t *StateTable) footprint() int64 {
	n := 64 + 8*int64(len(t.Entities))
	for j := range t.Columns {
		n += int64(len(t.Columns[j].Raw)+len(t.Columns[j].Prev)) + valueBytes*int64(len(t.Columns[j].Values))
	}
	return n
}

// checkGrowth refuses changes that would take the state past its limits,
// before any is applied.
func (s *WorldState) checkGrowth(changes []TableChange) error {
	lim := s.Limits.OrDefault()
	bytes, tables := s.bytes, len(s.Tables)
	for i := range changes {
		c := &changes[i]
		old := s.Tables[tableKey(c.Archetype, c.Sparse)]
		n := int64(c.Len)
		after := 64 + 8*n
		for j := range c.Columns {
			switch c.Columns[j].Kind {
			case protocol.ColumnRaw:
				after += 2 * n * int64(c.Columns[j].Size) // the values and the ones before them

			default:
				after += n * valueBytes
			}
		}
		if old != nil {
			bytes -= old.footprint()
		} else if n > 0 {
			tables++
		}
		bytes += after
	}
	switch {
	case tables > lim.MaxTables:
		return fmt.Errorf("the world would hold %d tables, over the reader's limit of %d", tables, lim.MaxTables)
	case bytes > lim.MaxState:
		return fmt.Errorf("the world would hold %s, over the reader's limit of %s (a recording may rebuild at most 256 times its size)", protocol.ByteSize(bytes), protocol.ByteSize(lim.MaxState))
	}
	return nil
}

// decodeTable checks a table frame against the state and decodes it,
// charging what it allocates to budget.
func (s *WorldState) decodeTable(tf *protocol.TableFrame, c *TableChange, budget *protocol.AllocBudget) error {
	if tf.Len < 0 || tf.Len > protocol.MaxTableRows {
		return fmt.Errorf("%d rows", tf.Len)
	}
	if len(tf.Columns) != len(tf.Components) || len(tf.Components) > 256 {
		return fmt.Errorf("%d columns for %d components", len(tf.Columns), len(tf.Components))
	}
	if tf.Sparse && len(tf.Components) != 1 {
		return errors.New("a sparse table has one column")
	}
	old := s.Tables[tableKey(tf.Archetype, tf.Sparse)]
	if old != nil && !slices.Equal(old.Components, tf.Components) {
		return errors.New("its components changed")
	}
	*c = TableChange{Archetype: tf.Archetype, Sparse: tf.Sparse, Components: tf.Components, Len: tf.Len, All: tf.All}
	var oldEnts []protocol.EntityID
	if old != nil {
		oldEnts = old.Entities
	}
	if tf.Moved {
		if len(tf.Entities) != 8*tf.Len {
			return fmt.Errorf("%d bytes of entities for %d rows", len(tf.Entities), tf.Len)
		}
		if err := budget.Take(tf.Len, 16, "entities"); err != nil {
			return err
		}
		plain := make([]byte, len(tf.Entities))
		protocol.UndoPlanes(plain, tf.Entities, protocol.EntityBytes(oldEnts), 8)
		c.Entities = protocol.BytesEntities(plain)
	} else if len(oldEnts) != tf.Len {
		return fmt.Errorf("%d rows without moves, but %d before", tf.Len, len(oldEnts))
	}
	c.Columns = make([]ColumnChange, len(tf.Columns))
	for j := range tf.Columns {
		cf, cc := &tf.Columns[j], &c.Columns[j]
		var oldCol *StateColumn
		if old != nil {
			oldCol = &old.Columns[j]
		}
		if err := decodeColumn(cf, cc, oldCol, tf.Len, tf.All, budget); err != nil {
			return fmt.Errorf("column %d: %w", tf.Components[j], err)
		}
	}
	return nil
}

func decodeColumn(cf *protocol.ColumnFrame, cc *ColumnChange, old *StateColumn, n int, all bool, budget *protocol.AllocBudget) error {
	var err error
	if cc.Changed, err = protocol.DecodeRows(cf.Changed, n, budget); err != nil {
		return err
	}
	if cc.Added, err = protocol.DecodeRows(cf.Added, n, budget); err != nil {
		return err
	}
	cc.Kind, cc.Size = cf.Kind, cf.Size
	count := len(cc.Changed)
	if all {
		count = n
	}
	if !all && old != nil && (old.Kind != cf.Kind || old.Size != cf.Size) {
		return errors.New("its kind or size changed without every row")
	}
	switch cf.Kind {
	case protocol.ColumnRaw:
		if cf.Size < 0 || cf.Size > 1<<16 {
			return fmt.Errorf("values of %d bytes", cf.Size)
		}
		if !cf.Packed && len(cf.Raw) != count*cf.Size {
			return fmt.Errorf("%d bytes of values for %d values of %d bytes", len(cf.Raw), count, cf.Size)
		}
		if !all && old == nil && count > 0 {
			return errors.New("changed rows of a table not seen before")
		}
		if err := budget.Take(count*cf.Size, 1, "bytes of values"); err != nil {
			return err
		}
		cc.Raw = make([]byte, count*cf.Size)
		if (cf.Lane != 0 || cf.Packed) && cf.Size != 0 && ((cf.Lane != 4 && cf.Lane != 8) || cf.Size%int(cf.Lane) != 0) {
			return fmt.Errorf("values of %d bytes predicted in lanes of %d", cf.Size, cf.Lane)
		}
		switch {
		case cf.Size == 0:
		case cf.Packed:
			if err := protocol.UndoPacked(cc.Raw, cf.Raw, xorBase(old, cf.Size, cc.Changed, all), prevBase(old, cf.Size, cc.Changed, all), int(cf.Lane)); err != nil {
				return err
			}
		case cf.Lane != 0:
			protocol.UndoPredicted(cc.Raw, cf.Raw, xorBase(old, cf.Size, cc.Changed, all), prevBase(old, cf.Size, cc.Changed, all), cf.Size, int(cf.Lane))
		default:
			protocol.UndoPlanes(cc.Raw, cf.Raw, xorBase(old, cf.Size, cc.Changed, all), cf.Size)
		}
	case protocol.ColumnValues:
		if len(cf.Values) != count {
			return fmt.Errorf("%d values for %d rows", len(cf.Values), count)
		}
		if !all && old == nil && count > 0 {
			return errors.New("changed rows of a table not seen before")
		}
		cc.Values = cf.Values
	default:
		return fmt.Errorf("unknown column kind %d", cf.Kind)
	}
	return nil
}

// prevBase is the values before xorBase's, at the same rows, for a
// prediction: nil where the reader holds none; every row (all) may be
// shorter than the base, whose rows past it have no value before theirs
// (the prediction is then the base). A row past Prev's end has its own
// value as the one before (see prevOf).
func prevBase(old *StateColumn, size int, rows []int32, all bool) []byte {
	if old == nil || old.Kind != protocol.ColumnRaw || old.Size != size || old.Prev == nil {
		return nil
	}
	if all {
		return old.Prev
	}
	out := make([]byte, len(rows)*size)
	for i, r := range rows {
		switch end := int(r+1) * size; {
		case end <= len(old.Prev):
			copy(out[i*size:], old.Prev[int(r)*size:end])
		case end <= len(old.Raw):
			copy(out[i*size:], old.Raw[int(r)*size:end])
		}
	}
	return out
}

// xorBase is what a raw column's new values are XORed with: the values the
// reader holds at the same rows (every row, or the changed ones), when the
// column held raw values of the same size; nothing otherwise.
func xorBase(old *StateColumn, size int, rows []int32, all bool) []byte {
	if old == nil || old.Kind != protocol.ColumnRaw || old.Size != size {
		return nil
	}
	if all {
		return old.Raw
	}
	return protocol.Gather(old.Raw, rows, size)
}

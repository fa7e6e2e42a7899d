package protocol

import (
	"fmt"
	"unsafe"
)

// The hand decoder of a WorldBody's tables: their byte blobs (entities,
// row sets, raw values) are taken as slices of the decompressed body, not
// copied, which is most of what rebuilding a tick reads. The other keys go
// through the generic decoder. TestWorldBodyHandDecoder holds it to the
// struct tags.

// DecodeWorldBody decodes a checked body; passing skips the journal and
// the events.
func DecodeWorldBody(b []byte, body *WorldBody, passing bool, budget *AllocBudget) error {
	r := &reader{b: b}
	for range r.containerLen(true) {
		switch r.key() {
		case "sum":
			r.summary(&body.Summary)
		case "tb":
			n := r.list()
			if err := budget.Take(n, int(unsafe.Sizeof(TableFrame{})), "tables"); err != nil {
				return err
			}
			body.Tables = make([]TableFrame, n)
			for i := range body.Tables {
				r.tableFrame(&body.Tables[i], budget)
			}
		case "lk":
			r.generic(&body.Links)
		case "lks":
			body.LinksSet = r.boolean()
		case "lkc":
			r.generic(&body.LinksChanged)
		case "rsc":
			r.generic(&body.ResourcesChanged)
		case "jn":
			r.history(passing, &body.Journal)
		case "ev":
			r.history(passing, &body.Events)
		case "al":
			r.generic(&body.Alloc)
		case "dd": // read when passing too: a reader learns of every death on its way
			r.deadList(&body.Dead)
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return r.err
		}
	}
	if r.err == nil && r.pos != len(b) {
		return fmt.Errorf("protocol: %d bytes after the world body", len(b)-r.pos)
	}
	return r.err
}

// MaxDeadComponents bounds the components of one dead entity a frame
// carries: a kernel's entity holds at most 256.
const MaxDeadComponents = 256

// deadList decodes a frame's dead entities: at most MaxRecordedDead, each
// of at most MaxDeadComponents components; a frame that claims more is an
// error before they are decoded.
func (r *reader) deadList(out *[]DeadEntity) {
	n := r.list()
	if r.err == nil && n > MaxRecordedDead {
		r.fail(fmt.Errorf("%d dead entities in one frame, over %d", n, MaxRecordedDead))
	}
	if r.err != nil {
		return
	}
	*out = make([]DeadEntity, n)
	for i := range *out {
		d := &(*out)[i]
		for range r.containerLen(true) {
			switch r.key() {
			case "e":
				d.Entity = EntityID(r.uint())
			case "p":
				d.Parent = EntityID(r.uint())
			case "dd":
				r.generic(&d.Died)
			case "cs":
				m := r.list()
				if r.err == nil && m > MaxDeadComponents {
					r.fail(fmt.Errorf("a dead entity of %d components, over %d", m, MaxDeadComponents))
				}
				if r.err != nil {
					return
				}
				d.Components = make([]ComponentValue, m)
				for j := range d.Components {
					r.generic(&d.Components[j])
				}
			default:
				r.skipRaw()
			}
			if r.err != nil {
				return
			}
		}
	}
}

// history decodes the journal or events into v, or skips them when the
// reader passes the frame on the way to a later one.
func (r *reader) history(passing bool, v any) {
	if passing {
		r.skipRaw()
		return
	}
	r.generic(v)
}

func (r *reader) tableFrame(t *TableFrame, budget *AllocBudget) {
	for range r.containerLen(true) {
		switch r.key() {
		case "a":
			t.Archetype = uint32(r.uint())
		case "sp":
			t.Sparse = r.boolean()
		case "c":
			t.Components = r.ids()
		case "n":
			t.Len = int(r.value(1).Int())
		case "m":
			t.Moved = r.boolean()
		case "e":
			t.Entities = r.bin()
		case "all":
			t.All = r.boolean()
		case "cols":
			n := r.list()
			if err := budget.Take(n, int(unsafe.Sizeof(ColumnFrame{})), "columns"); err != nil {
				r.fail(err)
				return
			}
			t.Columns = make([]ColumnFrame, n)
			for i := range t.Columns {
				r.columnFrame(&t.Columns[i], budget)
			}
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

func (r *reader) columnFrame(c *ColumnFrame, budget *AllocBudget) {
	for range r.containerLen(true) {
		switch r.key() {
		case "k":
			c.Kind = uint8(r.uint())
		case "ch":
			c.Changed = r.bin()
		case "ad":
			c.Added = r.bin()
		case "sz":
			c.Size = int(r.value(1).Int())
		case "r":
			c.Raw = r.bin()
		case "pl":
			c.Lane = uint8(r.uint())
		case "pk":
			c.Packed = r.boolean()
		case "v":
			if n := r.list(); n > 0 {
				if err := budget.Take(n, int(unsafe.Sizeof(Value{})), "values"); err != nil {
					r.fail(err)
					return
				}
				c.Values = r.values(n)
				for i := range c.Values {
					c.Values[i] = r.value(1)
				}
			}
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// summary decodes a Summary: resources by hand (a world frame's are whole,
// and a resource may hold a large list), the rest generically.
func (r *reader) summary(s *Summary) {
	for range r.containerLen(true) {
		switch r.key() {
		case "sub":
			s.Sub = uint32(r.uint())
		case "t":
			s.Tick = r.uint()
		case "full":
			s.Full = r.boolean()
		case "ft":
			s.FrameNs = r.value(1).Int()
		case "wk":
			s.WorkNs = r.value(1).Int()
		case "ne":
			s.Entities = int(r.value(1).Int())
		case "pz":
			s.Paused = r.boolean()
		case "st":
			r.generic(&s.Stats)
		case "ar":
			r.generic(&s.Archetypes)
		case "cs":
			r.generic(&s.Components)
		case "sy":
			s.Systems = listOf(r, r.system)
		case "ev":
			r.generic(&s.Events)
		case "rs":
			n := r.list()
			s.Resources = make([]Resource, n)
			for i := range s.Resources {
				r.resource(&s.Resources[i])
			}
		case "rc":
			r.generic(&s.Recycled)
		case "wp":
			r.generic(&s.Watches)
		case "sa":
			r.generic(&s.Stale)
		case "dg":
			r.generic(&s.Dangling)
		case "hl":
			r.generic(&s.Halt)
		case "fr":
			s.Frames = listOf(r, r.frameStat)
		case "syt":
			s.SystemTails = listOf(r, r.system)
		case "frt":
			s.FrameTail = listOf(r, r.frameStat)
		case "ag":
			r.generic(&s.Agent)
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// system reads one system's timings: every summary carries them all, a
// UI reads ten summaries a second, and reflection made them its largest
// cost at rest.
func (r *reader) system(sys *System) {
	for range r.containerLen(true) {
		switch r.key() {
		case "n":
			sys.Name = r.str()
		case "st":
			sys.Stage = r.str()
		case "r":
			sys.Reads = listOf(r, func(s *string) { *s = r.str() })
		case "w":
			sys.Writes = listOf(r, func(s *string) { *s = r.str() })
		case "last":
			sys.Last = int64(r.int())
		case "mean":
			sys.Mean = int64(r.int())
		case "max":
			sys.Max = int64(r.int())
		case "cnt":
			sys.Count = r.uint()
		case "rec":
			sys.Recent = listOf(r, func(d *int64) { *d = int64(r.int()) })
		case "sk":
			sys.Skipped = r.uint()
		case "skr":
			sys.SkippedWhy = listOf(r, r.skipReason)
		case "ab":
			sys.AllocBytes = r.value(1).Float()
		case "ao":
			sys.AllocObjects = r.value(1).Float()
		case "ar":
			sys.AllocRuns = r.int()
		case "as":
			sys.AllocShared = r.int()
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// skipReason reads why a queued command was skipped.
func (r *reader) skipReason(sr *SkipReason) {
	for range r.containerLen(true) {
		switch r.key() {
		case "t":
			sr.Tick = r.uint()
		case "w":
			sr.Why = r.str()
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// frameStat reads one of the last frames' stats.
func (r *reader) frameStat(f *FrameStat) {
	for range r.containerLen(true) {
		switch r.key() {
		case "t":
			f.Tick = r.uint()
		case "ns":
			f.Ns = int64(r.int())
		case "w":
			f.Work = int64(r.int())
		case "gc":
			f.GC = r.int()
		case "gp":
			f.GCPauseNs = int64(r.int())
		case "e":
			f.Entities = r.int()
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// decodeBody reads a Summary message by hand (its sections as the world
// frames' summaries are read).
func (s *Summary) decodeBody(r *reader) error {
	*s = Summary{}
	r.summary(s)
	return r.err
}

func (r *reader) resource(res *Resource) {
	for range r.containerLen(true) {
		switch r.key() {
		case "n":
			res.Name = r.str()
		case "v":
			res.Value = r.value(1)
		case "fs":
			r.generic(&res.Fields)
		case "ty":
			r.generic(&res.Type)
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// bin reads a binary (or nil) as a slice of the input, not a copy.
func (r *reader) bin() []byte {
	c := r.byte()
	switch c {
	case 0xc0:
		return nil
	case 0xc4:
		return r.take(int(r.be(1)))
	case 0xc5:
		return r.take(int(r.be(2)))
	case 0xc6:
		return r.take(int(r.be(4)))
	}
	r.fail(fmt.Errorf("protocol: expected binary, got code 0x%02x", c))
	return nil
}

package graves

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The bounds of a Yard.
const (
	MaxGraves   = 4096    // entities kept, newest first
	MaxBytes    = 8 << 20 // bytes of values kept, about
	MaxPerFrame = 256     // entities kept from one frame's despawns
	// MinPerFrame is the despawns a frame keeps whatever its allowance.
	MinPerFrame = 4
	maxPartSize = 64 << 10
)

// Grave is what is kept of one despawned entity.
type Grave struct {
	Entity ecs.Entity
	Tick   uint64 // the frame it was despawned in (as the journal numbers it)
	By     string // who despawned it
	Parent ecs.Entity
	Parts  []Part
	bytes  int
	seq    uint64 // its number: the yard's graves count from 1
}

// Part is one component as the entity's despawn found it: its value,
// and the marks of its last write and add, named when read (Who).
type Part struct {
	Component      ecs.ComponentID
	Value          protocol.Value
	written, added uint32        // marks (ecs.Inspection.Marks)
	raw            reflect.Value // a copy, converted when first read; invalid once Value is set
	tooBig         reflect.Type  // the type of a value too big to keep: its note is made when read
	converted      bool
}

// Who names who wrote and who added e's component id from the marks its
// despawn found (ecs.Inspection.Marks), as the agent tells it (a rewind's
// own marks considered); nil where not known. It is asked when a grave is
// read, not at the despawn.
type Who func(e ecs.Entity, id ecs.ComponentID, written, added uint32) (w, a *protocol.Provenance)

// Yard keeps the graves. Its methods run on the game goroutine (the
// despawns of systems' commands and clients' edits are made there).
type Yard struct {
	w     *ecs.World
	who   Who
	ring  []*Grave // oldest first from head
	head  int
	n     int
	index map[ecs.Entity]*Grave
	bytes int
	// frame is the frame the last despawn belonged to, and taken the
	// graves kept from it; Missed counts the despawns not kept.
	frame  uint64
	taken  int
	Missed uint64
	// allow bounds the time one frame's burials take past MinPerFrame
	// (negative: no bound); spent is what this frame's took.
	allow, spent time.Duration
	// owed is the burials' time since TakeSpent last took it.
	owed  time.Duration
	seq   uint64           // the newest grave's number
	clock func() time.Time // time.Now; a test's own
}

// New makes a yard over w and starts keeping graves; who names writers.
func New(w *ecs.World, who Who) *Yard {
	y := &Yard{w: w, who: who, ring: make([]*Grave, MaxGraves), index: map[ecs.Entity]*Grave{}, allow: -1, clock: time.Now}
	w.Inspect().OnDespawn(y.bury)
	return y
}

// Allow bounds the time a frame's burials take past the first
// MinPerFrame (negative: only MaxPerFrame bounds them), from the next
// despawn on.
func (y *Yard) Allow(d time.Duration) { y.allow = d }

// TakeSpent is the time burials took since it was last called: what the
// agent's upkeep counts against the frame's share.
func (y *Yard) TakeSpent() time.Duration {
	d := y.owed
	y.owed = 0
	return d
}

// bury keeps e's last state, if the frame's bounds allow.
func (y *Yard) bury(e ecs.Entity, frame uint64, by string) {
	if frame != y.frame {
		y.frame, y.taken, y.spent = frame, 0, 0
	}
	if y.taken >= MaxPerFrame || y.taken >= MinPerFrame && y.allow >= 0 && y.spent >= y.allow {
		y.Missed++
		return
	}
	y.taken++
	start := y.clock()
	defer func() {
		took := y.clock().Sub(start)
		y.spent += took
		y.owed += took
	}()
	g := &Grave{Entity: e, Tick: frame, By: by}
	if p, ok := y.w.Parent(e); ok {
		g.Parent = p
	}
	ins := y.w.Inspect()
	ids := ins.ComponentsOf(e)
	g.Parts = make([]Part, 0, len(ids))
	vals := make([]reflect.Value, len(ids))
	// Plain values (no pointers, strings included: the block is memory
	// the collector does not scan) are copied into one block for the
	// entity: a despawn costs a few allocations, not a few per component.
	room := 0
	for i, id := range ids {
		if v, ok := ins.Value(e, id); ok {
			vals[i] = v
			if values.PointerFree(v.Type()) {
				room += int(v.Type().Size()) + 8 // aligned below
			}
		}
	}
	plain := make([]byte, room)
	at := 0
	for i, id := range ids {
		v := vals[i]
		if !v.IsValid() {
			continue
		}
		part := Part{Component: id}
		part.written, part.added, _ = ins.Marks(e, id)
		t := v.Type()
		switch {
		case values.PointerFree(t):
			at = (at + 7) &^ 7
			c := reflect.NewAt(t, unsafe.Pointer(unsafe.SliceData(plain[at:]))).Elem()
			c.Set(v)
			part.raw = c
			at += int(t.Size())
			g.bytes += int(t.Size()) + 64
		default:
			// Checked before anything is copied: a component that holds a
			// big slice (or shares one) costs its despawn the check only.
			size, fits := values.Fits(v, maxPartSize, 256)
			switch {
			case fits:
				part.raw = values.Clone(v)
			default: // too big: a line that names its type in its place, made when read
				part.tooBig = t
				size = 64
			}
			g.bytes += int(size) + 64
		}
		g.Parts = append(g.Parts, part)
	}
	y.keep(g)
}

// keep adds g, letting the oldest graves go past the bounds.
func (y *Yard) keep(g *Grave) {
	for y.n > 0 && (y.n == len(y.ring) || y.bytes+g.bytes > MaxBytes) {
		y.drop()
	}
	y.seq++
	g.seq = y.seq
	y.ring[(y.head+y.n)%len(y.ring)] = g
	y.n++
	y.bytes += g.bytes
	y.index[g.Entity] = g
}

// drop lets the oldest grave go.
func (y *Yard) drop() {
	old := y.ring[y.head]
	y.ring[y.head] = nil
	y.head = (y.head + 1) % len(y.ring)
	y.n--
	y.bytes -= old.bytes
	if y.index[old.Entity] == old {
		delete(y.index, old.Entity)
	}
}

// Find is the last state of e (this handle exactly), if kept.
func (y *Yard) Find(e ecs.Entity) (protocol.DeadEntity, bool) {
	g, ok := y.index[e]
	if !ok {
		return protocol.DeadEntity{}, false
	}
	return y.dead(g), true
}

// Since is the graves dug after the one numbered after, newest last (at
// most protocol.MaxRecordedDead: the newest), as a stream's frame carries
// them, and the newest's number: what a recording's next frame holds.
func (y *Yard) Since(after uint64) ([]protocol.DeadEntity, uint64) {
	if y.seq == after {
		return nil, after
	}
	k := min(int(y.seq-after), y.n, protocol.MaxRecordedDead)
	out := make([]protocol.DeadEntity, 0, k)
	for i := y.n - k; i < y.n; i++ {
		out = append(out, y.dead(y.ring[(y.head+i)%len(y.ring)]))
	}
	return out, y.seq
}

// Each calls fn with every grave kept, oldest first, until fn returns
// false: the last states without who wrote them (Find has those).
func (y *Yard) Each(fn func(protocol.DeadEntity) bool) {
	for i := range y.n {
		if !fn(y.state(y.ring[(y.head+i)%len(y.ring)], false)) {
			return
		}
	}
}

// dead is g as the protocol carries it.
func (y *Yard) dead(g *Grave) protocol.DeadEntity { return y.state(g, true) }

// state is g as the protocol carries it, with who wrote and added each
// component when who is true (the writer log's lookups: not for a search
// through every grave).
func (y *Yard) state(g *Grave, who bool) protocol.DeadEntity {
	g.convert()
	de := protocol.DeadEntity{Entity: values.Handle(g.Entity), Died: protocol.Provenance{Tick: g.Tick, By: g.By}, Parent: values.Handle(g.Parent)}
	for _, p := range g.Parts {
		cv := protocol.ComponentValue{Component: y.w.Inspect().Component(p.Component).Short, Value: p.Value}
		if who {
			cv.Written, cv.Added = y.who(g.Entity, p.Component, p.written, p.added)
		}
		de.Components = append(de.Components, cv)
	}
	return de
}

// convert converts the parts' values kept as copies.
func (g *Grave) convert() {
	for i := range g.Parts {
		p := &g.Parts[i]
		switch {
		case p.converted:
		case p.tooBig != nil:
			p.Value, p.converted = protocol.StringValue(values.NotKeptPrefix+p.tooBig.String()+": over the 64 KiB or 256 parts a grave keeps of one value"), true
		default:
			p.Value, p.converted, p.raw = values.Of(p.raw), true, reflect.Value{}
		}
	}
}

// Seq is the newest grave's number (0: none yet).
func (y *Yard) Seq() uint64 { return y.seq }

// Len is the graves kept, and their bytes.
func (y *Yard) Len() (graves, bytes int) { return y.n, y.bytes }

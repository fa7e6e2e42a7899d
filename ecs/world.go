package ecs

import (
	"math"
	"reflect"
	"sync"
	"sync/atomic"
)

// World holds entities, their components and the queries over them. A World is
// not safe for concurrent structural changes; queries may run concurrently when
// they touch disjoint components (the schedule arranges that).
type World struct {
	reg     registry
	stamps  stampState // which components keep change stamps (tracking.go)
	records []entityRecord
	free    []uint32 // free slots, most recently freed last
	// freeLow is the lowest length the free list had since the last
	// capture (by any capturer), and freeLows the same for the periods
	// before the captures that closed them, by capture number: a capture
	// keeps the free-list entries below the lowest since its capturer's
	// previous one, which no pop touched (capture.go). Pops lower it;
	// pushes, every despawn, cost nothing.
	freeLow  int
	freeLows [freeLowsKept]int
	captures uint64      // captures taken, by every capturer
	recycled recycledTop // the most reused slots, kept as slots are freed
	alive    int
	retired  int

	tables   []*table
	capacity int // rows a new table makes room for (Capacity)
	byMask   map[Mask]uint32
	sparse   []sparseStore // by ComponentID; nil for table components
	// colIndexes are the column indexes Maps read, by ComponentID; nil
	// where no Map asked (colindex.go).
	colIndexes []tableIndex

	caches     []*queryCache
	cacheByKey map[filterKey]*queryCache
	batch      batchScratch // the tables a batch operation visits (batch.go)
	spawnMemo  idsTable     // the table SpawnIDs found last (spawnids.go)
	// changeReaders lists, per component watched by a Changed query, those
	// queries; the component's columns keep change logs (changelog.go).
	changeReaders map[ComponentID]*changeReaders

	changeStamp atomic.Uint32 // advanced by each query run
	locks       atomic.Int32  // queries iterating now, and batch inits running
	batchInits  atomic.Int32  // batch spawn init callbacks running (each holds a lock too)
	inSystems   atomic.Int32  // a schedule stage is running: structural changes panic

	frame     uint64 // frames completed: advanced by Tick
	cmds      *Commands
	reserve   reservation
	resources map[reflect.Type]any
	// resourceFields caches each resource type's schema for Resources.
	resourceFields map[reflect.Type][]Field
	events         []eventQueue
	eventsByType   map[reflect.Type]eventQueue
	// rels is each relation kind's index, by component id (nil: not a
	// relation); relKinds lists them; relMask has the table ones;
	// sparseRelations says whether a sparse type is one (relations.go).
	rels            []*relIndex
	relKinds        []*relIndex
	relMask         Mask
	sparseRelations bool
	// aimMask has the aimed relation kinds; byAim finds their tables by
	// mask and targets, retiredTables those free again, by mask; aimBuf
	// and aimIDs are tableAimed's scratch (aimed.go).
	aimMask       Mask
	byAim         map[aimKey][]uint32
	retiredTables map[Mask][]uint32
	aimBuf        []Entity
	aimIDs        []ComponentID
	links         uint64            // counts changes to ChildOf's links
	journal       journal           // the structural journal; off while its ring is empty
	actor         uint16            // who makes structural changes now: an index into actors
	tool          bool              // a tool's change (ActAs): it belongs to the frame shown (changeFrame)
	actors        []string          // names for the journal: "external", "commands", systems
	actorIndex    map[string]uint16 // actors by name; built on first use
	writers       writerLog         // who wrote what: the ticks of each run (writers.go)
	stale         staleAudit        // uses of dead handles (audit.go)
	deaths        deathNotes        // who despawned each slot last, while a tool asks (death.go)
	actorsMu      sync.Mutex
}

// entityRecord is where a slot's entity lives; table == deadTable for a free
// or retired slot.
type entityRecord struct {
	gen     uint32
	table   uint32
	row     uint32
	nsparse uint16 // how many sparse components the entity has
	flags   uint16 // flagTarget
}

const deadTable = math.MaxUint32

// WorldOption sets up a world NewWorld makes.
type WorldOption func(*World)

// Capacity makes room for n entities in the world and n rows in each
// table when it is made, so that a world of about that size grows nothing
// while it fills (as ark's NewWorld(n) does). Without it tables start
// small and double.
func Capacity(n int) WorldOption {
	return func(w *World) {
		w.capacity = max(n, 0)
		w.growRecords(w.capacity)
	}
}

// NewWorld returns an empty world.
func NewWorld(opts ...WorldOption) *World {
	w := &World{
		reg:            registry{byType: map[reflect.Type]ComponentID{}},
		byMask:         map[Mask]uint32{},
		byAim:          map[aimKey][]uint32{},
		retiredTables:  map[Mask][]uint32{},
		cacheByKey:     map[filterKey]*queryCache{},
		changeReaders:  map[ComponentID]*changeReaders{},
		resources:      map[reflect.Type]any{},
		resourceFields: map[reflect.Type][]Field{},
		eventsByType:   map[reflect.Type]eventQueue{},
		actors:         []string{"external"},
		recycled:       recycledTop{floor: notKept},
	}
	w.changeStamp.Store(1)
	// A debug build's check for undeclared writes reads every stamp.
	w.stamps.all.Store(debugChecks)
	for _, o := range opts {
		o(w)
	}
	w.tables = append(w.tables, newTable(0, Mask{}, &w.reg, &w.stamps))
	if w.capacity > 0 {
		w.tables[0].reserve(w.capacity)
	}
	w.byMask[Mask{}] = 0
	w.cmds = w.NewCommands("commands")
	ComponentIDOf[ChildOf](w) // id 0, see relations.go
	return w
}

// Tick ends a frame: it applies the world's own command buffer
// ([World.Commands]), swaps every event queue (events sent this frame stay
// readable one more frame) and advances the frame counter. A game loop is
//
//	for running {
//		schedule.Run(w)
//		w.Tick()
//	}
//
// It returns the error of applying the commands, if any. Panics if a query
// is iterating.
func (w *World) Tick() error {
	err := w.cmds.Apply()
	if debugChecks {
		w.checkRelations()
	}
	for _, q := range w.events {
		q.swap()
	}
	w.frame++
	w.syncJournal()
	return err
}

// Frame is the number of frames completed: how many times Tick has run.
func (w *World) Frame() uint64 { return w.frame }

// changeFrame is the frame a change made now belongs to, as the journal,
// the writer log and the stale audit number it: the first frame whose end
// shows it. The game's own changes (systems, their commands, its code
// between frames) belong to the frame in progress, Frame()+1; a tool's,
// made through [Inspection.ActAs] while the game waits between frames, to
// Frame(), the state the tool shows.
func (w *World) changeFrame() uint64 {
	if w.tool {
		return w.frame
	}
	return w.frame + 1
}

// Len is the number of live entities.
func (w *World) Len() int { return w.alive }

// CheckAlive returns nil if e is alive, or an [*EntityError] saying why not:
// stale (and what the slot holds now), never issued, or retired.
func (w *World) CheckAlive(e Entity) error {
	if _, ok := w.record(e); ok {
		return nil
	}
	return w.deadError(e)
}

// Alive reports whether e names a live entity of w.
func (w *World) Alive(e Entity) bool {
	_, ok := w.record(e)
	return ok
}

// Spawn creates an entity with no components. Panics if a query is iterating.
func (w *World) Spawn() Entity {
	w.checkUnlocked("Spawn")
	e, _, _, _ := w.spawnRow(w.tables[0])
	return e
}

// Despawn removes e and every component it has, from tables and sparse sets
// alike, and frees its slot for reuse under a new generation. It returns an
// [*EntityError] if e is not alive. Panics if a query is iterating.
func (w *World) Despawn(e Entity) error {
	w.checkUnlocked("Despawn")
	return w.despawn(e)
}

// despawn is Despawn once the caller has checked that no query iterates.
func (w *World) despawn(e Entity) error {
	rec, ok := w.record(e)
	if !ok {
		return w.entityError(e)
	}
	w.lastLook(e)
	if w.hasRelations(rec) {
		w.unlinkForDespawn(e)
	}
	if rec.nsparse > 0 {
		for _, s := range w.sparse {
			if s != nil && s.remove(e) {
				rec.nsparse--
				if rec.nsparse == 0 {
					break
				}
			}
		}
	}
	w.removeRow(w.tables[rec.table], int(rec.row))
	w.freeEntity(e)
	w.logStructural(OpDespawn, e, NoComponent)
	return nil
}

// Has reports whether e is alive and has the component id.
func (w *World) Has(e Entity, id ComponentID) bool {
	rec, ok := w.record(e)
	if !ok || int(id) >= len(w.sparse) {
		return false
	}
	if s := w.sparse[id]; s != nil {
		return s.has(e)
	}
	return w.tables[rec.table].mask.Has(id)
}

// inspectComponents is [Inspection.Components].
func (w *World) inspectComponents() []ComponentInfo {
	out := make([]ComponentInfo, len(w.reg.regs))
	for i := range w.reg.regs {
		out[i] = w.reg.regs[i].info
	}
	return out
}

// inspectComponent is [Inspection.Component].
func (w *World) inspectComponent(id ComponentID) ComponentInfo {
	return w.reg.regs[id].info
}

// inspectComponentByName is [Inspection.ComponentByName].
func (w *World) inspectComponentByName(name string) (ComponentInfo, bool) {
	for i := range w.reg.regs {
		if in := &w.reg.regs[i].info; in.Name == name || in.Short == name {
			return *in, true
		}
	}
	return ComponentInfo{}, false
}

// inspectComponentsOf is [Inspection.ComponentsOf].
func (w *World) inspectComponentsOf(e Entity) []ComponentID {
	rec, ok := w.record(e)
	if !ok {
		return nil
	}
	m := w.tables[rec.table].mask
	if rec.nsparse > 0 {
		for id, s := range w.sparse {
			if s != nil && s.has(e) {
				m.Set(ComponentID(id))
			}
		}
	}
	return m.IDs()
}

// inspectAddID is [Inspection.AddID].
func (w *World) inspectAddID(e Entity, id ComponentID) error {
	rec, err := w.changing("Add", e)
	if err != nil {
		return err
	}
	if ri := w.relation(id); ri != nil {
		return errRelationDirect(ri.short)
	}
	if s := w.sparse[id]; s != nil {
		if s.addZero(e, w.writeStamp()) {
			rec.nsparse++
			w.logStructural(OpAdd, e, int(id))
		}
		return nil
	}
	w.moveTo(e, rec, w.tableWith(rec.table, id))
	return nil
}

// inspectRemoveID is [Inspection.RemoveID].
func (w *World) inspectRemoveID(e Entity, id ComponentID) error {
	rec, err := w.changing("Remove", e)
	if err != nil {
		return err
	}
	if ri := w.relation(id); ri != nil {
		w.unrelate(e, rec, ri)
		return nil
	}
	if s := w.sparse[id]; s != nil {
		if s.remove(e) {
			rec.nsparse--
			w.logStructural(OpRemove, e, int(id))
		}
		return nil
	}
	w.moveTo(e, rec, w.tableWithout(rec.table, id))
	return nil
}

// Reserve makes room for n more entities with the given table components, so
// that spawning them grows nothing.
func (w *World) Reserve(n int, ids ...ComponentID) {
	var m Mask
	for _, id := range ids {
		if w.sparse[id] == nil {
			m.Set(id)
		}
	}
	w.tables[w.tableFor(m)].reserve(n)
	w.reserveRecords(n)
}

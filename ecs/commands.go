package ecs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// Commands queues structural changes (spawn, despawn, add, set, remove,
// parent changes) to apply later, in the order queued, at a sync point: the
// end of a schedule stage, [World.Tick], or an explicit [Commands.Apply]. Use
// it wherever changing the world directly is not allowed: inside a query loop
// or inside a system running in parallel. Spawn hands out the entity handle
// at once, so later commands in the same buffer can refer to it.
//
// A Commands is for one goroutine at a time; give each system its own (the
// [Schedule] does).
type Commands struct {
	w       *World
	owner   uint16 // the journal's System for the changes applied
	ops     []command
	vals    []valueBuffer // by ComponentID
	parents []Entity      // parents of queued SetParent commands
	batches []queuedBatch // filters and components of queued batch commands
	// exchangeIDs are the components queued exchanges remove, one after
	// another in the order of their commands, and exchangeEnds where each
	// command's end; exchanged counts those applied so far. Flat: a state
	// switch a frame per entity queues no allocation.
	exchangeIDs  []ComponentID
	exchangeEnds []int32
	exchanged    int
	relates      []func(*World) error // queued relations (RelateLater), by slot
	spare        []Entity             // reserved handles not yet used
	epoch        uint32               // the world's restore count when spare was reserved
	opsRoom      roomKeeper
}

type cmdKind uint8

const (
	cmdSpawn cmdKind = iota
	cmdDespawn
	cmdDespawnRecursive
	cmdAdd
	cmdSet
	cmdRemove
	cmdSetParent
	cmdClearParent
	cmdDespawnWhere
	cmdExchangeWhere
	cmdExchange
	cmdRelate
)

// queuedBatch is a batch command's filter and components.
type queuedBatch struct {
	f           Filter
	add, remove []ComponentID
}

// command is 16 bytes: a large buffer stays small in cache.
type command struct {
	e    Entity
	slot int32 // index of the value in vals[id], or of the parent in parents
	kind cmdKind
	id   ComponentID
}

// valueBuffer holds the queued values of one component type.
type valueBuffer interface {
	apply(w *World, e Entity, slot int32, set bool) error
	exchange(e Entity, slot int32, remove []ComponentID) error
	reset()
}

type values[T any] struct {
	m    *Map[T]
	vals []T
	room roomKeeper
}

func (v *values[T]) apply(w *World, e Entity, slot int32, set bool) error {
	if set {
		return v.m.Set(e, v.vals[slot])
	}
	return v.m.Add(e, v.vals[slot])
}

func (v *values[T]) exchange(e Entity, slot int32, remove []ComponentID) error {
	return v.m.Exchange(e, v.vals[slot], remove...)
}

func (v *values[T]) reset() {
	if keep := v.room.keep(len(v.vals), cap(v.vals)); keep > 0 {
		v.vals = make([]T, 0, keep)
		return
	}
	clear(v.vals)
	v.vals = v.vals[:0]
}

// NewCommands returns an empty command buffer for w; owner names it in the
// structural journal (a system's name, say).
func (w *World) NewCommands(owner string) *Commands {
	return &Commands{w: w, owner: w.actorID(owner)}
}

// Commands returns the world's own command buffer, applied by [World.Tick].
func (w *World) Commands() *Commands { return w.cmds }

// push queues one command, written field by field in place (a struct built
// on the stack and copied in stalls store forwarding).
func (c *Commands) push(kind cmdKind, e Entity, id ComponentID, slot int32) {
	if len(c.ops) == cap(c.ops) {
		c.ops = append(c.ops, command{})[:len(c.ops)]
	}
	c.ops = c.ops[:len(c.ops)+1]
	op := &c.ops[len(c.ops)-1]
	op.e, op.slot, op.kind, op.id = e, slot, kind, id
}

// Len is how many commands are queued.
func (c *Commands) Len() int { return len(c.ops) }

// Spawn queues the spawn of an empty entity and returns its handle, usable
// in later commands of this buffer; it is alive once applied.
func (c *Commands) Spawn() Entity {
	if c.epoch != c.w.reserve.epoch { // a Restore since: those handles name slots of another timeline
		c.spare, c.epoch = c.spare[:0], c.w.reserve.epoch
	}
	if len(c.spare) == 0 {
		c.spare = c.w.reserveEntities(c.spare, reserveBatch)
	}
	e := c.spare[len(c.spare)-1]
	c.spare = c.spare[:len(c.spare)-1]
	c.push(cmdSpawn, e, 0, 0)
	return e
}

// DespawnWhere queues [World.DespawnWhere]: the filter is applied when the
// buffer is, to the world as it is then.
func (c *Commands) DespawnWhere(f Filter) { c.pushBatch(cmdDespawnWhere, queuedBatch{f: f}) }

// ExchangeWhere queues [World.ExchangeWhere] (AddWhere and RemoveWhere are
// an exchange with one list empty); the filter is applied when the buffer
// is, to the world as it is then.
func (c *Commands) ExchangeWhere(f Filter, add, remove []ComponentID) {
	c.pushBatch(cmdExchangeWhere, queuedBatch{f: f, add: slices.Clone(add), remove: slices.Clone(remove)})
}

func (c *Commands) pushBatch(kind cmdKind, b queuedBatch) {
	c.batches = append(c.batches, b)
	c.push(kind, Entity{}, 0, int32(len(c.batches)-1))
}

// Despawn queues the despawn of e; its children are orphaned.
func (c *Commands) Despawn(e Entity) { c.push(cmdDespawn, e, 0, 0) }

// DespawnRecursive queues the despawn of e and its whole subtree of children.
func (c *Commands) DespawnRecursive(e Entity) {
	c.push(cmdDespawnRecursive, e, 0, 0)
}

// SetParent queues making child a child of parent (see [World.SetParent]).
func (c *Commands) SetParent(child, parent Entity) {
	c.parents = append(c.parents, parent)
	c.push(cmdSetParent, child, 0, int32(len(c.parents)-1))
}

// ClearParent queues making child a root again.
func (c *Commands) ClearParent(child Entity) {
	c.push(cmdClearParent, child, 0, 0)
}

func queueValue[T any](c *Commands, kind cmdKind, e Entity, v T) {
	id, ok := c.w.reg.lookup(reflect.TypeFor[T]())
	if !ok {
		id = ComponentIDOf[T](c.w)
	}
	for int(id) >= len(c.vals) {
		c.vals = append(c.vals, nil)
	}
	buf, _ := c.vals[id].(*values[T])
	if buf == nil {
		buf = &values[T]{m: NewMap[T](c.w)}
		c.vals[id] = buf
	}
	buf.vals = append(buf.vals, v)
	c.push(kind, e, id, int32(len(buf.vals)-1))
}

// AddLater queues giving e the component T with value v (overwriting the
// value if e already has T).
func AddLater[T any](c *Commands, e Entity, v T) { queueValue(c, cmdAdd, e, v) }

// SetLater queues overwriting e's T with v; applying it fails if e lacks T.
func SetLater[T any](c *Commands, e Entity, v T) { queueValue(c, cmdSet, e, v) }

// RemoveLater queues taking T away from e.
func RemoveLater[T any](c *Commands, e Entity) {
	id, ok := c.w.reg.lookup(reflect.TypeFor[T]())
	if !ok {
		id = ComponentIDOf[T](c.w)
	}
	c.push(cmdRemove, e, id, 0)
}

// Apply carries out the queued commands in order and empties the buffer. A
// command that cannot be carried out (its entity was despawned by an earlier
// command, say) is skipped; Apply returns an error listing what was skipped.
// A [Schedule] counts each system's skipped commands, and those that found
// nothing to do (a remove of a component the entity does not have), in
// [SystemInfo.Skipped].
// Panics if a query is iterating.
func (c *Commands) Apply() error {
	skipped, idle, all := c.apply()
	skipped -= idle // a change that found nothing to do is not an error here
	var errs []error
	for _, err := range all {
		if !errors.Is(err, errNothingToDo) {
			errs = append(errs, err)
		}
	}
	if skipped == 0 {
		return nil
	}
	if skipped > len(errs) {
		errs = append(errs, fmt.Errorf("and %d more", skipped-len(errs)))
	}
	return fmt.Errorf("ecs: %d queued commands skipped: %w", skipped, errors.Join(errs...))
}

// apply is Apply: it returns how many commands were skipped, how many of
// those found nothing to do (errNothingToDo), and the reasons of the
// first eight; a Schedule counts them all.
func (c *Commands) apply() (skipped, idle int, errs []error) {
	w := c.w
	w.checkUnlocked("Commands.Apply")
	if len(c.ops) == 0 {
		c.keepRoom()
		return 0, 0, nil
	}
	defer w.actingAs(c.owner, true).end()
	tick := w.writeStamp() // no query runs while Apply does: one tick for all
	for i := 0; i < len(c.ops); i++ {
		op := &c.ops[i]
		var err error
		switch op.kind {
		case cmdSpawn: // a run of spawns takes its rows at once
			run := i + 1
			for run < len(c.ops) && c.ops[run].kind == cmdSpawn {
				run++
			}
			w.spawnReservedRun(c.ops[i:run], tick)
			i = run - 1
		case cmdDespawn:
			err = w.despawn(op.e)
		default:
			err = c.applyOther(op)
		}
		if err != nil {
			skipped++
			if errors.Is(err, errNothingToDo) {
				idle++
			}
			if len(errs) < 8 {
				errs = append(errs, err)
			}
		}
	}
	c.keepRoom()
	c.parents = c.parents[:0]
	c.exchangeIDs, c.exchangeEnds, c.exchanged = c.exchangeIDs[:0], c.exchangeEnds[:0], 0
	clear(c.relates)
	c.relates = c.relates[:0]
	clear(c.batches) // their filters may hold closures
	c.batches = c.batches[:0]
	if len(c.spare) > 0 && c.epoch == w.reserve.epoch {
		// The handles reserved and not used go back to the free list, in
		// the order they would have been handed out: between frames the
		// free list is the whole of what the next spawns get (an Image
		// holds it), and a buffer's next Spawn takes the same handle.
		w.reserve.mu.Lock()
		for _, e := range c.spare {
			w.pushFree(e.index)
		}
		w.reserve.mu.Unlock()
	}
	c.spare = c.spare[:0]
	return skipped, idle, errs
}

// keepRoom empties the buffer after an apply, giving back the room of a
// burst long past (roomKeeper).
func (c *Commands) keepRoom() {
	if keep := c.opsRoom.keep(len(c.ops), cap(c.ops)); keep > 0 {
		c.ops = make([]command, 0, keep)
	}
	c.ops = c.ops[:0]
	for _, b := range c.vals {
		if b != nil {
			b.reset()
		}
	}
}

// errNothingToDo marks a queued change that found nothing to change: not
// an error of Apply's, but counted as skipped by a Schedule.
var errNothingToDo = errors.New("nothing to do")

// applyOther applies the commands Apply does not handle inline.
func (c *Commands) applyOther(op *command) error {
	w := c.w
	switch op.kind {
	case cmdDespawnRecursive:
		return w.DespawnRecursive(op.e)
	case cmdAdd, cmdSet:
		return c.vals[op.id].apply(w, op.e, op.slot, op.kind == cmdSet)
	case cmdRelate:
		return c.relates[op.slot](w)
	case cmdExchange:
		start := int32(0)
		if c.exchanged > 0 {
			start = c.exchangeEnds[c.exchanged-1]
		}
		remove := c.exchangeIDs[start:c.exchangeEnds[c.exchanged]]
		c.exchanged++
		if w.Alive(op.e) {
			for _, id := range remove {
				if !w.Has(op.e, id) {
					// A switch from a state the entity is no longer in
					// (another system switched it first): carried out, it
					// would leave the entity in two states.
					return fmt.Errorf("ecs: %v has no %s to exchange away: %w", op.e, w.reg.regs[id].info.Short, errNothingToDo)
				}
			}
		}
		return c.vals[op.id].exchange(op.e, op.slot, remove)
	case cmdRemove:
		if w.Alive(op.e) && !w.Has(op.e, op.id) {
			// Nothing to remove: not harmful, but a queued change that did
			// nothing, as when two systems switch one entity's state in
			// one stage.
			return fmt.Errorf("ecs: %v has no %s to remove: %w", op.e, w.reg.regs[op.id].info.Short, errNothingToDo)
		}
		return w.Inspect().RemoveID(op.e, op.id)
	case cmdSetParent:
		return w.SetParent(op.e, c.parents[op.slot])
	case cmdDespawnWhere:
		w.despawnWhere(&c.batches[op.slot].f)
		return nil
	case cmdExchangeWhere:
		b := &c.batches[op.slot]
		_, err := w.exchangeWhere(&b.f, nil, b.add, b.remove, nil)
		return err
	default:
		return w.ClearParent(op.e)
	}
}

// reserveBatch is how many handles a command buffer reserves at a time, so
// that the lock is taken once per batch, not per spawn.
const reserveBatch = 64

// reservation hands out entity slots to command buffers, possibly from
// several goroutines, without touching the entity records: a reserved slot
// is either popped from the free list or numbered past the records, and
// becomes a record when its spawn is applied.
type reservation struct {
	mu      sync.Mutex
	pending int    // slots numbered past len(records), not yet recorded
	epoch   uint32 // counts Restores: command buffers drop handles reserved before one
}

func (w *World) reserveEntities(out []Entity, n int) []Entity {
	r := &w.reserve
	r.mu.Lock()
	defer r.mu.Unlock()
	for ; n > 0 && len(w.free) > 0; n-- {
		idx := w.free[len(w.free)-1]
		w.free = w.free[:len(w.free)-1]
		w.freeLow = min(w.freeLow, len(w.free))
		out = append(out, Entity{index: idx, gen: w.records[idx].gen})
	}
	for ; n > 0; n-- {
		out = append(out, Entity{index: uint32(len(w.records) + r.pending), gen: 1})
		r.pending++
	}
	return out
}

// recordPending turns slots reserved past the records into records, so a
// direct spawn does not take a number a command buffer holds.
func (w *World) recordPending() {
	w.reserve.mu.Lock()
	defer w.reserve.mu.Unlock()
	if need := len(w.records) + w.reserve.pending; need > cap(w.records) {
		w.growRecords(need)
	}
	for ; w.reserve.pending > 0; w.reserve.pending-- {
		w.records = append(w.records, entityRecord{gen: 1, table: deadTable})
	}
}

// spawnReservedRun makes the reserved handles of a run of spawn commands
// live, empty entities: the empty table grows once for the run.
func (w *World) spawnReservedRun(ops []command, tick uint32) {
	if w.reserve.pending > 0 {
		w.recordPending()
	}
	t := w.tables[0]
	first := t.pushN(len(ops), tick)
	ents := t.entities[first : first+len(ops)]
	recs := w.records
	for k := range ops {
		e := ops[k].e
		ents[k] = e
		rec := &recs[e.index]
		rec.table, rec.row = 0, uint32(first+k)
		w.logStructural(OpSpawn, e, NoComponent)
	}
	w.alive += len(ops)
}

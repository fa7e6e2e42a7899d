package ecs

import "reflect"

// Inspection is the world as tools see it: the inspector's reflection and
// observation API (components and values by id, dynamic edits, scans and
// copies, change stamps, the journal, provenance, the stale-handle audit,
// captures), kept apart from the game's API so a game's autocomplete shows
// what a game calls. Get it with [World.Inspect]; it is a view of the
// world, not a copy, and follows the world's rules (the game goroutine,
// no structural change while a query iterates).
//
//	in := w.Inspect()
//	for _, c := range in.Components() { fmt.Println(c.Name, c.Size) }
//	v, _ := in.Value(e, id)
type Inspection struct{ w *World }

// Inspect returns the world's inspection API.
func (w *World) Inspect() Inspection { return Inspection{w: w} }

// The inspection API, one documented delegate per method; each does its
// work in the file of its topic (values, scans and copies in dynamic.go
// and observe.go, the journal in journal.go, ...).

// EnableDeathNotes turns on or off the note, per slot, of who despawned
// its entity (the system, or its commands' owner), for DeathOf. It costs
// two bytes a slot while on.
func (ins Inspection) EnableDeathNotes(on bool) { ins.w.inspectEnableDeathNotes(on) }

// OnDespawn asks that f be called for every entity about to be despawned,
// on the goroutine that despawns it, while it is still whole: its
// components readable with Value and LastWrite. frame is the frame the
// despawn belongs to (as the journal numbers it) and by who despawns it
// (the system, its commands' owner, or a tool's actor). f must not change
// the world, and should be quick: a batch despawn calls it once per
// entity. nil stops the calls.
func (ins Inspection) OnDespawn(f func(e Entity, frame uint64, by string)) {
	ins.w.inspectOnDespawn(f)
}

// DeathOf says when e's entity was despawned (the frame in progress then,
// as the journal counts it)
// and by whom (while death notes are on; "" otherwise), if e names the
// entity its slot lost last. ok is false for a live entity, a handle never
// issued, or one whose slot has lived and died again since.
func (ins Inspection) DeathOf(e Entity) (frame uint64, by string, ok bool) {
	return ins.w.inspectDeathOf(e)
}

// NewHandleScan starts a scan of the handles stored in the world's
// components and resources (see [HandleScan]).
func (ins Inspection) NewHandleScan() *HandleScan { return ins.w.inspectNewHandleScan() }

// EnableStaleAudit turns the stale-handle audit on or off.
func (ins Inspection) EnableStaleAudit(on bool) { ins.w.inspectEnableStaleAudit(on) }

// StaleUses reports the audit: the uses of dead handles since it was
// turned on, by whom, and the newest ones.
func (ins Inspection) StaleUses() StaleReport { return ins.w.inspectStaleUses() }

// NewCapturer returns a capturer whose first capture reports every row as
// changed.
func (ins Inspection) NewCapturer() *Capturer { return ins.w.inspectNewCapturer() }

// MarkProvenance names the run that made a write of component id carrying
// mark (a [MarkRun]'s): the system, command buffer or actor, and the frame.
// Known is false once the writer log no longer holds the run.
func (ins Inspection) MarkProvenance(id ComponentID, mark uint32) Provenance {
	return ins.w.inspectMarkProvenance(id, mark)
}

// Marks are e's component id's write and add marks (the change stamps of
// its last write and of its add), for MarkProvenance later: what a tool
// keeps of a value it may need to name the writer of, at no cost now.
// ok is false if e is not alive or lacks id.
func (ins Inspection) Marks(e Entity, id ComponentID) (written, added uint32, ok bool) {
	return ins.w.componentTicks(e, id)
}

// NextStamp advances the world's change stamp and returns it, as a
// query run does: every write made before the call is at or before the
// tick returned, every write after it is newer. Pass it back as since to
// [Inspection.ChangedSince] or a [Filter] to see what changed in between.
// It makes every component keep change stamps ([Inspection.TrackChanges]):
// the first call belongs where structural changes may happen, not in a
// system of a parallel stage.
func (ins Inspection) NextStamp() uint32 { return ins.w.inspectNextStamp() }

// TrackChanges makes the world keep change stamps for the components ids,
// or with none, for every component, those registered later included. A
// component keeps stamps from the first time anything reads them (a
// Changed or Added query, a tool's scan of what changed, a provenance
// lookup, a capturer); before that it has none, so moving and spawning
// entities copies values only. A tool that will ask who wrote a value, or
// what changed since a stamp it takes later, asks for the stamps first
// ([Inspection.NextStamp] does, for every component): writes made before
// are dated to the moment the stamps began, with no writer
// ([Provenance.Known] false), and a question about what changed since a
// stamp older than that moment finds every row changed. Call it where
// structural changes may happen, or from a system that declares the
// components (no system writing them then runs beside it).
func (ins Inspection) TrackChanges(ids ...ComponentID) { ins.w.inspectTrackChanges(ids) }

// ChangedSince reports whether e's component id was written or added after
// tick since.
func (ins Inspection) ChangedSince(e Entity, id ComponentID, since uint32) bool {
	return ins.w.inspectChangedSince(e, id, since)
}

// AddedSince reports whether e got its component id after tick since.
func (ins Inspection) AddedSince(e Entity, id ComponentID, since uint32) bool {
	return ins.w.inspectAddedSince(e, id, since)
}

// Scan visits the entities that pass f in archetype order, skipping the
// first offset matches and stopping after limit ([Pager]: limit < 0, no
// limit; a negative offset counts as 0). It
// returns the window and the number of matches in all. Without row tests
// (sparse components, ticks, parent, Match) the count costs O(archetypes)
// and the window O(limit); with them, every candidate row is tested, except
// that Changed and Added tests on table components read the tick columns by
// row and skip a group of 8 clean rows with a comparison or two.
func (ins Inspection) Scan(f Filter, offset, limit int) (window []Entity, total int) {
	return ins.w.inspectScan(f, offset, limit)
}

// NewValue makes a value of component id's type from a map of field values
// (nested maps for struct fields, lists for arrays and slices), converted as
// [Inspection.SetField] converts; missing fields are zero. It changes nothing.
func (ins Inspection) NewValue(id ComponentID, fields map[string]any) (reflect.Value, error) {
	return ins.w.inspectNewValue(id, fields)
}

// AddValue gives e the component id with value v (of the component's
// type), or overwrites it. It returns an [*EntityError] if e is not alive.
// Panics if a query is iterating.
func (ins Inspection) AddValue(e Entity, id ComponentID, v reflect.Value) error {
	return ins.w.inspectAddValue(e, id, v)
}

// CopyTables copies every non-empty archetype: what a snapshot takes on the
// game goroutine, at memory speed; turn it into anything slower elsewhere.
// Sparse components are not in tables: see [Inspection.CopySparse].
func (ins Inspection) CopyTables() []TableCopy { return ins.w.inspectCopyTables() }

// CopyTablesFor copies the non-empty archetypes that f's component tests
// on table components (With, Changed, Added, Without) admit, each with its
// entities and only the columns of cols it has (every column if cols is
// nil); Columns and Components then list those. Row tests (ticks, sparse
// components, Parent, Match) are not applied: pair it with [Inspection.Scan]
// to find the rows. Memory copies only, as CopyTables.
func (ins Inspection) CopyTablesFor(f Filter, cols []ComponentID) []TableCopy {
	return ins.w.inspectCopyTablesFor(f, cols)
}

// CopySparse copies the entities that have sparse component id and their
// values (a slice of the component's type), or returns nothing for a table
// component.
func (ins Inspection) CopySparse(id ComponentID) ([]Entity, reflect.Value) {
	return ins.w.inspectCopySparse(id)
}

// CandidateRows counts the rows of the archetypes that f's tests on table
// components admit: an upper bound on [Inspection.Scan]'s total, in
// O(archetypes), for a caller deciding what a scan will cost.
func (ins Inspection) CandidateRows(f Filter) int { return ins.w.inspectCandidateRows(f) }

// ComponentRows counts the entities that hold component id (its sparse
// set's, or the rows of the tables that have it), in O(archetypes): what a
// walk over the component's written rows visits at most.
func (ins Inspection) ComponentRows(id ComponentID) int { return ins.w.inspectComponentRows(id) }

// EventQueues describes every event queue of w, sorted by name, with up to
// sample recent events of each.
func (ins Inspection) EventQueues(sample int) []EventQueueInfo {
	return ins.w.inspectEventQueues(sample)
}

// EnableJournal starts recording structural changes in a ring of the given
// capacity (the newest capacity entries are kept); 0 turns it off. A world
// without a journal pays one nil check per structural change.
func (ins Inspection) EnableJournal(capacity int) { ins.w.inspectEnableJournal(capacity) }

// Journal returns the kept entries, oldest first.
func (ins Inspection) Journal() []JournalEntry { return ins.w.inspectJournal() }

// JournalSince returns the kept entries with Seq greater than seq, oldest first.
func (ins Inspection) JournalSince(seq uint64) []JournalEntry { return ins.w.inspectJournalSince(seq) }

// ActAs runs f with its changes attributed to actor (a client of the
// inspector, say) instead of the system or "external": its structural
// changes in the journal, and its writes for [Inspection.LastWrite]. Not to be
// called while a schedule runs.
func (ins Inspection) ActAs(actor string, f func()) { ins.w.inspectActAs(actor, f) }

// Archetypes lists every archetype table in order of id. Empty tables are
// included: they keep their capacity for entities that come back; a table
// retired with the relation target it was for is not (its id is skipped).
func (ins Inspection) Archetypes() []ArchetypeInfo { return ins.w.inspectArchetypes() }

// ArchetypeEntities returns up to limit entities of archetype id from row
// offset on, in row order, and the archetype's row count, paged as
// [Inspection.Scan] pages ([Pager]: a negative offset counts as 0, a
// negative limit keeps every row). An unknown archetype has no rows.
func (ins Inspection) ArchetypeEntities(id uint32, offset, limit int) ([]Entity, int) {
	return ins.w.inspectArchetypeEntities(id, offset, limit)
}

// Location returns the archetype and row of a live entity.
func (ins Inspection) Location(e Entity) (archetype uint32, row int, ok bool) {
	return ins.w.inspectLocation(e)
}

// Stats counts the world's entity slots.
func (ins Inspection) Stats() EntityStats { return ins.w.inspectStats() }

// MostRecycled returns the k slots reused most often, most first; slots
// never reused are left out. Up to MaxRecycledKept the world keeps them as
// slots are freed from the first call on (which reads every slot once),
// so later calls cost nothing per slot; past it, it scans every slot.
func (ins Inspection) MostRecycled(k int) []SlotInfo { return ins.w.inspectMostRecycled(k) }

// Value returns e's component id as an addressable reflect.Value (writes
// through it are not seen by Changed filters; use [Inspection.SetField]).
func (ins Inspection) Value(e Entity, id ComponentID) (reflect.Value, bool) {
	return ins.w.inspectValue(e, id)
}

// Bytes returns a copy of the memory of e's component id, as laid out in Go.
func (ins Inspection) Bytes(e Entity, id ComponentID) ([]byte, bool) {
	return ins.w.inspectBytes(e, id)
}

// EachChanged calls fn with each entity whose component id was written or
// added after tick since and at or before tick until (0: no bound), and
// the value's memory (valid during the call, not to be kept or written),
// until fn returns false. It reads the change stamps by row and skips clean
// groups of rows, so its cost follows what changed. ok is false, and fn is
// not called, when id's values hold pointers (there is no memory to hand
// out): use [Inspection.Scan] then.
func (ins Inspection) EachChanged(id ComponentID, since, until uint32, fn func(e Entity, raw []byte) bool) (ok bool) {
	return ins.w.inspectEachChanged(id, since, until, fn)
}

// EachChangedWhere is [Inspection.EachChanged] for the rows whose value passes
// every bound: the kernel tests them in its loop over the written rows, so
// fn is called for matches only. It fails, calling nothing, when a bound
// does not fit the component's memory (an offset past its end, an unknown
// kind or comparison), or when the component's values hold pointers.
func (ins Inspection) EachChangedWhere(id ComponentID, since, until uint32, bounds []RawBound, fn func(e Entity, raw []byte) bool) error {
	return ins.w.inspectEachChangedWhere(id, since, until, bounds, fn)
}

// Resources lists w's resources sorted by name.
func (ins Inspection) Resources() []ResourceInfo { return ins.w.inspectResources() }

// SetField sets one field of one of e's components from a path and a value,
// as the inspector does on a person's behalf:
//
//	w.Inspect().SetField(e, "Position.X", 3.5)
//	w.Inspect().SetField(e, "Inventory.Slots[2].Count", 4)
//	w.Inspect().SetField(e, "Name.Value", "orc")
//
// The first path segment names the component (its short or full name); the
// rest walk exported struct fields and array or slice elements. The value may
// be any Go number, a bool, a string (also parsed for number, bool and
// entity fields: "3.5", "true", "42v3"), or an [Entity]; an entity field
// also takes an integer in packed form, generation << 32 | index. Nothing changes
// unless the whole path resolves and the value fits; the error says what is
// wrong, in words: "component Position has no field Z", "Health.HP wants a
// number, got \"abc\"". The field is marked changed.
//
// A value is refused unless it is exactly what the field holds: NaN and
// ±Inf go only into float fields tagged `ecs:"nonfinite"` (a game opts in
// per field; most game code cannot survive them), integers must be whole
// and in range, strings valid UTF-8, and an entity field takes only a handle
// the world issued (alive or not) or the zero handle.
func (ins Inspection) SetField(e Entity, path string, value any) error {
	return ins.w.inspectSetField(e, path, value)
}

// CopyWindow is a page in one call: the window [offset, offset+limit) of
// f's matches (as [Inspection.Scan] finds it), how many match in all, and
// the values of cols for the window's entities ([Inspection.CopyRows]).
func (ins Inspection) CopyWindow(f Filter, offset, limit int, cols []ComponentID) (ents []Entity, total int, values []ColumnWindow) {
	return ins.w.inspectCopyWindow(f, offset, limit, cols)
}

// CopyRows copies the values of cols for ents: entities in consecutive
// rows of one table (a window of a query is made of such runs) take one
// copy per column, sparse components one lookup per entity. The copies
// are shallow: slices, maps and pointers in the values still point where
// the game's do. Dead entities have nothing.
func (ins Inspection) CopyRows(ents []Entity, cols []ComponentID) []ColumnWindow {
	return ins.w.inspectCopyRows(ents, cols)
}

// Components lists the component types registered so far, in id order.
func (ins Inspection) Components() []ComponentInfo { return ins.w.inspectComponents() }

// Component describes the registered component id. Panics if id is not
// registered.
func (ins Inspection) Component(id ComponentID) ComponentInfo { return ins.w.inspectComponent(id) }

// ComponentByName finds a registered component by its full or short name.
func (ins Inspection) ComponentByName(name string) (ComponentInfo, bool) {
	return ins.w.inspectComponentByName(name)
}

// ComponentsOf lists the ids of the components e has, ascending, or nil if e
// is not alive.
func (ins Inspection) ComponentsOf(e Entity) []ComponentID { return ins.w.inspectComponentsOf(e) }

// AddID adds the component id to e with its zero value; it does nothing if e
// already has it. It returns an [*EntityError] if e is not alive. Panics if a
// query is iterating or id is not registered.
func (ins Inspection) AddID(e Entity, id ComponentID) error { return ins.w.inspectAddID(e, id) }

// RemoveID removes the component id from e; it does nothing if e lacks it. It
// returns an [*EntityError] if e is not alive. Panics if a query is iterating
// or id is not registered.
func (ins Inspection) RemoveID(e Entity, id ComponentID) error { return ins.w.inspectRemoveID(e, id) }

// LastWrite says who last wrote e's component id and who added it: the
// system, command buffer or [Inspection.ActAs] actor whose run made the write,
// and the frame. ok is false if e is not alive or lacks id.
func (ins Inspection) LastWrite(e Entity, id ComponentID) (written, added Provenance, ok bool) {
	return ins.w.inspectLastWrite(e, id)
}

// WriteHolders lists the systems (and command buffers) that held
// component id for writing during frame, as far as the writer log still
// reaches back (the last few thousand runs), in the order they ran: the
// systems that could have changed a value whose [Inspection.LastWrite]
// names that frame. A system that declared no writes may write anything,
// and is listed.
func (ins Inspection) WriteHolders(id ComponentID, frame uint64) []string {
	return ins.w.inspectWriteHolders(id, frame)
}

// HeldBy lists, for a live entity, each relation kind whose holders point
// at it and how many: nil for an entity nothing points at (or a dead one).
// It costs O(relation kinds).
func (ins Inspection) HeldBy(target Entity) []HeldBy { return ins.w.inspectHeldBy(target) }

// Holders pages the entities whose relation kind points at target, in no
// fixed order (a holder that leaves gives its place to the list's last),
// and their count: as [Inspection.Scan] pages ([Pager]). An entity that
// is not alive, or a kind that is not a relation, has none.
func (ins Inspection) Holders(target Entity, kind ComponentID, offset, limit int) ([]Entity, int) {
	return ins.w.inspectHolders(target, kind, offset, limit)
}

package protocol

// Error codes of Reply and Reject.
const (
	ErrVersion  = "version"   // protocol versions differ
	ErrToken    = "token"     // missing or wrong token
	ErrBusy     = "busy"      // too many clients
	ErrProtocol = "protocol"  // malformed or unexpected message
	ErrReadOnly = "read-only" // the agent refuses changes
	ErrStale    = "stale"     // the entity is not alive
	ErrNotFound = "not-found" // no such component or subscription
	ErrBadValue = "bad-value" // a value does not fit its field
	ErrBadQuery = "bad-query" // the query expression does not parse
	ErrState    = "state"     // not possible now (step while running, ...)
	ErrInternal = "internal"  // the agent failed; the world is unchanged
	ErrTooLarge = "too-large" // a request or its answer is over a documented size limit
	ErrOverload = "overload"  // the client let too much wait unread: dropped
	ErrTimeout  = "timeout"   // a frame stalled half-sent, or a socket took nothing: dropped
	ErrForged   = "forged"    // a sealed frame did not open (injected, replayed, altered): dropped
)

// Reply answers a request: OK, or an error code and a message for people.
type Reply struct {
	ID      uint32   `msgpack:"id"`
	OK      bool     `msgpack:"ok"`
	Code    string   `msgpack:"code,omitempty"`
	Message string   `msgpack:"m,omitempty"`
	Entity  EntityID `msgpack:"e,omitempty"` // the spawned entity, for Spawn
	Watch   uint32   `msgpack:"w,omitempty"` // the watchpoint set, for Watch
}

// Stats counts entity slots (see ecs.EntityStats).
type Stats struct {
	Alive    int `msgpack:"a"`
	Free     int `msgpack:"f"`
	Retired  int `msgpack:"r"`
	Slots    int `msgpack:"s"`
	Reserved int `msgpack:"rs,omitempty"`
}

// Slot is an entity slot and how often it was reused.
type Slot struct {
	Index      uint32 `msgpack:"i"`
	Generation uint32 `msgpack:"g"`
	Alive      bool   `msgpack:"a,omitempty"`
}

// Archetype describes one archetype table.
type Archetype struct {
	ID         uint32   `msgpack:"id"`
	Components []uint16 `msgpack:"c"` // component ids
	Len        int      `msgpack:"n"`
	Cap        int      `msgpack:"cap"`
	Bytes      int      `msgpack:"b"`
	// Targets are where the holders of each relation kind in the table
	// point, in a table of one target's holders; absent in others.
	Targets []ArchetypeTarget `msgpack:"tg,omitempty"`
}

// ArchetypeTarget is a relation kind of an archetype and the target its
// rows point at.
type ArchetypeTarget struct {
	Kind   uint16   `msgpack:"k"`
	Target EntityID `msgpack:"e"`
}

// FieldSchema describes a component field (see ecs.Field).
type FieldSchema struct {
	Name   string        `msgpack:"n,omitempty"`
	Kind   string        `msgpack:"k"` // bool int uint float string struct array slice map pointer entity other
	Type   string        `msgpack:"t"` // Go type as written
	Len    int           `msgpack:"len,omitempty"`
	Offset int           `msgpack:"o,omitempty"`  // bytes from the start of the enclosing struct
	Size   int           `msgpack:"sz,omitempty"` // bytes of the field's memory
	Elem   *FieldSchema  `msgpack:"el,omitempty"`
	Key    *FieldSchema  `msgpack:"key,omitempty"`
	Fields []FieldSchema `msgpack:"fs,omitempty"`
}

// Component describes a registered component type.
type Component struct {
	ID      uint16        `msgpack:"id"`
	Name    string        `msgpack:"n"`  // package-qualified
	Short   string        `msgpack:"s"`  // type name alone
	Size    int           `msgpack:"sz"` // bytes
	Storage string        `msgpack:"st"` // "table" or "sparse"
	Fields  []FieldSchema `msgpack:"fs,omitempty"`
}

// System describes a scheduled system and its timings, in nanoseconds.
type System struct {
	Name   string   `msgpack:"n"`
	Stage  string   `msgpack:"st,omitempty"`
	Reads  []string `msgpack:"r,omitempty"`
	Writes []string `msgpack:"w,omitempty"`
	Last   int64    `msgpack:"last"`
	Mean   int64    `msgpack:"mean"`
	Max    int64    `msgpack:"max"`
	Count  uint64   `msgpack:"cnt"`
	Recent []int64  `msgpack:"rec,omitempty"` // oldest first
	// Skipped counts the commands the system queued that were skipped
	// when its stage ended (the entity was gone, nothing to remove);
	// SkippedWhy are the newest reasons, oldest first.
	Skipped    uint64       `msgpack:"sk,omitempty"`
	SkippedWhy []SkipReason `msgpack:"skr,omitempty"`
	// AllocBytes and AllocObjects are what a run allocates, the mean of
	// the recent runs measured while the system ran alone; AllocRuns
	// counts those, AllocShared the runs beside another system of a
	// parallel stage, attributed to neither (both 0: not measured).
	AllocBytes   float64 `msgpack:"ab,omitempty"`
	AllocObjects float64 `msgpack:"ao,omitempty"`
	AllocRuns    int     `msgpack:"ar,omitempty"`
	AllocShared  int     `msgpack:"as,omitempty"`
}

// SkipReason is why a queued command was skipped, and the tick it was in.
type SkipReason struct {
	Tick uint64 `msgpack:"t"`
	Why  string `msgpack:"w"`
}

// EventQueue describes an event queue.
type EventQueue struct {
	Name     string  `msgpack:"n"`
	Previous int     `msgpack:"p"`
	Current  int     `msgpack:"c"`
	Total    uint64  `msgpack:"t"`
	Recent   []Value `msgpack:"rec,omitempty"` // newest last
	// Fields is the event type's schema (in the Events message, and in a
	// world frame's queues that hold events), so a client can show entity
	// fields as 42v3.
	Fields []FieldSchema `msgpack:"fs,omitempty"`
}

// Resource is a world resource and its value.
type Resource struct {
	Name   string        `msgpack:"n"`
	Value  Value         `msgpack:"v"`
	Fields []FieldSchema `msgpack:"fs,omitempty"` // the resource type's fields, for a struct
	// Type is the resource's type when it is not a struct (a list, a
	// map, a handle): its kind and its elements' schema. See Schema.
	Type *FieldSchema `msgpack:"ty,omitempty"`
}

// Telemetry is what the agent reports of itself.
type Telemetry struct {
	Clients    int               `msgpack:"cl"`
	BytesSent  uint64            `msgpack:"bs"`
	FramesSent uint64            `msgpack:"fs"`
	Coalesced  uint64            `msgpack:"co"`            // frames replaced by newer ones before a slow client took them
	Dropped    uint64            `msgpack:"dr"`            // clients dropped by the agent, for any reason
	DroppedBy  map[string]uint64 `msgpack:"drb,omitempty"` // clients dropped, by the code sent them (timeout, overload, too-large, protocol)
	TooLarge   uint64            `msgpack:"tl,omitempty"`  // answers replaced by a too-large error: over the client's mf
	SyncNs     int64             `msgpack:"sy"`            // time of the last Sync on the game goroutine
	Snapshots  uint64            `msgpack:"sn,omitempty"`  // world copies made for SnapshotRequests, at most one a second
	Recording  string            `msgpack:"rec,omitempty"` // file the game records to
	Rewind     *RewindRange      `msgpack:"rw,omitempty"`  // the in-memory recording a Rewind restores from; absent when off
	// HandlePasses counts the agent's passes over the handles stored in
	// components and resources; HandlesRead is how many the last one read.
	HandlePasses uint64  `msgpack:"hp,omitempty"`
	HandlesRead  int     `msgpack:"hr,omitempty"`
	HandlesCut   int     `msgpack:"hc,omitempty"`  // component values the last pass read only in part (each past 262,144 handles)
	HandlePassMs float64 `msgpack:"hpt,omitempty"` // how long the last pass took, first step to last, in ms: how old the dangling list may be
	DeadMissed   uint64  `msgpack:"dm,omitempty"`  // despawns whose last state the agent did not keep (see GetEntity on the last state of the dead)
	// Broker says how the agent's connection to its broker stands, when it
	// has one: "connected", "refused by the broker: ...; retrying", ...
	Broker string `msgpack:"bk,omitempty"`
	// GC is the game's memory and collections, as the Go runtime counts
	// them when the summary is made.
	GC *GCStats `msgpack:"gc,omitempty"`
}

// GCStats is a Go game's memory and garbage collections, from
// runtime/metrics: counters since the process started, so a client takes
// rates from two of them.
type GCStats struct {
	Heap         uint64 `msgpack:"h"`  // bytes of live and not yet swept heap objects
	Goal         uint64 `msgpack:"g"`  // the heap size the next collection aims at
	Cycles       uint64 `msgpack:"n"`  // collections completed
	Pauses       uint64 `msgpack:"np"` // stop-the-world pauses for collection
	PauseNs      int64  `msgpack:"p"`  // their time in all (each taken at its histogram bucket's middle)
	AllocBytes   uint64 `msgpack:"ab"` // bytes allocated on the heap, in all
	AllocObjects uint64 `msgpack:"ao"` // objects allocated on the heap, in all
}

// Summary is the world at a tick, in O(archetypes + systems) size. With Full
// false it is a delta: only the sections that changed since the client's
// last frame are present (absent slices mean "as before"); archetypes are
// never removed (see ApplySummary).
type Summary struct {
	Sub        uint32       `msgpack:"sub"`
	Tick       uint64       `msgpack:"t"`
	Full       bool         `msgpack:"full,omitempty"`
	FrameNs    int64        `msgpack:"ft"`           // the interval between the game's last two frames, pauses left out
	WorkNs     int64        `msgpack:"wk,omitempty"` // the game's work in its last frame: its schedule's run to Sync, stops left out; absent without a schedule
	Entities   int          `msgpack:"ne"`
	Paused     bool         `msgpack:"pz,omitempty"`
	Stats      Stats        `msgpack:"st"`
	Archetypes []Archetype  `msgpack:"ar,omitempty"`
	Components []Component  `msgpack:"cs,omitempty"`
	Systems    []System     `msgpack:"sy,omitempty"`
	Events     []EventQueue `msgpack:"ev,omitempty"`
	Resources  []Resource   `msgpack:"rs,omitempty"`
	Recycled   []Slot       `msgpack:"rc,omitempty"`
	Agent      Telemetry    `msgpack:"ag"`
	// Watches lists the watchpoints. Unlike the other sections it is
	// always present in a full summary; in a delta, nil means unchanged
	// and an array (empty too) is the new list.
	Watches []Watchpoint `msgpack:"wp"`
	// Stale is the stale-handle audit: uses of handles that name no live
	// entity, by whom (absent until the first).
	Stale *StaleAudit `msgpack:"sa,omitempty"`
	// Dangling lists handles stored in components and resources that name
	// no live entity (absent when the agent does not look; in a delta:
	// unchanged).
	Dangling *DanglingAudit `msgpack:"dg,omitempty"`
	// Halt says where the game stopped inside a frame (a watchpoint broke
	// at a write); absent between frames. While it is set, Tick is the
	// frame in progress.
	Halt *Halt `msgpack:"hl,omitempty"`
	// Frames are the last frames (at most MaxFrames, oldest first), for a
	// timeline: each one's time and work, and the garbage collections
	// whose pauses ended in it. Each system's Recent holds its runs of
	// the same frames, newest last.
	Frames []FrameStat `msgpack:"fr,omitempty"`
	// SystemTails, in a delta in place of Systems, is every system as it
	// is now, in the same order, without its stage, reads and writes (as
	// before) and with only the runs since the base's in Recent: the
	// reader appends them to its Recent and keeps the last MaxFrames.
	SystemTails []System `msgpack:"syt,omitempty"`
	// FrameTail, in a delta in place of Frames, is the frames since the
	// base's newest, appended likewise.
	FrameTail []FrameStat `msgpack:"frt,omitempty"`
}

// MaxFrames is how many frames a Summary's Frames holds at most: as many
// as a system's Recent runs.
const MaxFrames = 120

// FrameStat is one frame, for a timeline.
type FrameStat struct {
	Tick uint64 `msgpack:"t"`  // the frame (a Summary's t once it ended)
	Ns   int64  `msgpack:"ns"` // from its start to the next frame's start, the game's pause excluded
	Work int64  `msgpack:"w"`  // its schedule's run (a Summary's wk for it)
	// GC counts the garbage collections whose stop-the-world pause ended
	// during the frame, GCPauseNs their pauses.
	GC        int   `msgpack:"gc,omitempty"`
	GCPauseNs int64 `msgpack:"gp,omitempty"`
	Entities  int   `msgpack:"e,omitempty"` // alive as it ended
}

// Halt is where a frame stopped: right after System's run, before the
// systems that had not started and before the stage's commands applied.
type Halt struct {
	System string   `msgpack:"sys"` // the system whose write made the watchpoint true
	Stage  string   `msgpack:"stg"`
	Ran    []string `msgpack:"ran"` // the systems that ran this frame, in the order they ended
	Of     int      `msgpack:"of"`  // how many systems a frame runs
}

// StaleAudit counts uses of dead handles (see ecs.Inspection.StaleUses).
type StaleAudit struct {
	Total  uint64       `msgpack:"n"`
	By     []StaleCount `msgpack:"by,omitempty"`  // the most uses first, at most 8
	Recent []StaleUse   `msgpack:"rec,omitempty"` // the newest 8, oldest first
}

// StaleCount is who used dead handles, and how often.
type StaleCount struct {
	By    string `msgpack:"by"`
	Count uint64 `msgpack:"n"`
}

// StaleUse is one use of a dead handle.
type StaleUse struct {
	Entity     EntityID `msgpack:"e"`
	Generation uint32   `msgpack:"g"` // the slot's generation then; 0: never issued
	By         string   `msgpack:"by"`
	Tick       uint64   `msgpack:"t"`
}

// Row is one entity of a page: its handle and the values of the page's
// columns (Nil where the entity lacks the component).
type Row struct {
	Entity EntityID `msgpack:"e"`
	Values []Value  `msgpack:"v"`
}

// Page is a window of entities matching a query or an archetype. With Full
// false it is a delta: Rows holds only rows that changed or entered the
// window, Removed the entities that left it.
type Page struct {
	Sub     uint32     `msgpack:"sub"` // subscription, or the request id of a one-off Query
	Tick    uint64     `msgpack:"t"`
	Full    bool       `msgpack:"full,omitempty"`
	Total   int        `msgpack:"tot"` // matches in all
	Offset  int        `msgpack:"o"`
	Columns []uint16   `msgpack:"cols"` // component ids of Values
	Rows    []Row      `msgpack:"rows,omitempty"`
	Removed []EntityID `msgpack:"rm,omitempty"`
	// Order, in a delta, is every entity of the window in order, sent when
	// applying the delta by the rule (replace in place, append the rest)
	// would give another order than a fresh page.
	Order []EntityID `msgpack:"ord,omitempty"`
}

// Detail is one entity in full.
type Detail struct {
	Sub       uint32   `msgpack:"sub"` // subscription, or request id
	Tick      uint64   `msgpack:"t"`
	Entity    EntityID `msgpack:"e"`
	Alive     bool     `msgpack:"al"`
	Archetype uint32   `msgpack:"ar"`
	Row       int      `msgpack:"row"`
	Parent    EntityID `msgpack:"p,omitempty"`
	// Children is a window of the children: at most MaxDetailChildren,
	// from the request's offset; ChildCount is how many there are in all.
	Children   []EntityID       `msgpack:"ch,omitempty"`
	ChildCount int              `msgpack:"nch,omitempty"`
	Components []ComponentValue `msgpack:"cs,omitempty"`
	Reason     string           `msgpack:"why,omitempty"` // why not alive, in words
	// Died: the entity is dead and the agent kept its last state: who
	// despawned it, in which frame, and Components (with Parent) as the
	// despawn found them.
	Died *Provenance `msgpack:"dd,omitempty"`
	// HeldBy lists the relations that point at the entity, kind by kind
	// (ChildOf's are Children): how many hold each, and a window of them
	// from the request's offset, at most MaxDetailChildren.
	HeldBy []HeldBy `msgpack:"hb,omitempty"`
}

// HeldBy is one relation kind's holders of an entity: the entities whose
// relation of that kind points at it.
type HeldBy struct {
	Kind    string     `msgpack:"k"` // the relation's component
	Count   int        `msgpack:"n"` // how many hold it
	Holders []EntityID `msgpack:"e,omitempty"`
}

// Events is a sample of the event queues.
type Events struct {
	Sub    uint32       `msgpack:"sub"`
	Tick   uint64       `msgpack:"t"`
	Queues []EventQueue `msgpack:"q"`
}

// JournalEntry is one structural change (see ecs.JournalEntry).
type JournalEntry struct {
	Seq       uint64   `msgpack:"s"`
	Frame     uint64   `msgpack:"f"`
	Op        string   `msgpack:"op"` // spawn despawn add remove
	Entity    EntityID `msgpack:"e"`
	Component int      `msgpack:"c"` // component id, -1 for none
	System    string   `msgpack:"sy"`
	// Components lists a spawn's components: the adds that made the new
	// entity are folded into its spawn entry.
	Components []int `msgpack:"cs,omitempty"`
	// To is the last sequence number this entry covers (a spawn's folded
	// adds); 0 means Seq. A gap after it means entries were lost.
	To uint64 `msgpack:"to,omitempty"`
}

// Journal carries journal entries newer than the client last saw.
type Journal struct {
	Sub     uint32         `msgpack:"sub"`
	Tick    uint64         `msgpack:"t"`
	Entries []JournalEntry `msgpack:"en"`
	// batch, when set (Share), is Entries encoded once for every
	// subscription that sends the same entries.
	batch *JournalBatch
}

// Table is one archetype's entities in a Snapshot, column by column.
type Table struct {
	Components []uint16   `msgpack:"c"`
	Entities   []EntityID `msgpack:"e"`
	Columns    [][]Value  `msgpack:"v"` // Columns[i][row] is component Components[i] of Entities[row]
}

// Snapshot is the whole world at a tick.
type Snapshot struct {
	ID         uint32      `msgpack:"id"` // request id, 0 when written by the game
	Tick       uint64      `msgpack:"t"`
	Game       string      `msgpack:"g,omitempty"`
	Stats      Stats       `msgpack:"st"`
	Components []Component `msgpack:"cs"`
	Tables     []Table     `msgpack:"tb"`           // archetype tables: their rows add up to the live entities
	Sparse     []Table     `msgpack:"sp,omitempty"` // sparse components: one table each, its entities and values
	Resources  []Resource  `msgpack:"rs,omitempty"`
}

func (*Reply) Type() Type    { return TypeReply }
func (*Summary) Type() Type  { return TypeSummary }
func (*Page) Type() Type     { return TypePage }
func (*Detail) Type() Type   { return TypeDetail }
func (*Events) Type() Type   { return TypeEvents }
func (*Journal) Type() Type  { return TypeJournal }
func (*Snapshot) Type() Type { return TypeSnapshot }

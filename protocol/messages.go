package protocol

// Type tags every message on the wire: a frame holds the msgpack array
// [type, body], body a map with the short keys documented in PROTOCOL.md.
type Type uint8

// Client to agent.
const (
	TypeHello           Type = 1
	TypeSubscribe       Type = 2
	TypeUnsubscribe     Type = 3
	TypeQuery           Type = 4
	TypeGetEntity       Type = 5
	TypeSetField        Type = 6
	TypeAddComponent    Type = 7
	TypeRemoveComponent Type = 8
	TypeSpawn           Type = 9
	TypeDespawn         Type = 10
	TypePause           Type = 11
	TypeResume          Type = 12
	TypeStep            Type = 13
	TypeSnapshotRequest Type = 14
	TypeSetParent       Type = 15
)

// Agent to client.
const (
	TypeWelcome  Type = 64
	TypeReject   Type = 65
	TypeReply    Type = 66
	TypeSummary  Type = 67
	TypePage     Type = 68
	TypeDetail   Type = 69
	TypeEvents   Type = 70
	TypeJournal  Type = 71
	TypeSnapshot Type = 72
)

// Message is any protocol message.
type Message interface {
	Type() Type
}

// Request is a client message that gets a Reply carrying its ID.
type Request interface {
	Message
	RequestID() uint32
}

// Version is the protocol version this package speaks.
const Version = 2

// Hello opens a connection (client to agent, first message).
type Hello struct {
	Version  uint16   `msgpack:"v"`
	Client   string   `msgpack:"c,omitempty"`    // client name, for the agent's telemetry
	Caps     []string `msgpack:"caps,omitempty"` // capabilities wanted, e.g. "edit"
	MaxFrame uint32   `msgpack:"mf,omitempty"`   // largest frame the client reads; 0: DefaultMaxFrame
	Nonce    []byte   `msgpack:"cn,omitempty"`   // the client's nonce (NonceSize bytes), for a token's proof
	// Token is the agent's shared secret, if it wants one. It never goes
	// on the wire: ClientHandshake proves it (see Challenge).
	Token string `msgpack:"-"`
}

// Welcome accepts a Hello (agent to client).
type Welcome struct {
	Version  uint16   `msgpack:"v"`
	Game     string   `msgpack:"g,omitempty"`
	Agent    string   `msgpack:"a,omitempty"` // agent software and version
	Caps     []string `msgpack:"caps,omitempty"`
	MaxFrame uint32   `msgpack:"mf"` // largest frame the agent reads from this client
	ReadOnly bool     `msgpack:"ro,omitempty"`
	Proof    []byte   `msgpack:"p,omitempty"` // after a Challenge: AgentProof; every frame after this one is sealed
}

// Reject refuses a Hello, with a reason a person can read; the agent closes
// the connection after it.
type Reject struct {
	Code   string `msgpack:"code"` // ErrVersion, ErrToken, ErrBusy, ErrProtocol
	Reason string `msgpack:"r"`
}

// Subscription kinds (Subscribe.What).
const (
	SubSummary = "summary"
	SubPage    = "page"
	SubEntity  = "entity"
	SubEvents  = "events"
	SubJournal = "journal"
	SubWorld   = "world" // WorldFrames: every entity and value, keyframes and deltas (what recordings hold)
	// SubSeries is in series.go.
)

// Subscribe asks for a stream of frames; its ID names the subscription in
// every frame sent for it. Subscribing again with the same ID replaces it
// and restarts it with a full frame.
type Subscribe struct {
	ID        uint32     `msgpack:"id"`
	What      string     `msgpack:"w"`              // SubSummary, SubPage, ...
	Hz        float64    `msgpack:"hz,omitempty"`   // frames per second; 0: the agent's default
	Query     string     `msgpack:"q,omitempty"`    // page: a query expression
	Archetype int64      `msgpack:"arch,omitempty"` // page: 1 + archetype id, 0 for none
	Offset    int        `msgpack:"o,omitempty"`
	Limit     int        `msgpack:"l,omitempty"`
	Entity    EntityID   `msgpack:"e,omitempty"`  // entity detail
	Filter    string     `msgpack:"f,omitempty"`  // journal: entity, component or system to keep
	Sample    int        `msgpack:"n,omitempty"`  // events: recent events per queue
	Sort      string     `msgpack:"s,omitempty"`  // page with q: Component.Field to sort by, - first for descending
	Resource  string     `msgpack:"r,omitempty"`  // resource: its name
	Path      string     `msgpack:"p,omitempty"`  // resource: the path of the value inside it (see ParsePath)
	Box       []float64  `msgpack:"bx,omitempty"` // points: the area to bin, x0, y0, x1, y1
	Dots      []int      `msgpack:"dt,omitempty"` // points: the grid's width and height in cells
	Marks     []EntityID `msgpack:"mk,omitempty"` // points: entities whose places to give
}

// Unsubscribe ends the subscription Sub.
type Unsubscribe struct {
	ID  uint32 `msgpack:"id"`
	Sub uint32 `msgpack:"sub"`
}

// Query asks once for a page of entities matching an expression.
type Query struct {
	ID     uint32 `msgpack:"id"`
	Expr   string `msgpack:"q"`
	Offset int    `msgpack:"o,omitempty"`
	Limit  int    `msgpack:"l,omitempty"`
	Count  bool   `msgpack:"co,omitempty"` // count only: the Page's tot, no rows
	Sort   string `msgpack:"s,omitempty"`  // Component.Field to sort by, - first for descending
}

// GetEntity asks once for one entity's detail.
type GetEntity struct {
	ID     uint32   `msgpack:"id"`
	Entity EntityID `msgpack:"e"`
	Offset int      `msgpack:"o,omitempty"` // the first child the Detail lists
}

// SetField sets one field of a component, by path: "Position.X".
type SetField struct {
	ID     uint32   `msgpack:"id"`
	Entity EntityID `msgpack:"e"`
	Path   string   `msgpack:"p"`
	Value  Value    `msgpack:"v"`
}

// AddComponent gives an entity a component; Value is a map of its fields
// (missing fields are zero).
type AddComponent struct {
	ID        uint32   `msgpack:"id"`
	Entity    EntityID `msgpack:"e"`
	Component string   `msgpack:"c"`
	Value     Value    `msgpack:"v"`
}

// RemoveComponent takes a component away from an entity.
type RemoveComponent struct {
	ID        uint32   `msgpack:"id"`
	Entity    EntityID `msgpack:"e"`
	Component string   `msgpack:"c"`
}

// ComponentValue is a component by name with its value.
type ComponentValue struct {
	Component string `msgpack:"c"`
	Value     Value  `msgpack:"v"`
	// Written and Added say who last wrote the value and who added the
	// component, and in which frame (in a Detail only, when the agent
	// knows: a live game, for writes still in its memory).
	Written *Provenance `msgpack:"wr,omitempty"`
	Added   *Provenance `msgpack:"ad,omitempty"`
	// Restored: the value is as a rewind put it back (the tick restored
	// and the client that asked), not written since. Written and Added are
	// then who wrote and added it as it was at that tick (for an entity a
	// client followed, the write the agent saw), when the agent knows.
	Restored *Provenance `msgpack:"rs,omitempty"`
}

// Provenance is who did something to a component, and when.
type Provenance struct {
	Tick uint64 `msgpack:"t"` // the frame (a Summary's t) during which it happened
	// Seen: the agent saw this write change the value (an entity a client
	// follows); false: the last run that held the column mutably, which
	// may have left the value as it was.
	Seen bool   `msgpack:"seen,omitempty"`
	By   string `msgpack:"by"` // a system; "S (commands)"; "client N (name)"; "outside the schedule"
	// Held, when not Seen, is every system that held the component for
	// writing during that frame, in the order they ran (By among them):
	// the ones that could have changed the value then.
	Held []string `msgpack:"held,omitempty"`
}

// Spawn creates an entity with components; the Reply carries its handle.
type Spawn struct {
	ID         uint32           `msgpack:"id"`
	Components []ComponentValue `msgpack:"cs,omitempty"`
}

// Despawn removes an entity, and with Recursive its subtree of children.
type Despawn struct {
	ID        uint32   `msgpack:"id"`
	Entity    EntityID `msgpack:"e"`
	Recursive bool     `msgpack:"r,omitempty"`
}

// Pause stops the game loop at its next sync point.
type Pause struct {
	ID uint32 `msgpack:"id"`
	// Hold keeps the game paused after this client leaves, with no client
	// connected, until a Resume or the game's hold timeout (a script's
	// pause: the connection ends, the pause stays).
	Hold bool `msgpack:"hold,omitempty"`
}

// Resume lets a paused game loop run.
type Resume struct {
	ID uint32 `msgpack:"id"`
}

// Step lets a paused game run N frames, then pauses it again.
type Step struct {
	ID   uint32 `msgpack:"id"`
	N    uint32 `msgpack:"n"`
	Hold bool   `msgpack:"hold,omitempty"` // the pause after the frames is held (see Pause)
}

// SnapshotRequest asks for the whole world once (a Snapshot reply).
type SnapshotRequest struct {
	ID uint32 `msgpack:"id"`
}

// SetParent makes an entity the child of another (ChildOf), or, with
// Parent 0, an entity of its own again.
type SetParent struct {
	ID     uint32   `msgpack:"id"`
	Entity EntityID `msgpack:"e"`
	Parent EntityID `msgpack:"p,omitempty"`
}

func (*Hello) Type() Type           { return TypeHello }
func (*Subscribe) Type() Type       { return TypeSubscribe }
func (*Unsubscribe) Type() Type     { return TypeUnsubscribe }
func (*Query) Type() Type           { return TypeQuery }
func (*GetEntity) Type() Type       { return TypeGetEntity }
func (*SetField) Type() Type        { return TypeSetField }
func (*AddComponent) Type() Type    { return TypeAddComponent }
func (*RemoveComponent) Type() Type { return TypeRemoveComponent }
func (*Spawn) Type() Type           { return TypeSpawn }
func (*Despawn) Type() Type         { return TypeDespawn }
func (*Pause) Type() Type           { return TypePause }
func (*Resume) Type() Type          { return TypeResume }
func (*Step) Type() Type            { return TypeStep }
func (*SnapshotRequest) Type() Type { return TypeSnapshotRequest }
func (*SetParent) Type() Type       { return TypeSetParent }
func (*Welcome) Type() Type         { return TypeWelcome }
func (*Reject) Type() Type          { return TypeReject }

func (m *Subscribe) RequestID() uint32       { return m.ID }
func (m *Unsubscribe) RequestID() uint32     { return m.ID }
func (m *Query) RequestID() uint32           { return m.ID }
func (m *GetEntity) RequestID() uint32       { return m.ID }
func (m *SetField) RequestID() uint32        { return m.ID }
func (m *AddComponent) RequestID() uint32    { return m.ID }
func (m *RemoveComponent) RequestID() uint32 { return m.ID }
func (m *Spawn) RequestID() uint32           { return m.ID }
func (m *Despawn) RequestID() uint32         { return m.ID }
func (m *Pause) RequestID() uint32           { return m.ID }
func (m *Resume) RequestID() uint32          { return m.ID }
func (m *Step) RequestID() uint32            { return m.ID }
func (m *SnapshotRequest) RequestID() uint32 { return m.ID }
func (m *SetParent) RequestID() uint32       { return m.ID }

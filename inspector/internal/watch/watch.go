package watch

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Watchpoints, checked at the end of every frame (the start of Sync),
// over what the frame changed: a value watchpoint scans only the rows whose
// tested components have a change stamp newer than the last check,
// structural ones read the journal since the last check, timing ones the
// frame's and the schedule's timings. A hit goes to every client; a
// watchpoint that is not log-only pauses the game.

// MaxWatchpoints bounds the watchpoints an agent holds.
const MaxWatchpoints = 64

// maxFiredEntities bounds the entities a value watchpoint remembers having
// fired for (each fires it once); past it, the oldest are forgotten.
const maxFiredEntities = 4096

// watchpoint is a watchpoint as the agent holds it.
type watchpoint struct {
	protocol.Watchpoint
	spec  query.WatchSpec
	query *live.Query       // value: the query; spawn: the filter, or nil
	comps []ecs.ComponentID // value: the tested components
	comp  ecs.ComponentID   // add, remove: the component
	// raw holds a value watchpoint's field tests by component, when each
	// sits at a fixed place in pointer-free memory: the rows written are
	// then tested on their bytes, without building Go values.
	raw map[ecs.ComponentID][]*query.FieldTest
	// bounds holds them as the kernel tests them in its own loop (numbers
	// at fixed places only), by component.
	bounds map[ecs.ComponentID][]ecs.RawBound
	fired  map[ecs.Entity]bool
	order  []ecs.Entity                 // fired, oldest first
	last   map[ecs.Entity]reflect.Value // for a watchpoint on one entity: its values last seen
	// covered: the systems that write all it tests checked it this frame.
	covered bool
	// field is a value watchpoint's first field test: its values at the
	// hits are what the hit groups bound.
	field query.Term
	// staleSeen is how many stale uses the audit had counted at the last
	// check of a stale watchpoint.
	staleSeen uint64
	// danglingSeen is the number of the newest dangling handle a
	// dangling watchpoint has seen.
	danglingSeen uint64
	// skipsSeen is each system's skipped commands at the last check of a
	// skipped watchpoint.
	skipsSeen map[string]uint64
	// terms is a value watchpoint's query terms; units, the row tests its
	// checks were charged this frame; cut, that a check stopped when its
	// owner's share ran out (budget.go).
	terms    int
	units    int64
	cut      bool
	admitted bool      // its checks of this frame are charged
	hold     bool      // a hit's pause is held (protocol.Watch.Hold)
	res      *resWatch // a resource watchpoint's place and last value (resource.go)
	orphan   bool      // its client left: it outlives it (kept), on the agent's share
}

// Set is the agent's watchpoints and where the last check left off. Its
// checks run on the game goroutine (CheckSystem also from the systems of a
// parallel stage, as they end); a hit goes to Hooks.Broadcast.
type Set struct {
	w       *ecs.World
	lw      *live.World
	sched   *ecs.Schedule // for systems' names and timings; nil without one
	frameNs func() int64  // the last frame's time
	hooks   Hooks
	// held: a hit asked for its pause to be held (protocol.Watch.Hold),
	// since TakeHeld.
	held bool
	// replaying: the frame being checked is one the game ran before a
	// rewind (Replaying).
	replaying bool

	list  []*watchpoint
	next  uint32
	since uint32 // change stamp of the last check
	seq   uint64 // journal sequence number checked up to
	pause bool   // a hit that pauses fired since the last Sync
	// frameLast is the tick after the frame's systems' writes, which their
	// own checks looked at (checkSystem); 0: none this frame.
	frameLast uint32
	// frameStart is the change stamp as the schedule's run began
	// (CheckBeforeRun); stopped, that the game is stopped inside that
	// frame (Halted, until Released).
	frameStart uint32
	stopped    bool
	// lastStates is the frame's despawned entities' last states as a
	// query reads them, made once for every despawn watchpoint (nil for
	// one not kept); cleared as the frame's checks end.
	lastStates map[ecs.Entity]query.ValueRows
	// spent is each budget owner's row tests this frame; frameTook, the
	// time the value checks took; overFrames, the frames in a row they
	// took more than watchTime (budget.go).
	spent      map[int]int64
	frameTook  time.Duration
	overFrames int
	tel        struct{ units, suspended, mostUnits int64 } // row tests charged in all, watchpoints suspended, most row tests charged in a frame
	// pausedOn is the hit the game is paused on, for clients that join
	// while it is (hold clears it when the game runs on).
	pausedOn *protocol.WatchHit
	// mu guards the list and the hits while systems of a parallel stage
	// check watchpoints at once (checkSystem); the game goroutine holds it
	// otherwise only when it changes them.
	mu sync.Mutex
}

// Hooks are what the set tells its agent.
type Hooks struct {
	Broadcast func(hit *protocol.WatchHit)     // to every client
	Logf      func(format string, args ...any) // a watchpoint suspended
	// DanglingAfter is the dangling handles found new after the one
	// numbered seq, and the newest's number; nil: the agent does not look
	// for them.
	DanglingAfter func(seq uint64) ([]protocol.Dangling, uint64)
	// LastState is a dead entity's last state as the agent kept it, for
	// despawn watchpoints with a query; nil: none kept.
	LastState func(e ecs.Entity) (protocol.DeadEntity, bool)
	// EachDead calls its fn with every dead entity's last state kept,
	// oldest first, until fn returns false (a new watchpoint's search of
	// the past); nil: none kept.
	EachDead func(fn func(protocol.DeadEntity) bool)
}

// New makes an empty set over w (lw its queries), sched's systems (nil:
// none), frameNs the last frame's time.
func New(w *ecs.World, lw *live.World, sched *ecs.Schedule, frameNs func() int64, hooks Hooks) *Set {
	return &Set{w: w, lw: lw, sched: sched, frameNs: frameNs, hooks: hooks}
}

func (s *Set) logf(format string, args ...any) {
	if s.hooks.Logf != nil {
		s.hooks.Logf(format, args...)
	}
}

// Add compiles and adds the watchpoint m of client owner; it returns its
// id.
func (s *Set) Add(owner int, m *protocol.Watch) (uint32, error) {
	ws := s
	if len(ws.list) >= MaxWatchpoints {
		return 0, answer.Refuse(protocol.ErrTooLarge, "the agent holds at most %d watchpoints: remove one first", MaxWatchpoints)
	}
	wp := &watchpoint{}
	wp.Watchpoint = protocol.Watchpoint{Expr: m.Expr, Log: m.Log, Keep: m.Keep && m.Log, On: true, Owner: owner}
	wp.hold = m.Hold && !m.Log
	mine, kept := 0, 0
	for _, o := range ws.list {
		switch {
		case o.kept():
			kept++
		case o.Owner == owner:
			mine++
		}
	}
	if wp.kept() && kept >= MaxKeptWatchpoints {
		return 0, answer.Refuse(protocol.ErrTooLarge, "the agent keeps at most %d watchpoints that outlive their client (pausing ones, and log-only ones set with keep): remove one first", MaxKeptWatchpoints)
	}
	if !wp.kept() && mine >= MaxClientWatchpoints {
		return 0, answer.Refuse(protocol.ErrTooLarge, "a client holds at most %d log-only watchpoints: remove one first", MaxClientWatchpoints)
	}
	spec, err := query.ParseWatch(m.Expr)
	if err != nil {
		code := protocol.ErrBadValue
		if _, isQuery := err.(*query.QueryError); isQuery {
			code = protocol.ErrBadQuery
		}
		return 0, answer.Refuse(code, "%v", err)
	}
	wp.spec = spec
	switch spec.Kind {
	case "value":
		q, err := s.lw.CompileExpr(spec.Expr)
		if err != nil {
			return 0, answer.Refuse(protocol.ErrBadQuery, "%v", err)
		}
		wp.query = q
		wp.terms = len(spec.Expr.Terms)
		for _, t := range spec.Expr.Terms {
			if t.Kind == query.TermField && wp.field.Path == "" {
				wp.field = t
			}
		}
		wp.comps = slices.Clone(q.Fields)
		wp.raw, wp.bounds = rawTests(q)
		wp.fired = map[ecs.Entity]bool{}
		if spec.Entity != 0 { // the value it is set over is the first "before"
			wp.last = map[ecs.Entity]reflect.Value{}
			s.noteLast(wp, values.Entity(spec.Entity))
		}
	case "spawn", "despawn":
		if spec.Kind == "despawn" && spec.Query != "" && s.hooks.LastState == nil {
			return 0, answer.Refuse(protocol.ErrState, "the agent keeps no last state of the dead: despawn takes an entity here, not a query")
		}
		if spec.Expr != nil {
			q, err := s.lw.CompileExpr(spec.Expr)
			if err != nil {
				return 0, answer.Refuse(protocol.ErrBadQuery, "%v", err)
			}
			wp.query = q
		}
	case "add", "remove":
		info, ok := s.w.Inspect().ComponentByName(spec.Component)
		if !ok {
			return 0, answer.Refuse(protocol.ErrBadValue, "no component named %s", spec.Component)
		}
		wp.comp = info.ID
	case "stale":
		wp.staleSeen = s.w.Inspect().StaleUses().Total // uses from now on
	case "dangling":
		if s.hooks.DanglingAfter == nil {
			return 0, answer.Refuse(protocol.ErrState, "the agent does not look for dangling handles (Options.DanglingBudget is negative)")
		}
		_, wp.danglingSeen = s.hooks.DanglingAfter(0) // found from now on
	case "system":
		if !s.hasSystem(spec.System) {
			return 0, answer.Refuse(protocol.ErrBadValue, "no system named %s in the agent's schedule", spec.System)
		}
	case "skipped":
		if s.sched == nil {
			return 0, answer.Refuse(protocol.ErrBadValue, "the agent has no schedule (Options.Schedule): it sees no system's commands")
		}
		if spec.System != "" && !s.hasSystem(spec.System) {
			return 0, answer.Refuse(protocol.ErrBadValue, "no system named %s in the agent's schedule", spec.System)
		}
		wp.skipsSeen = s.skipCounts() // skips from now on
	case "resource":
		if err := s.addResource(wp); err != nil {
			return 0, err
		}
	}
	ws.next++
	wp.ID, wp.Kind = ws.next, spec.Kind
	ws.list = append(ws.list, wp)
	if len(ws.list) == 1 { // the first: checks start from now
		ws.since, ws.seq = s.w.Inspect().NextStamp(), s.journalHead()
	}
	return wp.ID, nil
}

// CatchUp checks the value watchpoint id, just added (its client told its
// id first), if the game is stopped inside a frame: over what the frame's
// systems wrote before the stop, as if it had been set as the frame began.
// A value they made true is their hit, named by the writer log, not that
// of a later system that writes the row again (which would find it true
// already). The game is stopped there: the hit does not pause it again
// (fire).
func (s *Set) CatchUp(id uint32) {
	i := s.find(id)
	if !s.stopped || i < 0 || !s.list[i].checked("value") {
		return
	}
	wp := s.list[i]
	s.fire(wp, s.checkValue(wp, "", tickRange{since: s.frameStart}), s.w.Frame()+1) // the frame in progress
}

// PastQuery is a value watchpoint's query and entity (0: any), for a
// search of the recorded past; ok is false for the other kinds.
func (s *Set) PastQuery(id uint32) (expr string, entity protocol.EntityID, ok bool) {
	i := s.find(id)
	if i < 0 || s.list[i].spec.Kind != "value" {
		return "", 0, false
	}
	sp := s.list[i].spec
	return sp.Query, sp.Entity, true
}

// rawTests are a query's field tests by component, for testing on memory,
// or nil if one of them cannot be (a path through a slice, a string); and,
// for the components whose every test is a number compared with a
// constant, the same tests as the kernel's bounds.
func rawTests(q *live.Query) (map[ecs.ComponentID][]*query.FieldTest, map[ecs.ComponentID][]ecs.RawBound) {
	pq := q.Plan.Query()
	out := map[ecs.ComponentID][]*query.FieldTest{}
	bounds := map[ecs.ComponentID][]ecs.RawBound{}
	noBound := map[ecs.ComponentID]bool{}
	for i := range pq.Fields {
		ft := &pq.Fields[i]
		if !ft.Fixed || ft.Leaf == nil || ft.Leaf.Kind == "string" {
			return nil, nil
		}
		c := ecs.ComponentID(ft.Component)
		out[c] = append(out[c], ft)
		if b, ok := KernelBound(ft); ok && values.LittleEndian {
			bounds[c] = append(bounds[c], b)
		} else {
			noBound[c] = true
		}
	}
	for c := range noBound {
		delete(bounds, c)
	}
	return out, bounds
}

// KernelBound turns a field test into the kernel's bound, when it is a number
// (or a handle) of 4 or 8 bytes at a fixed place compared with a constant.
// A float32 is compared with the float32 nearest the constant, as Go
// compares them and as query.Term.Holds does.
func KernelBound(ft *query.FieldTest) (ecs.RawBound, bool) {
	kinds := map[string]ecs.NumKind{"float4": ecs.Float32, "float8": ecs.Float64, "int4": ecs.Int32, "int8": ecs.Int64, "uint4": ecs.Uint32, "uint8": ecs.Uint64, "entity8": ecs.Uint64}
	ops := map[string]ecs.CmpOp{"<": ecs.Less, "<=": ecs.LessEqual, ">": ecs.Greater, ">=": ecs.GreaterEqual, "==": ecs.Equal, "!=": ecs.NotEqual}
	kind, okKind := kinds[fmt.Sprintf("%s%d", ft.Leaf.Kind, ft.Leaf.Size)]
	op, okOp := ops[ft.Term.Op]
	y, okNum := ft.Term.Value.Number()
	if !ft.Fixed || !okKind || !okOp || !okNum {
		return ecs.RawBound{}, false
	}
	if kind == ecs.Float32 {
		y = float64(float32(y))
	}
	return ecs.RawBound{Offset: ft.Offset, Kind: kind, Op: op, Value: y}, true
}

func containsID(ids []ecs.ComponentID, id ecs.ComponentID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// hasSystem reports whether the agent's schedule has a system by name.
func (s *Set) hasSystem(name string) bool {
	if s.sched == nil {
		return false
	}
	for _, s := range s.sched.Systems() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// find returns watchpoint id's index, or -1.
func (s *Set) find(id uint32) int {
	for i, wp := range s.list {
		if wp.ID == id {
			return i
		}
	}
	return -1
}

// Remove removes watchpoint id; mayPause says whether the client asking
// may change the world's flow (only such a one removes a watchpoint that
// pauses).
func (s *Set) Remove(id uint32, mayPause bool) error {
	i := s.find(id)
	if i < 0 {
		return answer.Refuse(protocol.ErrNotFound, "no watchpoint %d", id)
	}
	if !s.list[i].Log && !mayPause {
		return answer.Refuse(protocol.ErrReadOnly, "this session is read-only: watchpoint %d pauses the game, and only a session that may edit removes it", id)
	}
	s.list = append(s.list[:i], s.list[i+1:]...)
	return nil
}

// Enable turns watchpoint id on or off (on again after a suspension: its
// next check is charged afresh); mayPause as for Remove.
func (s *Set) Enable(id uint32, on, mayPause bool) error {
	i := s.find(id)
	if i < 0 {
		return answer.Refuse(protocol.ErrNotFound, "no watchpoint %d", id)
	}
	wp := s.list[i]
	if !wp.Log && !mayPause {
		return answer.Refuse(protocol.ErrReadOnly, "this session is read-only: watchpoint %d pauses the game, and only a session that may edit turns it on or off", id)
	}
	wp.On = on
	if on && wp.Suspended != "" {
		wp.Suspended = ""
	}
	return nil
}

// Hits is the hits of the watchpoints set now.
func (s *Set) Hits() uint64 {
	n := uint64(0)
	for _, wp := range s.list {
		n += wp.Hits
	}
	return n
}

// List is the watchpoints as the summary lists them.
func (s *Set) List() []protocol.Watchpoint {
	out := make([]protocol.Watchpoint, len(s.list))
	for i, wp := range s.list {
		out[i] = wp.Watchpoint
		out[i].Groups = slices.Clone(wp.Groups) // counted on as hits come: the copy is the summary's
	}
	return out
}

// journalHead is the sequence number of the newest journal entry.
func (s *Set) journalHead() uint64 {
	j := s.w.Inspect().Journal()
	if len(j) == 0 {
		return 0
	}
	return j[len(j)-1].Seq
}

// CheckSystem checks the value watchpoints whose tested components the
// system declared it writes, over what its run wrote (Schedule.SystemEnd).
// Systems of a parallel stage may end at once: a watchpoint is checked by
// the systems that write all it tests, which never run at the same time,
// and the list and the hits are guarded.
func (s *Set) CheckSystem(run ecs.SystemRun) {
	ws := s
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, wp := range ws.list {
		if wp.checked("resource") {
			by := run.Name
			if !run.Alone {
				by += ", or a system of its stage running beside it"
			}
			if s.fire(wp, s.checkResource(wp, by, false), s.w.Frame()+1) {
				run.Halt()
			}
			continue
		}
		if wp.checked("value") && writesAll(run.Writes, wp.comps) {
			wp.covered = true
			// The run that made it true wrote it: a system that only had
			// the column mutably finds the rows it holds for remembered.
			if s.fire(wp, s.checkValue(wp, run.Name, tickRange{since: run.Since}), s.w.Frame()+1) { // the frame in progress
				run.Halt() // stop right here, before later systems and the stage's commands
			}
		}
	}
	ws.frameLast = s.w.Inspect().NextStamp() // writes after this: another system's (checked by it) or outside the schedule
}

// CheckBeforeRun checks the value watchpoints over what was written since
// the last check and before the schedule runs: the game's own code between
// frames (Schedule.RunStart). Rows the systems write later are theirs to
// check; rows written before were checked at the last Sync, clients' edits
// as they were applied (CheckEdits).
func (s *Set) CheckBeforeRun() {
	s.frameStart = s.w.Inspect().NextStamp()
	s.checkWritesSince()
}

// CheckEdits checks the value watchpoints over clients' edits, right
// after Sync applied them: a hit an edit causes names the tick the game
// shows, and one that pauses stops the game there, not a frame later.
func (s *Set) CheckEdits() (pause bool) {
	s.checkWritesSince()
	pause, s.pause = s.pause, false
	return pause
}

// checkWritesSince checks the value watchpoints over what was written
// since the last check, as of the game's tick now.
func (s *Set) checkWritesSince() {
	ws := s
	s.checkResources()
	if !ws.hasKind("value") {
		return
	}
	since := ws.since
	ws.since = s.w.Inspect().NextStamp()
	tick := s.w.Frame()
	if ws.stopped { // inside the frame in progress
		tick++
	}
	for _, wp := range ws.list {
		if wp.checked("value") {
			s.fire(wp, s.checkValue(wp, "", tickRange{since: since}), tick)
		}
	}
}

// checkResources looks at every resource watchpoint's value for changes
// made outside the schedule's systems (the game's own code, clients).
func (s *Set) checkResources() {
	tick := s.w.Frame()
	if s.stopped { // inside the frame in progress
		tick++
	}
	for _, wp := range s.list {
		if wp.checked("resource") {
			s.fire(wp, s.checkResource(wp, "", false), tick)
		}
	}
}

// checked reports whether the watchpoint is of kind and is checked: on,
// and not suspended.
func (wp *watchpoint) checked(kind string) bool {
	return wp.On && wp.Suspended == "" && wp.Kind == kind
}

// newer reports whether tick a is after tick b, wrap-around safe.
func newer(a, b uint32) bool { return int32(a-b) > 0 }

// writesAll reports whether a system that declared writes writes every one
// of comps (nil writes: it declared nothing and runs alone).
func writesAll(writes, comps []ecs.ComponentID) bool {
	if writes == nil {
		return true
	}
	for _, c := range comps {
		if !containsID(writes, c) {
			return false
		}
	}
	return true
}

// hasKind reports whether a watchpoint of kind is checked.
func (ws *Set) hasKind(kind string) bool {
	for _, wp := range ws.list {
		if wp.checked(kind) {
			return true
		}
	}
	return false
}

// fire counts a hit and tells every client; one that pauses stops the game
// (inside the frame where a system's write made it true, else at the end
// of the frame) and fire reports it. tick is the frame that made it true,
// numbered as the summary numbers it once that frame ends.
func (s *Set) fire(wp *watchpoint, hit *protocol.WatchHit, tick uint64) (pauses bool) {
	if hit == nil {
		return false
	}
	hit.Watch, hit.Expr, hit.Tick, hit.Replayed = wp.ID, wp.Expr, tick, s.replaying
	if !hit.Replayed {
		wp.Hits++
	}
	if hit.By != "" && !hit.Replayed {
		var v protocol.Value
		if hit.Value != nil && hit.Component == wp.field.Component {
			if at, ok := hit.Value.At(wp.field.Path); ok {
				v = at
			}
		}
		n, numeric := v.Number()
		wp.Groups = protocol.Count(wp.Groups, hit, n, numeric)
	}
	hit.Paused = !wp.Log && !s.stopped // stopped inside a frame already: no other pause
	if hit.Paused {
		s.pause = true
		s.held = s.held || wp.hold // under the watches' lock; the game goroutine reads it after the stage
		s.pausedOn = hit
	}
	s.hooks.Broadcast(hit)
	return hit.Paused
}

// CheckFrame checks every watchpoint over the frame that just ended (the
// value ones over what was written since the last stage's check: the game's
// own code, clients' edits) and reports whether one that pauses fired.
func (s *Set) CheckFrame() (pause bool) {
	ws := s
	defer func() { ws.pause, ws.frameLast = false, 0 }()
	if len(ws.list) == 0 {
		return ws.pause
	}
	defer s.endWatchFrame()
	since := ws.since
	ws.since = s.w.Inspect().NextStamp()
	var entries []ecs.JournalEntry
	for _, wp := range ws.list {
		if wp.checked("spawn") || wp.checked("despawn") || wp.checked("add") || wp.checked("remove") {
			entries = s.w.Inspect().JournalSince(ws.seq)
			break
		}
	}
	if len(entries) > 0 {
		ws.seq = entries[len(entries)-1].Seq
	} else {
		ws.seq = max(ws.seq, s.journalHead())
	}
	for _, wp := range ws.list {
		if !wp.On || wp.Suspended != "" {
			continue
		}
		var hit *protocol.WatchHit
		switch wp.Kind {
		case "value":
			// What the frame's systems wrote, their own checks saw, and
			// what came before them, checkBeforeRun: here, what came after
			// the last; all of it if no system checked.
			if wp.covered && ws.frameLast != 0 && newer(ws.frameLast, since) {
				hit = s.checkValue(wp, "", tickRange{since: ws.frameLast})
			} else {
				hit = s.checkValue(wp, "", tickRange{since: since})
			}
			wp.covered = false
		case "spawn", "despawn", "add", "remove":
			hit = s.checkStructural(wp, entries)
		case "system", "frame":
			hit = s.checkTiming(wp)
		case "stale":
			hit = s.checkStale(wp)
		case "skipped":
			hit = s.checkSkipped(wp)
		case "dangling":
			hit = s.checkDangling(wp)
		case "resource": // changed after the last system: the game's own code
			hit = s.checkResource(wp, "", true)
		}
		s.fire(wp, hit, s.w.Frame())
	}
	return ws.pause
}

// tickRange is the writes a check looks at: ticks after since, up to until
// (0: no bound).
type tickRange struct{ since, until uint32 }

// within reports whether e's comp was written in r.
func (s *Set) within(e ecs.Entity, comp ecs.ComponentID, r tickRange) bool {
	return s.w.Inspect().ChangedSince(e, comp, r.since) && (r.until == 0 || !s.w.Inspect().ChangedSince(e, comp, r.until))
}

// checkValue looks for an entity, among those whose tested components
// were written in the ranges, for which the query now holds and which has
// not fired the watchpoint before; every such entity is remembered, so the
// run that made it true is the one its hit names. by is that run (a
// system's), or "" to ask the writer log.
func (s *Set) checkValue(wp *watchpoint, by string, ranges ...tickRange) *protocol.WatchHit {
	started := time.Now()
	defer func() { s.frameTook += time.Since(started) }()
	var first ecs.Entity
	var firstComp ecs.ComponentID
	matches := 0
	note := func(e ecs.Entity, comp ecs.ComponentID) {
		if first == (ecs.Entity{}) {
			first, firstComp = e, comp
		}
		wp.remember(e)
		matches++
	}
	// holdsNow runs the whole query on a row that passed the first tests,
	// if the owner's share affords it; false stops the walk.
	stop := false
	holdsNow := func(e ecs.Entity) bool {
		if !s.afford(wp) {
			stop = true
			return false
		}
		return s.lw.Holds(wp.query, e)
	}
	if !s.admit(wp) {
		return nil
	}
	if one := values.Entity(wp.spec.Entity); one != (ecs.Entity{}) {
		for _, comp := range wp.comps {
			for _, r := range ranges {
				if matches == 0 && s.w.Alive(one) && s.within(one, comp, r) && !wp.fired[one] && s.lw.Holds(wp.query, one) {
					note(one, comp)
				}
			}
		}
		return s.valueHit(wp, first, firstComp, matches, by)
	}
	for _, comp := range wp.comps {
		if stop {
			break
		}
		for _, r := range ranges {
			if bounds, ok := wp.bounds[comp]; ok {
				// The rows written that pass the tests, found by the
				// kernel in its loop; the whole query only for those.
				if s.w.Inspect().EachChangedWhere(comp, r.since, r.until, bounds, func(e ecs.Entity, _ []byte) bool {
					if !wp.fired[e] && holdsNow(e) {
						note(e, comp)
					}
					return !stop
				}) == nil {
					continue
				}
			}
			if tests, ok := wp.raw[comp]; ok {
				// The rows written, tested on their bytes; the whole query
				// (its other components and tests) only where these hold.
				if s.w.Inspect().EachChanged(comp, r.since, r.until, func(e ecs.Entity, raw []byte) bool {
					for _, test := range tests {
						if !test.HoldsRaw(raw) {
							return true
						}
					}
					if !wp.fired[e] && holdsNow(e) {
						note(e, comp)
					}
					return !stop
				}) {
					continue
				}
			}
			f := wp.query.Filter
			f.Changed, f.Since = []ecs.ComponentID{comp}, r.since
			f.Match = func(e ecs.Entity) bool {
				if r.until != 0 && s.w.Inspect().ChangedSince(e, comp, r.until) || wp.fired[e] || !s.lw.Holds(wp.query, e) {
					return false
				}
				note(e, comp)
				return false // counted here: Scan need not
			}
			s.w.Inspect().Scan(f, 0, 0)
		}
	}
	return s.valueHit(wp, first, firstComp, matches, by)
}

// valueHit makes the hit of a value watchpoint on first (none if zero),
// and notes the value of a watched entity for the next hit's "before". by
// is the run that wrote it, if known; else the writer log is asked.
func (s *Set) valueHit(wp *watchpoint, first ecs.Entity, comp ecs.ComponentID, matches int, by string) *protocol.WatchHit {
	var old reflect.Value
	if one := values.Entity(wp.spec.Entity); one != (ecs.Entity{}) {
		old = wp.last[one]
		s.noteLast(wp, one)
	}
	if first == (ecs.Entity{}) {
		return nil
	}
	hit := &protocol.WatchHit{Entity: values.Handle(first), Component: s.w.Inspect().Component(comp).Short, Matches: matches, By: by}
	if wr, _, ok := s.w.Inspect().LastWrite(first, comp); by == "" && ok && wr.Known {
		hit.By = wr.By
	}
	if v, ok := s.w.Inspect().Value(first, comp); ok {
		val := values.Of(v)
		hit.Value = &val
	}
	if old.IsValid() && comp == wp.comps[0] {
		val := values.Of(old)
		hit.Old = &val
	}
	hit.Text = fmt.Sprintf("%s: %s of %v", wp.Expr, hit.Component, first)
	if hit.By != "" {
		hit.Text += ", written by " + hit.By
	}
	if matches > 1 {
		hit.Text += fmt.Sprintf(" (and %d more)", matches-1)
	}
	return hit
}

// noteLast keeps the value of a watchpoint's one entity, for the next
// hit's "before".
func (s *Set) noteLast(wp *watchpoint, one ecs.Entity) {
	if len(wp.comps) == 0 {
		return
	}
	if v, ok := s.w.Inspect().Value(one, wp.comps[0]); ok {
		// Within values.Keep's bound: a component holding a huge value
		// has no "before" (the hit says so), not a copy of it each hit.
		if k := values.Keep(v); k.Copy.IsValid() {
			wp.last[one] = k.Copy
		} else {
			wp.last[one] = reflect.ValueOf(k.Note.Str())
		}
	}
}

// remember notes that e fired the watchpoint, forgetting the oldest past
// maxFiredEntities.
func (wp *watchpoint) remember(e ecs.Entity) {
	wp.fired[e] = true
	wp.order = append(wp.order, e)
	if len(wp.order) > maxFiredEntities {
		delete(wp.fired, wp.order[0])
		wp.order = wp.order[1:]
	}
}

// checkStructural looks for a journal entry of the frame that matches.
func (s *Set) checkStructural(wp *watchpoint, entries []ecs.JournalEntry) *protocol.WatchHit {
	for _, en := range entries {
		if en.Op.String() != wp.Kind {
			continue
		}
		if wp.spec.Entity != 0 && values.Handle(en.Entity) != wp.spec.Entity {
			continue
		}
		switch wp.Kind {
		case "add", "remove":
			if en.Component != int(wp.comp) {
				continue
			}
		case "spawn":
			if wp.query != nil && (!s.w.Alive(en.Entity) || !s.lw.Holds(wp.query, en.Entity)) {
				continue
			}
		case "despawn":
			if wp.query != nil && !s.heldAtDeath(wp, en.Entity) {
				continue
			}
		}
		hit := &protocol.WatchHit{Entity: values.Handle(en.Entity), By: en.System}
		if wp.comp != 0 || wp.Kind == "add" || wp.Kind == "remove" {
			hit.Component = s.w.Inspect().Component(wp.comp).Short
		}
		hit.Text = fmt.Sprintf("%s: %s %v by %s", wp.Expr, wp.Kind, en.Entity, en.System)
		return hit
	}
	return nil
}

// MinDeadTested is how many dead a search of the past tests before its
// deadline may cut it: a bound on work (each a few microseconds), so the
// oldest dead are always searched.
const MinDeadTested = 256

// FirstDead is the oldest last state the agent keeps of a dead entity
// for which value watchpoint id's query held (for its entity only, when
// it names one): where a watchpoint set late finds a value that was
// taken away with its entity in the frame it was made. It reads them
// until the deadline (on the game goroutine: the request's budget) and
// reports whether it read them all.
func (s *Set) FirstDead(id uint32, deadline time.Time) (first protocol.DeadEntity, held, all bool) {
	i := s.find(id)
	if i < 0 || s.list[i].spec.Kind != "value" || s.hooks.EachDead == nil {
		return protocol.DeadEntity{}, false, true
	}
	wp := s.list[i]
	var found protocol.DeadEntity
	all = true
	tested := 0
	s.hooks.EachDead(func(g protocol.DeadEntity) bool {
		// The first MinDeadTested are tested whatever the clock says: a
		// game goroutine preempted on a busy machine still searches the
		// oldest dead (where a bug's first victims lie) before the
		// deadline cuts it.
		if tested++; tested > MinDeadTested && time.Now().After(deadline) {
			all = false
			return false
		}
		if wp.spec.Entity != 0 && g.Entity != wp.spec.Entity {
			return true
		}
		rows := s.lastStateRows(g)
		if wp.query.Plan.Holds(rows, rows, 0) {
			found, held = g, true
			return false
		}
		return true
	})
	return found, held, all
}

// lastStateRows is a dead entity's last state as rows the query
// language's evaluator reads.
func (s *Set) lastStateRows(g protocol.DeadEntity) query.ValueRows {
	row := query.ValueRow{Entity: g.Entity, Parent: g.Parent, Components: map[uint16]protocol.Value{}}
	for _, cv := range g.Components {
		if info, ok := s.w.Inspect().ComponentByName(cv.Component); ok {
			row.Components[uint16(info.ID)] = cv.Value
		}
	}
	return query.ValueRows{row}
}

// heldAtDeath reports whether the watchpoint's query held for e's last
// state, as the agent kept it; false when it was not kept (more despawns
// in one frame than the agent keeps).
func (s *Set) heldAtDeath(wp *watchpoint, e ecs.Entity) bool {
	rows, ok := s.lastStates[e]
	if !ok { // made once a frame, whatever the watchpoints asking
		if s.lastStates == nil {
			s.lastStates = map[ecs.Entity]query.ValueRows{}
		}
		if g, kept := s.hooks.LastState(e); kept {
			rows = s.lastStateRows(g)
		}
		s.lastStates[e] = rows
	}
	return rows != nil && wp.query.Plan.Holds(rows, rows, 0)
}

// checkTiming compares the frame's time, or a system's last run, with the
// bound.
func (s *Set) checkTiming(wp *watchpoint) *protocol.WatchHit {
	if wp.Kind == "frame" {
		if d := time.Duration(s.frameNs()); d > wp.spec.Over {
			return &protocol.WatchHit{Text: fmt.Sprintf("%s: the frame took %v", wp.Expr, d.Round(time.Microsecond))}
		}
		return nil
	}
	if s.sched == nil {
		return nil
	}
	for _, s := range s.sched.Systems() {
		if s.Name == wp.spec.System && s.Last > wp.spec.Over {
			return &protocol.WatchHit{By: s.Name, Text: fmt.Sprintf("%s: %s ran %v", wp.Expr, s.Name, s.Last.Round(time.Microsecond))}
		}
	}
	return nil
}

// checkStale fires on uses of dead handles since the last check, naming
// the newest: the handle, the slot's generation now, who used it.
func (s *Set) checkStale(wp *watchpoint) *protocol.WatchHit {
	r := s.w.Inspect().StaleUses()
	if r.Total == wp.staleSeen || len(r.Recent) == 0 {
		return nil
	}
	n := r.Total - wp.staleSeen
	wp.staleSeen = r.Total
	u := r.Recent[len(r.Recent)-1]
	hit := &protocol.WatchHit{Entity: values.Handle(u.Handle), By: u.By, Matches: int(n),
		Text: fmt.Sprintf("stale: %v used by %s (the slot is at generation %d now)", u.Handle, u.By, u.Generation)}
	if n > 1 {
		hit.Text += fmt.Sprintf("; %d uses this frame", n)
	}
	return hit
}

// WatchesDangling reports whether a dangling watchpoint is set: the
// agent's scan then reads every frame, not a pass at a time.
func (s *Set) WatchesDangling() bool {
	for _, wp := range s.list {
		if wp.Kind == "dangling" {
			return true
		}
	}
	return false
}

// checkDangling fires when the agent found handles that name no live
// entity since the last check (in the watchpoint's component or resource,
// if it names one), naming the newest: where it is, and the system that
// despawned its entity.
func (s *Set) checkDangling(wp *watchpoint) *protocol.WatchHit {
	found, newest := s.hooks.DanglingAfter(wp.danglingSeen)
	wp.danglingSeen = newest
	found = slices.DeleteFunc(found, func(d protocol.Dangling) bool {
		return wp.spec.In != "" && d.Component != wp.spec.In && d.Resource != wp.spec.In ||
			wp.spec.Stored && !d.StoredAfter()
	})
	if len(found) == 0 {
		return nil
	}
	d := found[len(found)-1]
	hit := &protocol.WatchHit{Entity: d.Holder, Component: d.Component, By: d.By, Matches: len(found),
		Text: "dangling: " + d.String()}
	if wp.spec.Stored { // the suspect is who stored it, not who despawned its entity
		hit.By = d.Stored.By
		hit.Text = fmt.Sprintf("stored after its entity's despawn: %s", d.String())
	}
	if len(found) > 1 {
		hit.Text += fmt.Sprintf("; %d found this frame", len(found))
	}
	return hit
}

// AfterRestore starts the bookkeeping afresh after a rewind: the restore
// wrote every value, which is not a write a watchpoint looks for, and an
// entity that fired one before the rewind may fire it again after.
func (s *Set) AfterRestore() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.since = s.w.Inspect().NextStamp()
	s.seq = max(s.seq, s.journalHead())
	for _, wp := range s.list {
		clear(wp.fired)
		wp.order = wp.order[:0]
		clear(wp.last)
	}
}

// Replaying says whether the frames checked from now on are ones the game
// ran before a rewind: their hits are marked, not counted again.
func (s *Set) Replaying(on bool) {
	s.mu.Lock()
	s.replaying = on
	s.mu.Unlock()
}

// Halted drops the pause the hit that stopped the game inside its frame
// asked for (the game is paused there, not again at the frame's end) and
// notes that it is stopped there: a watchpoint set now catches up on the
// frame's writes so far (catchUp).
func (s *Set) Halted() {
	s.mu.Lock()
	s.pause, s.stopped = false, true
	s.mu.Unlock()
}

// Released says the game stopped inside its frame goes on with it: a
// watchpoint set from now on checks the writes still to come.
func (s *Set) Released() {
	s.mu.Lock()
	s.stopped = false
	s.mu.Unlock()
}

// PausedOn is the hit the game is paused on, if a watchpoint paused it.
func (s *Set) PausedOn() *protocol.WatchHit { return s.pausedOn }

// RunsOn forgets the hit the game was paused on: the game runs on.
func (s *Set) RunsOn() {
	s.mu.Lock()
	s.pausedOn = nil
	s.mu.Unlock()
}

// TakeHeld reports whether a hit since the last call asked for its pause
// to be held, and forgets it.
func (s *Set) TakeHeld() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held
	s.held = false
	return h
}

// skipCounts is each system's skipped commands now.
func (s *Set) skipCounts() map[string]uint64 {
	out := map[string]uint64{}
	for _, si := range s.sched.Systems() {
		out[si.Name] = si.Skipped
	}
	return out
}

// checkSkipped fires when a system (the watchpoint's, or any) had a
// queued command skipped since the last check, naming the system and the
// newest reason.
func (s *Set) checkSkipped(wp *watchpoint) *protocol.WatchHit {
	var hit *protocol.WatchHit
	for _, si := range s.sched.Systems() {
		seen := wp.skipsSeen[si.Name]
		wp.skipsSeen[si.Name] = si.Skipped
		if si.Skipped <= seen || hit != nil || wp.spec.System != "" && si.Name != wp.spec.System {
			continue
		}
		n := si.Skipped - seen
		hit = &protocol.WatchHit{By: si.Name, Matches: int(n), Text: fmt.Sprintf("skipped: %d commands %s queued were skipped", n, si.Name)}
		if k := len(si.SkippedWhy); k > 0 {
			hit.Text += ": " + si.SkippedWhy[k-1].Why
		}
	}
	return hit
}

package inspector

import (
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/dangling"
	"github.com/ecsinspect/ecsinspect/inspector/internal/graves"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/inspector/internal/resourcewrites"
	"github.com/ecsinspect/ecsinspect/inspector/internal/server"
	"github.com/ecsinspect/ecsinspect/inspector/internal/transport"
	"github.com/ecsinspect/ecsinspect/inspector/internal/watch"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// AgentVersion names this agent in handshakes.
const AgentVersion = "ecsinspect-agent 0.1"

// Agent serves one world to inspector clients. All socket I/O and encoding
// happen on the agent's goroutines (its server half, package
// internal/server); the world is touched only in Sync, on the game
// goroutine (its game half).
type Agent struct {
	w        *ecs.World
	opts     Options
	srv      *server.Server    // the server half: listeners, handshakes, tokens, clients and their queues
	ln       net.Listener      // the socket Options.Addr names; nil without one
	gameSide                   // the game half: what Sync drives on the game goroutine
	broker   transport.Running // the broker's, when Options.Broker is set (package inspector/broker)
	status   statusNotes       // the game's status for the broker's announcements (status.go)
	tel      telemetry
	closing  sync.Once

	// Logf, if set, receives the agent's notes (clients dropped, ...).
	Logf func(format string, args ...any)
}

// peer is what the game half keeps of a connected client: the server's
// client, and its subscriptions.
type peer struct {
	*server.Client
	subs map[uint32]*subscription
	// journalRoom is the bytes of journal frames the client may be sent
	// now (journalRate a second, journalBurst at most), as of roomAt.
	journalRoom float64
	roomAt      time.Time
}

// gameSide is the agent's game half: the state Sync drives on the game
// goroutine (pauses, subscriptions' clients in turn, watchpoints,
// recorders, the rewind ring, world feeds), touched nowhere else.
type gameSide struct {
	calls chan func() // Do's functions, run at the next Sync
	// released is closed by Release: the game is shutting down, and no
	// pause holds it.
	released    chan struct{}
	releaseOnce sync.Once

	paused   bool
	mid      *protocol.Halt        // where the game is stopped inside a frame (halt.go); nil between frames
	deferred []deferred            // requests made inside a frame, carried out at its end (halt.go)
	follow   followed              // the entities clients follow, for who changed their values (followwrites.go)
	restore  restoreMark           // the last rewind's writes, to tell a value restored from one written since (rewind.go)
	edited   bool                  // a client's edit was applied since the watchpoints last looked
	watches  *watch.Set            // the watchpoints (internal/watch)
	dangling *dangling.Tracker     // handles stored in the world that name no live entity; nil when off
	upkeep   upkeep                // the agent's own work's share of the game's (upkeep.go)
	graves   *graves.Yard          // the last state of recently despawned entities (internal/graves)
	conv     convertedJournal      // the journal as clients read it, converted once per entry (eventsjournal.go)
	children *ecs.Rel[ecs.ChildOf] // the hierarchy, for details' children
	stepLeft int
	// held: the pause outlives the clients (a Pause, Step or Rewind with
	// hold); alone is when the last client left a held pause.
	held      bool
	alone     time.Time
	reached   uint64        // the furthest frame the game has run, rewinds or not
	lastStart time.Time     // when the previous Sync started
	pausedFor time.Duration // how long the previous Sync held the game paused
	// pausedAll is every pause's time since the agent began (ns): the
	// game's running time is the time since then less it (runTime).
	pausedAll atomic.Int64
	began     time.Time // when New made the agent
	frameNs   int64     // Sync to Sync, less pauses
	// workNs is the last frame's work: its schedule's run to Sync, less
	// the stops inside it (runStart, haltedFor); 0 without a schedule.
	workNs int64
	// allocFrames counts the frames sampleAllocs saw (allocsample.go).
	allocFrames uint64
	// frames are the last frames, for the timeline (frames.go).
	frames    frameRing
	runStart  time.Time
	haltedFor time.Duration
	// lastFrameTick is the change stamp at the previous Sync: what a one-off
	// query's changed() and added() compare with ("during the last frame").
	lastFrameTick, frameTick uint32
	schemas                  []protocol.Component
	recycled                 []protocol.Slot
	resFields                map[string][]protocol.FieldSchema // resource schemas, converted once
	live                     map[*server.Client]*peer
	turn                     []*peer // live clients in join order: whose requests Sync takes
	recorders                []*record.Recorder
	feeds                    []*worldFeed // world subscriptions' streams, one per rate (worldfeed.go)
	// resWrites keeps who changed each part of the resources, looked at
	// while resLooking (resourcewriters.go); resMu keeps its looks from
	// systems of a parallel stage one at a time.
	resWrites   *resourcewrites.Tracker
	resLooking  bool
	resEditors  []string // the clients that changed the world in this Sync (lookAfterEdits)
	resMu       sync.Mutex
	ring        *record.Recorder // the in-memory recording a Rewind restores from (rewind.go)
	ringMem     *record.Ring
	ringOff     string       // why the ring keeps nothing, while the world is too big for it (ringroom.go)
	ringWeighed time.Time    // when the world was last weighed for the ring
	rewinding   bool         // a Rewind is being rebuilt
	searching   atomic.Bool  // a new value watchpoint's search of the recorded past runs (past.go)
	searchFree  atomic.Int64 // when the next search may begin, unix ns
	snap        *sharedCopy  // the newest world copy, shared by snapshot requests for a second
	lw          *live.World  // the live world as queries read it (internal/live)
}

// telemetry is what the game half counts, for Telemetry; the server half
// counts its clients' bytes and drops itself.
type telemetry struct {
	snapshots atomic.Uint64 // world copies for SnapshotRequests
	encodes   atomic.Uint64 // their encodings: one a copy, whatever asks for it
	syncNs    atomic.Int64
	recording atomic.Value // string
}

// New makes an agent for w. Call Start to listen, and Sync once per frame.
func New(w *ecs.World, opts Options) *Agent {
	opts.defaults()
	if opts.JournalSize > 0 && w.Inspect().Journal() == nil {
		w.Inspect().EnableJournal(opts.JournalSize)
	}
	w.Inspect().EnableStaleAudit(true) // the summary reports who uses dead handles
	// Every component keeps change stamps from now on: recordings,
	// watchpoints and "written by" read them, for any entity a client
	// opens later. (A world keeps none of a component nothing reads.)
	w.Inspect().TrackChanges()
	a := &Agent{
		w: w, opts: opts,
		gameSide: gameSide{
			calls:    make(chan func(), 64),
			released: make(chan struct{}),
			live:     map[*server.Client]*peer{},
		},
	}
	a.began = time.Now()
	a.lw = live.New(w, a.componentSchemas, a.tick)
	a.children = ecs.NewRel[ecs.ChildOf](w)
	hooks := watch.Hooks{Broadcast: a.broadcast, Logf: a.logf}
	if opts.DanglingBudget > 0 {
		a.dangling = dangling.New(w, opts.DanglingBudget)
		a.dangling.WrittenBy = func(e ecs.Entity, id ecs.ComponentID) *protocol.Provenance {
			written, _, _ := a.whoWrote(e, id)
			return written
		}
		a.dangling.ResourceWrittenBy = a.resourceWriter
		hooks.DanglingAfter = a.dangling.FoundAfter
	}
	a.resWrites = resourcewrites.New(w)
	a.graves = graves.New(w, a.whoMarked)
	hooks.LastState, hooks.EachDead = a.graves.Find, a.graves.Each
	a.watches = watch.New(w, a.lw, opts.Schedule, func() int64 { return a.frameNs }, hooks)
	a.srv = server.New(server.Config{Game: opts.Game, AgentVersion: AgentVersion, Token: opts.Token, ReadOnly: opts.ReadOnly,
		MaxClients: opts.MaxClients, MaxHandshakes: opts.MaxHandshakes, MaxFrame: opts.MaxFrame, MaxQueuedBytes: opts.MaxQueuedBytes,
		FrameTimeout: opts.FrameTimeout, HandshakeTimeout: opts.HandshakeTimeout, StuckTimeout: opts.StuckTimeout,
		Logf: func(format string, args ...any) { a.logf(format, args...) }})
	if s := opts.Schedule; s != nil {
		// Value watchpoints look at each system's writes as it ends: the
		// hit names the system that made the value, and sees it before a
		// despawn queued on it takes the entity away.
		prev, prevStart := s.SystemEnd, s.RunStart
		s.SystemEnd = func(w *ecs.World, run ecs.SystemRun) {
			if prev != nil {
				prev(w, run)
			}
			a.lookAtResources(run.Name, w.Frame()+1, run.WriteTypes)
			a.watches.CheckSystem(run)
			a.look(run.Writes)
		}
		s.RunStart = func(w *ecs.World) {
			if prevStart != nil {
				prevStart(w)
			}
			a.lookAtResources(outsideSchedule, w.Frame()+1, nil) // the game's code between frames
			a.runStart = time.Now()
			a.status.runStarted = a.runStart
			a.watches.CheckBeforeRun()
			a.look(nil)
		}
		prevStage := s.StageEnd
		s.StageEnd = func(w *ecs.World, stage string) {
			if prevStage != nil {
				prevStage(w, stage)
			}
			a.look(nil) // the stage's commands
		}
		prevHalted := s.Halted
		s.Halted = func(w *ecs.World, at ecs.Halt) {
			if prevHalted != nil {
				prevHalted(w, at)
			}
			a.haltMidFrame(at)
		}
	}
	return a
}

// Release ends any pause (a client's, a held one, a stop inside a frame)
// and keeps the game from pausing again, so a game that is shutting down
// gets out of Sync: call it from any goroutine, for instance on Ctrl-C,
// before waiting for the game loop to end. Clients stay connected until
// Close.
func (a *Agent) Release() {
	a.releaseOnce.Do(func() { close(a.released) })
	a.srv.WakeGame()
}

// logf notes what the agent did (clients dropped, ...) to Logf, if set.
func (a *Agent) logf(format string, args ...any) {
	if a.Logf != nil {
		a.Logf(format, args...)
	}
}

// Do runs f on the game goroutine at the next Sync, where the world may be
// touched (start a recording, take a snapshot) from another goroutine's
// code. It blocks only if 64 calls are already waiting.
func (a *Agent) Do(f func()) {
	a.calls <- f
	a.srv.WakeGame()
}

// maxPerSync bounds the requests one Sync applies, whatever their cost.
const maxPerSync = 512

// Sync is the agent's turn on the game goroutine: call it once per frame,
// after the frame's systems and World.Tick, when no query iterates. It
// applies the clients' commands in arrival order, copies what due
// subscriptions ask for, and hands the copies to the clients' writers; it
// never waits on a socket. While a client has the game paused, Sync blocks,
// still applying commands and serving subscriptions, until resume or step.
func (a *Agent) Sync() {
	start := time.Now()
	if !a.lastStart.IsZero() {
		// Start to start, less the time the game was held paused: the
		// frame's systems and the agent's own share of it.
		a.frameNs = (start.Sub(a.lastStart) - a.pausedFor).Nanoseconds()
	}
	a.lastStart, a.pausedFor = start, 0
	if !a.runStart.IsZero() {
		a.workNs = (start.Sub(a.runStart) - a.haltedFor).Nanoseconds()
		a.runStart, a.haltedFor = time.Time{}, 0
	}
	if a.frameNs > 0 {
		a.frames.note(frameRec{tick: a.w.Frame(), ns: a.frameNs, work: a.workNs, entities: a.w.Len(), end: start})
	}
	a.lastFrameTick, a.frameTick = a.frameTick, a.w.Inspect().NextStamp()
	if a.stepLeft > 0 { // a frame of a step ran: counted before this Sync's commands set a new step
		if a.stepLeft--; a.stepLeft == 0 {
			a.paused = true
		}
	}
	gameWork := time.Duration(a.frameNs - a.tel.syncNs.Load())
	if a.workNs > 0 {
		gameWork = time.Duration(a.workNs)
	}
	a.upkeep.frame(gameWork, a.graves.TakeSpent())
	a.sampleAllocs(gameWork)
	if a.srv.Clients() > 0 { // someone looks: every despawn's last state, to the yard's own bounds
		a.graves.Allow(-1)
	} else {
		a.graves.Allow(a.upkeep.allowed)
	}
	if a.dangling != nil { // before the watchpoints: a dangling one sees what this frame's reading found
		a.stepDangling()
	}
	// The frame that ended is a replay if the game had gone past it before
	// a rewind: its hits are marked so, not counted again.
	a.watches.Replaying(a.w.Frame() <= a.reached)
	if a.watches.CheckFrame() { // a watchpoint fired: the game stops at the end of this frame
		a.paused, a.stepLeft = true, 0
	}
	a.lookAtResourcesNow()
	a.runCalls()
	a.applyDeferred()
	a.drain(time.Now()) // the requests' budget is their own: watchpoints took theirs
	a.look(nil)         // the clients' edits
	a.lookAfterEdits()
	a.followDetails()
	if a.checkEdits() { // an edit made a watchpoint that pauses true: stop here
		a.paused, a.stepLeft = true, 0
	}
	a.capture(start)
	a.keepRing(start)
	for _, r := range a.recorders {
		r.Capture(start)
	}
	a.captureFeeds(start, false)
	a.reached = max(a.reached, a.w.Frame())
	a.watches.Replaying(a.w.Frame()+1 <= a.reached) // the next frame's checks, system by system
	a.tel.syncNs.Store(time.Since(start).Nanoseconds())
	a.noteFrame(time.Now())
	a.noteStatus(start, false)
	if !a.paused {
		return
	}
	pausedAt := time.Now()
	a.hold()
	a.pausedFor = time.Since(pausedAt)
	a.pausedAll.Add(int64(a.pausedFor))
	a.watches.Replaying(a.w.Frame()+1 <= a.reached) // a rewind while paused: the frames ahead are replays
}

// hold serves clients while the game is paused, between frames or inside
// one (a.mid), until a resume or a step lets it go, the last client
// leaves, or the agent closes.
func (a *Agent) hold() {
	defer func() {
		a.watches.RunsOn() // the game runs on: no longer paused on it
	}()
	for a.paused {
		a.held = a.watches.TakeHeld() || a.held
		if a.releaseAlone(time.Now()) {
			break
		}
		a.noteStatus(time.Now(), false)
		wait := a.nextDue(time.Now())
		if a.resumers() == 0 && a.opts.HoldTimeout > 0 {
			wait = min(wait, max(time.Until(a.alone.Add(a.opts.HoldTimeout)), time.Millisecond))
		}
		timer := time.NewTimer(wait)
		select {
		case <-a.srv.Woken():
		case <-timer.C:
		case <-a.srv.Closed():
			timer.Stop()
			a.paused = false
			return
		case <-a.released:
			timer.Stop()
			a.paused, a.held, a.stepLeft = false, false, 0
			return
		}
		timer.Stop()
		now := time.Now()
		if a.mid == nil { // Do's functions and the streams' frames wait for the frame's end
			a.runCalls()
		}
		a.drain(now)
		a.look(nil)
		a.lookAfterEdits()
		a.followDetails()
		if a.checkEdits() {
			a.paused, a.stepLeft = true, 0
		}
		a.capture(now)
		if a.mid == nil {
			a.captureFeeds(now, true)
			for _, r := range a.recorders {
				if r.Owed() {
					r.Capture(now)
				}
			}
		}
	}
}

// runCalls runs the functions Do queued, and the agent's own (a rewind's
// restore).
func (a *Agent) runCalls() {
	for len(a.calls) > 0 {
		(<-a.calls)()
	}
}

// drain applies joins and leaves, then the clients' waiting requests in
// turns of one request per client, until requestBudget is spent or
// maxPerSync applied; the rest wait for the next frame. A client whose
// copy job is still being built waits with its next query or snapshot.
func (a *Agent) drain(start time.Time) {
	for {
		select {
		case ev := <-a.srv.Events():
			switch c := a.live[ev.Client]; {
			case ev.Joined:
				c = &peer{Client: ev.Client, subs: map[uint32]*subscription{}}
				a.live[ev.Client] = c
				a.turn = append(a.turn, c)
				if h := a.watches.PausedOn(); h != nil && a.paused {
					c.Notify(h) // what the game is paused on, for a client that was not there
				}
			case c != nil:
				delete(a.live, ev.Client)
				a.turn = slices.DeleteFunc(a.turn, func(x *peer) bool { return x == c })
				a.watches.ForgetClient(c.ID())
				for id := range c.subs {
					a.unsubscribe(c, id)
				}
			}
			continue
		default:
		}
		break
	}
	applied := 0
	for progress := true; progress; {
		progress = false
		for _, c := range a.turn {
			if applied >= maxPerSync || time.Since(start) > requestBudget {
				return
			}
			if heavyRequest(c.PeekRequest()) && c.BusyHeavy() {
				continue
			}
			m := c.NextRequest()
			if m == nil {
				continue
			}
			a.apply(c, m)
			applied++
			progress = true
		}
	}
}

// checkEdits checks the value watchpoints over clients' edits, if any
// were applied since the last look: true when one that pauses fired.
func (a *Agent) checkEdits() (pause bool) {
	if !a.edited {
		return false // nothing written since the frame's own checks
	}
	a.edited = false
	return a.watches.CheckEdits()
}

// broadcast sends a hit to every client.
func (a *Agent) broadcast(hit *protocol.WatchHit) {
	for _, c := range a.live {
		c.Notify(hit)
	}
}

package ui

import (
	"fmt"
	"sync"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// source is where the UI gets the world: a live session or a recording.
type source interface {
	subscribe(protocol.Subscribe) tea.Cmd
	unsubscribe(id uint32) tea.Cmd
	request(what string, build func(id uint32) protocol.Message) tea.Cmd
}

// player replays a recording for the UI: the same messages a live agent
// sends, computed from the world state rebuilt at the current position.
type player struct {
	path   string
	rec    *recording.Recording
	replay *recording.Replay
	idx    int
	state  *recording.WorldState
	asOf   string // set when the tick asked for was not recorded: what is shown instead
	alive  int    // entities alive at the position

	mu     sync.Mutex // held while the state changes or is read; subs too
	nextID uint32     // request ids, for reads answered from the state
	subs   map[uint32]protocol.Subscribe

	// The chart's pins read the frames before the position through their
	// own handle on the file, so the panes' frames do not wait for them.
	historyMu  sync.Mutex
	historyRec *recording.Recording

	// stopped ends every replay under way and to come: the user quit.
	stopped atomic.Bool
	// progress, if set, is told how far a seek's replay got (loading.go).
	progress atomic.Pointer[func(applied, of int)]
}

// historyFrames is how many frames before the position a pin's history
// covers in a recording.
const historyFrames = 600

// openPlayer opens the recording at path, at its last frame.
func openPlayer(path string) (*player, error) {
	p, err := openPlayerAtNone(path)
	if err != nil {
		return nil, err
	}
	if err := p.seek(p.last()); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// openPlayerAtNone opens the recording at path, at no frame yet: a seek
// may take long (loading.go).
func openPlayerAtNone(path string) (*player, error) {
	rec, err := recording.OpenFrames(path)
	if err != nil {
		return nil, err
	}
	p := &player{path: path, rec: rec, replay: recording.NewReplay(rec), subs: map[uint32]protocol.Subscribe{}, nextID: 1 << 20}
	p.replay.Progress = func(applied, of int) bool {
		if f := p.progress.Load(); f != nil {
			(*f)(applied, of)
		}
		return !p.stopped.Load()
	}
	return p, nil
}

// last is the index of the recording's last frame.
func (p *player) last() int { return len(p.rec.Frames) - 1 }

func (p *player) close() {
	p.rec.Close()
	p.historyMu.Lock()
	if p.historyRec != nil {
		p.historyRec.Close()
	}
	p.historyMu.Unlock()
}

// seek moves to frame i: the state there, rebuilt from its keyframe.
func (p *player) seek(i int) error {
	i = max(0, min(i, len(p.rec.Frames)-1))
	p.mu.Lock()
	defer p.mu.Unlock()
	st, err := p.replay.At(i)
	if err != nil {
		p.state = nil
		return err
	}
	p.idx, p.state, p.asOf, p.alive = i, st, "", st.Entities()
	return nil
}

// seekTick moves to the last recorded frame at or before tick, and says so
// when tick itself was not recorded.
func (p *player) seekTick(tick uint64) error {
	i, note, err := p.rec.FrameFor(tick)
	if err != nil {
		return err
	}
	if err := p.seek(i); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asOf = note
	return nil
}

// keyframe returns the next (dir > 0) or previous keyframe from frame at.
func (p *player) keyframe(at, dir int) int {
	for i := at + dir; i >= 0 && i < len(p.rec.Frames); i += dir {
		if p.rec.Frames[i].Keyframe {
			return i
		}
	}
	return at
}

func (p *player) subscribe(sub protocol.Subscribe) tea.Cmd {
	p.mu.Lock()
	p.subs[sub.ID] = sub
	p.mu.Unlock()
	return p.frameCmd(sub.ID)
}

func (p *player) unsubscribe(id uint32) tea.Cmd {
	p.mu.Lock()
	delete(p.subs, id)
	p.mu.Unlock()
	return nil
}

func (p *player) request(what string, build func(uint32) protocol.Message) tea.Cmd {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	switch m := build(id).(type) { // reads: answered from the state
	case *protocol.GetEntity:
		return p.fromState(func(st *recording.WorldState) tea.Msg {
			d := st.Detail(m.Entity)
			d.Sub = id
			return detailMsg{d}
		})
	case *protocol.Query:
		return p.fromState(func(st *recording.WorldState) tea.Msg {
			page, err := st.QuerySorted(m.Expr, m.Sort, 0, m.Offset, m.Limit)
			if err != nil {
				return replyMsg{r: &protocol.Reply{ID: id, Code: protocol.ErrBadQuery, Message: err.Error()}, what: what}
			}
			page.Sub = id
			return pageMsg{page}
		})
	case *protocol.GetResource:
		return p.fromState(func(st *recording.WorldState) tea.Msg {
			page, err := st.Resource(m.Name, m.Path, m.Offset, m.Limit, m.All)
			if err != nil {
				return replyMsg{r: &protocol.Reply{ID: id, Code: protocol.ErrNotFound, Message: err.Error()}, what: what}
			}
			page.Sub = id
			return resourceMsg{page}
		})
	}
	return func() tea.Msg {
		return replyMsg{r: &protocol.Reply{Code: protocol.ErrReadOnly, Message: "a recording cannot be changed: " + what + " is for a live game"}, what: what}
	}
}

// fromState answers a read from the state at the position, as the UI may
// show it; nothing before the first frame is read.
func (p *player) fromState(read func(*recording.WorldState) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.state == nil {
			return nil
		}
		return shown(read(p.state))
	}
}

// refresh re-sends every subscription's frame, after a seek.
func (p *player) refresh() tea.Cmd {
	var cmds []tea.Cmd
	p.mu.Lock()
	for id := range p.subs {
		cmds = append(cmds, p.frameCmd(id))
	}
	p.mu.Unlock()
	return tea.Batch(cmds...)
}

// frameCmd computes what the agent would have sent for subscription id at
// the position, as the subscription and the position stand when it runs.
func (p *player) frameCmd(id uint32) tea.Cmd {
	return func() tea.Msg { return p.frame(id) }
}

// frame is what the agent would have sent for subscription id at the
// position, as the UI may show it (shown: made while the state is held).
func (p *player) frame(id uint32) (msg tea.Msg) {
	p.mu.Lock()
	defer func() { msg = shown(msg); p.mu.Unlock() }()
	sub, ok := p.subs[id]
	st := p.state
	if !ok || st == nil {
		return nil
	}
	switch sub.What {
	case protocol.SubSummary:
		s := *st.Summary
		s.Sub, s.Tick, s.Full, s.Paused, s.Entities = id, st.Tick, true, false, st.Entities()
		return summaryMsg{&s}
	case protocol.SubPage:
		page, err := st.QuerySorted(sub.Query, sub.Sort, sub.Archetype, sub.Offset, sub.Limit)
		if err != nil {
			return replyMsg{r: &protocol.Reply{ID: id, Code: protocol.ErrBadQuery, Message: err.Error()}, what: "query"}
		}
		page.Sub = id
		return pageMsg{page}
	case protocol.SubEntity:
		d := st.Detail(sub.Entity)
		d.Sub = id
		return detailMsg{d}
	case protocol.SubEvents:
		return eventsMsg{&protocol.Events{Sub: id, Tick: st.Tick, Queues: st.Events}}
	case protocol.SubJournal: // the frame's, filtered as an agent filters
		f := protocol.NewJournalFilter(sub.Filter, st.ComponentID)
		var kept []protocol.JournalEntry
		for i := range st.Journal {
			if f.Keeps(&st.Journal[i]) {
				kept = append(kept, st.Journal[i])
			}
		}
		return journalMsg{j: &protocol.Journal{Sub: id, Tick: st.Tick, Entries: kept}, replace: true}
	case protocol.SubResource:
		page, err := st.Resource(sub.Resource, sub.Path, sub.Offset, sub.Limit, false)
		if err != nil {
			return replyMsg{r: &protocol.Reply{ID: id, Code: protocol.ErrNotFound, Message: err.Error()}, what: "resource"}
		}
		page.Sub = id
		return resourceMsg{page}
	case protocol.SubPoints:
		spec, err := protocol.ParsePoints(sub.Query)
		if err == nil && len(sub.Dots) != 2 {
			err = fmt.Errorf("a density grid is a width and a height")
		}
		var pts *protocol.Points
		if err == nil {
			pts, err = st.Points(spec, sub.Box, sub.Dots[0], sub.Dots[1], sub.Marks)
		}
		if err != nil {
			return replyMsg{r: &protocol.Reply{ID: id, Code: protocol.ErrBadQuery, Message: err.Error()}, what: "map"}
		}
		pts.Sub = id
		return pointsMsg{pts}
	case protocol.SubSeries:
		at := p.idx
		p.mu.Unlock() // the history reads the file on its own handle
		defer p.mu.Lock()
		return p.history(id, sub.Query, at)
	}
	return nil
}

// shown is a frame as the UI may show it. A recording's names, reasons and
// values come from a file anyone may have written: when a string a frame
// holds would act on the terminal, the UI gets a copy with it escaped (the
// replay's state, which the frame shares, keeps what the file says).
func shown(msg tea.Msg) tea.Msg {
	c, ok := msg.(carrier)
	if !ok || !printable.Dirty(c.carried()) {
		return msg
	}
	copied, err := wireCopy(c.carried())
	if err != nil {
		return replyMsg{r: &protocol.Reply{Code: protocol.ErrInternal, Message: "a recorded frame could not be copied to show: " + err.Error()}, what: "replay"}
	}
	printable.Clean(copied)
	return c.carrying(copied)
}

// wireCopy is m as a client reading it from the wire would have it: a copy
// that shares nothing with m.
func wireCopy(m protocol.Message) (protocol.Message, error) {
	b, err := protocol.Encode(m)
	if err != nil {
		return nil, err
	}
	return protocol.Decode(b)
}

// carrier is a UI message that carries a protocol message: the one it
// carries, and itself carrying another of the same type instead.
type carrier interface {
	carried() protocol.Message
	carrying(protocol.Message) tea.Msg
}

func (m summaryMsg) carried() protocol.Message  { return m.s }
func (m pageMsg) carried() protocol.Message     { return m.p }
func (m detailMsg) carried() protocol.Message   { return m.d }
func (m eventsMsg) carried() protocol.Message   { return m.e }
func (m journalMsg) carried() protocol.Message  { return m.j }
func (m resourceMsg) carried() protocol.Message { return m.p }
func (m replyMsg) carried() protocol.Message    { return m.r }

func (m summaryMsg) carrying(c protocol.Message) tea.Msg  { m.s = c.(*protocol.Summary); return m }
func (m pageMsg) carrying(c protocol.Message) tea.Msg     { m.p = c.(*protocol.Page); return m }
func (m detailMsg) carrying(c protocol.Message) tea.Msg   { m.d = c.(*protocol.Detail); return m }
func (m eventsMsg) carrying(c protocol.Message) tea.Msg   { m.e = c.(*protocol.Events); return m }
func (m journalMsg) carrying(c protocol.Message) tea.Msg  { m.j = c.(*protocol.Journal); return m }
func (m resourceMsg) carrying(c protocol.Message) tea.Msg { m.p = c.(*protocol.ResourcePage); return m }
func (m replyMsg) carrying(c protocol.Message) tea.Msg    { m.r = c.(*protocol.Reply); return m }

// history computes a pin over the frames up to frame at: what the agent
// would have sent, one sample a recorded frame.
// secondReplay is a replay on the player's second handle on its file, for
// work that reads many frames (a pin's history, a query's first tick)
// while the review stays where it is; call it holding historyMu.
func (p *player) secondReplay() (*recording.Replay, error) {
	if p.historyRec == nil {
		rec, err := recording.OpenFrames(p.path)
		if err != nil {
			return nil, err
		}
		p.historyRec = rec
	}
	return recording.NewReplay(p.historyRec), nil
}

func (p *player) history(id uint32, expr string, at int) tea.Msg {
	fail := func(code string, err error) tea.Msg {
		return replyMsg{r: &protocol.Reply{ID: id, Code: code, Message: err.Error()}, what: "pin"}
	}
	spec, err := protocol.ParseSeries(expr)
	if err != nil {
		return fail(protocol.ErrBadValue, err)
	}
	p.historyMu.Lock()
	defer p.historyMu.Unlock()
	r, err := p.secondReplay()
	if err != nil {
		return fail(protocol.ErrInternal, err)
	}
	var out []sample
	for i := max(0, at-historyFrames); i <= at; i++ {
		st, err := r.At(i)
		if err != nil {
			continue // a frame the recording cannot rebuild: a gap in the line
		}
		v, _, err := st.Sample(spec)
		if err != nil {
			return fail(protocol.ErrBadQuery, err)
		}
		s := sample{tick: st.Tick, ok: v != nil}
		if s.ok {
			s.v = *v
		}
		out = append(out, s)
	}
	return seriesHistoryMsg{sub: id, samples: out}
}

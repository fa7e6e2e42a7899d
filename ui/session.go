package ui

import (
	"errors"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Subscription ids the UI uses.
const (
	subSummary uint32 = 1
	subDetail  uint32 = 3
	subEvents  uint32 = 4
	subJournal uint32 = 5
	subPoints  uint32 = 6 // the map's grid
	// subPageFirst is the first of the entities view's subscriptions: each
	// new query or archetype takes the next id.
	subPageFirst uint32 = 100
)

// connState is what the status bar says of the connection.
type connState int

const (
	stateConnecting connState = iota
	stateConnected
	stateReconnecting
	stateClosed
)

// Messages from the session to the UI.
type (
	connMsg struct {
		state   connState
		err     error
		attempt int
		welcome *protocol.Welcome
	}
	summaryMsg struct{ s *protocol.Summary }
	pageMsg    struct{ p *protocol.Page }
	detailMsg  struct{ d *protocol.Detail }
	eventsMsg  struct{ e *protocol.Events }
	journalMsg struct {
		j       *protocol.Journal
		replace bool // a recording's frame: these entries are the whole view
	}
	replyMsg struct {
		r    *protocol.Reply
		what string
	}
	watchHitMsg struct{ h *protocol.WatchHit }
)

// session keeps one connection to an agent: it connects (and reconnects
// with backoff), resubscribes, applies deltas and hands whole frames to the
// UI. Requests may be sent from any goroutine.
type session struct {
	game client.Game
	send func(tea.Msg) // the program's Send

	mu      sync.Mutex
	writeMu sync.Mutex // one frame at a time
	outbox  chan outgoing
	conn    *protocol.Conn
	nextID  uint32
	subs    map[uint32]protocol.Subscribe
	pending map[uint32]string // request id -> what it was, for the status bar
	closed  chan struct{}
	once    sync.Once
}

func newSession(g client.Game) *session {
	// Request ids start far above subscription ids, so a reply is never
	// taken for another's.
	return &session{game: g, subs: map[uint32]protocol.Subscribe{}, pending: map[uint32]string{},
		nextID: 1 << 20, closed: make(chan struct{}), outbox: make(chan outgoing, 1024)}
}

// outgoing is a message on its way to the agent, with what the UI calls it
// (for a request's failure), in the order the UI made them.
type outgoing struct {
	m    protocol.Message
	what string
	id   uint32
}

// enqueue queues m for the writer: messages leave in the order the UI
// made them (commands run on goroutines of their own and would not keep
// it: an unsubscribe could pass the subscribe that followed it).
func (s *session) enqueue(o outgoing) tea.Cmd {
	select {
	case s.outbox <- o:
		return nil
	default:
		if o.what == "" {
			return nil
		}
		return func() tea.Msg {
			return replyMsg{r: &protocol.Reply{ID: o.id, Code: "offline", Message: "too many requests waiting for the connection"}, what: o.what}
		}
	}
}

// writeLoop sends queued messages in order until the session closes.
func (s *session) writeLoop() {
	for {
		select {
		case <-s.closed:
			return
		case o := <-s.outbox:
			if err := s.write(o.m); err != nil && o.what != "" {
				s.send(replyMsg{r: &protocol.Reply{ID: o.id, Code: "offline", Message: err.Error()}, what: o.what})
			}
		}
	}
}

// run keeps the session connected until close.
func (s *session) run() {
	go s.writeLoop()
	attempt := 0
	for {
		select {
		case <-s.closed:
			return
		default:
		}
		c, w, err := s.game.Connect("ecsinspect " + client.Version)
		if err != nil {
			attempt++
			s.send(connMsg{state: stateReconnecting, err: err, attempt: attempt})
			var re *protocol.RejectError
			if errors.As(err, &re) && (re.Code == protocol.ErrToken || re.Code == protocol.ErrVersion) || errors.Is(err, protocol.ErrWeakToken) {
				s.send(connMsg{state: stateClosed, err: err})
				return // retrying will not help
			}
			select {
			case <-time.After(backoff(attempt)):
			case <-s.closed:
				return
			}
			continue
		}
		attempt = 0
		s.mu.Lock()
		s.conn = c
		subs := make([]protocol.Subscribe, 0, len(s.subs))
		for _, sub := range s.subs {
			subs = append(subs, sub)
		}
		s.mu.Unlock()
		s.send(connMsg{state: stateConnected, welcome: w})
		for i := range subs {
			_ = s.write(&subs[i])
		}
		s.read(c)
		s.mu.Lock()
		s.conn = nil
		s.mu.Unlock()
		c.Close()
	}
}

func backoff(attempt int) time.Duration {
	d := 250 * time.Millisecond << min(attempt-1, 5)
	return min(d, 5*time.Second)
}

// read passes frames to the UI, deltas applied, until the connection fails.
func (s *session) read(c *protocol.Conn) {
	in := inbox{pages: map[uint32]*protocol.Page{}}
	for {
		m, err := c.Receive()
		if err != nil {
			select {
			case <-s.closed:
			default:
				s.send(connMsg{state: stateReconnecting, err: err, attempt: 1})
			}
			return
		}
		if msg := in.take(s, m); msg != nil {
			s.send(msg)
		}
	}
}

// inbox turns what the agent sends into the UI's messages: deltas applied
// to the summary and pages they follow, every string cleaned.
type inbox struct {
	summary *protocol.Summary
	pages   map[uint32]*protocol.Page
}

// take is m as the UI's message, or nil when it is news to nobody (a
// delta that does not apply, a subscription's OK).
func (in *inbox) take(s *session, m protocol.Message) tea.Msg {
	printable.Clean(m) // names, reasons and messages from the game reach the terminal
	switch m := m.(type) {
	case *protocol.Summary:
		if next, err := protocol.ApplySummary(in.summary, m); err == nil {
			in.summary = next
			return summaryMsg{next}
		}
	case *protocol.Page:
		if next, err := protocol.ApplyPage(in.pages[m.Sub], m); err == nil {
			in.pages[m.Sub] = next
			return pageMsg{next}
		}
	case *protocol.Detail:
		return detailMsg{m}
	case *protocol.Events:
		return eventsMsg{m}
	case *protocol.Journal:
		return journalMsg{j: m}
	case *protocol.WatchHit:
		return watchHitMsg{m}
	case *protocol.Series:
		return seriesMsg{m}
	case *protocol.ResourcePage:
		return resourceMsg{m}
	case *protocol.DanglingPage:
		return danglingPageMsg{m}
	case *protocol.Points:
		if m.Check() != nil {
			return nil // a grid that is not whole draws nothing
		}
		return pointsMsg{m}
	case *protocol.Reply:
		s.mu.Lock()
		what, asked := s.pending[m.ID]
		delete(s.pending, m.ID)
		s.mu.Unlock()
		if !asked { // a subscription's answer: only a refusal is news
			if m.OK {
				return nil
			}
			what = "subscribe"
		}
		return replyMsg{r: m, what: what}
	}
	return nil
}

func (s *session) write(m protocol.Message) error {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return errors.New("not connected")
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.Send(m)
}

// subscribe starts (or restarts, full frame first) a subscription, kept
// across reconnects.
func (s *session) subscribe(sub protocol.Subscribe) tea.Cmd {
	s.mu.Lock()
	s.subs[sub.ID] = sub
	s.mu.Unlock()
	return s.enqueue(outgoing{m: &sub})
}

func (s *session) unsubscribe(id uint32) tea.Cmd {
	s.mu.Lock()
	_, had := s.subs[id]
	delete(s.subs, id)
	reqID := s.nextID
	s.nextID++
	s.mu.Unlock()
	if !had {
		return nil
	}
	return s.enqueue(outgoing{m: &protocol.Unsubscribe{ID: reqID, Sub: id}})
}

// request sends a command; its reply comes back as a replyMsg naming what.
func (s *session) request(what string, build func(id uint32) protocol.Message) tea.Cmd {
	s.mu.Lock()
	id := s.nextID
	s.nextID++
	s.pending[id] = what
	s.mu.Unlock()
	return s.enqueue(outgoing{m: build(id), what: what, id: id})
}

func (s *session) close() {
	s.once.Do(func() {
		close(s.closed)
		s.mu.Lock()
		if s.conn != nil {
			s.conn.Close()
		}
		s.mu.Unlock()
	})
}

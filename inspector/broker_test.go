package inspector

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // the transport under test
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/nats-io/nats.go"
)

// Over a broker: a real NATS server embedded in the test, games dialing
// out to it, clients reaching them through it.

func startLocalBroker(t *testing.T, o localbroker.Options) *localbroker.Broker {
	t.Helper()
	b, err := localbroker.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	return b
}

// roster follows the fleet on b until the test ends.
func roster(t *testing.T, url string) *fleet.Roster {
	t.Helper()
	target, err := fleet.ParseURL(url)
	must(t, err)
	nc, err := fleet.Connect(target, "test roster", 3*time.Second)
	must(t, err)
	t.Cleanup(nc.Close)
	r, err := fleet.WatchRoster(nc, target.Prefix, "")
	must(t, err)
	t.Cleanup(r.Close)
	return r
}

// member waits until the roster holds an instance as wanted.
func member(t *testing.T, r *fleet.Roster, instance string, want func(fleet.Member) bool) fleet.Member {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, m := range r.Members() {
			if m.Instance == instance && want(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no member %s as wanted in 10 s: %+v", instance, r.Members())
		}
		select {
		case <-r.Changed():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestAGameOverNATS: a game that dials out to a broker is discovered,
// attached to, paged, edited and watched through it, as over its socket.
func TestAGameOverNATS(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{})
	g := startGame(t, Options{Broker: b.URL(), Instance: "match-1", AnnounceEvery: 100 * time.Millisecond})
	r := roster(t, b.URL())
	m := member(t, r, "match-1", func(m fleet.Member) bool { return m.Tick > 0 && m.TPS > 0 })
	if m.Game != "test" || m.Entities != 20 || m.Gone || m.PID == 0 || m.FrameP99 <= 0 {
		t.Fatalf("discovered %+v", m)
	}
	c := dialAddr(t, b.URL()+"/match-1", protocol.Hello{Version: protocol.Version, Client: "fleet-ui"})
	sub := c.request(&protocol.Subscribe{What: protocol.SubPage, Query: "Health", Limit: 5, Hz: 20})
	page := c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Page); return ok && p.Sub == sub }).(*protocol.Page)
	if len(page.Rows) != 5 || page.Total != 20 {
		t.Fatalf("page over the broker: %d rows of %d", len(page.Rows), page.Total)
	}
	w := c.reply(&protocol.Watch{Expr: "Health.HP>1000"})
	wantOK(t, "watch", w)
	wantOK(t, "edit", c.reply(&protocol.SetField{Entity: wire(g.ents[4]), Path: "Health.HP", Value: protocol.IntValue(5000)}))
	hit := c.awaitHit()
	if hit.Watch != w.Watch || hit.Entity != wire(g.ents[4]) || !hit.Paused {
		t.Fatalf("hit over the broker: %+v", hit)
	}
	member(t, r, "match-1", func(m fleet.Member) bool { return m.Paused && m.Hits == 1 && m.Clients == 1 })
	id := c.request(&protocol.GetEntity{Entity: wire(g.ents[4])})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	hp := int64(0)
	for _, cv := range d.Components {
		if cv.Component == "Health" {
			v, _ := cv.Value.Get("HP")
			hp = v.Int()
		}
	}
	if hp != 5000 {
		t.Fatalf("the edit over the broker: %+v", d.Components)
	}
	// A snapshot is bigger than one broker message: it comes in several.
	snap := c.request(&protocol.SnapshotRequest{})
	c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && s.ID == snap })
}

// TestBrokerTokensAndReadOnly: the token and read-only rules hold over
// the broker as over the socket.
func TestBrokerTokensAndReadOnly(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{})
	g := startGame(t, Options{Broker: b.URL(), Instance: "locked", Token: "s3cret-0123456789abcdef"})
	url := b.URL() + "/locked"
	member(t, roster(t, b.URL()), "locked", func(fleet.Member) bool { return true })
	_, err := tryDialAddr(url, protocol.Hello{Version: protocol.Version, Token: "wrong-0123456789abcdef"})
	var rej *protocol.RejectError
	if !errors.As(err, &rej) || rej.Code != protocol.ErrToken {
		t.Fatalf("a wrong token over the broker: %v", err)
	}
	ro := dialAddr(t, url, protocol.Hello{Version: protocol.Version, Token: "s3cret-0123456789abcdef", Caps: []string{"read"}})
	if r := ro.reply(&protocol.SetField{Entity: wire(g.ents[1]), Path: "Health.HP", Value: protocol.IntValue(1)}); r.OK || r.Code != protocol.ErrReadOnly {
		t.Fatalf("a read-only session's edit: %+v", r)
	}
}

// TestBrokerFailures: the game runs on whatever the broker does: an
// instance name nobody serves fails at once, wrong credentials are named,
// a broker restart ends open sessions with an error and new ones work
// once it is back, and a closed instance is shown gone.
func TestBrokerFailures(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{User: "game", Password: "pw"})
	if _, err := tryDialAddr(b.URL()+"/nobody", protocol.Hello{}); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("no credentials: %v", err)
	}
	url := b.URLWithCredentials()
	if _, err := tryDialAddr(url+"/nobody", protocol.Hello{}); err == nil || !strings.Contains(err.Error(), `no instance "nobody"`) {
		t.Fatalf("an instance nobody serves: %v", err)
	}
	// Wrong credentials in the game: it starts, runs, and keeps trying.
	wrong := startGame(t, Options{Broker: strings.Replace(url, ":pw@", ":nope@", 1), Instance: "wrong"})
	before := wrong.frames.Load()
	g := startGame(t, Options{Broker: url, Instance: "solid", AnnounceEvery: 100 * time.Millisecond})
	r := roster(t, url)
	member(t, r, "solid", func(fleet.Member) bool { return true })
	c := dialAddr(t, url+"/solid", protocol.Hello{Version: protocol.Version})
	c.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 10})
	c.summary()
	b.Shutdown()
	_ = c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, err := c.conn.Receive(); err != nil {
			break // the session ended: the client sees it
		}
	}
	framesAtRestart := g.frames.Load()
	must(t, b.Restart())
	deadline := time.Now().Add(30 * time.Second)
	for {
		c2, err := tryDialAddr(url+"/solid", protocol.Hello{Version: protocol.Version})
		if err == nil {
			c2.t = t
			c2.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 10})
			c2.summary()
			c2.conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session with the game 30 s after the broker came back: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if g.frames.Load() <= framesAtRestart || wrong.frames.Load() <= before {
		t.Fatalf("the games stopped: %d -> %d frames, the one with wrong credentials %d -> %d", framesAtRestart, g.frames.Load(), before, wrong.frames.Load())
	}
	if g.agent.broker.Counts()["errors"] == 0 {
		t.Fatal("the broker's restart was not counted")
	}
	r = roster(t, url) // the old roster's connection did not retry
	member(t, r, "solid", func(fleet.Member) bool { return true })
	g.close()
	if m := member(t, r, "solid", func(m fleet.Member) bool { return m.Gone }); m.Why != "closed" {
		t.Fatalf("a closed instance: %+v", m)
	}
	for _, m := range r.Members() {
		if m.Instance == "wrong" {
			t.Fatalf("an instance with wrong credentials was seen: %+v", m)
		}
	}
}

// TestHostilePublishersOnTheFleet: garbage, floods and forged session
// messages on the fleet's subjects cost the game nothing it notices: it
// keeps its frames, answers within its reply rate, ends only the session
// a forger wrote into, and serves a new client afterwards.
func TestHostilePublishersOnTheFleet(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{})
	g := startGame(t, Options{Broker: b.URL(), Instance: "victim", AnnounceEvery: 100 * time.Millisecond})
	r := roster(t, b.URL())
	member(t, r, "victim", func(fleet.Member) bool { return true })
	target, err := fleet.ParseURL(b.URL())
	must(t, err)
	evil, err := fleet.Connect(target, "evil", 3*time.Second)
	must(t, err)
	defer evil.Close()
	// Learn the sessions' subjects as a publisher with wide permissions would.
	seen := make(chan string, 64)
	spy, err := evil.Subscribe("ecsinspect.i.victim.c.*.s.*.up", func(m *nats.Msg) {
		select {
		case seen <- m.Subject:
		default:
		}
	})
	must(t, err)
	must(t, evil.Flush())
	honest := dialAddr(t, b.URL()+"/victim", protocol.Hello{Version: protocol.Version, Client: "honest"})
	honest.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 20})
	honest.summary()
	bystander := dialAddr(t, b.URL()+"/victim", protocol.Hello{Version: protocol.Version, Client: "bystander"})
	bystander.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 20})
	bystander.summary()
	must(t, spy.Unsubscribe())
	framesBefore := g.frames.Load()
	garbage := []byte{0xc1, 0xff, 0x00, 0x92}
	before, floodAt := g.agent.broker.Counts(), time.Now()
	for i := range 20000 {
		must(t, evil.Publish(fleet.AnnounceSubject("ecsinspect", "victim"), garbage))
		must(t, evil.PublishRequest(fleet.DiscoverSubject("ecsinspect"), "evil.inbox", nil))
		if i%100 == 0 {
			must(t, evil.PublishRequest(fleet.PingSubject("ecsinspect", "victim"), "_INBOX.evil", nil)) // an inbox: answered, within the rate
		}
		must(t, evil.Publish(fleet.UpSubject("ecsinspect", "victim", fleet.AnonymousClient, "nosuchsession"), garbage))
		if i%40 == 0 { // sessions opened with garbage for their hello
			m := nats.NewMsg(fleet.UpSubject("ecsinspect", "victim", fleet.AnonymousClient, "flood"+strconv.Itoa(i)))
			m.Header.Set(fleet.SeqHeader, "1")
			m.Data = garbage
			must(t, evil.PublishMsg(m))
		}
	}
	// A forged message in the honest client's session, out of its order.
	forged := nats.NewMsg(<-seen)
	forged.Header.Set(fleet.SeqHeader, "2")
	forged.Data = garbage
	must(t, evil.PublishMsg(forged))
	must(t, evil.Flush())
	forgedAt := time.Now()
	ended := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !ended; {
		_ = honest.conn.SetReadDeadline(deadline)
		if _, err := honest.conn.Receive(); err != nil {
			ended = true
		}
	}
	t.Logf("the forged session ended after %v", time.Since(forgedAt))
	bystander.summary() // the other session goes on
	if !ended {
		t.Fatal("a session a forger wrote into went on")
	}
	n := g.agent.broker.Counts()
	if n["throttled"] == 0 || r.Bad.Load() == 0 || n["stray"] == 0 {
		t.Fatalf("the flood was not seen: throttled %d, bad statuses %d, stray %d", n["throttled"], r.Bad.Load(), n["stray"])
	}
	// Discover requests are answered together: 20,000 of them cost the
	// instance an announcement a quarter second at most (and its clock's).
	// (The instance's subscription drops what it cannot take: how many of
	// the 20,000 it took depends on the machine's load; a hundred show the
	// flood reached it.)
	for deadline := time.Now().Add(5 * time.Second); n["discovers"]-before["discovers"] < 100 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n = g.agent.broker.Counts()
	}
	// An instance announces once a quarter second at most however many
	// discovers come, besides its clock (every 100 ms here). The bound is
	// of time by nature; it is taken from the time measured, so a slow
	// machine widens it (and its late timers announce less), never
	// narrows it. Without the coalescing, 1,410 discovers in 51 ms made 15.
	elapsed := time.Since(floodAt)
	discovers, announced := n["discovers"]-before["discovers"], n["announced"]-before["announced"]
	if most := uint64(elapsed/(250*time.Millisecond)+elapsed/(100*time.Millisecond)) + 3; announced > most || discovers < 100 {
		t.Errorf("%d discovers in %v made %d announcements, want %d at most", discovers, elapsed, announced, most)
	}
	for deadline := time.Now().Add(15 * time.Second); g.frames.Load() < framesBefore+50; {
		if time.Now().After(deadline) {
			t.Fatalf("the game made %d frames in 15 s after the flood", g.frames.Load()-framesBefore)
		}
		time.Sleep(10 * time.Millisecond)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := tryDialAddr(b.URL()+"/victim", protocol.Hello{Version: protocol.Version})
		if err == nil {
			c.conn.Close()
			t.Logf("a new client got in %v after the forgery", time.Since(forgedAt))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new client 20 s after the flood: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	member(t, r, "victim", func(m fleet.Member) bool { return !m.Gone })
}

// TestRefusedByTheBrokerSaysSo: a game that dials a broker with wrong (or
// no) credentials says, in its log and its telemetry, that the broker
// refused it, and keeps trying; once given the right ones it connects.
func TestRefusedByTheBrokerSaysSo(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{User: "game", Password: "pw"})
	var logged lockedLog
	g := &game{t: t, w: ecs.NewWorld(), do: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	g.agent = New(g.w, Options{Addr: "127.0.0.1:0", Broker: b.URL(), Instance: "shut-out"})
	g.agent.Logf = logged.add
	if err := g.agent.Start(); err != nil {
		t.Fatal(err)
	}
	g.loop(testpace.Frame(), func() {})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(brokerState(g), "refused by the broker") {
		if time.Now().After(deadline) {
			t.Fatalf("telemetry says %q", brokerState(g))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if text := logged.String(); !strings.Contains(strings.ToLower(text), "authorization violation") {
		t.Errorf("the log does not say the broker refused the credentials:\n%s", text)
	}
	for g.frames.Load() < 10 {
		if time.Now().After(deadline) {
			t.Fatal("the game waited on the broker")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ok := startGame(t, Options{Broker: b.URLWithCredentials(), Instance: "let-in"})
	for brokerState(ok) != "connected" {
		if time.Now().After(deadline) {
			t.Fatalf("with credentials, telemetry says %q", brokerState(ok))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// brokerState is the agent's Telemetry().Broker, read as the game reads
// it: on its goroutine.
func brokerState(g *game) string {
	var state string
	g.on(func() { state = g.agent.Telemetry().Broker })
	return state
}

// lockedLog keeps what an agent logs, from any goroutine.
type lockedLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestSessionOpeningFloodCostsLittle: a stranger opens 20,000 sessions a
// second (a thousand times what an instance opens); the instance opens
// fleet.OpenRate a second (fleet.OpenBurst at once) and drops the rest
// unanswered, so the flood reaches the game as a handful of handshakes,
// and an honest client still gets in. (What the flood costs the game's
// frame: BenchmarkBrokerCosts/broker=flooded in cmd/demo.)
func TestSessionOpeningFloodCostsLittle(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{})
	g := startGame(t, Options{Broker: b.URL(), Instance: "victim"})
	member(t, roster(t, b.URL()), "victim", func(fleet.Member) bool { return true })
	target, err := fleet.ParseURL(b.URL())
	must(t, err)
	evil, err := fleet.Connect(target, "evil", 3*time.Second)
	must(t, err)
	defer evil.Close()
	const span = 500 * time.Millisecond
	before := g.agent.broker.Counts()
	stop := make(chan struct{})
	opened := 0
	flooding := make(chan struct{})
	go func() {
		defer close(flooding)
		hello, _ := protocol.Encode(&protocol.Hello{Version: protocol.Version, Client: "flood"})
		frame := protocol.AppendFrame(nil, hello)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if i%20 == 0 { // 20 a millisecond
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
			m := nats.NewMsg(fleet.UpSubject("ecsinspect", "victim", fleet.AnonymousClient, "flood"+strconv.Itoa(i)))
			m.Header.Set(fleet.SeqHeader, "1")
			m.Data = frame
			if evil.PublishMsg(m) != nil {
				return
			}
			opened++
		}
	}()
	time.Sleep(span)
	close(stop)
	<-flooding
	// The openings still in flight reach the instance after the flooder
	// stopped: count once they all arrived.
	after := g.agent.broker.Counts()
	for deadline := time.Now().Add(10 * time.Second); after["opened"]+after["refused"]-before["opened"]-before["refused"] < uint64(opened)*9/10 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		after = g.agent.broker.Counts()
	}
	// Counted, not timed: past its burst the instance opens 20 a second,
	// so of a flood of thousands it opens a handful and refuses the rest.
	newly, refused := after["opened"]-before["opened"], after["refused"]-before["refused"]
	if newly*10 > newly+refused || refused < uint64(opened)/2 {
		t.Errorf("of %d openings %d were opened and %d refused: want nine tenths refused at least", opened, newly, refused)
	}
	time.Sleep(250 * time.Millisecond) // the instance's openings refill at 20 a second
	honestAt := time.Now()
	c, err := tryDialAddr(b.URL()+"/victim", protocol.Hello{Version: protocol.Version, Client: "honest"})
	for deadline := time.Now().Add(15 * time.Second); err != nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		c, err = tryDialAddr(b.URL()+"/victim", protocol.Hello{Version: protocol.Version, Client: "honest"})
	}
	if err != nil {
		t.Fatalf("no honest client after the flood: %v", err)
	}
	c.conn.Close()
	t.Logf("%d openings: %d opened, %d refused; honest in %v", opened, newly, refused, time.Since(honestAt))
}

// TestStoppedHoldersFreeTheirSlots: a client that took every slot of an
// instance over the broker and then stopped without a word (no close, no
// pings) holds them only until the sessions' idle time: a new client is
// refused while they hold, then let in.
func TestStoppedHoldersFreeTheirSlots(t *testing.T) {
	b := startLocalBroker(t, localbroker.Options{})
	// Sessions silent for 1.5 s end (6 s by default): the test waits that long.
	startGame(t, Options{Broker: b.URL(), Instance: "held", MaxClients: 2, AnnounceEvery: 100 * time.Millisecond, sessionIdle: 1500 * time.Millisecond})
	r := roster(t, b.URL())
	member(t, r, "held", func(fleet.Member) bool { return true })
	target, err := fleet.ParseURL(b.URL())
	must(t, err)
	holder, err := fleet.Connect(target, "holder", 3*time.Second)
	must(t, err)
	defer holder.Close()
	hello, err := protocol.Encode(&protocol.Hello{Version: protocol.Version, Client: "holder"})
	must(t, err)
	for i := range 4 {
		m := nats.NewMsg(fleet.UpSubject("ecsinspect", "held", fleet.AnonymousClient, "hold"+strconv.Itoa(i)))
		m.Header.Set(fleet.SeqHeader, "1")
		m.Data = protocol.AppendFrame(nil, hello)
		must(t, holder.PublishMsg(m))
	}
	must(t, holder.Flush())
	// The honest client comes once the holders hold both slots (the
	// instance says so), not after a guess at how long that takes.
	member(t, r, "held", func(m fleet.Member) bool { return m.Clients == 2 })
	honest := protocol.Hello{Version: protocol.Version, Client: "honest"}
	refused := false
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := tryDialAddr(b.URL()+"/held", honest)
		if err == nil {
			c.conn.Close()
			break
		}
		if !strings.Contains(err.Error(), "serves at most 2 clients") {
			t.Fatalf("the honest client: %v", err)
		}
		refused = true
		if time.Now().After(deadline) {
			t.Fatalf("the stopped holder's sessions still hold the slots: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !refused {
		t.Fatal("the honest client was never refused: the holder held no slot, so the test shows nothing")
	}
}

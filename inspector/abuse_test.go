package inspector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
	"github.com/vmihailenco/msgpack/v5"
)

// The abuse suite: each case is an attack that once crashed, froze or
// bloated the game, run over a real loopback socket against a game loop on
// its own goroutine. Each asserts that the game keeps ticking without long
// Syncs, that memory stays bounded, and that the attacker is told why.

// bigGame is a game with n more entities that the attacks can make work of.
func bigGame(t *testing.T, n int, opts Options) *game {
	t.Helper()
	g := startGame(t, opts)
	g.on(func() {
		ecs.NewMap3[Position, Velocity, Health](g.w).SpawnBatch(n, func(i int, _ ecs.Entity, p *Position, v *Velocity, h *Health) {
			p.X, v.X, h.HP = float64(i), 1, i%100
		})
	})
	return g
}

// underAttack runs attack while the game runs and fails the test if the
// game nearly stopped. How long a Sync took, and the longest stretch
// without a frame, are logged, not asserted: on a busy machine they say
// how busy it is (BenchmarkHostileQuery, BenchmarkGreedyClients and the
// others measure the agent's cost, interleaved with a quiet baseline).
func underAttack(t *testing.T, g *game, attack func()) {
	t.Helper()
	normal := g.pace(200 * time.Millisecond)
	g.syncMax.Store(0)
	g.gapMax.Store(0)
	at := g.frames.Load()
	start := time.Now()
	attack()
	time.Sleep(100 * time.Millisecond)
	took := time.Since(start)
	frames := g.frames.Load() - at
	// Not a rate test: the agent's goroutines answering the attack share
	// two cores with the game and with whatever else runs, so the frame
	// rate says how busy the machine is. What an attack must not do is
	// stop the game: it keeps a twentieth of the pace it had just before.
	if want := int64(float64(normal)*took.Seconds()/0.2/20) + 1; frames < want {
		t.Errorf("the game nearly stopped: %d frames in %v under attack, want at least %d (%d in 200 ms before)", frames, took.Round(time.Millisecond), want, normal)
	}
	t.Logf("under attack: %d frames in %v, the longest Sync %v, the longest stretch without a frame %v",
		frames, took.Round(time.Millisecond), time.Duration(g.syncMax.Load()).Round(time.Microsecond), time.Duration(g.gapMax.Load()).Round(time.Microsecond))
}

// sendRaw sends one frame of raw msgpack.
func sendRaw(t *testing.T, c *testClient, v any) {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.conn.SendEncoded(b); err != nil {
		t.Fatal(err)
	}
}

func awaitReply(c *testClient, id uint32) *protocol.Reply {
	return c.await(func(m protocol.Message) bool {
		r, ok := m.(*protocol.Reply)
		return ok && r.ID == id
	}).(*protocol.Reply)
}

// 1. A negative page offset reached a slice expression on the game goroutine.
func TestAbuseNegativeOffset(t *testing.T) {
	g := bigGame(t, 100, Options{ReadOnly: true})
	c := dial(t, g, protocol.Hello{})
	for _, m := range []protocol.Request{
		&protocol.Subscribe{What: protocol.SubPage, Archetype: 1, Offset: -5},
		&protocol.Subscribe{What: protocol.SubPage, Archetype: 2, Offset: math.MinInt64},
		&protocol.Query{Expr: "Position", Offset: -1},
		&protocol.Query{Expr: "Position", Limit: -7},
		&protocol.Subscribe{What: protocol.SubPage, Archetype: -3},
	} {
		r := c.reply(m)
		if r.OK || r.Code != protocol.ErrBadValue {
			t.Errorf("%T %+v: reply %+v, want bad-value", m, m, r)
		}
	}
	if g.pace(50*time.Millisecond) == 0 {
		t.Fatal("the game stopped")
	}
}

// 2. Requests had no cost bound on the game goroutine: thousands of field
// tests, pages of many predicates at 60 Hz, floods of big pages.
func TestAbuseCostIsBounded(t *testing.T) {
	n, queries := 50_000, 40
	if testpace.Race { // the race detector makes each field test ten times dearer
		n, queries = 10_000, 4
	}
	g := bigGame(t, n, Options{})
	c := dial(t, g, protocol.Hello{})
	huge := strings.Repeat("Health.HP>=0 ", 3000)
	if r := c.reply(&protocol.Query{Expr: huge}); r.Code != protocol.ErrTooLarge {
		t.Fatalf("a 3000-term query: %+v, want too-large", r)
	}
	worst := strings.TrimSpace(strings.Repeat("Position.X>=0 ", protocol.MaxQueryTerms))
	underAttack(t, g, func() {
		// A page subscription with the most predicates allowed, at the
		// highest rate, and a stream of the same as one-off queries.
		c.request(&protocol.Subscribe{What: protocol.SubPage, Query: worst, Hz: 1000, Limit: protocol.MaxPageRows})
		ids := map[uint32]bool{}
		for range queries {
			ids[c.request(&protocol.Query{Expr: worst, Limit: protocol.MaxPageRows})] = true
		}
		for len(ids) > 0 {
			m := c.await(func(m protocol.Message) bool {
				switch m := m.(type) {
				case *protocol.Page:
					return ids[m.Sub]
				case *protocol.Reply:
					return ids[m.ID]
				}
				return false
			})
			if p, ok := m.(*protocol.Page); ok {
				if p.Total != n+20 || len(p.Rows) != min(protocol.MaxPageRows, n+20) {
					t.Fatalf("page of the worst query: %d of %d rows, want %d of %d", len(p.Rows), p.Total, min(protocol.MaxPageRows, n+20), n+20)
				}
				delete(ids, p.Sub)
			} else {
				t.Fatalf("query refused: %+v", m)
			}
		}
	})
}

// 3. A client pushed the agent's memory up by gigabytes: replies it never
// read, snapshot jobs, error replies echoing megabytes.
func TestAbuseMemoryIsBounded(t *testing.T) {
	g := bigGame(t, 50_000, Options{})
	c := dial(t, g, protocol.Hello{})
	runtime.GC()
	base := heapInUse()
	underAttack(t, g, func() {
		// 600 pages of 10,000 rows and 20 snapshots, none read; the
		// agent stops reading this client once 32 wait.
		_ = c.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		for i := range 620 {
			var m protocol.Request = &protocol.Query{Expr: "Position", Limit: protocol.MaxPageRows}
			if i%31 == 0 {
				m = &protocol.SnapshotRequest{}
			}
			c.id++
			setID(m, c.id)
			if err := c.conn.Send(m); err != nil {
				break // the agent stopped reading us: that is the point
			}
		}
		time.Sleep(500 * time.Millisecond)
	})
	runtime.GC()
	if grew := heapInUse() - base; grew > 400<<20 {
		t.Errorf("the heap grew %d MiB while a client did not read", grew>>20)
	}
	// A bad value of a megabyte gets a short error, not the value back.
	d := dial(t, g, protocol.Hello{})
	big := strings.Repeat("9", 60<<10)
	r := d.reply(&protocol.SetField{Entity: wire(g.ents[0]), Path: "Health.HP", Value: protocol.StringValue(big)})
	if r.OK || len(r.Message) > 300 {
		t.Errorf("a 60 KiB bad value got a %d-byte reply: %.100s", len(r.Message), r.Message)
	}
}

func heapInUse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// 4. Silent connections in their handshake took every client slot.
func TestAbuseSilentHandshakesLeaveRoom(t *testing.T) {
	g := startGame(t, Options{Token: "s3cret-0123456789abcdef", MaxClients: 2, HandshakeTimeout: 3 * time.Second})
	for range 20 { // silent, without a token
		nc, err := net.Dial("tcp", g.agent.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
	}
	time.Sleep(50 * time.Millisecond)
	for range 2 {
		c, err := tryDial(g, protocol.Hello{Token: "s3cret-0123456789abcdef"})
		if err != nil {
			t.Fatalf("a token holder was kept out by silent connections: %v", err)
		}
		t.Cleanup(func() { c.conn.Close() })
	}
	_, err := tryDial(g, protocol.Hello{Token: "s3cret-0123456789abcdef"})
	var re *protocol.RejectError
	if !errors.As(err, &re) || re.Code != protocol.ErrBusy {
		t.Fatalf("a third client: %v, want busy", err)
	}
}

// 5. A panic in a parallel system killed the process on a worker goroutine
// before the post-mortem snapshot could be written.
func TestAbuseParallelPanicLeavesAPostMortem(t *testing.T) {
	w := ecs.NewWorld()
	pos := ecs.NewMap[Position](w)
	for i := range 100 {
		if err := pos.Add(w.Spawn(), Position{X: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	s := ecs.NewSchedule()
	q := ecs.NewQuery1[Position](w)
	s.Add("reader", func(*ecs.World, *ecs.Commands) {
		for range q.All() {
			time.Sleep(time.Microsecond)
		}
	}, ecs.Reads[Position]())
	s.Add("exploder", func(*ecs.World, *ecs.Commands) { panic("boom") }, ecs.Reads[Velocity]())
	a := New(w, Options{Addr: "127.0.0.1:0"})
	path := filepath.Join(t.TempDir(), "crash.ecsrec")
	rec, err := a.Record(filepath.Join(t.TempDir(), "run.ecsrec"), 60)
	if err != nil {
		t.Fatal(err)
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		defer a.PanicSnapshot(path)
		for range 3 {
			s.Run(w)
			_ = w.Tick()
			a.Sync()
		}
		return nil
	}()
	sp, ok := got.(*ecs.SystemPanic)
	if !ok || sp.System != "exploder" {
		t.Fatalf("the loop's recover got %T %v, want the exploder's *ecs.SystemPanic", got, got)
	}
	r, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatalf("no post-mortem snapshot: %v", err)
	}
	defer r.Close()
	m, err := r.Message(0)
	if err != nil {
		t.Fatal(err)
	}
	st := recording.NewWorldState()
	if err := st.Apply(m.(*protocol.WorldFrame)); err != nil || st.Entities() != 100 {
		t.Fatalf("post-mortem snapshot holds %d entities (%v)", st.Entities(), err)
	}
	if len(a.recorders) != 0 || rec.Frames() == 0 {
		t.Fatal("the recording was not closed after the post-mortem")
	}
}

// 6. Edits the agent accepted killed the game: NaN and ±Inf into float
// fields, in every spelling, over the wire.
func TestAbuseNonFiniteEditsRefused(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	for _, v := range []protocol.Value{protocol.FloatValue(math.NaN()), protocol.FloatValue(math.Inf(1)),
		protocol.FloatValue(math.Inf(-1)), protocol.StringValue("NaN"), protocol.StringValue("Inf"), protocol.StringValue("-inf")} {
		r := c.reply(&protocol.SetField{Entity: wire(g.ents[3]), Path: "Position.X", Value: v})
		if r.OK || r.Code != protocol.ErrBadValue || !strings.Contains(r.Message, "nonfinite") {
			t.Errorf("SetField Position.X=%v: %+v, want bad-value naming the opt-in", v, r)
		}
		r = c.reply(&protocol.Spawn{Components: []protocol.ComponentValue{{Component: "Position", Value: protocol.MapValue(protocol.Field{Name: "Y", Value: v})}}})
		if r.OK {
			t.Errorf("Spawn with Position.Y=%v accepted", v)
		}
	}
}

// 10. Loose decoding: numbers read as other numbers, NaN rates, invalid
// UTF-8 echoed raw, nil component names.
func TestAbuseStrictDecoding(t *testing.T) {
	g := startGame(t, Options{})
	// Hello v=65537 was read as version 1.
	nc, err := net.Dial("tcp", g.agent.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn := protocol.NewConn(nc)
	b, _ := msgpack.Marshal([]any{1, map[string]any{"v": 65537}})
	if err := conn.SendEncoded(b); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	m, err := conn.Receive()
	if rj, ok := m.(*protocol.Reject); err != nil || !ok || rj.Code != protocol.ErrProtocol || !strings.Contains(rj.Reason, "65537") {
		t.Fatalf("Hello v=65537: %v %+v, want a protocol reject naming the number", err, m)
	}
	nc.Close()

	c := dial(t, g, protocol.Hello{})
	cases := []struct {
		name string
		msg  any
		id   uint32
		code string
		want string
	}{
		{"id over 32 bits", []any{11, map[string]any{"id": uint64(1<<40 + 7)}}, 0, protocol.ErrProtocol, "does not fit"},
		{"step over 32 bits", []any{13, map[string]any{"id": 5, "n": uint64(1 << 33)}}, 5, protocol.ErrProtocol, "does not fit"},
		{"step too far", []any{13, map[string]any{"id": 6, "n": protocol.MaxStep + 1}}, 6, protocol.ErrBadValue, "step takes"},
		{"NaN rate", []any{2, map[string]any{"id": 7, "w": "summary", "hz": math.NaN()}}, 7, protocol.ErrBadValue, "hz"},
		{"invalid UTF-8", []any{4, map[string]any{"id": 8, "q": "Posi\xfftion"}}, 8, protocol.ErrProtocol, "UTF-8"},
		{"nil component", []any{9, map[string]any{"id": 9, "cs": []any{nil}}}, 9, protocol.ErrProtocol, "cs[0]"},
		{"string for a number", []any{5, map[string]any{"id": 10, "e": "42v3"}}, 10, protocol.ErrProtocol, "e"},
		{"unknown type", []any{40, map[string]any{"id": 11}}, 11, protocol.ErrProtocol, "unknown message type 40"},
		{"not an array", map[string]any{"id": 12}, 0, protocol.ErrProtocol, ""},
		{"agent-only type", []any{66, map[string]any{"id": 13}}, 13, protocol.ErrProtocol, "not a request"},
		{"agent-only type without an id", []any{64, map[string]any{"g": "x"}}, 0, protocol.ErrProtocol, "not a request"},
	}
	for _, tc := range cases {
		sendRaw(t, c, tc.msg)
		r := awaitReply(c, tc.id)
		if r.OK || r.Code != tc.code || !strings.Contains(r.Message, tc.want) || !utf8.ValidString(r.Message) {
			t.Errorf("%s: %+v, want %s mentioning %q", tc.name, r, tc.code, tc.want)
		}
	}
	// The connection survived all of it.
	id := c.request(&protocol.GetEntity{Entity: wire(g.ents[0])})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	if !d.Alive {
		t.Fatalf("after bad messages: %+v", d)
	}
}

// 11. The Unix socket took the umask, and a stale one blocked restarts.
func TestAbuseUnixSocket(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "game.sock")
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	w := ecs.NewWorld()
	a := New(w, Options{Addr: "unix:" + path})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	// A second agent on a live socket is refused; the first keeps it.
	if err := New(w, Options{Addr: "unix:" + path}).Start(); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("second agent on a live socket: %v", err)
	}
	// A socket left by a dead process: a listener closed without unlinking.
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	b := New(w, Options{Addr: "unix:" + stale})
	if err := b.Start(); err != nil {
		t.Fatalf("a stale socket blocked the restart: %v", err)
	}
	_ = b.Close()
	_ = a.Close()
	// A path that is not a socket is never removed.
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(w, Options{Addr: "unix:" + plain}).Start(); err == nil {
		t.Error("listened over a regular file")
	}
	if b, _ := os.ReadFile(plain); string(b) != "keep" {
		t.Error("a regular file was replaced")
	}
}

// 12. A half-sent frame held a slot forever; wrong tokens could be tried
// thousands of times a second (and then kept the right one out); a dropped
// client was not told why.
func TestAbuseStallsTokensAndReasons(t *testing.T) {
	g := startGame(t, Options{Token: "right-0123456789abcdef", FrameTimeout: 300 * time.Millisecond})
	nc, err := net.Dial("tcp", g.agent.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	conn := protocol.NewConn(nc)
	if _, err := protocol.ClientHandshake(conn, protocol.Hello{Token: "right-0123456789abcdef"}, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 100) // a frame of 100 bytes, of which 2 come
	if _, err := nc.Write(append(hdr[:], 0x92, 0x04)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	m, err := conn.Receive()
	if rj, ok := m.(*protocol.Reject); err != nil || !ok || rj.Code != protocol.ErrTimeout {
		t.Fatalf("after a stalled frame: %v %+v, want a timeout notice", err, m)
	}
	// Wrong tokens: each is refused as wrong (after the back-off its host
	// earned, counted), and the right one from the same host still gets
	// in: a guesser cannot keep the holder out.
	for range 4 {
		_, err := tryDial(g, protocol.Hello{Token: "wrong-0123456789abcdef"})
		var re *protocol.RejectError
		if !errors.As(err, &re) || re.Code != protocol.ErrToken || !strings.Contains(re.Reason, "wrong") {
			t.Fatalf("a wrong token: %v", err)
		}
	}
	if wait := g.agent.srv.TokenBackoff("127.0.0.1"); wait != 800*time.Millisecond {
		t.Errorf("after 4 wrong tokens a connection waits %v, want 800ms", wait)
	}
	// A reply over the client's frame limit is an error saying the size.
	small := dial(t, g, protocol.Hello{Token: "right-0123456789abcdef", MaxFrame: 512})
	r := awaitReply(small, small.request(&protocol.Query{Expr: "Position", Limit: 20}))
	if r.Code != protocol.ErrTooLarge || !strings.Contains(r.Message, "frame limit of 512 B") {
		t.Errorf("a page over the client's frame limit: %+v, want too-large with the sizes", r)
	}
	// Telemetry counts the drop by its reason.
	s := dial(t, g, protocol.Hello{Token: "right-0123456789abcdef"})
	s.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 60})
	sum := s.summary()
	if sum.Agent.DroppedBy[protocol.ErrTimeout] == 0 {
		t.Errorf("telemetry drops by reason: %v", sum.Agent.DroppedBy)
	}
}

// A flood of rewinds and series: each rewind is answered (done, or "a
// rewind is under way"), Syncs stay short and the game keeps ticking
// between them; series past the subscription limit are refused.
func TestAbuseRewindAndSeriesFlood(t *testing.T) {
	g := startGame(t, Options{RewindHz: 1000})
	c := dial(t, g, protocol.Hello{})
	for g.frames.Load() < 20 {
		time.Sleep(5 * time.Millisecond)
	}
	underAttack(t, g, func() {
		ids := map[uint32]bool{}
		for range 200 {
			ids[c.request(&protocol.Rewind{Back: 1})] = true
		}
		for len(ids) > 0 { // a rewind done answers after the refusals sent meanwhile
			r := c.await(func(m protocol.Message) bool { r, ok := m.(*protocol.Reply); return ok && ids[r.ID] }).(*protocol.Reply)
			delete(ids, r.ID)
			if !r.OK && r.Code != protocol.ErrState && r.Code != protocol.ErrNotFound {
				t.Fatalf("rewind %d: %s %s", r.ID, r.Code, r.Message)
			}
		}
		if r := c.reply(&protocol.Resume{}); !r.OK {
			t.Fatal(r.Message)
		}
		refused := 0
		for range protocol.MaxSubscriptions + 5 {
			if r := c.reply(&protocol.Subscribe{What: protocol.SubSeries, Query: "mean Health.HP", Hz: 1000}); !r.OK {
				refused++
			}
		}
		if refused == 0 {
			t.Fatal("every series past the subscription limit was taken")
		}
	})
}

// Squatters and a guesser cannot keep the token holder out: 64 silent
// connections fill the handshake slots and a guesser sends wrong tokens
// from the same host, and the holder still gets in (the oldest silent
// connection gives its slot up, and is told so).
func TestHolderGetsPastSquattersAndGuessers(t *testing.T) {
	// No squatter times out of its handshake while the test runs (a run
	// under the race detector took the default 5 s).
	g := startGame(t, Options{Token: "right-0123456789abcdef", MaxHandshakes: 64, HandshakeTimeout: time.Minute})
	var squatters []net.Conn
	for range 64 {
		nc, err := net.Dial("tcp", g.agent.Addr())
		if err != nil {
			t.Fatal(err)
		}
		squatters = append(squatters, nc)
		defer nc.Close()
	}
	waitFor(t, "64 connections in their handshake", func() bool {
		return g.agent.srv.Handshaking() == 64
	})
	guessing := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-guessing:
				return
			default:
			}
			_, _ = tryDial(g, protocol.Hello{Token: "guess-0123456789abcdef"})
		}
	}()
	time.Sleep(600 * time.Millisecond) // the guesser's host earns a back-off of a second or so
	for range 3 {
		nc, err := net.Dial("tcp", g.agent.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.ClientHandshake(protocol.NewConn(nc), protocol.Hello{Token: "right-0123456789abcdef"}, 5*time.Second); err != nil {
			t.Fatalf("the token holder was kept out: %v", err)
		}
		nc.Close()
	}
	if wait := g.agent.srv.TokenBackoff("127.0.0.1"); wait < 400*time.Millisecond {
		t.Fatalf("the guesser earned a back-off of only %v", wait)
	}
	close(guessing)
	<-done
	if g.agent.srv.Counts().Evicted == 0 {
		t.Fatal("no silent connection gave its slot up")
	}
	// An evicted squatter is told why; the others hear nothing. (Which
	// squatter is the agent's oldest depends on the order their
	// connections were taken in, not the order they were dialled.)
	heard := make(chan string, len(squatters)) // "busy", "" (nothing), or what went wrong
	for _, nc := range squatters {
		go func() {
			_ = nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond)) // an evicted one's notice was sent already
			m, err := protocol.NewConn(nc).Receive()
			var ne net.Error
			switch rj, ok := m.(*protocol.Reject); {
			case errors.As(err, &ne) && ne.Timeout():
				heard <- ""
			case err == nil && ok && rj.Code == protocol.ErrBusy:
				heard <- "busy"
			default:
				heard <- fmt.Sprintf("a squatter got %+v, %v; want a busy notice or nothing", m, err)
			}
		}()
	}
	told := 0
	for range squatters {
		switch h := <-heard; h {
		case "":
		case "busy":
			told++
		default:
			t.Error(h)
		}
	}
	if told == 0 {
		t.Fatal("no evicted squatter was told it gave its slot up")
	}
}

// waitFor polls cond for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Distinct clients, each with a 60,000-byte name and an edit, grew the
// game by 128 KiB each and kept it: every name was kept whole, forever.
// Names are cut to protocol.MaxClientName and the names clients write
// under are folded past the first thousands, so 6,000 such clients leave
// the heap within 64 MiB of where it was, and the journal names them in
// bounded bytes.
func TestAbuseManyClientNamesAreBounded(t *testing.T) {
	g := startGame(t, Options{MaxClients: 8})
	clients := 6000
	if testpace.Race {
		clients = 1500
	}
	name := strings.Repeat("n", 60_000)
	runtime.GC()
	base := heapInUse()
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				hello := protocol.Hello{Version: protocol.Version, Client: strconv.Itoa(i) + name}
				c, err := tryDialAddr(g.agent.Addr(), hello)
				for tries := 0; err != nil && strings.Contains(err.Error(), "at most 8 clients") && tries < 100; tries++ {
					time.Sleep(time.Millisecond) // a slot frees once the agent saw the last one close
					c, err = tryDialAddr(g.agent.Addr(), hello)
				}
				if err != nil {
					t.Errorf("client %d: %v", i, err)
					return
				}
				c.t = t
				if r := c.reply(&protocol.SetField{Entity: wire(g.ents[3]), Path: "Health.HP", Value: protocol.IntValue(int64(i))}); !r.OK {
					t.Errorf("client %d's edit: %+v", i, r)
				}
				c.conn.Close()
			}
		})
	}
	for i := range clients {
		next <- i
	}
	close(next)
	wg.Wait()
	runtime.GC()
	grew := heapInUse() - base
	if grew > 64<<20 {
		t.Errorf("%d clients with long names grew the heap %d MiB", clients, grew>>20)
	}
	t.Logf("%d clients with 60,000-byte names: the heap grew %.1f MiB", clients, float64(grew)/(1<<20))
	// The last edit's writer, as a client reads it: a name cut short, or
	// folded once many clients have written.
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "reader"})
	id := c.request(&protocol.GetEntity{Entity: wire(g.ents[3])})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	var by string
	for _, cv := range d.Components {
		if cv.Component == "Health" && cv.Written != nil {
			by = cv.Written.By
		}
	}
	want := "other clients"
	if testpace.Race {
		want = "…)"
	}
	if !strings.HasSuffix(by, want) || len(by) > protocol.MaxClientName+20 {
		t.Fatalf("the last of %d clients wrote Health as %q (%d bytes), want a name ending %q", clients, by, len(by), want)
	}
}

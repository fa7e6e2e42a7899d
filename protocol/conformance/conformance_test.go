package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// The game the suite talks to.
type (
	Pos  struct{ X, Y float32 }
	HP   struct{ HP int32 }
	Mark struct{ N int32 }
)

func (Mark) Storage() ecs.StorageKind { return ecs.SparseStorage }

type game struct {
	w     *ecs.World
	agent *inspector.Agent
	ents  []ecs.Entity
	stop  chan struct{}
	done  sync.WaitGroup
}

// startGame runs a world of 150 entities with its agent, ticking every 2 ms.
func startGame(t *testing.T, opts inspector.Options) *game { return startGameOf(t, 150, opts) }

// startGameOf is startGame with n entities.
func startGameOf(t *testing.T, n int, opts inspector.Options) *game {
	t.Helper()
	w := ecs.NewWorld()
	pos, hp, mark := ecs.NewMap[Pos](w), ecs.NewMap[HP](w), ecs.NewMap[Mark](w)
	g := &game{w: w, stop: make(chan struct{})}
	for i := range n {
		e := w.Spawn()
		must(t, pos.Add(e, Pos{float32(i), 1}))
		if i%2 == 0 {
			must(t, hp.Add(e, HP{int32(i)}))
		}
		if i%15 == 0 {
			must(t, mark.Add(e, Mark{int32(i)}))
		}
		g.ents = append(g.ents, e)
	}
	opts.Addr, opts.Game = "127.0.0.1:0", "conf"
	g.agent = inspector.New(w, opts)
	must(t, g.agent.Start())
	g.done.Go(func() {
		for {
			select {
			case <-g.stop:
				return
			default:
			}
			if err := w.Tick(); err != nil {
				t.Error(err)
			}
			g.agent.Sync()
			time.Sleep(2 * time.Millisecond)
		}
	})
	t.Cleanup(func() { close(g.stop); g.done.Wait(); g.agent.Close() })
	return g
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func handle(e ecs.Entity) uint64 { return uint64(e.Generation())<<32 | uint64(e.Index()) }

// produced records the error codes the cases saw.
var produced = map[string]bool{}

// wantCode checks a Reply or Reject carries code, and records it.
func wantCode(t *testing.T, statement string, m msg, code string) {
	t.Helper()
	if (m.typ != typeReply && m.typ != typeReject) || str(m.body["code"]) != code {
		t.Errorf("%s\n  want code %q, got type %d %v", statement, code, m.typ, m.body)
		return
	}
	if m.typ == typeReply && m.body["ok"] == true {
		t.Errorf("%s: a reply with a code says ok", statement)
	}
	if m.typ == typeReply && str(m.body["m"]) == "" || m.typ == typeReject && str(m.body["r"]) == "" {
		t.Errorf("%s: code %s without words: %v", statement, code, m.body)
	}
	produced[code] = true
}

func wantOK(t *testing.T, statement string, m msg) {
	t.Helper()
	if m.typ != typeReply || m.body["ok"] != true {
		t.Errorf("%s\n  want ok, got type %d %v", statement, m.typ, m.body)
	}
}

func TestConformance(t *testing.T) {
	g := startGame(t, inspector.Options{})
	addr := g.agent.Addr()
	editor := func(t *testing.T) *rawClient {
		c := dialRaw(t, addr)
		if w := c.hello(nil); w.typ != typeWelcome {
			t.Fatalf("no welcome: %v", w.body)
		}
		return c
	}

	t.Run("handshake", func(t *testing.T) {
		c := dialRaw(t, addr)
		w := c.hello(map[string]any{"c": "conformance", "caps": []string{"read"}})
		// "Welcome (64) | v | g | a | caps | mf | ro"
		if w.typ != typeWelcome {
			t.Fatalf("Hello answered by type %d", w.typ)
		}
		for _, k := range []string{"v", "g", "a", "caps", "mf"} {
			if _, ok := w.body[k]; !ok {
				t.Errorf("Welcome lacks %q: %v", k, w.body)
			}
		}
		// "a client that sends caps without edit (e.g. ["read"]) gets a read-only session on a writable agent"
		if caps := list(w.body["caps"]); len(caps) != 1 || caps[0] != "read" || w.body["ro"] != true {
			t.Errorf("caps [read] should make a read-only session: %v", w.body)
		}
		// "mf ... (64 KiB by default)"
		if num(w.body["mf"]) != 64<<10 {
			t.Errorf("mf = %v, want 65536", w.body["mf"])
		}
		r := c.request(6, map[string]any{"e": handle(g.ents[0]), "p": "Pos.X", "v": 1.0})
		wantCode(t, "read-only: the agent refuses commands that change the world", r, "read-only")
		e := dialRaw(t, addr)
		if w := e.hello(nil); w.typ != typeWelcome || !slices.Contains(list(w.body["caps"]), any("edit")) || w.body["ro"] == true {
			t.Errorf("a client that sends no caps gets both: %v", w.body)
		}
	})

	t.Run("handshake bytes of the document", func(t *testing.T) {
		doc, err := os.ReadFile("../PROTOCOL.md")
		must(t, err)
		sec := string(doc[bytes.Index(doc, []byte("## A handshake, byte by byte")):])
		sec = sec[:strings.Index(sec, "\n## ")]
		dumps := regexp.MustCompile("(?s)```\n(.*?)```").FindAllStringSubmatch(sec, -1)
		if len(dumps) != 2 {
			t.Fatalf("want the Hello and Welcome dumps, found %d", len(dumps))
		}
		hello, welcome := unhex(t, dumps[0][1]), unhex(t, dumps[1][1])
		var parts []any
		must(t, unmarshal(welcome[4:], &parts))
		w := parts[1].(map[string]any)
		if num(parts[0]) != typeWelcome || w["g"] != "grazers" || w["ro"] != true || num(w["mf"]) != 65536 || len(list(w["caps"])) != 1 || list(w["caps"])[0] != "read" {
			t.Errorf("the document's Welcome decodes to %v", parts)
		}
		// The document's Hello, sent verbatim, is a Hello this agent welcomes.
		c := dialRaw(t, addr)
		_, err = c.conn.Write(hello)
		must(t, err)
		if m := c.recv(); m.typ != typeWelcome {
			t.Errorf("the document's Hello got %d %v", m.typ, m.body)
		}
	})

	t.Run("version", func(t *testing.T) {
		c := dialRaw(t, addr)
		wantCode(t, "version: protocol versions differ", c.hello(map[string]any{"v": 9}), "version")
	})

	t.Run("first message not Hello", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.send(4, map[string]any{"id": 1, "q": ""})
		m := c.recv()
		wantCode(t, "another message first is answered with a Reject (protocol) and the connection closed", m, "protocol")
		if _, closed := c.closed(time.Second); !closed {
			t.Error("the connection stayed open")
		}
	})

	t.Run("query", func(t *testing.T) {
		c := editor(t)
		p := c.request(4, map[string]any{"q": "Pos"})
		// "l | 0 or absent: 100"; "tot counts every match"
		if p.typ != typePage || len(list(p.body["rows"])) != 100 || num(p.body["tot"]) != 150 {
			t.Errorf("a query without l: type %d, %d rows of %v", p.typ, len(list(p.body["rows"])), p.body["tot"])
		}
		// "cols are the components the query names ... in the order first named"
		hpID, posID := componentIDs(t, c)
		p = c.request(4, map[string]any{"q": "?HP Pos", "l": 5})
		if cols := list(p.body["cols"]); len(cols) != 2 || num(cols[0]) != hpID || num(cols[1]) != posID {
			t.Errorf("cols = %v, want [HP Pos] = [%d %d]", cols, hpID, posID)
		}
		// "co | count only: the Page has tot and no rows"
		p = c.request(4, map[string]any{"q": "HP", "co": true})
		if p.typ != typePage || len(list(p.body["rows"])) != 0 || num(p.body["tot"]) != 75 {
			t.Errorf("count only: %v", p.body)
		}
		// "s | sort the matches by a field: ... -Component.Field descending"
		sorted := c.request(4, map[string]any{"q": "Pos", "s": "-Pos.X", "l": 3})
		if rows := list(sorted.body["rows"]); len(rows) != 3 || num(list(rows[0].(map[string]any)["v"])[0].(map[string]any)["X"]) != 149 {
			t.Errorf("sorted by -Pos.X: %v", sorted.body["rows"])
		}
		wantCode(t, "sort names a field that does not exist", c.request(4, map[string]any{"q": "Pos", "s": "Pos.Z"}), "bad-query")
		wantCode(t, "l | rows wanted, 1 to 10,000", c.request(4, map[string]any{"q": "", "l": 10001}), "bad-value")
		wantCode(t, "o | first row, 0 to 2,147,483,647", c.request(4, map[string]any{"q": "", "o": -1}), "bad-value")
		r := c.request(4, map[string]any{"q": "Hp"})
		wantCode(t, "bad-query: names no component (the message suggests one)", r, "bad-query")
		if !strings.Contains(str(r.body["m"]), "did you mean HP?") {
			t.Errorf("no suggestion: %v", r.body)
		}
		wantCode(t, "bad-query: compares a field with the wrong kind", c.request(4, map[string]any{"q": `HP.HP=="x"`}), "bad-query")
		wantCode(t, "query expression (q) | 2048 bytes", c.request(4, map[string]any{"q": strings.Repeat("Pos ", 600)}), "too-large")
	})

	t.Run("entities", func(t *testing.T) {
		c := editor(t)
		alive := handle(g.ents[3])
		d := c.request(5, map[string]any{"e": alive})
		if d.typ != typeDetail || d.body["al"] != true || len(list(d.body["cs"])) == 0 {
			t.Errorf("GetEntity of a live entity: %v", d.body)
		}
		for _, cv := range list(d.body["cs"]) {
			cv, _ := cv.(map[string]any)
			if pos, ok := cv["v"].(map[string]any); ok && str(cv["c"]) == "Pos" {
				if _, ok := pos["X"].(float32); !ok {
					t.Errorf("Values: a float32 field is a msgpack float32: Pos.X came as %T", pos["X"])
				}
			}
		}
		wantCode(t, "GetEntity: an entity that is not alive is answered by a Reply with code stale",
			c.request(5, map[string]any{"e": uint64(9999)}), "stale")
		wantCode(t, "SetField | not-found | the entity lacks the component",
			c.request(6, map[string]any{"e": alive, "p": "HP.HP", "v": 1}), "not-found")
		wantCode(t, "SetField | bad-value | a value does not fit",
			c.request(6, map[string]any{"e": alive, "p": "Pos.X", "v": "abc"}), "bad-value")
		wantCode(t, "NaN and ±Inf only in float fields tagged ecs:\"nonfinite\"",
			c.request(6, map[string]any{"e": alive, "p": "Pos.X", "v": "NaN"}), "bad-value")
		wantOK(t, "SetField sets a field", c.request(6, map[string]any{"e": alive, "p": "Pos.Y", "v": 7.5}))
		wantCode(t, "AddComponent | state | the entity has the component already",
			c.request(7, map[string]any{"e": alive, "c": "Pos", "v": map[string]any{"X": 1}}), "state")
		wantCode(t, "RemoveComponent | not-found | the entity lacks the component",
			c.request(8, map[string]any{"e": alive, "c": "HP"}), "not-found")
		wantCode(t, "AddComponent, RemoveComponent, Spawn | not-found | no component by that name",
			c.request(7, map[string]any{"e": alive, "c": "Armor"}), "not-found")
		wantCode(t, "Spawn names a component twice",
			c.request(9, map[string]any{"cs": []any{map[string]any{"c": "Pos"}, map[string]any{"c": "Pos"}}}), "bad-value")
		parent := handle(g.ents[0])
		sp := c.request(9, map[string]any{"cs": []any{map[string]any{"c": "Pos", "v": map[string]any{"X": 2}}, map[string]any{"c": "ChildOf", "v": map[string]any{"Parent": parent}}}})
		wantOK(t, "Spawn with ChildOf {Parent: E} links the new entity", sp)
		child := uint64(num(sp.body["e"]))
		if d := c.request(5, map[string]any{"e": child}); uint64(num(d.body["p"])) != parent {
			t.Errorf("the spawned child's parent is %v, want %d", d.body["p"], parent)
		}
		wantCode(t, "SetParent | bad-value | the link would make a cycle",
			c.request(15, map[string]any{"e": parent, "p": child}), "bad-value")
		wantOK(t, "SetParent with p 0: an entity of its own again", c.request(15, map[string]any{"e": child}))
		if d := c.request(5, map[string]any{"e": child}); num(d.body["p"]) > 0 {
			t.Errorf("the parent stayed: %v", d.body["p"])
		}
		wantOK(t, "Despawn", c.request(10, map[string]any{"e": child}))
		wantCode(t, "Despawn | stale | the entity is not alive", c.request(10, map[string]any{"e": child}), "stale")
	})

	t.Run("pause and step", func(t *testing.T) {
		c := editor(t)
		wantCode(t, "Step | state | the game is running: pause it first", c.request(13, map[string]any{"n": 1}), "state")
		wantOK(t, "Resume on a running one replies ok", c.request(12, map[string]any{}))
		wantOK(t, "Pause", c.request(11, map[string]any{}))
		wantOK(t, "Pause on a paused game replies ok", c.request(11, map[string]any{}))
		wantCode(t, "Step | bad-value | n is 0", c.request(13, map[string]any{"n": 0}), "bad-value")
		wantOK(t, "Step needs a paused game: it runs n frames", c.request(13, map[string]any{"n": 2}))
		wantOK(t, "Resume", c.request(12, map[string]any{}))
	})

	t.Run("subscriptions", func(t *testing.T) {
		c := editor(t)
		wantCode(t, "Subscribe | bad-value | w is not one of the kinds", c.request(2, map[string]any{"w": "bogus"}), "bad-value")
		wantCode(t, "Unsubscribe | not-found | no such subscription", c.request(3, map[string]any{"sub": 4242}), "not-found")
		// Summary deltas: pz is a per-frame value; absent means running.
		wantOK(t, "Subscribe summary", c.request(2, map[string]any{"w": "summary", "hz": 60}))
		sub := c.id
		first := nextSummary(t, c, sub)
		if first.body["full"] != true || first.body["sy"] == nil && first.body["ar"] == nil {
			t.Errorf("the first frame is full: %v", first.body["full"])
		}
		wantOK(t, "Pause", c.request(11, map[string]any{}))
		paused := nextSummary(t, c, sub)
		for paused.body["pz"] != true {
			paused = nextSummary(t, c, sub)
		}
		// "sections ... are sent only when they changed": paused, nothing runs.
		quiet := nextSummary(t, c, sub)
		if _, ok := quiet.body["rs"]; ok {
			t.Errorf("resources re-sent while paused: %v", quiet.body["rs"])
		}
		wantOK(t, "Resume", c.request(12, map[string]any{}))
		for {
			m := nextSummary(t, c, sub)
			if m.body["pz"] == nil || m.body["pz"] == false {
				break // "pz absent: running"
			}
		}
		// Too many subscriptions.
		for i := range 70 {
			r := c.request(2, map[string]any{"w": "events", "hz": 1})
			if str(r.body["code"]) == "too-large" {
				wantCode(t, "subscriptions per client | 64 | too-large", r, "too-large")
				break
			}
			if i == 69 {
				t.Error("70 subscriptions accepted")
			}
		}
	})

	t.Run("malformed", func(t *testing.T) {
		c := editor(t)
		c.send(99, map[string]any{"id": 77})
		r := c.await(77)
		wantCode(t, "A request type the agent does not know ... is answered by a Reply with code protocol and the request's id", r, "protocol")
		c.send(66, map[string]any{"id": 78, "ok": true})
		// "or a message that is not a request, is answered with a Reply
		// (protocol) carrying the message's id when it could be read"
		wantCode(t, "a message that is not a request (an agent's type), with its id", c.await(78), "protocol")
		c.send(64, map[string]any{"id": 81, "v": 2})
		wantCode(t, "a Welcome (an agent's type with no id of its own), with the id its body carried", c.await(81), "protocol")
		c.send(4, map[string]any{"id": 79, "q": 12})
		wantCode(t, "a key of the wrong type", c.await(79), "protocol")
		c.sendRaw([]byte{0xc1})
		wantCode(t, "payloads that do not decode", c.recv(), "protocol")
		// "the connection stays open"
		if p := c.request(4, map[string]any{"q": "HP", "co": true}); p.typ != typePage {
			t.Errorf("the connection did not survive: %v", p.body)
		}
		big := map[string]any{"id": 80, "q": strings.Repeat("x", 70<<10)}
		c.send(4, big)
		last, closed := c.closed(2 * time.Second)
		if !closed {
			t.Fatal("a frame over mf left the connection open")
		}
		wantCode(t, "A reader refuses a longer frame ... the agent first sends a Reject (too-large)", last, "too-large")
	})

	t.Run("series over no matches", func(t *testing.T) {
		// "v: the sample; absent when there is none (... nothing matches
		// for min, mean, max)": a count or a sum over no matches is 0.
		c := editor(t)
		for _, agg := range []string{"count HP.HP<-1000000", "sum HP.HP HP.HP<-1000000", "mean HP.HP HP.HP<-1000000"} {
			wantOK(t, "Subscribe series "+agg, c.request(2, map[string]any{"w": "series", "q": agg, "hz": 30}))
			sub := c.id
			for {
				m := c.recv()
				if m.typ != typeSeries || num(m.body["sub"]) != int64(sub) {
					continue
				}
				v, has := m.body["v"]
				switch {
				case strings.HasPrefix(agg, "mean") && has:
					t.Errorf("%s over no matches: v %v, want absent", agg, v)
				case !strings.HasPrefix(agg, "mean") && (!has || num(v) != 0):
					t.Errorf("%s over no matches: v %v (present %v), want 0", agg, v, has)
				}
				break
			}
		}
	})

	t.Run("a frame over the limit before the hello", func(t *testing.T) {
		// "a frame over the limit before the hello is answered with a
		// Reject (too-large) first"
		c := dialRaw(t, g.agent.Addr())
		if _, err := c.conn.Write(binary.BigEndian.AppendUint32(nil, 1<<20)); err != nil {
			t.Fatal(err)
		}
		last, closed := c.closed(2 * time.Second)
		if !closed {
			t.Fatal("a frame over the limit before the hello left the connection open")
		}
		wantCode(t, "a frame over the limit before the hello", last, "too-large")
	})

	t.Run("page and events subscriptions", func(t *testing.T) {
		c := editor(t)
		wantOK(t, "Subscribe page", c.request(2, map[string]any{"w": "page", "q": "HP", "l": 20, "hz": 60}))
		sub := c.id
		first := nextOf(t, c, typePage, sub)
		if first.body["full"] != true || len(list(first.body["rows"])) != 20 {
			t.Fatalf("the first page frame is full: %v", first.body["full"])
		}
		target := list(first.body["rows"])[5].(map[string]any)["e"]
		wantOK(t, "SetField", c.request(6, map[string]any{"e": target, "p": "HP.HP", "v": 12345}))
		// "rows holds only rows whose values changed or that entered the window"
		for {
			d := nextOf(t, c, typePage, sub)
			rows := list(d.body["rows"])
			if len(rows) == 0 {
				continue
			}
			if d.body["full"] == true || len(rows) != 1 || num(rows[0].(map[string]any)["e"]) != num(target) {
				t.Errorf("a delta after one edit: %v", d.body)
			}
			break
		}
		wantOK(t, "Subscribe events", c.request(2, map[string]any{"w": "events", "n": 4, "hz": 30}))
		ev := nextOf(t, c, 70, c.id)
		if _, ok := ev.body["q"]; !ok {
			t.Errorf("Events (70) without q: %v", ev.body)
		}
	})

	t.Run("answers over the client's mf", func(t *testing.T) {
		c := dialRaw(t, addr)
		if w := c.hello(map[string]any{"mf": 2048}); w.typ != typeWelcome {
			t.Fatal(w.body)
		}
		// "an answer over the client's Hello.mf | replaced by a Reply with the request's id | too-large"
		wantCode(t, "an answer over the client's Hello.mf", c.request(4, map[string]any{"q": "Pos", "l": 150}), "too-large")
		if p := c.request(4, map[string]any{"q": "Pos", "co": true}); p.typ != typePage {
			t.Errorf("the client was not kept: %v", p.body)
		}
	})

	t.Run("zero-length frame", func(t *testing.T) {
		c := editor(t)
		_, err := c.conn.Write([]byte{0, 0, 0, 0})
		must(t, err)
		last, closed := c.closed(2 * time.Second)
		if !closed {
			t.Fatal("a zero-length frame left the connection open")
		}
		// "length counts the payload only, never 0"; "Bytes that are not frames close it"
		wantCode(t, "a zero-length frame is not a frame", last, "protocol")
	})

	t.Run("snapshot", func(t *testing.T) {
		c := editor(t)
		s := c.request(14, map[string]any{})
		if s.typ != typeSnapshot {
			t.Fatalf("SnapshotRequest answered by %d", s.typ)
		}
		// "tb ... rows add up to st.a"; "sp | one table per sparse component"; "rs | every resource"
		rows := 0
		for _, tb := range list(s.body["tb"]) {
			rows += len(list(tb.(map[string]any)["e"]))
		}
		st, _ := s.body["st"].(map[string]any)
		if int64(rows) != num(st["a"]) {
			t.Errorf("table rows add up to %d, st.a is %v", rows, st["a"])
		}
		if sp := list(s.body["sp"]); len(sp) != 1 || len(list(sp[0].(map[string]any)["e"])) != 10 {
			t.Errorf("sp = %v", sp)
		}
	})

	t.Run("journal", func(t *testing.T) {
		// One client reads the journal, another edits: a client waiting
		// for a reply would skip the journal frames that come first.
		c, ed := editor(t), editor(t)
		wantOK(t, "Subscribe journal", c.request(2, map[string]any{"w": "journal", "hz": 60}))
		sp := ed.request(9, map[string]any{"cs": []any{map[string]any{"c": "Pos"}, map[string]any{"c": "HP"}}})
		wantOK(t, "Spawn", sp)
		e := num(sp.body["e"])
		wantOK(t, "SetField", ed.request(6, map[string]any{"e": e, "p": "HP.HP", "v": 3}))
		var spawn, set map[string]any
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && (spawn == nil || set == nil); {
			m, err := c.tryRecv(time.Until(deadline))
			if err != nil {
				break // said below: what did not come
			}
			if m.typ != typeJournal {
				continue
			}
			for _, x := range list(m.body["en"]) {
				en := x.(map[string]any)
				if num(en["e"]) == e && en["op"] == "spawn" {
					spawn = en
				}
				if num(en["e"]) == e && en["op"] == "set" {
					set = en
				}
			}
		}
		// "cs | spawn: the components the new entity was given"
		if spawn == nil || len(list(spawn["cs"])) != 2 || num(spawn["to"]) != num(spawn["s"])+2 {
			t.Errorf("spawn entry = %v", spawn)
		}
		// "set (a field set by path: an edit from a client)"; "client N (NAME)"
		if set == nil || !strings.HasPrefix(str(set["sy"]), "client ") {
			t.Errorf("set entry = %v", set)
		}
	})

	t.Run("journal filters and names", func(t *testing.T) {
		// "A client may not follow the journal twice with the same filter
		// (f): the second Subscribe is refused (bad-value), naming the first."
		c := dialRaw(t, addr)
		long := strings.Repeat("x", 200)
		if w := c.hello(map[string]any{"c": long}); w.typ != typeWelcome {
			t.Fatalf("a 200-byte client name was not welcomed: %v", w.body)
		}
		wantOK(t, "Subscribe journal", c.request(2, map[string]any{"w": "journal", "hz": 60, "f": "Pos"}))
		r := c.request(2, map[string]any{"w": "journal", "hz": 60, "f": "Pos"})
		wantCode(t, "a second journal with the same filter", r, "bad-value")
		// "the client's name (Hello.c): 64 bytes as the agent keeps it: a
		// longer one is cut at a character's start and ends with …"; the
		// journal names a client's edits "client N (NAME)".
		sp := c.request(9, map[string]any{"cs": []any{map[string]any{"c": "Pos"}}})
		wantOK(t, "Spawn", sp)
		for deadline := time.Now().Add(10 * time.Second); ; {
			m, err := c.tryRecv(time.Until(deadline))
			if err != nil {
				t.Fatal("no journal entry for the spawn")
			}
			if m.typ != typeJournal {
				continue
			}
			for _, x := range list(m.body["en"]) {
				if en := x.(map[string]any); num(en["e"]) == num(sp.body["e"]) {
					if sy := str(en["sy"]); len(sy) > 64+len("client NNNN ()") || !strings.HasSuffix(sy, "…)") {
						t.Fatalf("the journal names a client of a 200-byte name %q", sy)
					}
					return
				}
			}
		}
	})

	t.Run("provenance", func(t *testing.T) {
		c := editor(t)
		e := handle(g.ents[5])
		wantOK(t, "SetField", c.request(6, map[string]any{"e": e, "p": "Pos.X", "v": 7.0}))
		d := c.request(5, map[string]any{"e": e})
		var hp map[string]any // the component the client set
		for _, x := range list(d.body["cs"]) {
			if cv := x.(map[string]any); cv["c"] == "Pos" {
				hp = cv
			}
		}
		// "wr | ... who last wrote the value"; "client N (NAME) for a client's edit"
		wr, _ := hp["wr"].(map[string]any)
		if wr == nil || !strings.HasPrefix(str(wr["by"]), "client ") || num(wr["t"]) < 0 {
			t.Errorf("the Pos a client set: %v", hp)
		}
	})

	t.Run("stale audit", func(t *testing.T) {
		c := editor(t)
		sp := c.request(9, map[string]any{"cs": []any{map[string]any{"c": "Pos"}}})
		wantOK(t, "Spawn", sp)
		e := num(sp.body["e"])
		wantOK(t, "Despawn", c.request(10, map[string]any{"e": e}))
		// "getting, setting ... a command skipped for it" are uses: a client's set of the dead handle is one
		wantCode(t, "SetField of a despawned entity", c.request(6, map[string]any{"e": e, "p": "Pos.X", "v": 1.0}), "stale")
		wantOK(t, "Subscribe summary", c.request(2, map[string]any{"w": "summary", "hz": 30}))
		for deadline := time.Now().Add(5 * time.Second); ; {
			m, err := c.tryRecv(time.Until(deadline))
			if err != nil {
				t.Fatal("no summary with the stale audit (sa)")
			}
			sa, _ := m.body["sa"].(map[string]any)
			if m.typ != typeSummary || sa == nil {
				continue
			}
			// "sa | StaleAudit: n, by (StaleCount: by, n), rec (StaleUse: e, g, by, t)"
			rec := list(sa["rec"])
			last, _ := rec[len(rec)-1].(map[string]any)
			if num(sa["n"]) < 1 || len(list(sa["by"])) == 0 || num(last["e"]) != e || !strings.HasPrefix(str(last["by"]), "client ") || num(last["g"]) < 1 {
				t.Errorf("the stale audit: %v", sa)
			}
			break
		}
	})

	t.Run("watchpoints", func(t *testing.T) {
		c := editor(t)
		e := handle(g.ents[6])
		// "Watch (16) ... The Reply's w is the new watchpoint's id"
		r := c.request(16, map[string]any{"x": "HP.HP<-100", "log": true})
		wantOK(t, "Watch", r)
		w := num(r.body["w"])
		if w == 0 {
			t.Fatalf("Watch: no w in %v", r.body)
		}
		wantOK(t, "SetField", c.request(6, map[string]any{"e": e, "p": "HP.HP", "v": -101}))
		// "WatchHit (74) | w | x | t | e | by | c | v | pz | m"
		var hit map[string]any
		for deadline := time.Now().Add(10 * time.Second); hit == nil && time.Now().Before(deadline); {
			m, err := c.tryRecv(time.Until(deadline))
			if err != nil {
				break
			}
			if m.typ == 74 {
				hit = m.body
			}
		}
		if hit == nil || num(hit["w"]) != w || uint64(num(hit["e"])) != e || hit["c"] != "HP" || !strings.HasPrefix(str(hit["by"]), "client ") ||
			hit["pz"] == true || str(hit["m"]) == "" || str(hit["x"]) != "HP.HP<-100" {
			t.Fatalf("WatchHit = %v", hit)
		}
		// "wp | ... always present in a full summary"
		wantOK(t, "Subscribe summary", c.request(2, map[string]any{"w": "summary", "hz": 30}))
		for deadline := time.Now().Add(5 * time.Second); ; {
			m, err := c.tryRecv(time.Until(deadline))
			if err != nil {
				t.Fatal("no summary")
			}
			if m.typ == typeSummary && m.body["full"] == true {
				wp := list(m.body["wp"])
				if len(wp) != 1 || num(wp[0].(map[string]any)["n"]) < 1 || wp[0].(map[string]any)["k"] != "value" {
					t.Errorf("the summary's wp = %v", m.body["wp"])
				}
				break
			}
		}
		wantOK(t, "EnableWatch", c.request(18, map[string]any{"w": w, "on": false}))
		wantOK(t, "Unwatch", c.request(17, map[string]any{"w": w}))
		wantCode(t, "Unwatch, EnableWatch | not-found | no such watchpoint", c.request(17, map[string]any{"w": w}), "not-found")
		wantCode(t, "Watch | bad-value | the expression is none of the forms", c.request(16, map[string]any{"x": "system hunt"}), "bad-value")
		wantCode(t, "Watch | bad-query | a value watchpoint's query does not compile", c.request(16, map[string]any{"x": "Nope.X<1"}), "bad-query")
		ro := dialRaw(t, addr)
		ro.hello(map[string]any{"c": "conformance", "caps": []string{"read"}})
		wantCode(t, "Watch | read-only | it would pause the game (set log instead)", ro.request(16, map[string]any{"x": "HP.HP<0"}), "read-only")
		logOnly := ro.request(16, map[string]any{"x": "HP.HP<0", "log": true})
		wantOK(t, "a log-only Watch on a read-only session", logOnly)
		pausing := c.request(16, map[string]any{"x": "HP.HP<-1000"})
		wantOK(t, "Watch", pausing)
		for _, req := range []struct {
			typ  int
			body map[string]any
		}{{18, map[string]any{"w": num(pausing.body["w"]), "on": false}}, {17, map[string]any{"w": num(pausing.body["w"])}}} {
			wantCode(t, "Unwatch, EnableWatch | read-only | the watchpoint pauses the game and the session or agent is read-only", ro.request(req.typ, req.body), "read-only")
		}
		wantOK(t, "a read-only session switches a log-only watchpoint", ro.request(18, map[string]any{"w": num(logOnly.body["w"]), "on": false}))
		wantOK(t, "a read-only session removes a log-only watchpoint", ro.request(17, map[string]any{"w": num(logOnly.body["w"])}))
		wantOK(t, "Unwatch", c.request(17, map[string]any{"w": num(pausing.body["w"])}))
	})

	t.Run("world stream", func(t *testing.T) {
		c := editor(t)
		wantOK(t, "Subscribe world", c.request(2, map[string]any{"w": "world", "hz": 30}))
		sub := c.id
		var seqs []int64
		for len(seqs) < 3 {
			m := c.recv()
			if m.typ == typeWorld && num(m.body["sub"]) == int64(sub) {
				if len(seqs) == 0 && m.body["full"] != true {
					t.Fatal("a world stream starts with a full frame")
				}
				if z, ok := m.body["z"].([]byte); !ok || !bytes.HasPrefix(z, []byte("\xff\x06\x00\x00S2sTwO")) && !bytes.HasPrefix(z, []byte("\x28\xb5\x2f\xfd")) {
					t.Fatalf("z is neither an S2 stream nor a zstd frame: %T", m.body["z"])
				}
				seqs = append(seqs, num(m.body["n"]))
			}
		}
		if seqs[1] != seqs[0]+1 || seqs[2] != seqs[1]+1 {
			t.Errorf("n should count frames one by one: %v", seqs)
		}
	})

	t.Run("recording layout", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "run.ecsrec")
		done := make(chan error, 1)
		g.agent.Do(func() {
			r, err := g.agent.Record(path, 0)
			if err != nil {
				done <- err
				return
			}
			done <- r.Stop()
		})
		must(t, <-done)
		b, err := os.ReadFile(path)
		must(t, err)
		// "magic = "ECSREC" 0x00 version ... version 4"; "footer = index-offset(u64) "ECSEND" 0x00 0x01"
		if !bytes.HasPrefix(b, []byte("ECSREC\x00\x04")) || !bytes.HasSuffix(b, []byte("ECSEND\x00\x01")) {
			t.Fatalf("layout: % x ... % x", b[:8], b[len(b)-8:])
		}
		hlen := binary.BigEndian.Uint32(b[8:])
		var hdr map[string]any
		must(t, unmarshal(b[12:12+hlen], &hdr))
		for _, k := range []string{"v", "g", "t0", "pv"} {
			if _, ok := hdr[k]; !ok {
				t.Errorf("header lacks %q: %v", k, hdr)
			}
		}
		if hdr["g"] != "conf" || num(hdr["v"]) != 4 {
			t.Errorf("header = %v", hdr)
		}
		rec := b[12+hlen:]
		if n := binary.BigEndian.Uint32(rec); rec[20]&1 != 1 || rec[21] != 0x92 || rec[22] != typeWorld || int(n) < 17 {
			t.Errorf("first record: length %d flags %d, message % x", n, rec[20], rec[21:23])
		}
	})

	t.Run("limits of other agents", func(t *testing.T) {
		tok := startGameOf(t, 20_000, inspector.Options{Token: "s3cret-0123456789abcdef", MaxClients: 1, FrameTimeout: 300 * time.Millisecond, MaxQueuedBytes: 1 << 20})
		c := dialRaw(t, tok.agent.Addr())
		wantCode(t, "token: the agent wants a token and this is not it", c.helloToken("nope-0123456789abcdefg"), "token")
		// "the token never travels": a Hello that carries one the old way
		// (no nonce) is refused, token and all.
		old := dialRaw(t, tok.agent.Addr())
		wantCode(t, "token: a hello without a nonce", old.hello(map[string]any{"tok": "s3cret-0123456789abcdef"}), "token")
		// "After a wrong token from a host, every connection from that host
		// waits before its token is checked, right or wrong: 100 ms after the
		// first wrong one ... The right token is never refused for another
		// connection's wrong ones"
		ok := dialRaw(t, tok.agent.Addr())
		asked := time.Now()
		if w := ok.helloToken("s3cret-0123456789abcdef"); w.typ != typeWelcome {
			t.Fatalf("the right token after a wrong one: %v", w.body)
		}
		if waited := time.Since(asked); waited < 90*time.Millisecond {
			t.Fatalf("the right token after a wrong one was checked after %v, want 100 ms at least", waited)
		}
		// "busy (too many clients)": this agent takes one.
		busy := dialRaw(t, tok.agent.Addr())
		wantCode(t, "busy: the agent has its maximum of clients", busy.helloToken("s3cret-0123456789abcdef"), "busy")
		// "A client that sends part of a frame and stops ... Reject (timeout)"
		ok.conn.Write([]byte{0, 0, 0, 40, 0x92})
		last, closed := ok.closed(3 * time.Second)
		if !closed {
			t.Fatal("a stalled frame was never dropped")
		}
		wantCode(t, "timeout: a frame stalled half-sent", last, "timeout")
		// "When more than [MaxQueuedBytes] of answers ... wait for a client, it is sent a Reject (overload)"
		hog := dialRaw(t, tok.agent.Addr())
		for hog.helloToken("s3cret-0123456789abcdef").typ != typeWelcome {
			time.Sleep(50 * time.Millisecond) // the stalled client's slot frees
			hog = dialRaw(t, tok.agent.Addr())
		}
		// 32 pages of 10,000 rows, none read until the agent gives up.
		for i := range 32 {
			// The agent may drop the hog before the last is sent: what comes
			// back says why.
			if hog.trySend(4, map[string]any{"id": i + 1, "q": "Pos HP", "l": 10000}) != nil {
				break
			}
		}
		time.Sleep(2 * time.Second)
		var got msg
		for {
			m, err := hog.tryRecv(3 * time.Second)
			if err != nil {
				break
			}
			if m.typ == typeReject {
				got = m
				break
			}
		}
		wantCode(t, "overload: a client that lets too much wait unread", got, "overload")
	})

	t.Run("every documented code is produced", func(t *testing.T) {
		doc, err := os.ReadFile("../PROTOCOL.md")
		must(t, err)
		table := string(doc[bytes.Index(doc, []byte("## Error codes")):])
		table = table[:strings.Index(table, "\n\n")]
		exempt := map[string]string{"internal": "the agent failed: no request makes it fail on purpose"}
		for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(table, -1) {
			if _, ok := exempt[m[1]]; !ok && !produced[m[1]] {
				t.Errorf("no case produces the documented code %q", m[1])
			}
		}
	})
}

// nextOf returns the next message of type typ for subscription sub.
func nextOf(t *testing.T, c *rawClient, typ, sub int) msg {
	t.Helper()
	for {
		m := c.recv()
		if m.typ == typ && num(m.body["sub"]) == int64(sub) {
			return m
		}
	}
}

// nextSummary returns the next Summary of subscription sub.
func nextSummary(t *testing.T, c *rawClient, sub int) msg {
	t.Helper()
	for {
		m := c.recv()
		if m.typ == typeSummary && num(m.body["sub"]) == int64(sub) {
			return m
		}
	}
}

// componentIDs reads HP's and Pos's ids from a summary's schemas.
func componentIDs(t *testing.T, c *rawClient) (hp, pos int64) {
	t.Helper()
	r := c.request(2, map[string]any{"w": "summary", "hz": 10})
	sub := c.id
	wantOK(t, "Subscribe summary", r)
	s := nextSummary(t, c, sub)
	for _, x := range list(s.body["cs"]) {
		comp := x.(map[string]any)
		switch comp["s"] {
		case "HP":
			hp = num(comp["id"])
		case "Pos":
			pos = num(comp["id"])
		}
	}
	c.request(3, map[string]any{"sub": sub})
	return hp, pos
}

// unhex reads the bytes of a hexdump -C listing.
func unhex(t *testing.T, dump string) []byte {
	t.Helper()
	var out []byte
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		fields := strings.Fields(line)
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "|") {
				break
			}
			var b byte
			if _, err := fmt.Sscanf(f, "%02x", &b); err != nil {
				t.Fatalf("bad hex %q in %q", f, line)
			}
			out = append(out, b)
		}
	}
	if n := binary.BigEndian.Uint32(out); int(n) != len(out)-4 {
		t.Fatalf("the dump's length says %d, it holds %d", n, len(out)-4)
	}
	return out
}

package conformance

// A client built from PROTOCOL.md alone rebuilds what the agent streams
// (world frames, recordings, page deltas) and checks it against what the
// agent answers directly.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// Label travels as Values (it holds a string); Pos, HP and ChildOf as raw
// memory; Mark is sparse.
type Label struct{ S string }

// TestWorldFramesAsDocumented: a client that applies WorldFrames as
// PROTOCOL.md says (S2 or zstd, row sets, entity and value columns XORed with
// the row's previous contents and laid out in byte planes, sparse tables,
// summary deltas) holds, after keyframes and deltas in which values are
// written, entities spawned and despawned, sparse components added and
// removed and parents set, the world the agent answers GetEntity with,
// entity by entity and field by field.
func TestWorldFramesAsDocumented(t *testing.T) {
	addr := churningGame(t, 400).Addr()
	stream, ctl := dialRaw(t, addr), dialRaw(t, addr)
	for _, c := range []*rawClient{stream, ctl} {
		if w := c.hello(nil); w.typ != typeWelcome {
			t.Fatalf("handshake: %v", w.body)
		}
	}
	// The Reply and the first frames may come in either order: read both
	// kinds, as a client must, and start from the stream's first frame.
	stream.send(2, map[string]any{"id": 7, "w": "world"})
	var doc docWorld
	for doc.frames < 30 { // a keyframe, then deltas over changing ticks
		doc.apply(t, stream.nextWorld())
	}
	wantOK(t, "Pause", ctl.request(11, map[string]any{}))
	for !doc.paused() { // the first frame that says paused shows the world as it stays
		doc.apply(t, stream.nextWorld())
	}
	if doc.full < 1 || doc.frames-doc.full < 20 || doc.journaled < 20 {
		t.Fatalf("%d frames, %d of them full, %d journals checked: want deltas to check", doc.frames, doc.full, doc.journaled)
	}
	doc.matchesAgent(t, ctl)
	if doc.resNumbers < 10 || doc.resWhole < 1 {
		t.Errorf("resource changes applied: %d as numbers, %d whole; want both", doc.resNumbers, doc.resWhole)
	}
	fresh := dialRaw(t, addr)
	if w := fresh.hello(nil); w.typ != typeWelcome {
		t.Fatalf("handshake: %v", w.body)
	}
	fresh.send(2, map[string]any{"id": 8, "w": "world"})
	doc.matchesKeyframe(t, orderedBody(t, decompressBody(t, fresh.nextWorld()["z"].([]byte))))
	// "Free entries are reused from the end of the list."
	if len(doc.free) == 0 {
		t.Fatal("the churn left no free slot")
	}
	r := ctl.request(9, map[string]any{"cs": []any{map[string]any{"c": "HP", "v": map[string]any{"HP": 7}}}})
	if r.body["ok"] != true || uint64(num0(r.body["e"])) != doc.free[len(doc.free)-1] {
		t.Errorf("Spawn gave %v; the free list rebuilt from the frames ends with %d", r.body, doc.free[len(doc.free)-1])
	}
}

// TestAWorldStreamStartsKnowingTheRecentDead: "a stream's first frame
// carries the newest 256 the agent keeps, despawned before it began": a
// client that subscribes to a game that has been despawning for a while
// finds the last state of recent deaths in its first keyframe's dd, each
// with who despawned it and its components.
func TestAWorldStreamStartsKnowingTheRecentDead(t *testing.T) {
	addr := churningGame(t, 300).Addr()
	watcher := dialRaw(t, addr) // a client attached: the agent keeps every despawn's last state
	if w := watcher.hello(nil); w.typ != typeWelcome {
		t.Fatalf("handshake: %v", w.body)
	}
	time.Sleep(200 * time.Millisecond) // the churn despawns one entity a frame
	stream := dialRaw(t, addr)
	if w := stream.hello(nil); w.typ != typeWelcome {
		t.Fatalf("handshake: %v", w.body)
	}
	stream.send(2, map[string]any{"id": 7, "w": "world"})
	f := stream.nextWorld()
	if f["full"] != true || num0(f["n"]) != 0 {
		t.Fatalf("the stream's first frame: full %v, n %v", f["full"], f["n"])
	}
	var body map[string]any
	must(t, msgpack.Unmarshal(decompressBody(t, f["z"].([]byte)), &body))
	dead := list(body["dd"])
	if len(dead) == 0 {
		t.Fatal("the first keyframe of a stream begun after despawns carries no dead")
	}
	d := dead[0].(map[string]any)
	died, _ := d["dd"].(map[string]any)
	if num0(d["e"]) == 0 || died == nil || died["by"] == nil || len(list(d["cs"])) == 0 {
		t.Fatalf("a dead entity as the first keyframe carries it: %v", d)
	}
}

// matchesAgent compares every entity the rebuilt world holds with the
// agent's GetEntity, field by field, and its entity count with the
// summary's; the agent's world must not change meanwhile (paused).
func (d *docWorld) matchesAgent(t *testing.T, ctl *rawClient) {
	t.Helper()
	rows := 0
	checked := map[string]int{}
	for key, tb := range d.tables {
		if key.sparse {
			continue
		}
		rows += tb.n
		for r := range tb.n {
			e := tb.ents[r]
			det := ctl.request(5, map[string]any{"e": e})
			if det.typ != typeDetail {
				t.Fatalf("GetEntity %d (archetype %d row %d): %v", e, key.id, r, det.body)
			}
			got := d.entity(e)
			for _, cv := range list(det.body["cs"]) {
				cv := cv.(map[string]any)
				name := str(cv["c"])
				want := canon(cv["v"])
				if g, ok := got[name]; !ok || g != want {
					t.Errorf("%s of entity %d: frames say %q (present %v), GetEntity %q", name, e, g, ok, want)
				}
				delete(got, name)
				checked[name]++
			}
			if len(got) > 0 {
				t.Errorf("entity %d: the frames hold components GetEntity does not: %v", e, got)
			}
		}
	}
	if ne := int(num0(d.summary["ne"])); rows != ne || ne < 200 {
		t.Errorf("the archetype tables hold %d rows, the summary says %d entities", rows, ne)
	}
	for _, name := range []string{"Pos", "HP", "Mark", "Label", "ChildOf"} {
		if checked[name] == 0 {
			t.Errorf("no entity with %s was compared: %v", name, checked)
		}
	}
}

// churningGame runs a world that changes every tick: positions written,
// an entity despawned and another spawned, a sparse component moved, a
// label rewritten, a parent set.
func churningGame(t *testing.T, n int) *inspector.Agent {
	t.Helper()
	w := ecs.NewWorld()
	pos, hp, mark, label := ecs.NewMap[Pos](w), ecs.NewMap[HP](w), ecs.NewMap[Mark](w), ecs.NewMap[Label](w)
	var ents []ecs.Entity
	spawn := func(i int) {
		e := w.Spawn()
		must(t, pos.Add(e, Pos{float32(i) * 0.1, -1.5}))
		if i%2 == 0 {
			must(t, hp.Add(e, HP{int32(-i)}))
		}
		if i%3 == 0 {
			must(t, label.Add(e, Label{fmt.Sprintf("unit %d", i)}))
		}
		if i%5 == 0 && len(ents) > 0 {
			must(t, w.SetParent(e, ents[i%len(ents)]))
		}
		ents = append(ents, e)
	}
	for i := range n {
		spawn(i)
	}
	for i := len(ents) - 1; i >= 0; i -= 20 { // free slots, kept by the churn
		must(t, w.Despawn(ents[i]))
		ents = slices.Delete(ents, i, i+1)
	}
	tick := 0
	sc := ecs.NewSchedule() // a system, so that summaries carry its runs
	sc.Add("drift", func(*ecs.World, *ecs.Commands) {
		for i := tick % 7; i < len(ents); i += 7 {
			if p := pos.Get(ents[i]); p != nil {
				p.X += 0.25
				p.Y = float32(math.Sin(float64(tick + i)))
			}
		}
	}, ecs.Writes[Pos]())
	cells := make([]float64, 48)
	for i := range cells {
		cells[i] = float64(i%8) / 8
	}
	ecs.SetResource(w, Field{Cells: cells, Note: "calm"})
	grow := func() { // the resource: a tick, cells growing to a cap, one eaten now and then, a note
		f := ecs.Resource[Field](w)
		f.Tick, f.Wind = int64(tick), float32(tick)/3
		for i := range f.Cells {
			f.Cells[i] = min(f.Cells[i]+1.0/64, 1)
		}
		if tick%9 == 0 {
			f.Cells[tick%len(f.Cells)] = 0.125
		}
		if tick%25 == 0 {
			f.Note = fmt.Sprint("gust ", tick)
		}
	}
	a := inspector.New(w, inspector.Options{Addr: "127.0.0.1:0", Game: "churn", Schedule: sc})
	must(t, a.Start())
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for ; ; tick++ {
			select {
			case <-stop:
				return
			default:
			}
			sc.Run(w)
			grow()
			victim := (tick * 31) % len(ents)
			if w.Alive(ents[victim]) {
				must(t, w.Despawn(ents[victim]))
				if tick%10 == 0 {
					_ = pos.Get(ents[victim]) // a dead handle used: the stale audit counts it
				}
				ents = slices.Delete(ents, victim, victim+1)
			}
			spawn(n + tick)
			m := ents[(tick*13)%len(ents)]
			if mark.Has(m) {
				must(t, mark.Remove(m))
			} else {
				must(t, mark.Add(m, Mark{int32(tick)}))
			}
			if l := label.Get(ents[(tick*17)%len(ents)]); l != nil {
				l.S = strings.Repeat("x", tick%5) + "!"
			}
			if err := w.Tick(); err != nil {
				t.Error(err)
			}
			a.Sync()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { close(stop); <-done; a.Close() })
	return a
}

// nextWorld reads until a WorldFrame; a Reply on the way must say ok.
func (c *rawClient) nextWorld() map[string]any {
	c.t.Helper()
	for {
		switch m := c.recv(); m.typ {
		case typeWorld:
			return m.body
		case typeReply:
			if m.body["ok"] != true {
				c.t.Fatalf("a request of the stream's client failed: %v", m.body)
			}
		}
	}
}

// docWorld is the world as a client rebuilds it from WorldFrames.
type docWorld struct {
	tables       map[tableKey]*docTable
	summary      map[string]any
	comps        map[int64]map[string]any // component id: Component
	frames, full int
	last         int64
	free         []uint64 // the allocator's free list, bottom first
	journalTo    int64    // the last journal entry seen
	journaled    int      // deltas whose journal was checked against the tables
	resources    []docResource
	// resWhole and resNumbers count the resource changes applied whole
	// and as numbers.
	resWhole, resNumbers int
}

type tableKey struct {
	id     int64
	sparse bool
}

type docTable struct {
	comps []int64
	n     int
	ents  []uint64
	cols  map[int64]*docCol
}

type docCol struct {
	kind int64
	size int
	raw  []byte // raw: n values of size bytes
	prev []byte // raw: each row's value before raw's, for a prediction
	vals []any  // Values: one per row
}

func (d *docWorld) paused() bool { return d.summary != nil && d.summary["pz"] == true }

// apply applies one WorldFrame as the document says.
func (d *docWorld) apply(t *testing.T, f map[string]any) {
	t.Helper()
	full := f["full"] == true
	if d.frames == 0 && !full {
		t.Fatal("a world stream starts with a full frame")
	}
	if !full && num0(f["n"]) != d.last+1 {
		t.Fatalf("a delta numbered %d after %d", num0(f["n"]), d.last)
	}
	d.last = num0(f["n"])
	raw := decompressBody(t, f["z"].([]byte))
	var body map[string]any
	must(t, msgpack.Unmarshal(raw, &body))
	d.frames++
	if full {
		d.full++
		d.tables, d.summary, d.comps = map[tableKey]*docTable{}, nil, map[int64]map[string]any{}
	}
	d.applySummary(body["sum"].(map[string]any), full)
	d.applyResources(t, orderedBody(t, raw), full)
	if al, ok := body["al"].(map[string]any); ok { // free = f, or free[:k] + f
		var f []uint64
		for _, e := range list(al["f"]) {
			f = append(f, uint64(num0(e)))
		}
		if full {
			d.free = f
		} else {
			k := int(num0(al["k"]))
			if k > len(d.free) {
				t.Fatalf("AllocFrame keeps %d free entries of %d", k, len(d.free))
			}
			d.free = append(d.free[:k:k], f...)
		}
	}
	before := d.alive()
	for _, x := range list(body["tb"]) {
		d.applyTable(t, x.(map[string]any), full)
	}
	d.checkJournal(t, before, list(body["jn"]), full)
}

// alive is the set of entities in the archetype tables.
func (d *docWorld) alive() map[uint64]bool {
	out := map[uint64]bool{}
	for key, tb := range d.tables {
		if !key.sparse {
			for _, e := range tb.ents {
				out[e] = true
			}
		}
	}
	return out
}

// checkJournal: a delta's journal ("structural changes since the previous
// frame") applied to the entities before it gives the entities after it,
// unless entries were lost (a gap in s).
func (d *docWorld) checkJournal(t *testing.T, before map[uint64]bool, jn []any, full bool) {
	t.Helper()
	lost := false
	for _, x := range jn {
		en := x.(map[string]any)
		s, to := num0(en["s"]), num0(en["to"])
		if to == 0 {
			to = s
		}
		if d.journalTo != 0 && s != d.journalTo+1 {
			lost = true
		}
		d.journalTo = to
		switch str(en["op"]) {
		case "spawn":
			before[uint64(num0(en["e"]))] = true
		case "despawn":
			delete(before, uint64(num0(en["e"])))
		}
	}
	if full || lost {
		return
	}
	d.journaled++
	after := d.alive()
	if len(after) != len(before) {
		t.Errorf("frame %d: the journal gives %d entities, the tables %d", d.frames, len(before), len(after))
		return
	}
	for e := range after {
		if !before[e] {
			t.Errorf("frame %d: entity %d is in the tables but the journal never spawned it", d.frames, e)
			return
		}
	}
}

func (d *docWorld) applySummary(s map[string]any, full bool) {
	if full || d.summary == nil {
		d.summary = s
	} else {
		for k, v := range s {
			d.summary[k] = v
		}
		if _, ok := s["pz"]; !ok { // absent means running
			delete(d.summary, "pz")
		}
	}
	for _, c := range list(s["cs"]) {
		c := c.(map[string]any)
		d.comps[num0(c["id"])] = c
	}
}

func (d *docWorld) applyTable(t *testing.T, tf map[string]any, full bool) {
	t.Helper()
	key := tableKey{num0(tf["a"]), tf["sp"] == true}
	old := d.tables[key]
	if old == nil || full {
		old = &docTable{cols: map[int64]*docCol{}}
	}
	n := int(num0(tf["n"]))
	if n == 0 {
		delete(d.tables, key)
		return
	}
	nt := &docTable{n: n, ents: old.ents, cols: map[int64]*docCol{}}
	if tf["m"] == true {
		planes := unplane(bin(tf["e"]), n, 8)
		nt.ents = make([]uint64, n)
		for r := range n {
			var prev uint64
			if r < old.n {
				prev = old.ents[r]
			}
			nt.ents[r] = binary.LittleEndian.Uint64(planes[8*r:]) ^ prev
		}
	}
	for j, c := range list(tf["c"]) {
		id := num0(c)
		nt.comps = append(nt.comps, id)
		cf := list(tf["cols"])[j].(map[string]any)
		kind, size := num0(cf["k"]), int(num0(cf["sz"]))
		var covered []int
		if tf["all"] == true {
			for r := range n {
				covered = append(covered, r)
			}
		} else {
			covered = rowSet(t, bin(cf["ch"]), n)
		}
		oc := old.cols[id]
		col := &docCol{kind: kind, size: size}
		if kind == 0 {
			col.raw, col.prev = make([]byte, n*size), make([]byte, n*size)
			same := oc != nil && oc.kind == 0 && oc.size == size
			had := 0 // rows that held a value before this frame
			if same {
				had = min(old.n, n)
				copy(col.raw, oc.raw)
				copy(col.prev, oc.prev)
			}
			lane := int(num0(cf["pl"]))
			var vals []byte
			if cf["pk"] == true {
				vals = unpackLanes(t, bin(cf["r"]), len(covered)*size/lane, lane)
			} else {
				vals = unplane(bin(cf["r"]), len(covered), size)
			}
			for i, r := range covered {
				v, p := make([]byte, size), make([]byte, size) // before the frame; zeros past the old end
				if r < had {
					copy(v, col.raw[r*size:])
					copy(p, col.prev[r*size:])
				}
				coded := vals[i*size : (i+1)*size]
				now := make([]byte, size)
				switch lane {
				case 0:
					for b := range size {
						now[b] = coded[b] ^ v[b]
					}
				case 4:
					for o := 0; o < size; o += 4 {
						z := binary.LittleEndian.Uint32(coded[o:])
						pred := 2*binary.LittleEndian.Uint32(v[o:]) - binary.LittleEndian.Uint32(p[o:])
						binary.LittleEndian.PutUint32(now[o:], (z>>1^-(z&1))+pred)
					}
				case 8:
					for o := 0; o < size; o += 8 {
						z := binary.LittleEndian.Uint64(coded[o:])
						pred := 2*binary.LittleEndian.Uint64(v[o:]) - binary.LittleEndian.Uint64(p[o:])
						binary.LittleEndian.PutUint64(now[o:], (z>>1^-(z&1))+pred)
					}
				default:
					t.Fatalf("component %d: values predicted in lanes of %d bytes", id, lane)
				}
				if r < had { // the value before this frame's becomes the one before
					copy(col.prev[r*size:], v)
				} else {
					copy(col.prev[r*size:], now)
				}
				copy(col.raw[r*size:], now)
			}
		} else {
			col.vals = make([]any, n)
			if oc != nil && oc.kind == kind {
				copy(col.vals, oc.vals)
			}
			if len(list(cf["v"])) != len(covered) {
				t.Fatalf("component %d: %d values for %d rows", id, len(list(cf["v"])), len(covered))
			}
			for i, r := range covered {
				col.vals[r] = list(cf["v"])[i]
			}
		}
		nt.cols[id] = col
	}
	d.tables[key] = nt
}

// entity returns e's components as the frames hold them, each in the
// canonical text canon gives.
func (d *docWorld) entity(e uint64) map[string]string {
	out := map[string]string{}
	for key, tb := range d.tables {
		r := slices.Index(tb.ents, e)
		if r < 0 {
			continue
		}
		for _, id := range tb.comps {
			c, col := d.comps[id], tb.cols[id]
			if key.sparse && id != key.id {
				continue
			}
			if col.kind != 0 {
				out[str(c["s"])] = canon(col.vals[r])
				continue
			}
			v := map[string]any{}
			for _, f := range list(c["fs"]) {
				f := f.(map[string]any)
				v[str(f["n"])] = readRaw(f, col.raw[r*col.size:(r+1)*col.size], int(num0(f["o"])))
			}
			out[str(c["s"])] = canon(v)
		}
	}
	return out
}

// readRaw reads a field from a raw value as its schema says.
func readRaw(f map[string]any, b []byte, off int) any {
	sz := int(num0(f["sz"]))
	if off < 0 || off+sz > len(b) {
		return "out of range"
	}
	v := b[off : off+sz]
	switch str(f["k"]) {
	case "bool":
		return v[0] != 0
	case "int":
		switch sz {
		case 1:
			return float64(int8(v[0]))
		case 2:
			return float64(int16(binary.LittleEndian.Uint16(v)))
		case 4:
			return float64(int32(binary.LittleEndian.Uint32(v)))
		case 8:
			return float64(int64(binary.LittleEndian.Uint64(v)))
		}
	case "uint", "entity":
		switch sz {
		case 1:
			return float64(v[0])
		case 2:
			return float64(binary.LittleEndian.Uint16(v))
		case 4:
			return float64(binary.LittleEndian.Uint32(v))
		case 8:
			return float64(binary.LittleEndian.Uint64(v))
		}
	case "float":
		if sz == 4 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(v))
	case "struct":
		m := map[string]any{}
		for _, sub := range list(f["fs"]) {
			sub := sub.(map[string]any)
			m[str(sub["n"])] = readRaw(sub, b, off+int(num0(sub["o"])))
		}
		return m
	case "array":
		el := f["el"].(map[string]any)
		es := int(num0(el["sz"]))
		l := make([]any, num0(f["len"]))
		for i := range l {
			l[i] = readRaw(el, b, off+i*es)
		}
		return l
	}
	return "kind " + str(f["k"])
}

// canon prints a decoded value the same way whichever width or type its
// numbers came in.
func canon(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + canon(x[k])
		}
		return "{" + strings.Join(parts, " ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canon(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case float32:
		return fmt.Sprint(float64(x))
	case float64:
		return fmt.Sprint(x)
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return fmt.Sprint(float64(num0(x)))
	}
	return fmt.Sprintf("%v", v)
}

// rowSet reads a row set: empty, 1 (every row), or 0, the count and each
// row as the rows skipped since the previous one.
func rowSet(t *testing.T, b []byte, n int) []int {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	var rows []int
	if b[0] == 1 {
		for r := range n {
			rows = append(rows, r)
		}
		return rows
	}
	b = b[1:]
	count, k := binary.Uvarint(b)
	b = b[k:]
	prev := -1
	for range count {
		gap, k := binary.Uvarint(b)
		if k <= 0 {
			t.Fatal("a row set cut short")
		}
		b = b[k:]
		r := prev + 1 + int(gap)
		rows = append(rows, r)
		prev = r
	}
	return rows
}

// unplane undoes byte planes: byte 0 of every value, then byte 1, ...
func unplane(b []byte, count, size int) []byte {
	out := make([]byte, count*size)
	for i := range size {
		for v := range count {
			if i*count+v < len(b) {
				out[v*size+i] = b[i*count+v]
			}
		}
	}
	return out
}

// num0 is num for a key that may be absent: absent is 0.
func num0(v any) int64 {
	if v == nil {
		return 0
	}
	return num(v)
}

func bin(v any) []byte {
	b, _ := v.([]byte)
	return b
}

// TestRecordingAsDocumented: a recording read as PROTOCOL.md lays it out
// (magic, header, records, index, footer) gives, applied from its first
// keyframe or from its last (a seek), the world the paused game holds.
func TestRecordingAsDocumented(t *testing.T) {
	a := churningGame(t, 300)
	ctl := dialRaw(t, a.Addr())
	if w := ctl.hello(nil); w.typ != typeWelcome {
		t.Fatalf("handshake: %v", w.body)
	}
	path := filepath.Join(t.TempDir(), "churn.ecsrec")
	started := make(chan error, 1)
	var rec *inspector.Recorder
	a.Do(func() {
		var err error
		rec, err = a.Record(path, 0)
		started <- err
	})
	must(t, <-started)
	time.Sleep(400 * time.Millisecond) // a few hundred frames of churn
	wantOK(t, "Pause", ctl.request(11, map[string]any{}))
	stopped := make(chan error, 1)
	a.Do(func() { stopped <- rec.Stop() })
	must(t, <-stopped)

	b, err := os.ReadFile(path)
	must(t, err)
	if !bytes.HasPrefix(b, []byte("ECSREC\x00\x04")) || !bytes.HasSuffix(b, []byte("ECSEND\x00\x01")) {
		t.Fatalf("magic % x, footer % x", b[:8], b[len(b)-8:])
	}
	at := binary.BigEndian.Uint64(b[len(b)-16:])
	idx := b[at:]
	if !bytes.HasPrefix(idx, []byte("ECSIDX\x00\x01")) {
		t.Fatalf("no index at %d: % x", at, idx[:8])
	}
	count := int(binary.BigEndian.Uint32(idx[8:]))
	type entry struct {
		tick, offset uint64
		key          bool
	}
	var entries []entry
	for i := range count {
		e := idx[12+17*i:]
		entries = append(entries, entry{binary.BigEndian.Uint64(e), binary.BigEndian.Uint64(e[8:]), e[16]&1 == 1})
	}
	if count < 20 || !entries[0].key {
		t.Fatalf("%d records, the first a keyframe: %v", count, count > 0 && entries[0].key)
	}
	frame := func(e entry) map[string]any {
		r := b[e.offset:]
		n := binary.BigEndian.Uint32(r)
		tick, flags := binary.BigEndian.Uint64(r[4:]), r[20]
		if tick != e.tick || (flags&1 == 1) != e.key {
			t.Fatalf("record at %d: tick %d flags %d, the index says %d %v", e.offset, tick, flags, e.tick, e.key)
		}
		var m []any
		must(t, unmarshal(r[21:4+n], &m))
		if len(m) < 2 || num0(m[0]) != typeWorld {
			t.Fatalf("record at %d is not a WorldFrame: %v", e.offset, m)
		}
		return m[1].(map[string]any)
	}
	var whole docWorld
	for _, e := range entries {
		whole.apply(t, frame(e))
	}
	whole.matchesAgent(t, ctl)
	last := 0
	for i, e := range entries {
		if e.key {
			last = i
		}
	}
	var seek docWorld
	for _, e := range entries[last:] {
		seek.apply(t, frame(e))
	}
	seek.matchesAgent(t, ctl)
	if whole.full < 1 || whole.frames-whole.full < 10 {
		t.Errorf("%d frames, %d full: want deltas to check", whole.frames, whole.full)
	}
}

// TestPageDeltasAsDocumented: page subscriptions applied as PROTOCOL.md
// says (drop rm, replace rows in place, append the rest, arrange by ord)
// while the world churns end equal to a fresh Query of the same window,
// sorted and not.
func TestPageDeltasAsDocumented(t *testing.T) {
	a := churningGame(t, 300)
	sub, ctl := dialRaw(t, a.Addr()), dialRaw(t, a.Addr())
	for _, c := range []*rawClient{sub, ctl} {
		if w := c.hello(nil); w.typ != typeWelcome {
			t.Fatalf("handshake: %v", w.body)
		}
	}
	windows := map[int]map[string]any{
		21: {"q": "Pos ?Label", "o": 5, "l": 40},
		22: {"q": "Pos HP", "s": "-Pos.X", "o": 3, "l": 25},
		23: {"q": "Pos.X>20 ?Mark", "s": "Pos.Y", "l": 30},
	}
	pages := map[int]*docPage{}
	for id, w := range windows {
		body := map[string]any{"id": id, "w": "page"}
		for k, v := range w {
			body[k] = v
		}
		sub.send(2, body)
		pages[id] = &docPage{}
	}
	frames, deltas, removed, reordered := 0, 0, 0, 0
	apply := func(m msg) {
		p := pages[int(num0(m.body["sub"]))]
		if p == nil {
			return
		}
		if m.body["full"] != true {
			deltas++
		}
		if list(m.body["rm"]) != nil {
			removed++
		}
		if list(m.body["ord"]) != nil {
			reordered++
		}
		p.apply(m.body)
		frames++
	}
	for frames < 90 {
		m := sub.recv()
		switch m.typ {
		case typePage:
			apply(m)
		case typeReply:
			if m.body["ok"] != true {
				t.Fatalf("subscribe: %v", m.body)
			}
		}
	}
	wantOK(t, "Pause", ctl.request(11, map[string]any{}))
	// While paused the agent keeps sending (empty) frames: a page is
	// settled when two frames in a row carry the same tick.
	lastTick, settled := map[int]int64{}, map[int]bool{}
	for len(settled) < len(windows) {
		m := sub.recv()
		if m.typ != typePage {
			continue
		}
		apply(m)
		id, tick := int(num0(m.body["sub"])), num0(m.body["t"])
		if lastTick[id] == tick {
			settled[id] = true
		}
		lastTick[id] = tick
	}
	if deltas < 30 || removed < 10 || reordered < 10 {
		t.Fatalf("%d frames: %d deltas, %d with rm, %d with ord; want more to check", frames, deltas, removed, reordered)
	}
	for id, w := range windows {
		q := map[string]any{}
		for k, v := range w {
			q[k] = v
		}
		fresh := ctl.request(4, q)
		if fresh.typ != typePage {
			t.Fatalf("Query %v: %v", w, fresh.body)
		}
		var want docPage
		want.apply(fresh.body)
		if got, exp := pages[id].text(), want.text(); got != exp || num0(fresh.body["tot"]) != pages[id].tot {
			t.Errorf("page %v after %d frames:\n got %d: %s\nwant %d: %s", w, frames, pages[id].tot, got, num0(fresh.body["tot"]), exp)
		}
	}
}

// docPage is a page as a client rebuilds it from its frames.
type docPage struct {
	tot, o int64
	cols   string
	rows   []map[string]any
}

func (p *docPage) apply(b map[string]any) {
	p.tot, p.o, p.cols = num0(b["tot"]), num0(b["o"]), canon(b["cols"])
	if b["full"] == true {
		p.rows = nil
		for _, r := range list(b["rows"]) {
			p.rows = append(p.rows, r.(map[string]any))
		}
		return
	}
	gone := map[int64]bool{}
	for _, e := range list(b["rm"]) {
		gone[num0(e)] = true
	}
	p.rows = slices.DeleteFunc(p.rows, func(r map[string]any) bool { return gone[num0(r["e"])] })
	for _, r := range list(b["rows"]) {
		r := r.(map[string]any)
		i := slices.IndexFunc(p.rows, func(x map[string]any) bool { return num0(x["e"]) == num0(r["e"]) })
		if i >= 0 {
			p.rows[i] = r
		} else {
			p.rows = append(p.rows, r)
		}
	}
	if ord := list(b["ord"]); ord != nil {
		at := map[int64]int{}
		for i, e := range ord {
			at[num0(e)] = i
		}
		slices.SortStableFunc(p.rows, func(x, y map[string]any) int { return at[num0(x["e"])] - at[num0(y["e"])] })
	}
}

// text is the page's window as one line: tot, offset, columns, then each
// row's entity and values.
func (p *docPage) text() string {
	parts := []string{fmt.Sprintf("o=%d cols=%s", p.o, p.cols)}
	for _, r := range p.rows {
		parts = append(parts, fmt.Sprintf("%d:%s", num0(r["e"]), canon(r["v"])))
	}
	return strings.Join(parts, " ")
}

// TestSummaryDeltasAsDocumented: a summary stream applied as PROTOCOL.md
// says (ar by id, cs appended, sections replaced when present, wp and sa
// kept when absent) while the world churns ends equal to a fresh full
// summary of the paused world.
func TestSummaryDeltasAsDocumented(t *testing.T) {
	a := churningGame(t, 300)
	c, ctl := dialRaw(t, a.Addr()), dialRaw(t, a.Addr())
	for _, x := range []*rawClient{c, ctl} {
		if w := x.hello(nil); w.typ != typeWelcome {
			t.Fatalf("handshake: %v", w.body)
		}
	}
	wantOK(t, "Watch", ctl.request(16, map[string]any{"x": "HP.HP<-100000", "log": true}))
	c.send(2, map[string]any{"id": 31, "w": "summary", "hz": 60})
	var sum map[string]any
	deltas, lastTick, settled := 0, int64(-1), false
	paused := false
	for !settled {
		m := c.recv()
		if m.typ != typeSummary || num0(m.body["sub"]) != 31 {
			continue
		}
		sum = applySummaryDoc(t, sum, m.body)
		if m.body["full"] != true {
			deltas++
		}
		if deltas == 40 && !paused {
			wantOK(t, "Pause", ctl.request(11, map[string]any{}))
			paused = true
		}
		tick := num0(m.body["t"])
		settled = paused && tick == lastTick
		lastTick = tick
	}
	c.send(2, map[string]any{"id": 32, "w": "summary"})
	var fresh map[string]any
	for fresh == nil {
		if m := c.recv(); m.typ == typeSummary && num0(m.body["sub"]) == 32 {
			fresh = m.body
		}
	}
	if fresh["full"] != true || sum["sa"] == nil || len(list(sum["wp"])) != 1 {
		t.Fatalf("want a full fresh summary, a stale audit and a watchpoint: full %v, sa %v, wp %v", fresh["full"], sum["sa"], sum["wp"])
	}
	for _, k := range []string{"t", "ne", "pz", "st", "cs", "sy", "ev", "rs", "rc", "sa", "wp", "fr"} {
		got, want := canon(sum[k]), canon(fresh[k])
		if k == "sy" { // timings move while paused: compare the systems' names and their runs
			got, want = names(sum[k])+runs(sum[k]), names(fresh[k])+runs(fresh[k])
		}
		if got != want {
			t.Errorf("%s: the deltas give %s, a fresh summary %s", k, got, want)
		}
	}
	arch := func(s map[string]any) string {
		var parts []string
		for _, a := range list(s["ar"]) {
			parts = append(parts, canon(a))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	}
	if arch(sum) != arch(fresh) {
		t.Errorf("ar: the deltas give %s, a fresh summary %s", arch(sum), arch(fresh))
	}
}

// applySummaryDoc applies a Summary frame to the summary rebuilt so far.
func applySummaryDoc(t *testing.T, base, f map[string]any) map[string]any {
	t.Helper()
	if f["full"] == true {
		return f
	}
	if base == nil {
		t.Fatal("a summary delta before a full one")
	}
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for _, k := range []string{"t", "ft", "ne", "pz", "st", "ag"} { // this frame's, absent is zero
		out[k] = f[k]
	}
	ar := slices.Clone(list(base["ar"]))
	for _, a := range list(f["ar"]) {
		i := slices.IndexFunc(ar, func(x any) bool { return num0(x.(map[string]any)["id"]) == num0(a.(map[string]any)["id"]) })
		if i >= 0 {
			ar[i] = a
		} else {
			ar = append(ar, a)
		}
	}
	out["ar"] = ar
	out["cs"] = append(slices.Clone(list(base["cs"])), list(f["cs"])...)
	for _, k := range []string{"sy", "ev", "rs", "rc", "sa", "wp", "fr"} { // replaced when present
		if v, ok := f[k]; ok && v != nil {
			out[k] = v
		}
	}
	last120 := func(l []any) []any { return l[max(len(l)-120, 0):] }
	if tails, ok := f["syt"]; ok && tails != nil { // systems slid on: each tail's runs appended
		sy := list(base["sy"])
		if len(list(tails)) != len(sy) {
			t.Fatalf("%d system tails for %d systems", len(list(tails)), len(sy))
		}
		var next []any
		for i, tl := range list(tails) {
			was, now := sy[i].(map[string]any), map[string]any{}
			for k, v := range tl.(map[string]any) {
				now[k] = v
			}
			if now["n"] != was["n"] {
				t.Fatalf("system tail %d is %v, the system there %v", i, now["n"], was["n"])
			}
			for _, k := range []string{"st", "r", "w"} {
				if v, ok := was[k]; ok {
					now[k] = v
				}
			}
			now["rec"] = last120(append(slices.Clone(list(was["rec"])), list(now["rec"])...))
			next = append(next, now)
		}
		out["sy"] = next
	}
	if tail, ok := f["frt"]; ok && tail != nil {
		out["fr"] = last120(append(slices.Clone(list(base["fr"])), list(tail)...))
	}
	return out
}

// runs lists the "rec" of each map in a list.
func runs(v any) string {
	var out []string
	for _, x := range list(v) {
		out = append(out, canon(x.(map[string]any)["rec"]))
	}
	return strings.Join(out, " ")
}

// names lists the "n" of each map in a list.
func names(v any) string {
	var out []string
	for _, x := range list(v) {
		out = append(out, str(x.(map[string]any)["n"]))
	}
	return strings.Join(out, " ")
}

// TestSnapshotAsDocumented: a Snapshot of the paused world read as
// PROTOCOL.md says (an entity's components: its archetype table's and the
// sparse tables it is in; rows adding up to st.a) is what GetEntity says
// of each entity.
func TestSnapshotAsDocumented(t *testing.T) {
	a := churningGame(t, 300)
	c := dialRaw(t, a.Addr())
	if w := c.hello(nil); w.typ != typeWelcome {
		t.Fatalf("handshake: %v", w.body)
	}
	wantOK(t, "Pause", c.request(11, map[string]any{}))
	time.Sleep(50 * time.Millisecond) // the pause reaches the game
	s := c.request(14, map[string]any{})
	if s.typ != typeSnapshot {
		t.Fatalf("SnapshotRequest: %v", s.body)
	}
	names := map[int64]string{}
	for _, x := range list(s.body["cs"]) {
		names[num0(x.(map[string]any)["id"])] = str(x.(map[string]any)["s"])
	}
	world := map[uint64]map[string]string{}
	rows := 0
	read := func(tables []any, sparse bool) {
		for _, x := range tables {
			tb := x.(map[string]any)
			cols, vals := list(tb["c"]), list(tb["v"])
			for r, e := range list(tb["e"]) {
				h := uint64(num0(e))
				if !sparse {
					rows++
					if world[h] != nil {
						t.Errorf("entity %d is in two archetype tables", h)
					}
					world[h] = map[string]string{}
				}
				if world[h] == nil {
					t.Errorf("entity %d has a sparse component and no archetype", h)
					continue
				}
				for i, cid := range cols {
					world[h][names[num0(cid)]] = canon(list(vals[i])[r])
				}
			}
		}
	}
	read(list(s.body["tb"]), false)
	read(list(s.body["sp"]), true)
	st := s.body["st"].(map[string]any)
	if rows != int(num0(st["a"])) || rows < 200 {
		t.Errorf("the archetype tables hold %d rows, st.a says %d", rows, num0(st["a"]))
	}
	checked := 0
	for h, comps := range world {
		d := c.request(5, map[string]any{"e": h})
		if d.typ != typeDetail {
			t.Fatalf("GetEntity %d: %v", h, d.body)
		}
		for _, cv := range list(d.body["cs"]) {
			cv := cv.(map[string]any)
			if got, want := comps[str(cv["c"])], canon(cv["v"]); got != want {
				t.Errorf("%s of %d: the snapshot says %q, GetEntity %q", str(cv["c"]), h, got, want)
			}
			delete(comps, str(cv["c"]))
			checked++
		}
		if len(comps) > 0 {
			t.Errorf("entity %d: the snapshot holds components GetEntity does not: %v", h, comps)
		}
	}
	if checked < 400 {
		t.Errorf("%d components compared", checked)
	}
}

// decompressBody decodes a world frame's z as PROTOCOL.md says: an S2
// stream, or a zstd frame, told apart by their first bytes.
func decompressBody(t *testing.T, z []byte) []byte {
	t.Helper()
	if bytes.HasPrefix(z, []byte("\xff\x06\x00\x00S2sTwO")) {
		raw, err := io.ReadAll(s2.NewReader(bytes.NewReader(z)))
		must(t, err)
		return raw
	}
	dec, err := zstd.NewReader(nil)
	must(t, err)
	defer dec.Close()
	raw, err := dec.DecodeAll(z, nil)
	must(t, err)
	return raw
}

// unpackLanes reads lanes packed by length, as the document says: a
// length code per lane (2 bits for lanes of 4: 0, 1, 2 or 4 bytes; 4 bits
// for lanes of 8: 0 to 8), the first lane in a control byte's low bits;
// then plane k, byte k of every lane longer than k. The lanes come back
// in order, lane bytes each, little-endian, their missing bytes zero.
func unpackLanes(t *testing.T, b []byte, lanes, lane int) []byte {
	t.Helper()
	bitsPer := map[int]int{4: 2, 8: 4}[lane]
	ctrl := (lanes*bitsPer + 7) / 8
	if len(b) < ctrl {
		t.Fatalf("packed lanes: %d bytes for the lengths of %d lanes", len(b), lanes)
	}
	lens := make([]int, lanes)
	for i := range lanes {
		bit := i * bitsPer
		code := int(b[bit/8]>>(bit%8)) & (1<<bitsPer - 1)
		if lane == 4 {
			code = []int{0, 1, 2, 4}[code]
		}
		lens[i] = code
	}
	out := make([]byte, lanes*lane)
	at := ctrl
	for k := range lane {
		for i := range lanes {
			if lens[i] > k {
				out[i*lane+k] = b[at]
				at++
			}
		}
	}
	if at != len(b) {
		t.Fatalf("packed lanes: %d bytes, the lengths say %d", len(b), at)
	}
	return out
}

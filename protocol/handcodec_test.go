package protocol

import (
	"bytes"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// plainPage has Page's fields and tags but none of its hand-written codec:
// what the generic encoder makes of the tags.
type plainPage struct {
	Sub     uint32     `msgpack:"sub"`
	Tick    uint64     `msgpack:"t"`
	Full    bool       `msgpack:"full,omitempty"`
	Total   int        `msgpack:"tot"`
	Offset  int        `msgpack:"o"`
	Columns []uint16   `msgpack:"cols"`
	Rows    []Row      `msgpack:"rows,omitempty"`
	Removed []EntityID `msgpack:"rm,omitempty"`
	Order   []EntityID `msgpack:"ord,omitempty"`
}

// TestHandPageCodecMatchesTags encodes random pages by hand and through
// the generic encoder of a struct with Page's tags: the bytes must be the
// same, and the hand decoder must read back every field. A field added to
// Page and forgotten by the hand codec fails here (plainPage must be kept
// in step: the reflect check below says so).
func TestHandPageCodecMatchesTags(t *testing.T) {
	if a, b := fieldsOf(Page{}), fieldsOf(plainPage{}); a != b {
		t.Fatalf("plainPage is out of step with Page:\n%s\n%s", a, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ents := func() []EntityID {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := make([]EntityID, 1+rng.IntN(4))
		for i := range out {
			out[i] = MakeEntityID(rng.Uint32(), rng.Uint32()%5)
		}
		return out
	}
	for range 500 {
		p := Page{Sub: rng.Uint32(), Tick: rng.Uint64() >> rng.IntN(64), Full: rng.IntN(2) == 0, Total: rng.IntN(1 << 20), Offset: rng.IntN(100),
			Columns: []uint16{uint16(rng.IntN(300))}, Removed: ents(), Order: ents()}
		for range rng.IntN(3) {
			p.Rows = append(p.Rows, Row{Entity: MakeEntityID(rng.Uint32(), 1), Values: []Value{FloatValue(rng.Float64())}})
		}
		hand, err := Encode(&p)
		if err != nil {
			t.Fatal(err)
		}
		plain := plainPage(p)
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.UseCompactInts(true)
		if err := enc.EncodeArrayLen(2); err != nil {
			t.Fatal(err)
		}
		if err := enc.EncodeUint(uint64(TypePage)); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(&plain); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hand, buf.Bytes()) {
			t.Fatalf("hand encoder differs from the tags:\n hand %x\ntags %x", hand, buf.Bytes())
		}
		m, err := Decode(hand)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMessage(m, &p) {
			t.Fatalf("hand decoder lost something:\n got %+v\nwant %+v", m, &p)
		}
	}
}

func fieldsOf(v any) string {
	var b bytes.Buffer
	rt := reflectType(v)
	for i := range rt.NumField() {
		f := rt.Field(i)
		b.WriteString(f.Name + " " + f.Type.String() + " " + string(f.Tag) + "\n")
	}
	return b.String()
}

func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }

// plainTable and plainSnapshot have Table's and Snapshot's fields and
// tags, none of their hand-written codecs.
type plainTable struct {
	Components []uint16   `msgpack:"c"`
	Entities   []EntityID `msgpack:"e"`
	Columns    [][]Value  `msgpack:"v"`
}

type plainSnapshot struct {
	ID         uint32       `msgpack:"id"`
	Tick       uint64       `msgpack:"t"`
	Game       string       `msgpack:"g,omitempty"`
	Stats      Stats        `msgpack:"st"`
	Components []Component  `msgpack:"cs"`
	Tables     []plainTable `msgpack:"tb"`
	Sparse     []plainTable `msgpack:"sp,omitempty"`
	Resources  []Resource   `msgpack:"rs,omitempty"`
}

// TestHandTableCodecMatchesTags: the hand-written Table encoder writes
// what the generic encoder writes for the tags, and the hand decoder of a
// Snapshot (tables and sparse tables by hand, the rest generic) reads back
// every field of random snapshots.
func TestHandTableCodecMatchesTags(t *testing.T) {
	for _, pair := range [][2]any{{Table{}, plainTable{}}} {
		a, b := fieldsOf(pair[0]), fieldsOf(pair[1])
		if strings.ReplaceAll(a, "plainTable", "Table") != strings.ReplaceAll(b, "plainTable", "Table") {
			t.Fatalf("plainTable is out of step with Table:\n%s\n%s", a, b)
		}
	}
	snapFields := func(v any) string {
		return strings.NewReplacer("[]protocol.plainTable", "[]protocol.Table").Replace(fieldsOf(v))
	}
	if snapFields(Snapshot{}) != snapFields(plainSnapshot{}) {
		t.Fatalf("plainSnapshot is out of step with Snapshot:\n%s\n%s", snapFields(Snapshot{}), snapFields(plainSnapshot{}))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	table := func() Table {
		n := rng.IntN(4)
		tb := Table{Components: []uint16{uint16(rng.IntN(300)), 7}, Entities: make([]EntityID, n), Columns: [][]Value{make([]Value, n), make([]Value, n)}}
		for i := range n {
			tb.Entities[i] = MakeEntityID(rng.Uint32(), rng.Uint32()%9)
			tb.Columns[0][i] = IntValue(rng.Int64() >> rng.IntN(63))
			tb.Columns[1][i] = MapValue(Field{Name: "X", Value: FloatValue(rng.Float64())}, Field{Name: "S", Value: StringValue("é")})
		}
		return tb
	}
	for range 300 {
		tb := table()
		hand, err := msgpack.Marshal(&tb)
		if err != nil {
			t.Fatal(err)
		}
		plain := plainTable(tb)
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.UseCompactInts(true)
		if err := enc.Encode(&plain); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hand, buf.Bytes()) {
			t.Fatalf("hand table encoder differs from the tags:\n hand %x\ntags %x", hand, buf.Bytes())
		}
		s := Snapshot{ID: rng.Uint32(), Tick: rng.Uint64() >> 1, Game: "g", Stats: Stats{Alive: rng.IntN(99)}, Components: []Component{{ID: 7, Short: "P"}},
			Tables: []Table{tb, table()}, Resources: []Resource{{Name: "R", Value: IntValue(3)}}}
		if rng.IntN(2) == 0 {
			s.Sparse = []Table{table()}
		}
		b, err := Encode(&s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMessage(m, &s) {
			t.Fatalf("the snapshot decoder lost something:\n got %+v\nwant %+v", m, &s)
		}
	}
}

// TestHandSummaryDecoderMatchesTags: a Summary message, read by hand (its
// systems and frames are the bulk of what a UI reads ten times a second),
// comes back as the generic decoder reads it, every field of System,
// SkipReason and FrameStat included; every one of their keys is one the
// hand decoder reads.
func TestHandSummaryDecoderMatchesTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		s := &Summary{Sub: rng.Uint32(), Tick: rng.Uint64() >> rng.IntN(64), FrameNs: rng.Int64N(1 << 40), Entities: rng.IntN(1 << 20)}
		for i := range rng.IntN(4) {
			sys := System{Name: strings.Repeat("s", i+1), Stage: "late", Reads: []string{"Position"}, Writes: []string{"Velocity", "Grid"},
				Last: rng.Int64N(1 << 30), Mean: rng.Int64N(1 << 30), Max: rng.Int64N(1 << 40), Count: rng.Uint64(),
				Skipped: uint64(rng.IntN(5)), AllocBytes: rng.Float64() * 1e6, AllocObjects: rng.Float64() * 100, AllocRuns: rng.IntN(60), AllocShared: rng.IntN(60)}
			for range rng.IntN(5) {
				sys.Recent = append(sys.Recent, rng.Int64N(1<<32))
			}
			for range rng.IntN(3) {
				sys.SkippedWhy = append(sys.SkippedWhy, SkipReason{Tick: rng.Uint64() >> 8, Why: "entity gone"})
			}
			s.Systems = append(s.Systems, sys)
		}
		for range rng.IntN(5) {
			s.Frames = append(s.Frames, FrameStat{Tick: rng.Uint64() >> 4, Ns: rng.Int64N(1 << 30), Work: rng.Int64N(1 << 30), GC: rng.IntN(3), GCPauseNs: rng.Int64N(1 << 20), Entities: rng.IntN(1 << 20)})
		}
		b, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		var generic Summary
		if err := msgpack.Unmarshal(b[2:], &generic); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, &generic) || !reflect.DeepEqual(m, s) {
			t.Fatalf("by hand:\n%+v\ngeneric:\n%+v\nsent:\n%+v", m, &generic, s)
		}
	}
	src, err := os.ReadFile("worlddecode.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[System](), reflect.TypeFor[SkipReason](), reflect.TypeFor[FrameStat]()} {
		for f := range typ.Fields() {
			key := strings.Split(f.Tag.Get("msgpack"), ",")[0]
			if !strings.Contains(string(src), "case \""+key+"\":") {
				t.Errorf("%s.%s (key %q) is not read by the hand decoder", typ.Name(), f.Name, key)
			}
		}
	}
}

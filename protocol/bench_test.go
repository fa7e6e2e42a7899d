package protocol

import (
	"fmt"
	"math"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// Benchmarks of the codec on the messages that carry the most: pages and
// snapshots. Each compares against a hand-written msgpack encoder of the
// same data in the same run (AppendBaseline*), the floor a generic encoder
// is measured against.

// sampleRow is an entity with Position{X,Y}, Velocity{X,Y} and Health{HP}.
func sampleRow(i int) Row {
	return Row{Entity: MakeEntityID(uint32(i), 1), Values: []Value{
		MapValue(Field{"X", FloatValue(float64(i))}, Field{"Y", FloatValue(2)}),
		MapValue(Field{"X", FloatValue(0.5)}, Field{"Y", FloatValue(-1)}),
		MapValue(Field{"HP", IntValue(int64(i%100 - 50))}),
	}}
}

func samplePage(n int) *Page {
	p := &Page{Sub: 1, Tick: 40000, Full: true, Total: n, Columns: []uint16{1, 2, 3}}
	for i := range n {
		p.Rows = append(p.Rows, sampleRow(i))
	}
	return p
}

// appendBaselinePage writes a whole Page message ([type, body], every key
// the page has) the way a hand-written encoder for this one message would:
// what the generic path is measured against. Its output decodes to the
// same page (checked before the benchmark loop).
func appendBaselinePage(b []byte, p *Page) []byte {
	b = append(b, 0x92)
	b = msgpackInt(b, int64(TypePage))
	keys := 6 // sub t full tot o cols, then rows
	if len(p.Rows) > 0 {
		keys++
	}
	b = append(b, 0x80|byte(keys))
	b = msgpackStr(b, "sub")
	b = msgpackInt(b, int64(p.Sub))
	b = msgpackStr(b, "t")
	b = msgpackInt(b, int64(p.Tick))
	b = msgpackStr(b, "full")
	if p.Full {
		b = append(b, 0xc3)
	} else {
		b = append(b, 0xc2)
	}
	b = msgpackStr(b, "tot")
	b = msgpackInt(b, int64(p.Total))
	b = msgpackStr(b, "o")
	b = msgpackInt(b, int64(p.Offset))
	b = msgpackStr(b, "cols")
	b = msgpackArray(b, len(p.Columns))
	for _, c := range p.Columns {
		b = msgpackInt(b, int64(c))
	}
	if len(p.Rows) > 0 {
		b = msgpackStr(b, "rows")
		b = msgpackArray(b, len(p.Rows))
		for i := range p.Rows {
			b = append(b, 0x82)
			b = msgpackStr(b, "e")
			b = msgpackInt(b, int64(p.Rows[i].Entity))
			b = msgpackStr(b, "v")
			b = msgpackArray(b, len(p.Rows[i].Values))
			for _, v := range p.Rows[i].Values {
				b = msgpackValue(b, v)
			}
		}
	}
	return b
}

func msgpackArray(b []byte, n int) []byte {
	if n < 16 {
		return append(b, 0x90|byte(n))
	}
	return append(b, 0xdd, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func msgpackStr(b []byte, s string) []byte { return append(append(b, 0xa0|byte(len(s))), s...) }

// msgpackInt writes an integer, negative ones too, in 1 or 9 bytes.
func msgpackInt(b []byte, i int64) []byte {
	switch {
	case i >= 0 && i < 128:
		return append(b, byte(i))
	case i < 0 && i >= -32:
		return append(b, byte(i))
	case i < 0:
		u := uint64(i)
		return append(b, 0xd3, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	}
	u := uint64(i)
	return append(b, 0xcf, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

func msgpackValue(b []byte, v Value) []byte {
	switch v.Kind() {
	case KindFloat:
		u := v.bits
		return append(b, 0xcb, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	case KindInt:
		return msgpackInt(b, v.Int())
	case KindMap:
		b = append(b, 0x80|byte(v.Len()))
		for i := range v.Len() {
			k, e := v.Entry(i)
			b = msgpackStr(b, k)
			b = msgpackValue(b, e)
		}
		return b
	}
	return append(b, 0xc0)
}

// checkBaselinePage fails the benchmark unless the baseline's bytes decode
// to the page the subject encodes.
func checkBaselinePage(b *testing.B, p *Page) {
	got, err := Decode(appendBaselinePage(nil, p))
	if err != nil {
		b.Fatalf("the baseline's page does not decode: %v", err)
	}
	if !sameMessage(got, p) {
		b.Fatalf("the baseline encodes another page:\n%+v", got)
	}
}

func report(b *testing.B, n, bytes int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
	b.ReportMetric(float64(bytes)/float64(n), "bytes/entity")
}

func BenchmarkEncodePage(b *testing.B) {
	p := samplePage(1000)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendEncode(buf[:0], p)
	}
	report(b, 1000, len(buf))
}

func BenchmarkEncodePageBaseline(b *testing.B) {
	p := samplePage(1000)
	checkBaselinePage(b, p)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendBaselinePage(buf[:0], p)
	}
	report(b, 1000, len(buf))
}

func BenchmarkDecodePage(b *testing.B) {
	buf, _ := Encode(samplePage(1000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
	report(b, 1000, len(buf))
}

// BenchmarkDecodePageBaseline decodes the same bytes with msgpack's own
// generic decoder into the same structure, without our checks.
func BenchmarkDecodePageBaseline(b *testing.B) {
	buf, _ := Encode(samplePage(1000))
	b.ReportAllocs()
	for b.Loop() {
		var parts []msgpack.RawMessage
		if err := msgpack.Unmarshal(buf, &parts); err != nil {
			b.Fatal(err)
		}
		var p Page
		if err := msgpack.Unmarshal(parts[1], &p); err != nil {
			b.Fatal(err)
		}
	}
	report(b, 1000, len(buf))
}

func sampleSnapshot(n int) *Snapshot {
	t := Table{Components: []uint16{1, 2, 3}, Columns: make([][]Value, 3)}
	for i := range n {
		r := sampleRow(i)
		t.Entities = append(t.Entities, r.Entity)
		for c := range 3 {
			t.Columns[c] = append(t.Columns[c], r.Values[c])
		}
	}
	return &Snapshot{Tick: 1, Game: "bench", Tables: []Table{t}}
}

func BenchmarkEncodeSnapshot(b *testing.B) {
	const n = 100_000
	s := sampleSnapshot(n)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendEncode(buf[:0], s)
	}
	report(b, n, len(buf))
}

// appendBaselineSnapshot writes a whole Snapshot message by hand, for the
// fields sampleSnapshot sets (id, t, g, st, cs, one table).
func appendBaselineSnapshot(buf []byte, s *Snapshot) []byte {
	buf = append(buf, 0x92)
	buf = msgpackInt(buf, int64(TypeSnapshot))
	buf = append(buf, 0x86)
	buf = msgpackStr(buf, "id")
	buf = msgpackInt(buf, int64(s.ID))
	buf = msgpackStr(buf, "t")
	buf = msgpackInt(buf, int64(s.Tick))
	buf = msgpackStr(buf, "g")
	buf = msgpackStr(buf, s.Game)
	buf = msgpackStr(buf, "st")
	buf = append(buf, 0x84)
	for _, kv := range []struct {
		k string
		v int
	}{{"a", s.Stats.Alive}, {"f", s.Stats.Free}, {"r", s.Stats.Retired}, {"s", s.Stats.Slots}} {
		buf = msgpackStr(buf, kv.k)
		buf = msgpackInt(buf, int64(kv.v))
	}
	buf = msgpackStr(buf, "cs")
	buf = append(buf, 0xc0) // none
	buf = msgpackStr(buf, "tb")
	buf = msgpackArray(buf, len(s.Tables))
	for i := range s.Tables {
		t := &s.Tables[i]
		buf = append(buf, 0x83)
		buf = msgpackStr(buf, "c")
		buf = msgpackArray(buf, len(t.Components))
		for _, c := range t.Components {
			buf = msgpackInt(buf, int64(c))
		}
		buf = msgpackStr(buf, "e")
		buf = msgpackArray(buf, len(t.Entities))
		for _, e := range t.Entities {
			buf = msgpackInt(buf, int64(e))
		}
		buf = msgpackStr(buf, "v")
		buf = msgpackArray(buf, len(t.Columns))
		for _, col := range t.Columns {
			buf = msgpackArray(buf, len(col))
			for _, v := range col {
				buf = msgpackValue(buf, v)
			}
		}
	}
	return buf
}

func BenchmarkEncodeSnapshotBaseline(b *testing.B) {
	const n = 100_000
	s := sampleSnapshot(n)
	got, err := Decode(appendBaselineSnapshot(nil, s))
	if err != nil || !sameMessage(got, s) {
		b.Fatalf("the baseline encodes another snapshot: %v", err)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendBaselineSnapshot(buf[:0], s)
	}
	report(b, n, len(buf))
}

func Example() {
	b, _ := Encode(&Pause{ID: 7})
	fmt.Printf("% x\n", AppendFrame(nil, b))
	m, _ := Decode(b)
	fmt.Printf("%T %d\n", m, m.(Request).RequestID())
	// Output:
	// 00 00 00 07 92 0b 81 a2 69 64 07
	// *protocol.Pause 7
}

// typedRow is what a hand-written decoder that knows the game's types
// would produce: no dynamic values.
type typedRow struct {
	e      EntityID
	px, py float64
	vx, vy float64
	hp     int64
}

// decodeTypedRows is the hand-written baseline decoder for the same bytes:
// it knows the shape, so it allocates only the result.
func decodeTypedRows(b []byte) ([]typedRow, error) {
	r := &reader{b: b, pos: 2}
	var rows []typedRow
	for range r.containerLen(true) {
		if r.key() != "rows" {
			r.skipRaw()
			continue
		}
		rows = make([]typedRow, r.list())
		for i := range rows {
			row := &rows[i]
			for range r.containerLen(true) {
				switch r.key() {
				case "e":
					row.e = EntityID(r.uint())
				case "v":
					r.list()
					for range r.containerLen(true) {
						switch r.key() {
						case "X":
							row.px = math.Float64frombits(r.be(9) & 0xffffffffffffffff)
						default:
							row.py = math.Float64frombits(r.be(9))
						}
					}
					for range r.containerLen(true) {
						if r.key() == "X" {
							row.vx = math.Float64frombits(r.be(9))
						} else {
							row.vy = math.Float64frombits(r.be(9))
						}
					}
					for range r.containerLen(true) {
						r.key()
						row.hp = r.value(0).Int() // a small int, negative ones too

					}
				}
			}
		}
	}
	return rows, r.err
}

func BenchmarkDecodePageTypedBaseline(b *testing.B) {
	buf, _ := Encode(samplePage(1000))
	if rows, err := decodeTypedRows(buf); err != nil || len(rows) != 1000 || rows[999].hp != 49 || rows[10].hp != -40 {
		b.Fatalf("baseline decoder is wrong: %v %d", err, len(rows))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeTypedRows(buf); err != nil {
			b.Fatal(err)
		}
	}
	report(b, 1000, len(buf))
}

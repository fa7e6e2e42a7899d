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
		MapValue(Field{"HP", IntValue(int64(i % 100))}),
	}}
}

func samplePage(n int) *Page {
	p := &Page{Sub: 1, Tick: 40000, Full: true, Total: n, Columns: []uint16{1, 2, 3}}
	for i := range n {
		p.Rows = append(p.Rows, sampleRow(i))
	}
	return p
}

// appendBaselineRows writes the rows the way a hand-written encoder would.
func appendBaselineRows(b []byte, rows []Row) []byte {
	b = msgpackArray(b, len(rows))
	for i := range rows {
		b = append(b, 0x82, 0xa1, 'e')
		b = msgpackUint(b, uint64(rows[i].Entity))
		b = append(b, 0xa1, 'v')
		b = msgpackArray(b, len(rows[i].Values))
		for _, v := range rows[i].Values {
			b = msgpackValue(b, v)
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

func msgpackUint(b []byte, u uint64) []byte {
	if u < 128 {
		return append(b, byte(u))
	}
	return append(b, 0xcf, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

func msgpackValue(b []byte, v Value) []byte {
	switch v.Kind() {
	case KindFloat:
		u := v.bits
		return append(b, 0xcb, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	case KindInt:
		return msgpackUint(b, uint64(v.Int()))
	case KindMap:
		b = append(b, 0x80|byte(v.Len()))
		for i := range v.Len() {
			k, e := v.Entry(i)
			b = append(b, 0xa0|byte(len(k)))
			b = append(b, k...)
			b = msgpackValue(b, e)
		}
		return b
	}
	return append(b, 0xc0)
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
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendBaselineRows(buf[:0], p.Rows)
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

func BenchmarkEncodeSnapshotBaseline(b *testing.B) {
	const n = 100_000
	s := sampleSnapshot(n)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		t := &s.Tables[0]
		buf = msgpackArray(buf, len(t.Entities))
		for _, e := range t.Entities {
			buf = msgpackUint(buf, uint64(e))
		}
		for _, col := range t.Columns {
			buf = msgpackArray(buf, len(col))
			for _, v := range col {
				buf = msgpackValue(buf, v)
			}
		}
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
						row.hp = int64(r.uint())
					}
				}
			}
		}
	}
	return rows, r.err
}

func BenchmarkDecodePageTypedBaseline(b *testing.B) {
	buf, _ := Encode(samplePage(1000))
	if rows, err := decodeTypedRows(buf); err != nil || len(rows) != 1000 || rows[999].hp != 99 {
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

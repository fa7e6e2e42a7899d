package recording

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/vmihailenco/msgpack/v5"
)

// worldSchemas is a tiny world's schema: Pos{X, Y float32} and a sparse
// Note{S string} (sent as values).
func worldSchemas() []protocol.Component {
	return []protocol.Component{
		{ID: 1, Short: "Pos", Size: 8, Storage: "table", Fields: []protocol.FieldSchema{{Name: "X", Kind: "float", Type: "float32", Size: 4}, {Name: "Y", Kind: "float", Type: "float32", Offset: 4, Size: 4}}},
		{ID: 2, Short: "Note", Size: 16, Storage: "sparse", Fields: []protocol.FieldSchema{{Name: "S", Kind: "string", Type: "string", Size: 16}}},
	}
}

func posBytes(xy ...float32) []byte {
	b := make([]byte, 4*len(xy))
	for i, f := range xy {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// worldInputs is a keyframe and two deltas of the tiny world.
func worldInputs() []*WorldInput {
	sumAt := func(frame int64) *protocol.Summary { // the clock changes: the deltas carry its numbers
		return &protocol.Summary{Full: true, Components: worldSchemas(), Resources: []protocol.Resource{{Name: "Clock", Value: protocol.MapValue(protocol.Field{Name: "Frame", Value: protocol.IntValue(frame)})}}}
	}
	sum := sumAt(7)
	e1, e2, e3 := protocol.MakeEntityID(1, 1), protocol.MakeEntityID(2, 1), protocol.MakeEntityID(3, 1)
	return []*WorldInput{
		{Tick: 10, Full: true, Summary: sum, Tables: []TableChange{
			{Archetype: 1, Components: []uint16{1}, Len: 2, Entities: []protocol.EntityID{e1, e2}, All: true,
				Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{0, 1}, Raw: posBytes(1, 2, 3, 4)}}},
			{Archetype: 2, Sparse: true, Components: []uint16{2}, Len: 1, Entities: []protocol.EntityID{e2}, All: true,
				Columns: []ColumnChange{{Kind: protocol.ColumnValues, Values: []protocol.Value{protocol.MapValue(protocol.Field{Name: "S", Value: protocol.StringValue("hi")})}}}},
		}},
		{Tick: 11, Summary: sumAt(8), Tables: []TableChange{
			{Archetype: 1, Components: []uint16{1}, Len: 2, Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{1}, Raw: posBytes(3, 5)}}},
		}},
		{Tick: 12, Summary: sumAt(9), Tables: []TableChange{
			{Archetype: 1, Components: []uint16{1}, Len: 2, Entities: []protocol.EntityID{e1, e3}, All: true,
				Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{1}, Added: []int32{1}, Raw: posBytes(1, 2, 9, 9)}}},
		}},
	}
}

func encodeAll(t testing.TB) []*protocol.WorldFrame {
	enc := NewWorldEncoder()
	var out []*protocol.WorldFrame
	for _, in := range worldInputs() {
		f, err := enc.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := protocol.Encode(f) // and through the wire codec
		if err != nil {
			t.Fatal(err)
		}
		m, err := protocol.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.(*protocol.WorldFrame))
	}
	return out
}

func TestWorldFramesRebuildTheWorld(t *testing.T) {
	st := NewWorldState()
	frames := encodeAll(t)
	for _, f := range frames {
		if err := st.Apply(f); err != nil {
			t.Fatalf("tick %d: %v", f.Tick, err)
		}
	}
	e1, e2, e3 := protocol.MakeEntityID(1, 1), protocol.MakeEntityID(2, 1), protocol.MakeEntityID(3, 1)
	if !st.Alive(e1) || st.Alive(e2) || !st.Alive(e3) || st.Entities() != 2 {
		t.Fatalf("alive: %v %v %v, %d entities", st.Alive(e1), st.Alive(e2), st.Alive(e3), st.Entities())
	}
	d := st.Detail(e3)
	if d.Row != 1 || len(d.Components) != 1 || d.Components[0].Value.String() != "{X:9 Y:9}" {
		t.Fatalf("e3 = %+v", d)
	}
	if d := st.Detail(e2); d.Alive || d.Reason == "" {
		t.Fatalf("e2 should be gone with a reason: %+v", d)
	}
	p, err := st.Query("added(Pos)", 0, 0, 10)
	if err != nil || p.Total != 1 || p.Rows[0].Entity != e3 {
		t.Fatalf("added(Pos) = %+v, %v", p, err)
	}
	// A delta out of sequence is refused, and changes nothing.
	if err := st.Apply(frames[1]); err != ErrNeedKeyframe || st.Tick != 12 {
		t.Fatalf("out-of-order delta: %v, tick %d", err, st.Tick)
	}
}

// FuzzWorldFrame feeds a state arbitrary frame bodies, compressed and not:
// an error is fine, a panic or a changed state after an error is not.
func FuzzWorldFrame(f *testing.F) {
	frames := encodeAll(f)
	for _, fr := range frames {
		raw, err := protocol.Decompress(fr.Body, protocol.MaxWorldBody)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, fr.Full)
	}
	bomb := []byte{0x81, 0xa2, 't', 'b', 0xdd, 0, 0x10, 0, 0} // a million one-byte tables
	f.Add(append(bomb, bytes.Repeat([]byte{0x80}, 1<<20)...), true)
	f.Fuzz(func(t *testing.T, body []byte, full bool) {
		st := NewWorldState()
		if err := st.Apply(frames[0]); err != nil {
			t.Fatal(err)
		}
		before, clock := st.Entities(), st.Summary.Resources[0].Value.String()
		for _, b := range [][]byte{zstdEncoder().EncodeAll(body, nil), body} {
			fr := &protocol.WorldFrame{Tick: 99, Full: full, Seq: 1, Body: b}
			if err := st.Apply(fr); err != nil {
				if st.Tick != 10 || st.Entities() != before || st.Summary.Resources[0].Value.String() != clock {
					t.Fatalf("a refused frame changed the state: tick %d, %d entities, clock %v", st.Tick, st.Entities(), st.Summary.Resources[0].Value)
				}
				continue
			}
			// Whatever was applied must be readable.
			for _, tb := range st.Tables {
				for _, e := range tb.Entities {
					_ = st.Detail(e)
				}
			}
			_, _ = st.Query("Pos.X>0 changed(Pos)", 0, 0, 10) // an error is fine: the schema may be gone
			return
		}
	})
}

func TestDiffSaysWhatChanged(t *testing.T) {
	frames := encodeAll(t)
	a, b := NewWorldState(), NewWorldState()
	if err := a.Apply(frames[0]); err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := b.Apply(f); err != nil {
			t.Fatal(err)
		}
	}
	d := Diff(a, b)
	e2, e3 := protocol.MakeEntityID(2, 1), protocol.MakeEntityID(3, 1)
	if d.From != 10 || d.To != 12 || len(d.Spawned) != 1 || d.Spawned[0] != e3 || len(d.Despawned) != 1 || d.Despawned[0] != e2 {
		t.Fatalf("diff = %+v", d)
	}
	if len(d.Changed) != 0 { // e1 kept {1 2}
		t.Fatalf("changed = %+v", d.Changed)
	}
	// A value written: e2's Pos went {3 4} -> {3 5} between ticks 10 and 11.
	c := NewWorldState()
	for _, f := range frames[:2] {
		if err := c.Apply(f); err != nil {
			t.Fatal(err)
		}
	}
	d = Diff(a, c)
	if len(d.Changed) != 1 || d.Changed[0].Entity != e2 || len(d.Changed[0].Components[0].Fields) != 1 {
		t.Fatalf("changed = %+v", d.Changed)
	}
	f := d.Changed[0].Components[0].Fields[0]
	if f.Path != "Y" || f.Old.Float() != 4 || f.New.Float() != 5 {
		t.Fatalf("field change = %+v", f)
	}
}

// TestWorldBodyHandDecoder holds the hand decoder to the struct tags: a
// body decoded by hand equals the same bytes decoded by msgpack's
// reflection, field for field.
func TestWorldBodyHandDecoder(t *testing.T) {
	for _, f := range encodeAll(t) {
		raw, err := protocol.Decompress(f.Body, protocol.MaxWorldBody)
		if err != nil {
			t.Fatal(err)
		}
		var generic, hand protocol.WorldBody
		if err := msgpack.Unmarshal(raw, &generic); err != nil {
			t.Fatal(err)
		}
		if err := protocol.DecodeWorldBody(raw, &hand, false, nil); err != nil {
			t.Fatal(err)
		}
		if len(generic.Tables) != len(hand.Tables) || len(generic.Tables) == 0 {
			t.Fatalf("tables: %d generic, %d by hand", len(generic.Tables), len(hand.Tables))
		}
		for i := range generic.Tables {
			g, h := generic.Tables[i], hand.Tables[i]
			if fmt.Sprintf("%+v", stripValues(g)) != fmt.Sprintf("%+v", stripValues(h)) {
				t.Fatalf("table %d:\n generic %+v\n hand    %+v", i, g, h)
			}
			for j := range g.Columns {
				if fmt.Sprint(g.Columns[j].Values) != fmt.Sprint(h.Columns[j].Values) {
					t.Fatalf("table %d column %d values differ", i, j)
				}
			}
		}
		gs, hs := generic.Summary, hand.Summary
		if fmt.Sprint(gs.Resources) != fmt.Sprint(hs.Resources) || len(gs.Resources) == 0 && f.Full {
			t.Fatalf("resources: generic %v, hand %v", gs.Resources, hs.Resources)
		}
		gs.Resources, hs.Resources = nil, nil
		if fmt.Sprintf("%+v", gs) != fmt.Sprintf("%+v", hs) || generic.LinksSet != hand.LinksSet {
			t.Fatalf("the summaries differ:\n generic %+v\n hand    %+v", gs, hs)
		}
	}
	// Every TableFrame and ColumnFrame key is one the hand decoder reads.
	for _, typ := range []reflect.Type{reflect.TypeFor[protocol.TableFrame](), reflect.TypeFor[protocol.ColumnFrame](), reflect.TypeFor[protocol.WorldBody](), reflect.TypeFor[protocol.Summary](), reflect.TypeFor[protocol.Resource]()} {
		src, err := os.ReadFile(filepath.Join("..", "worlddecode.go"))
		if err != nil {
			t.Fatal(err)
		}
		for f := range typ.Fields() {
			key := strings.Split(f.Tag.Get("msgpack"), ",")[0]
			if !strings.Contains(string(src), "case \""+key+"\":") {
				t.Errorf("%s.%s (key %q) is not read by the hand decoder", typ.Name(), f.Name, key)
			}
		}
	}
}

func stripValues(t protocol.TableFrame) protocol.TableFrame {
	cols := make([]protocol.ColumnFrame, len(t.Columns))
	for i, c := range t.Columns {
		c.Values = nil
		cols[i] = c
	}
	t.Columns = cols
	return t
}

// TestEntityHandlesPrintInJSON: JSON (dump --json, --diff --json) prints
// handles as people read them, 40v1, and reads them back; msgpack keeps
// the packed number.
func TestEntityHandlesPrintInJSON(t *testing.T) {
	d := WorldDiff{Spawned: []protocol.EntityID{protocol.MakeEntityID(40, 1)}, Changed: []EntityDiff{{Entity: protocol.MakeEntityID(7, 3)}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"spawned":["40v1"]`) || !strings.Contains(string(b), `"entity":"7v3"`) {
		t.Fatalf("JSON: %s", b)
	}
	var back WorldDiff
	if err := json.Unmarshal(b, &back); err != nil || back.Spawned[0] != protocol.MakeEntityID(40, 1) || back.Changed[0].Entity != protocol.MakeEntityID(7, 3) {
		t.Fatalf("read back %+v, %v", back, err)
	}
	m, err := protocol.Encode(&protocol.Detail{Entity: protocol.MakeEntityID(40, 1)})
	if err != nil || !bytes.Contains(m, []byte{0xcf, 0, 0, 0, 1, 0, 0, 0, 40}) && !bytes.Contains(m, []byte{0xd3, 0, 0, 0, 1, 0, 0, 0, 40}) {
		t.Fatalf("msgpack of a handle: % x, %v", m, err)
	}
}

// TestQueryOneArchetype: a page of one archetype (arch, its id plus one)
// holds that archetype's rows and no other's, whichever comes first.
func TestQueryOneArchetype(t *testing.T) {
	schemas := append(worldSchemas(), protocol.Component{ID: 3, Short: "Vel", Size: 8, Storage: "table",
		Fields: []protocol.FieldSchema{{Name: "X", Kind: "float", Type: "float32", Size: 4}, {Name: "Y", Kind: "float", Type: "float32", Offset: 4, Size: 4}}})
	e1, e2, e3 := protocol.MakeEntityID(1, 1), protocol.MakeEntityID(2, 1), protocol.MakeEntityID(3, 1)
	in := &WorldInput{Tick: 10, Full: true, Summary: &protocol.Summary{Full: true, Components: schemas}, Tables: []TableChange{
		{Archetype: 1, Components: []uint16{1}, Len: 2, Entities: []protocol.EntityID{e1, e2}, All: true,
			Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{0, 1}, Raw: posBytes(1, 2, 3, 4)}}},
		{Archetype: 4, Components: []uint16{1, 3}, Len: 1, Entities: []protocol.EntityID{e3}, All: true,
			Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{0}, Raw: posBytes(5, 6)},
				{Kind: protocol.ColumnRaw, Size: 8, Changed: []int32{0}, Raw: posBytes(7, 8)}}},
	}}
	f, err := NewWorldEncoder().Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	st := NewWorldState()
	if err := st.Apply(f); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arch int64
		want []protocol.EntityID
	}{{0, []protocol.EntityID{e1, e2, e3}}, {2, []protocol.EntityID{e1, e2}}, {5, []protocol.EntityID{e3}}, {3, nil}} {
		p, err := st.Query("", c.arch, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []protocol.EntityID
		for _, r := range p.Rows {
			got = append(got, r.Entity)
		}
		if p.Total != len(c.want) || !reflect.DeepEqual(got, c.want) {
			t.Errorf("archetype %d: %d rows %v, want %v", c.arch-1, p.Total, got, c.want)
		}
	}
}

// TestPredictedColumnsRebuildExactly: a column of positions moving at a
// steady step, through changed rows, a frame that covers every row and
// grows the table, and changed rows again: each frame rebuilds the values
// exactly, and once the reader holds two values of a row, a steady step
// codes as zeros (predicted in lanes of 4).
func TestPredictedColumnsRebuildExactly(t *testing.T) {
	sum := &protocol.Summary{Full: true, Components: worldSchemas()}
	ents := func(n int) []protocol.EntityID {
		out := make([]protocol.EntityID, n)
		for i := range out {
			out[i] = protocol.MakeEntityID(uint32(i+1), 1)
		}
		return out
	}
	pos := func(frame int, rows ...int) []byte {
		var xy []float32
		for _, r := range rows {
			xy = append(xy, 1024+float32(r)+0.25*float32(frame), -1024-float32(r)-0.5*float32(frame)) // within one binade: bits as steady as the values
		}
		return posBytes(xy...)
	}
	col := func(frame int, rows ...int) []ColumnChange {
		changed := make([]int32, len(rows))
		for i, r := range rows {
			changed[i] = int32(r)
		}
		return []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: changed, Raw: pos(frame, rows...)}}
	}
	inputs := []*WorldInput{
		{Tick: 1, Full: true, Summary: sum, Tables: []TableChange{{Archetype: 1, Components: []uint16{1}, Len: 3, Entities: ents(3), All: true, Columns: col(1, 0, 1, 2)}}},
		{Tick: 2, Summary: sum, Tables: []TableChange{{Archetype: 1, Components: []uint16{1}, Len: 3, Columns: col(2, 0, 1, 2)}}},
		{Tick: 3, Summary: sum, Tables: []TableChange{{Archetype: 1, Components: []uint16{1}, Len: 3, Columns: col(3, 0, 2)}}},
		{Tick: 4, Summary: sum, Tables: []TableChange{{Archetype: 1, Components: []uint16{1}, Len: 5, Entities: ents(5), All: true, Columns: col(4, 0, 1, 2, 3, 4)}}},
		{Tick: 5, Summary: sum, Tables: []TableChange{{Archetype: 1, Components: []uint16{1}, Len: 5, Columns: col(5, 0, 3)}}},
	}
	enc := NewWorldEncoder()
	reader := NewWorldState()
	want := map[int][]byte{}
	for k, in := range inputs {
		f, err := enc.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := reader.Apply(f); err != nil {
			t.Fatalf("tick %d: %v", in.Tick, err)
		}
		c := in.Tables[0].Columns[0]
		for i, r := range c.Changed {
			want[int(r)] = c.Raw[i*8 : (i+1)*8]
		}
		got := reader.Tables[tableKey(1, false)].Columns[0].Raw
		for r, v := range want {
			if !bytes.Equal(got[r*8:(r+1)*8], v) {
				t.Fatalf("tick %d, row %d: %x, want %x", in.Tick, r, got[r*8:(r+1)*8], v)
			}
		}
		body, err := protocol.OpenBody(f)
		if err != nil {
			t.Fatal(err)
		}
		cf := body.Tables[0].Columns[0]
		if k == 0 {
			continue
		}
		if cf.Lane != 4 {
			t.Fatalf("tick %d: positions coded in lanes of %d, want 4", in.Tick, cf.Lane)
		}
		if k == 2 && !bytes.Equal(cf.Raw, make([]byte, len(cf.Raw))) { // rows 0 and 2 stepped twice before
			t.Fatalf("tick %d: a steady step did not code as zeros: %x", in.Tick, cf.Raw)
		}
	}
}

// TestBadLanesAreRefused: a column predicted in lanes that are not 4 or
// 8, or do not divide its values, is refused with a clear error and the
// state left as it was.
func TestBadLanesAreRefused(t *testing.T) {
	frames := encodeAll(t)
	for _, lane := range []uint8{3, 16, 8} { // 8: with values of 12 bytes, below
		s := NewWorldState()
		if err := s.Apply(frames[0]); err != nil {
			t.Fatal(err)
		}
		body, err := protocol.OpenBody(frames[1])
		if err != nil {
			t.Fatal(err)
		}
		cf := &body.Tables[0].Columns[0]
		cf.Lane = lane
		if lane == 8 { // values of 12 bytes cannot be read in lanes of 8
			cf.Size, cf.Raw = 12, make([]byte, 12)
		}
		bad := *frames[1]
		if err := protocol.SealBodySized(&bad, body, 0); err != nil {
			t.Fatal(err)
		}
		before := fmt.Sprint(s.Tables[tableKey(1, false)].Columns[0].Raw)
		err = s.Apply(&bad)
		if err == nil || (lane != 8 && !strings.Contains(err.Error(), "lanes of")) {
			t.Fatalf("lane %d: %v", lane, err)
		}
		if after := fmt.Sprint(s.Tables[tableKey(1, false)].Columns[0].Raw); after != before {
			t.Fatalf("lane %d: a refused frame changed the state", lane)
		}
	}
}

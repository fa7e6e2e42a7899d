package protocol

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// sameMessage compares two messages by type and bytes on the wire (Values
// hold pointers, which reflect.DeepEqual would compare as addresses).
func sameMessage(a, b Message) bool {
	ea, err1 := Encode(a)
	eb, err2 := Encode(b)
	return err1 == nil && err2 == nil && reflect.TypeOf(a) == reflect.TypeOf(b) && bytes.Equal(ea, eb)
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var pos = MapValue(Field{"X", FloatValue(1.5)}, Field{"Y", FloatValue(-2)})

// sampleMessages has one of every message, every field set.
func sampleMessages() []Message {
	e := MakeEntityID(42, 3)
	return []Message{
		&Hello{Version: Version, Client: "ecsinspect 0.1", Caps: []string{"edit"}, MaxFrame: 1 << 20, Nonce: bytes.Repeat([]byte{7}, NonceSize)},
		&Welcome{Version: Version, Game: "grazers", Agent: "ecsinspect-agent 0.1", Caps: []string{"edit"}, MaxFrame: 1 << 20, ReadOnly: true, Proof: bytes.Repeat([]byte{9}, 32)},
		&Reject{Code: ErrToken, Reason: "bad token"},
		&Subscribe{ID: 7, What: SubPage, Hz: 10, Query: "Position !Frozen", Archetype: 3, Offset: 100, Limit: 50, Entity: e, Filter: "Position", Sample: 4, Resource: "Grid", Path: "Cells[3]", Box: []float64{0, 0, 800, 600}, Dots: []int{160, 96}, Marks: []EntityID{e}},
		&Unsubscribe{ID: 8, Sub: 7},
		&Query{ID: 9, Expr: "Health.HP<10", Offset: 0, Limit: 20},
		&GetEntity{ID: 10, Entity: e},
		&SetField{ID: 11, Entity: e, Path: "Position.X", Value: FloatValue(3.5)},
		&AddComponent{ID: 12, Entity: e, Component: "Health", Value: MapValue(Field{"HP", IntValue(10)})},
		&RemoveComponent{ID: 13, Entity: e, Component: "Frozen"},
		&Spawn{ID: 14, Components: []ComponentValue{{Component: "Position", Value: pos}, {Component: "Frozen", Value: MapValue()}}},
		&Despawn{ID: 15, Entity: e, Recursive: true},
		&Pause{ID: 16},
		&Resume{ID: 17},
		&Step{ID: 18, N: 5},
		&SnapshotRequest{ID: 19},
		&Reply{ID: 14, OK: false, Code: ErrStale, Message: "entity 42v3 is stale: slot 42 is now generation 4", Entity: e},
		&Summary{Sub: 1, Tick: 40000, Full: true, FrameNs: 16_600_000, Entities: 3, Paused: true,
			Stats:      Stats{Alive: 3, Free: 2, Retired: 1, Slots: 6, Reserved: 1},
			Archetypes: []Archetype{{ID: 1, Components: []uint16{1, 2}, Len: 3, Cap: 4, Bytes: 120}},
			Components: []Component{{ID: 1, Name: "game.Position", Short: "Position", Size: 16, Storage: "table",
				Fields: []FieldSchema{{Name: "X", Kind: "float", Type: "float64"}, {Name: "Tags", Kind: "array", Type: "[2]uint8", Len: 2, Elem: &FieldSchema{Kind: "uint", Type: "uint8"}}}}},
			Watches: []Watchpoint{{ID: 1, Expr: "Energy.Value<0", Kind: "value", On: true, Hits: 2}},
			Stale: &StaleAudit{Total: 3, By: []StaleCount{{By: "hunting", Count: 3}},
				Recent: []StaleUse{{Entity: MakeEntityID(9, 1), Generation: 2, By: "hunting", Tick: 39990}}},
			Dangling: &DanglingAudit{N: 2, List: []Dangling{
				{Holder: e, Component: "Hunts", Path: "Hunts.Prey", Handle: MakeEntityID(9, 1), Since: 39990, By: "hunting", Why: "is stale: slot 9 is free (generation 2)"},
				{Resource: "Grid", Path: "Grid.ByOwner[9v1]", Key: true, Handle: MakeEntityID(9, 1), Since: 39991, Why: "is stale"}}},
			Systems: []System{{Name: "movement", Stage: "update", Reads: []string{"Velocity"}, Writes: []string{"Position"}, Last: 100, Mean: 90, Max: 300, Count: 40000, Recent: []int64{80, 90, 100}}},
			Events:  []EventQueue{{Name: "Died", Previous: 1, Current: 2, Total: 99, Recent: []Value{MapValue(Field{"Who", UintValue(uint64(e))})}}},
			Resources: []Resource{{Name: "Clock", Value: MapValue(Field{"Frame", IntValue(40000)})},
				{Name: "Nests", Value: ListValue(UintValue(uint64(e))), Type: &FieldSchema{Kind: "slice", Type: "[]ecs.Entity", Elem: &FieldSchema{Kind: "entity", Type: "ecs.Entity"}}}},
			Recycled: []Slot{{Index: 42, Generation: 3, Alive: true}},
			Agent:    Telemetry{Clients: 2, BytesSent: 1 << 20, FramesSent: 500, Coalesced: 3, Dropped: 1, SyncNs: 12000, Recording: "run.ecsrec", HandlePasses: 40, HandlesRead: 1200, HandlesCut: 1, Broker: "connected"}},
		&Page{Sub: 7, Tick: 40000, Full: false, Total: 1000, Offset: 100, Columns: []uint16{1, 3},
			Rows: []Row{{Entity: e, Values: []Value{pos, Nil()}}}, Removed: []EntityID{MakeEntityID(7, 1)}},
		&Detail{Sub: 10, Tick: 40000, Entity: e, Alive: true, Archetype: 1, Row: 2, Parent: MakeEntityID(1, 1),
			Children: []EntityID{MakeEntityID(5, 2)}, Components: []ComponentValue{{Component: "Position", Value: pos}}, Reason: ""},
		&Events{Sub: 3, Tick: 40000, Queues: []EventQueue{{Name: "Born", Current: 1, Total: 1, Recent: []Value{StringValue("x")}}}},
		&Journal{Sub: 4, Tick: 40000, Entries: []JournalEntry{{Seq: 1, Frame: 39999, Op: "despawn", Entity: e, Component: -1, System: "hunting"}}},
		&Snapshot{ID: 19, Tick: 40000, Game: "grazers", Stats: Stats{Alive: 1, Slots: 1},
			Components: []Component{{ID: 1, Name: "game.Position", Short: "Position", Size: 16, Storage: "table"}},
			Tables:     []Table{{Components: []uint16{1}, Entities: []EntityID{e}, Columns: [][]Value{{pos}}}},
			Resources:  []Resource{{Name: "Seed", Value: IntValue(7)}}},
		&SetParent{ID: 21, Entity: e, Parent: MakeEntityID(1, 1)},
		&WorldFrame{Sub: 5, Tick: 40000, Full: true, Seq: 3, Body: []byte{0x28, 0xb5, 0x2f, 0xfd}},
		&Watch{ID: 22, Expr: "Energy.Value<0", Log: true},
		&Unwatch{ID: 23, Watch: 1},
		&EnableWatch{ID: 24, Watch: 1, On: true},
		&Rewind{ID: 25, Tick: 40_000},
		&Series{Sub: 9, Tick: 120, Value: new(float64(-2.5)), N: 3},
		&Challenge{Nonce: bytes.Repeat([]byte{8}, NonceSize)},
		&Auth{Proof: bytes.Repeat([]byte{5}, 32)},
		&GetResource{ID: 26, Name: "Grid", Path: `Cells[3]`, Offset: 10, Limit: 20, All: true},
		&GetDangling{ID: 27, Offset: 100, Limit: 50},
		&Points{Sub: 8, Tick: 9, Total: 3, Box: []float64{0, 0, 2, 1}, W: 2, H: 1, Counts: []uint32{1, 2}, Marks: []Mark{{Entity: e, X: 1.5, Y: 0.25}}},
		&DanglingPage{Sub: 27, Tick: 9, Total: 150, Over: 2, Offset: 100, List: []Dangling{{Holder: MakeEntityID(4, 1), Component: "Hunts", Path: "Hunts.Prey", Handle: MakeEntityID(9, 2), Since: 8, By: "harvest", Why: "is stale", Stored: &Provenance{Tick: 9, By: "stalker"}}}},
		&ResourcePage{Sub: 26, Tick: 40000, Name: "Grid", Path: "Cells", Kind: "slice", GoType: "[]ecs.Entity", Total: 4096, Offset: 10,
			Items:  []ResourceItem{{Key: "10", Kind: "entity", Value: UintValue(uint64(e))}, {Key: "11", Kind: "slice", Len: 3, Value: ListValue(IntValue(1))}},
			Value:  IntValue(3),
			Schema: &FieldSchema{Kind: "slice", Type: "[]ecs.Entity", Elem: &FieldSchema{Kind: "entity", Type: "ecs.Entity"}}, Unordered: true},
		&WatchHit{Watch: 1, Expr: "Energy.Value<0", Tick: 40000, Entity: e, By: "hunger", Component: "Energy",
			Old: &pos, Value: &pos, Matches: 3, Paused: true, Text: "watch 1 (Energy.Value<0) at tick 40000: 42v3, written by hunger"},
	}
}

func TestRoundTripEveryMessage(t *testing.T) {
	seen := map[Type]bool{}
	for _, m := range sampleMessages() {
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%T: decode: %v", m, err)
		}
		if !sameMessage(got, m) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", m, got, m)
		}
		seen[m.Type()] = true
	}
	for typ := Type(0); typ < 255; typ++ {
		if _, err := newMessage(typ); err == nil && !seen[typ] {
			t.Errorf("message type %d has no sample", typ)
		}
	}
}

// TestGoldenBytes pins the wire: a change to any message's bytes must be
// deliberate (go test -update rewrites testdata/).
func TestGoldenBytes(t *testing.T) {
	for _, m := range sampleMessages() {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(reflect.TypeOf(m).Elem().Name(), "protocol.")
		path := filepath.Join("testdata", strings.ToLower(name)+".golden")
		got := hex.Dump(AppendFrame(nil, b))
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s: wire bytes changed:\n%s\nwant:\n%s", name, got, want)
		}
	}
}

func TestUnknownFieldsAreIgnored(t *testing.T) {
	// A newer agent adds a field "zz" to Reply: an old client still reads it.
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	_ = enc.EncodeArrayLen(3)
	_ = enc.EncodeUint8(uint8(TypeReply))
	_ = enc.Encode(map[string]any{"id": 5, "ok": true, "zz": []int{1, 2, 3}})
	_ = enc.EncodeString("a later part")
	m, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if r := m.(*Reply); r.ID != 5 || !r.OK {
		t.Errorf("reply = %+v", r)
	}
}

func TestDecodeErrors(t *testing.T) {
	good, _ := Encode(&Pause{ID: 1})
	cases := map[string][]byte{
		"unknown type":   {0x92, 0x63, 0x80},
		"not an array":   {0x80},
		"one part":       {0x91, 0x0b},
		"trailing bytes": append(append([]byte{}, good...), 0x00),
		"wrong body":     {0x92, 0x0b, 0xa3, 'a', 'b', 'c'},
		"huge array":     {0x92, 0x0b, 0xdd, 0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		if m, err := Decode(b); err == nil {
			t.Errorf("%s: decoded %+v", name, m)
		}
	}
}

// FuzzDecodeMessage: any bytes decode to a message that encodes and decodes
// back to itself, or are refused; never a panic, and the allocation bound
// keeps memory small (run with GOMEMLIMIT to be sure).
func FuzzDecodeMessage(f *testing.F) {
	for _, m := range sampleMessages() {
		b, _ := Encode(m)
		f.Add(b)
	}
	f.Add([]byte{0x92, 0x0b, 0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(m)
		if err != nil {
			t.Fatalf("decoded %T does not encode: %v", m, err)
		}
		m2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded %T does not decode: %v", m, err)
		}
		if !sameMessage(m, m2) {
			t.Fatalf("round trip changed %T:\n%+v\n%+v", m, m, m2)
		}
	})
}

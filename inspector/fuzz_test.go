package inspector

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// FuzzAgentRequests drives a live agent with requests built from the fuzzer's
// bytes: every message type, with random offsets, limits, rates, entity
// handles, paths, values and query expressions (pieces of real ones and raw
// bytes). The game must keep running, no request may go unanswered, and
// every answer must be well formed: a documented error code, or data for
// the request's id.
func FuzzAgentRequests(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte("\x02\xff\xff\xff\xff\xff\xff\xff\xfb\x00\x10Position.X<3 Health"))
	f.Add([]byte("\x05\x00\x00\x00\x01\x00\x00\x00\x03Health.HP\x07NaN"))
	f.Add([]byte("\x08\x02Position\x03\x7f\xf8\x00\x00\x00\x00\x00\x00"))
	var once sync.Once
	var g *game
	var c *testClient
	f.Fuzz(func(t *testing.T, b []byte) {
		once.Do(func() {
			g = startResourceGame(&testing.T{})
			var err error
			if c, err = tryDial(g, protocol.Hello{Client: "fuzz"}); err != nil {
				t.Fatal(err)
			}
		})
		c.t = t
		in := &fuzzInput{b: b}
		var ids []uint32
		for len(ids) < 8 && !in.done() {
			m := in.request()
			c.id++
			setID(m, c.id)
			if err := c.conn.Send(m); err != nil {
				t.Fatalf("send %T: %v", m, err)
			}
			ids = append(ids, c.id)
		}
		for len(ids) > 0 {
			_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			m, err := c.conn.Receive()
			if err != nil {
				t.Fatalf("waiting for answers to %v: %v", ids, err)
			}
			id, answer := answerID(m)
			if !answer {
				continue // a subscription's frame
			}
			if r, ok := m.(*protocol.Reply); ok && !r.OK && !slices.Contains(documentedCodes, r.Code) {
				t.Fatalf("reply with an undocumented code: %+v", r)
			}
			if i := slices.Index(ids, id); i >= 0 {
				ids = slices.Delete(ids, i, i+1)
			}
		}
		// A Pause or Step may have left the game paused: resume it, and it
		// must run again.
		if r := c.reply(&protocol.Resume{}); !r.OK {
			t.Fatalf("resume: %+v", r)
		}
		ran := g.frames.Load()
		for deadline := time.Now().Add(10 * time.Second); g.frames.Load() == ran; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the game stopped")
			}
		}
	})
}

var documentedCodes = []string{protocol.ErrVersion, protocol.ErrToken, protocol.ErrBusy, protocol.ErrProtocol, protocol.ErrReadOnly,
	protocol.ErrStale, protocol.ErrNotFound, protocol.ErrBadValue, protocol.ErrBadQuery, protocol.ErrState, protocol.ErrInternal,
	protocol.ErrTooLarge, protocol.ErrOverload, protocol.ErrTimeout}

// answerID is the request id an answer carries; frames of subscriptions
// are not answers.
func answerID(m protocol.Message) (uint32, bool) {
	switch m := m.(type) {
	case *protocol.Reply:
		return m.ID, true
	case *protocol.Page:
		return m.Sub, m.Full && m.Sub > 0
	case *protocol.Detail:
		return m.Sub, true
	case *protocol.Snapshot:
		return m.ID, true
	case *protocol.ResourcePage:
		return m.Sub, true
	}
	return 0, false
}

// fuzzInput reads requests from fuzz bytes.
type fuzzInput struct {
	b []byte
}

func (in *fuzzInput) done() bool { return len(in.b) == 0 }

func (in *fuzzInput) byte() byte {
	if len(in.b) == 0 {
		return 0
	}
	c := in.b[0]
	in.b = in.b[1:]
	return c
}

func (in *fuzzInput) u64() uint64 {
	var buf [8]byte
	n := copy(buf[:], in.b)
	in.b = in.b[n:]
	return binary.BigEndian.Uint64(buf[:])
}

func (in *fuzzInput) int() int {
	switch in.byte() % 4 {
	case 0:
		return int(in.byte())
	case 1:
		return -int(in.byte())
	case 2:
		return int(int64(in.u64()))
	}
	return protocol.MaxPageRows + int(in.byte())
}

var fuzzWords = []string{"Position", "Velocity", "Health", "Name", "Frozen", "ChildOf", "Position.X", "Health.HP", "Name.Value",
	"Position.X<3", "!Frozen", "?Name", "changed(Position)", "added(Health)", "childof(0v1)", "Health.HP>=10", "Nope", "Position.Z", "[", "\xff",
	"patchGrid", "nests", "bigMap", "Cells[3]", "ByName[west]", "Boss.Value", "M[7]", `ByName["`, "]"}

func (in *fuzzInput) text() string {
	n := int(in.byte() % 4)
	s := ""
	for range n {
		s += fuzzWords[int(in.byte())%len(fuzzWords)] + " "
	}
	if in.byte()%5 == 0 { // raw bytes too
		k := min(int(in.byte()%16), len(in.b))
		s += string(in.b[:k])
		in.b = in.b[k:]
	}
	return s
}

func (in *fuzzInput) value() protocol.Value {
	switch in.byte() % 8 {
	case 0:
		return protocol.FloatValue(math.Float64frombits(in.u64()))
	case 1:
		return protocol.IntValue(int64(in.u64()))
	case 2:
		return protocol.UintValue(in.u64())
	case 3:
		return protocol.StringValue(in.text())
	case 4:
		return protocol.BoolValue(in.byte()%2 == 0)
	case 5:
		return protocol.MapValue(protocol.Field{Name: in.text(), Value: protocol.FloatValue(float64(in.byte()))})
	case 6:
		return protocol.ListValue(protocol.IntValue(1), protocol.StringValue(in.text()))
	}
	return protocol.Nil()
}

func (in *fuzzInput) entity() protocol.EntityID {
	if in.byte()%2 == 0 {
		return protocol.MakeEntityID(uint32(in.byte()%24), uint32(in.byte()%3))
	}
	return protocol.EntityID(in.u64())
}

func (in *fuzzInput) request() protocol.Request {
	whats := []string{protocol.SubSummary, protocol.SubPage, protocol.SubEntity, protocol.SubEvents, protocol.SubJournal, protocol.SubResource, "bogus"}
	switch in.byte() % 14 {
	case 0:
		return &protocol.Subscribe{What: whats[int(in.byte())%len(whats)], Hz: math.Float64frombits(in.u64()), Query: in.text(),
			Archetype: int64(in.int()), Offset: in.int(), Limit: in.int(), Entity: in.entity(), Filter: in.text(), Sample: in.int(),
			Resource: strings.TrimSpace(in.text()), Path: strings.TrimSpace(in.text())}
	case 1:
		return &protocol.Unsubscribe{Sub: uint32(in.byte())}
	case 2:
		return &protocol.Query{Expr: in.text(), Offset: in.int(), Limit: in.int()}
	case 3:
		return &protocol.GetEntity{Entity: in.entity()}
	case 4:
		return &protocol.SetField{Entity: in.entity(), Path: in.text(), Value: in.value()}
	case 5:
		return &protocol.AddComponent{Entity: in.entity(), Component: in.text(), Value: in.value()}
	case 6:
		return &protocol.RemoveComponent{Entity: in.entity(), Component: in.text()}
	case 7:
		return &protocol.Spawn{Components: []protocol.ComponentValue{{Component: in.text(), Value: in.value()}}}
	case 8:
		return &protocol.Despawn{Entity: in.entity(), Recursive: in.byte()%2 == 0}
	case 9:
		return &protocol.Pause{}
	case 10:
		return &protocol.Step{N: uint32(in.byte() % 4)}
	case 11:
		return &protocol.SnapshotRequest{}
	case 12:
		return &protocol.GetResource{Name: strings.TrimSpace(in.text()), Path: strings.TrimSpace(in.text()), Offset: in.int(), Limit: in.int(), All: in.byte()%2 == 0}
	}
	return &protocol.Resume{}
}

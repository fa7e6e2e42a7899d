package testgame

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Escapes is text a terminal acts on: a window title, a clear screen and
// a cursor home, a colour, and a line break that forges a line of output.
const Escapes = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[31m\r\nFORGED: all good\u009b"

// Label and Tags are a hostile game's components: a string and map keys
// that hold Escapes.
type (
	Label struct{ Text string }
	Tags  struct{ By map[string]int }
	// Note is written by the hostile client only.
	Note struct{ Text string }
	// Banner is its resource.
	Banner struct{ Text string }
)

// Hostile runs a game whose every name and string it can choose holds
// Escapes: a system's name, a string field, map keys, a resource, and the
// name of a client that edited the entity (its writer). It returns the
// agent's address and the entity.
func Hostile(t testing.TB) (string, protocol.EntityID) {
	w := ecs.NewWorld()
	e := ecs.NewMap3[Label, Tags, Note](w).Spawn(Label{Text: Escapes}, Tags{By: map[string]int{Escapes: 1}}, Note{})
	ecs.SetResource(w, Banner{Text: Escapes})
	s := ecs.NewSchedule()
	labels := ecs.NewQuery1[Label](w, ecs.Mut[Label]())
	s.Add("grazing"+Escapes, func(w *ecs.World, _ *ecs.Commands) {
		for l := range labels.All() {
			l.Text = strings.TrimSuffix(l.Text, " ") + " "
		}
		b := ecs.Resource[Banner](w) // a string that changes: a recording's deltas carry the resource whole
		b.Text = strings.TrimSuffix(b.Text, " ") + map[bool]string{true: " ", false: ""}[b.Text == Escapes]
	}, ecs.Writes[Label](), ecs.Writes[Banner]())
	agent := inspector.New(w, inspector.Options{Addr: "127.0.0.1:0", Game: "hostile" + Escapes, Schedule: s})
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	Loop(t, testpace.Frame(), func() { s.Run(w); _ = w.Tick(); agent.Sync() })
	t.Cleanup(func() { agent.Close() })
	id := protocol.MakeEntityID(e.Index(), e.Generation())
	nc, err := net.Dial("tcp", agent.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn := protocol.NewConn(nc)
	defer conn.Close()
	if _, err := protocol.ClientHandshake(conn, protocol.Hello{Version: protocol.Version, Client: "evil" + Escapes}, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := conn.Send(&protocol.SetField{ID: 1, Entity: id, Path: "Note.Text", Value: protocol.StringValue(Escapes)}); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := conn.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := m.(*protocol.Reply); ok && r.ID == 1 {
			if !r.OK {
				t.Fatalf("the hostile client's edit: %+v", r)
			}
			return agent.Addr(), id
		}
	}
}

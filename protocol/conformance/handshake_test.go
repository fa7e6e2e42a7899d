package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector"
)

// TestConformanceHandshakeSlots holds the agent to PROTOCOL.md's
// Handshakes: "Connections still in their handshake have their own 64
// slots ... When every slot is taken, the oldest connection that has not
// sent its hello gives its slot to the new one (it is sent a Reject,
// busy) ... only when every slot's connection has sent its hello is a new
// one refused busy." Each of 64 silent connections holds a slot; a 65th
// that speaks is welcomed, and the first silent one is told busy.
func TestConformanceHandshakeSlots(t *testing.T) {
	g := startGame(t, inspector.Options{MaxClients: 8, HandshakeTimeout: 20 * time.Second})
	addr := g.agent.Addr()
	var silent []*rawClient
	for range 64 {
		silent = append(silent, dialRaw(t, addr))
	}
	time.Sleep(300 * time.Millisecond) // the agent takes them in as they come
	// A connection that speaks is welcomed, taking the oldest silent
	// connection's slot: the first one opened, whatever order the agent's
	// goroutines took them in. It is told busy, and why.
	speaker := dialRaw(t, addr)
	if w := speaker.hello(map[string]any{"c": "speaker"}); w.typ != typeWelcome {
		t.Fatalf("a connection that speaks, with every handshake slot held by a silent one: type %d %v, want a Welcome", w.typ, w.body)
	}
	r, err := silent[0].tryRecv(2 * time.Second)
	if err != nil {
		t.Fatalf("the oldest silent connection kept its slot: %v", err)
	}
	wantCode(t, "the oldest silent connection gives its slot (Reject, busy)", r, "busy")
	if !strings.Contains(str(r.body["r"]), "said nothing") {
		t.Errorf("the reason does not say why: %q", r.body["r"])
	}
	for i, c := range silent[1:] {
		if m, err := c.tryRecv(5 * time.Millisecond); err == nil {
			t.Errorf("silent connection %d was told %v, not the oldest", i+2, m.body)
		}
	}
	// "busy (too many clients)": with the 8 clients' slots taken, a hello
	// is refused busy, saying so.
	for range 7 {
		dialRaw(t, addr).hello(map[string]any{"c": "filler"})
	}
	late := dialRaw(t, addr)
	r = late.hello(map[string]any{"c": "late"})
	wantCode(t, "busy (too many clients)", r, "busy")
	if !strings.Contains(str(r.body["r"]), "client") {
		t.Errorf("a busy refusal for the clients' slots does not say so: %q", r.body["r"])
	}
}

package watch

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestOnlyAnEditorStopsAPause: a watchpoint that pauses the game is
// removed or turned off only by a client that may change the game's flow;
// a log-only one by anyone. Refusals say so with the read-only code and
// change nothing.
func TestOnlyAnEditorStopsAPause(t *testing.T) {
	w := ecs.NewWorld()
	s := New(w, live.New(w, func() []protocol.Component { return nil }, w.Frame), nil, func() int64 { return 0 }, Hooks{})
	pausing, err := s.Add(1, &protocol.Watch{Expr: "frame > 1ms"})
	if err != nil {
		t.Fatal(err)
	}
	logOnly, err := s.Add(1, &protocol.Watch{Expr: "frame > 1ms", Log: true})
	if err != nil {
		t.Fatal(err)
	}
	readOnlyRefused := func(what string, err error) {
		t.Helper()
		re, ok := err.(*answer.RequestError)
		if !ok || re.Code != protocol.ErrReadOnly {
			t.Fatalf("%s by a read-only client: %v", what, err)
		}
	}
	readOnlyRefused("removing a pausing watchpoint", s.Remove(pausing, false))
	readOnlyRefused("turning a pausing watchpoint off", s.Enable(pausing, false, false))
	if l := s.List(); len(l) != 2 || !l[0].On {
		t.Fatalf("a refusal changed the watchpoints: %+v", l)
	}
	if err := s.Enable(logOnly, false, false); err != nil {
		t.Fatalf("a read-only client turning a log-only watchpoint off: %v", err)
	}
	if err := s.Remove(logOnly, false); err != nil {
		t.Fatalf("a read-only client removing a log-only watchpoint: %v", err)
	}
	if err := s.Remove(pausing, true); err != nil {
		t.Fatalf("an editor removing a pausing watchpoint: %v", err)
	}
	if l := s.List(); len(l) != 0 {
		t.Fatalf("left: %+v", l)
	}
	if err := s.Remove(pausing, true); err == nil {
		t.Fatal("removing a watchpoint twice")
	}
}

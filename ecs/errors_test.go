package ecs

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorsSayWhy: the errors a game sees name the handle and the reason
// in words, and match the sentinel errors with errors.Is.
func TestErrorsSayWhy(t *testing.T) {
	w := NewWorld()
	hp := NewMap[Health](w)
	e := w.Spawn()
	if err := hp.Set(e, Health{}); !errors.Is(err, ErrNoComponent) || !strings.Contains(err.Error(), e.String()) || !strings.Contains(err.Error(), "Health") {
		t.Fatalf("a missing component: %v", err)
	}
	must(t, w.Despawn(e))
	err := w.Despawn(e)
	var ee *EntityError
	if !errors.As(err, &ee) || ee.Entity != e || !errors.Is(err, ErrNotAlive) || !strings.Contains(err.Error(), "entity "+e.String()) {
		t.Fatalf("a dead entity: %v", err)
	}
	reused := w.Spawn()
	if err := w.Despawn(e); err == nil || !strings.Contains(err.Error(), "stale") || !strings.Contains(err.Error(), reused.String()[:strings.IndexByte(reused.String(), 'v')]) {
		t.Fatalf("a stale handle: %v", err)
	}
	if err := w.Despawn(Entity{}); !errors.Is(err, ErrNotAlive) {
		t.Fatalf("the zero handle: %v", err)
	}
}

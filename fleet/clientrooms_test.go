package fleet

import (
	"strconv"
	"testing"
	"time"
)

// TestClientRooms: a client opens its burst at once, then at its rate;
// at most ClientSessions stay open, and one closed frees a place; rooms
// past the bound let go of a client with nothing open, never of one with
// sessions open.
func TestClientRooms(t *testing.T) {
	r := clientRooms{}
	now := time.Unix(1000, 0)
	for i := range ClientOpenBurst {
		if ok, _ := r.take("a", now); !ok {
			t.Fatalf("opening %d of the burst refused", i)
		}
	}
	if ok, why := r.take("a", now); ok || why != "" {
		t.Fatalf("past the burst: %v %q, want dropped unanswered", ok, why)
	}
	if ok, _ := r.take("b", now); !ok {
		t.Fatal("another client refused for the first one's flood")
	}
	now = now.Add(10 * time.Second) // the rate refills the burst
	for range ClientSessions - ClientOpenBurst {
		if ok, _ := r.take("a", now); !ok {
			now = now.Add(time.Second)
			if ok, _ := r.take("a", now); !ok {
				t.Fatal("refused within the rate")
			}
		}
	}
	now = now.Add(10 * time.Second)
	if ok, why := r.take("a", now); ok || why == "" {
		t.Fatalf("past %d open: %v %q, want refused with why", ClientSessions, ok, why)
	}
	r.give("a")
	if ok, _ := r.take("a", now); !ok {
		t.Fatal("a session closed, yet no place")
	}
	for i := len(r); i < maxClientRooms; i++ {
		r[strconv.Itoa(i)] = &clientRoom{refilled: now}
	}
	if ok, _ := r.take("new", now); !ok || r["a"] == nil || r["b"] == nil {
		t.Fatalf("a new client past the bound: %v; a kept %v, b kept %v", ok, r["a"] != nil, r["b"] != nil)
	}
}

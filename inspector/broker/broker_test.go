package broker

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector/internal/transport"
	"github.com/nats-io/nats.go"
)

// TestReconnectBacksOff: a lost broker is tried again after half a
// second, then twice as long each time, never more than 30 s apart.
func TestReconnectBacksOff(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := reconnectDelay(i); got != w {
			t.Errorf("attempt %d: %v, want %v", i, got, w)
		}
	}
	if got := reconnectDelay(1000); got != 30*time.Second {
		t.Errorf("attempt 1000: %v", got)
	}
}

// TestRefusedKnowsTheBrokersNo: the broker's refusals of credentials and
// permissions are told from other failures, wrapped or in words.
func TestRefusedKnowsTheBrokersNo(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nats.ErrAuthorization, true},
		{fmt.Errorf("connect: %w", nats.ErrAuthorization), true},
		{nats.ErrPermissionViolation, true},
		{errors.New("nats: Permissions Violation for Publish to \"x\""), true},
		{errors.New("nats: Authorization Violation"), true},
		{nats.ErrNoServers, false},
		{errors.New("dial tcp: connection refused"), false},
	} {
		if got := refused(c.err); got != c.want {
			t.Errorf("refused(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestAnnouncementCarriesTheGame: what the game left at its last Sync is
// what the instance announces, beside what never changes.
func TestAnnouncementCarriesTheGame(t *testing.T) {
	fixed := fleet.Status{Game: "g", Instance: "i", Host: "h", PID: 7, Started: 1}
	s := withGame(fixed, transport.Status{Tick: 9, Entities: 3, Paused: true, Clients: 2, TPS: 60, FrameP99: 1.5, Hits: 4})
	if s.Game != "g" || s.Instance != "i" || s.PID != 7 || s.Started != 1 ||
		s.Tick != 9 || s.Entities != 3 || !s.Paused || s.Clients != 2 || s.TPS != 60 || s.FrameP99 != 1.5 || s.Hits != 4 {
		t.Fatalf("announced %+v", s)
	}
}

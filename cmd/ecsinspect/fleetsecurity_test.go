package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/ecsinspect/ecsinspect/fleet"
)

// lockedBuffer is a bytes.Buffer for a writer on another goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runLocalFleet runs `ecsinspect fleet` with args until the test ends and
// returns its broker's URL and what it printed.
func runLocalFleet(t *testing.T, args ...string) (string, *lockedBuffer) {
	t.Helper()
	out := &lockedBuffer{}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() {
		done <- runFleet(append([]string{"--port", "0", "--hz", "30", "--entities", "200"}, args...), out, stop)
	}()
	t.Cleanup(func() {
		stop <- os.Interrupt
		if err := <-done; err != nil {
			t.Errorf("fleet: %v", err)
		}
	})
	url := regexp.MustCompile(`broker on (nats://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := url.FindStringSubmatch(out.String()); m != nil {
			return m[1], out
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fleet printed no URL:\n%s", out)
		}
	}
}

// TestFleetHoldsOffStrangers: `ecsinspect fleet` with its defaults. Its
// user lists and queries every game with no flags (the saved
// credentials); a stranger without credentials is refused by the broker;
// another client cannot read or write the first one's sessions, nor
// announce as a game; a game's user cannot speak for another game; every
// session is sealed (the token never leaves the machine's file).
func TestFleetHoldsOffStrangers(t *testing.T) {
	t.Setenv("ECSINSPECT_CREDENTIALS", filepath.Join(t.TempDir(), "brokers.json"))
	url, out := runLocalFleet(t, "--instances", "3", "--clients", "ui,alice", "--allow", "mine")
	creds := regexp.MustCompile(`client alice: --token (\S+) (nats://\S+)`).FindStringSubmatch(out.String())
	game := regexp.MustCompile(`your game mine joins with inspector.Options\{Broker: "(\S+)"`).FindStringSubmatch(out.String())
	if creds == nil || game == nil {
		t.Fatalf("the fleet did not print alice's and mine's credentials:\n%s", out)
	}
	var listed fleetDump
	for deadline := time.Now().Add(10 * time.Second); len(listed.Instances) < 3; time.Sleep(100 * time.Millisecond) {
		code, text, errs := cli("dump", "--all", "--json", "--query", "Predator", url)
		if code == 0 {
			_ = json.Unmarshal([]byte(text), &listed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fleet's own user: %d %s %s", code, text, errs)
		}
	}
	for _, e := range listed.Instances {
		if e.Error != "" || e.Total == nil {
			t.Fatalf("%s: %+v", e.Instance, e)
		}
	}

	// A stranger: no credentials saved, none in the URL.
	t.Setenv("ECSINSPECT_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
	if code, _, errs := cli("dump", "--all", url); code == 0 || !strings.Contains(strings.ToLower(errs), "authorization") {
		t.Fatalf("a stranger's dump --all: %d %s", code, errs)
	}
	if code, _, errs := cli("exec", url+"/demo-01", "pause"); code == 0 || !strings.Contains(strings.ToLower(errs), "authorization") {
		t.Fatalf("a stranger's exec pause: %d %s", code, errs)
	}

	// alice, another client: the broker keeps her out of ui's sessions and
	// off the games' subjects.
	alice := connectAs(t, creds[2])
	violations := make(chan error, 16)
	alice.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { violations <- err })
	sniffed := 0
	sub, err := alice.Subscribe("ecsinspect.i.*.c.ui.s.*.>", func(*nats.Msg) { sniffed++ })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	must(t, alice.Publish(fleet.AnnounceSubject(fleet.DefaultPrefix, "demo-01"), []byte{0x80}))
	must(t, alice.Publish(fleet.UpSubject(fleet.DefaultPrefix, "demo-01", "ui", "injected"), []byte{0x80}))
	must(t, alice.Flush())
	wantViolations(t, "alice", violations, 3)

	// mine, a game's user: it may announce only itself.
	mine := connectAs(t, game[1])
	mineViolations := make(chan error, 16)
	mine.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { mineViolations <- err })
	must(t, mine.Publish(fleet.AnnounceSubject(fleet.DefaultPrefix, "demo-02"), []byte{0x80}))
	must(t, mine.Flush())
	wantViolations(t, "mine", mineViolations, 1)

	if sniffed != 0 {
		t.Errorf("alice read %d messages of ui's sessions", sniffed)
	}
}

// connectAs connects to the broker at url (credentials in it) as a plain
// NATS client.
func connectAs(t *testing.T, url string) *nats.Conn {
	t.Helper()
	target, err := fleet.ParseURL(url)
	must(t, err)
	nc, err := fleet.Connect(target, "stranger", 3*time.Second)
	must(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// wantViolations waits for n permission violations the broker reported.
func wantViolations(t *testing.T, who string, errs <-chan error, n int) {
	t.Helper()
	for i := range n {
		select {
		case err := <-errs:
			if !errors.Is(err, nats.ErrPermissionViolation) && !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
				t.Fatalf("%s: %v, want a permissions violation", who, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: %d of %d permission violations reported", who, i, n)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFleetBrokerAloneServesUntilStopped: `fleet --instances 0 --allow
// NAME` (a broker for your own games) keeps serving, its client's
// credentials saved, until it is stopped; then they are forgotten.
func TestFleetBrokerAloneServesUntilStopped(t *testing.T) {
	creds := filepath.Join(t.TempDir(), "brokers.json")
	t.Setenv("ECSINSPECT_CREDENTIALS", creds)
	saved := func() int {
		b, err := os.ReadFile(creds)
		if err != nil {
			return 0
		}
		var all map[string]any
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatal(err)
		}
		return len(all)
	}
	t.Cleanup(func() { // after the fleet's own cleanup stopped it
		if n := saved(); n != 0 {
			t.Errorf("after the fleet stopped, %d brokers' credentials stay saved", n)
		}
	})
	url, out := runLocalFleet(t, "--instances", "0", "--allow", "match-01")
	time.Sleep(500 * time.Millisecond)
	if n := saved(); n != 1 {
		t.Fatalf("half a second on, %d brokers' credentials saved (the fleet ended?):\n%s", n, out)
	}
	target, err := fleet.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fleet.Connect(target, "stranger", 2*time.Second); err == nil || strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("the broker alone: a stranger's dial said %v, want a refusal by the broker", err)
	}
}

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker/spec"
)

// The fleet command's tests run the broker in the test's process: the
// program that runs it on its own is tested once, below.
func init() {
	startBroker = func(o spec.Options, _ io.Writer) (runningBroker, error) {
		b, err := localbroker.Start(o)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}

// TestBrokerRunsAsItsOwnProgram: the fleet command finds ecsinspect-broker
// on PATH, starts it with its users, reaches it as one of them (and not as
// a stranger), a second on its port says why it cannot start, and the
// first ends when told; ecsinspect itself links no NATS server.
func TestBrokerRunsAsItsOwnProgram(t *testing.T) {
	deps, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if strings.Contains(string(deps), "nats-server") {
		t.Fatal("ecsinspect links the NATS server: its first build takes twice as long")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, brokerProgram), "../"+brokerProgram).CombinedOutput(); err != nil {
		t.Fatalf("building the broker: %v\n%s", err, out)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ui := spec.User{Name: "ui", Password: "pw-1", Publish: []string{">"}, Subscribe: []string{">"}}
	b, err := spawnBroker(spec.Options{Users: []spec.User{ui}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	target, err := fleet.ParseURL(spec.URLAs(ui, b.Port()))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := fleet.Connect(target, "test", 3*time.Second)
	if err != nil {
		t.Fatalf("the broker's user: %v", err)
	}
	nc.Close()
	stranger, _ := fleet.ParseURL(spec.URL(b.Port()))
	if nc, err := fleet.Connect(stranger, "stranger", 3*time.Second); err == nil {
		nc.Close()
		t.Fatal("a stranger got in")
	}
	// A second on the same port says why it could not start.
	if again, err := spawnBroker(spec.Options{Port: b.Port()}, io.Discard); err == nil || !strings.Contains(err.Error(), "local broker") {
		if again != nil {
			again.Shutdown()
		}
		t.Fatalf("a second broker on port %d: %v", b.Port(), err)
	}
	b.Shutdown()
	if st := b.(*childBroker).cmd.ProcessState; st == nil || !st.Exited() {
		t.Fatalf("the broker runs on after Shutdown: %v", st)
	}
}

package transport_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// TestAGameLinksNoBrokerItDoesNotUse: the agent and a game built on it
// (the demo) compile no NATS code; the broker transport and the commands
// that use a broker do.
func TestAGameLinksNoBrokerItDoesNotUse(t *testing.T) {
	for pkg, wantNATS := range map[string]bool{
		"github.com/ecsinspect/ecsinspect/inspector":        false,
		"github.com/ecsinspect/ecsinspect/demo":             false,
		"github.com/ecsinspect/ecsinspect/inspector/broker": true,
		"github.com/ecsinspect/ecsinspect/cmd/demo":         true,
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list: %v (the test needs the go command, as go test does)", err)
		}
		if has := strings.Contains(string(out), "github.com/nats-io/"); has != wantNATS {
			t.Errorf("%s depends on NATS: %v, want %v", pkg, has, wantNATS)
		}
	}
}

// TestABrokerNeedsItsTransport: a game that sets Options.Broker without
// importing the broker transport is told at Start what to import.
func TestABrokerNeedsItsTransport(t *testing.T) {
	a := inspector.New(ecs.NewWorld(), inspector.Options{Broker: "nats://127.0.0.1:4222", Instance: "lonely"})
	defer a.Close()
	err := a.Start()
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/ecsinspect/ecsinspect/inspector/broker"`) {
		t.Fatalf("Start with a broker and no transport: %v", err)
	}
}

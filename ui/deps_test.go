package ui

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUIImportsNoKernel: the UI knows games only through the protocol.
func TestUIImportsNoKernel(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v (the test needs the go command, as go test does)", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/ecsinspect/ecsinspect/ecs" || dep == "github.com/ecsinspect/ecsinspect/inspector" {
			t.Errorf("the ui package depends on %s", dep)
		}
	}
}

// TestUIReachesBrokersOnlyThroughTheClient: no file of the UI speaks NATS;
// package client owns broker connections.
func TestUIReachesBrokersOnlyThroughTheClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "github.com/nats-io/") {
			t.Errorf("the ui package imports %s", imp)
		}
	}
}

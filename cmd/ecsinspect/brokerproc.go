package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet/localbroker/spec"
)

// The local fleet's broker runs as a program of its own,
// ecsinspect-broker: a NATS server is half of what building ecsinspect
// would cost, and only `ecsinspect fleet` needs one.

// runningBroker is the local broker as the fleet command uses it.
type runningBroker interface {
	Port() int
	Shutdown()
}

// startBroker starts the local broker (tests start one in-process).
var startBroker = spawnBroker

// brokerProgram is the broker's command name.
const brokerProgram = "ecsinspect-broker"

// brokerStartTimeout bounds the wait for the broker's first line.
const brokerStartTimeout = 20 * time.Second

// spawnBroker starts ecsinspect-broker with o and waits until it serves.
func spawnBroker(o spec.Options, out io.Writer) (runningBroker, error) {
	path, err := findBroker(out)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("fleet: starting %s: %w", path, err)
	}
	c := &childBroker{cmd: cmd, in: in}
	if err := json.NewEncoder(in).Encode(o); err != nil { // one line
		c.Shutdown()
		return nil, fmt.Errorf("fleet: %s: %w", brokerProgram, err)
	}
	first := make(chan []byte, 1)
	go func() {
		line, _ := bufio.NewReader(io.LimitReader(stdout, 4096)).ReadBytes('\n')
		first <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var line []byte
	select {
	case line = <-first:
	case <-time.After(brokerStartTimeout):
		c.Shutdown()
		return nil, fmt.Errorf("fleet: %s said nothing in %v", brokerProgram, brokerStartTimeout)
	}
	var s struct {
		Port  int    `json:"port"`
		Error string `json:"error"`
	}
	switch err := json.Unmarshal(line, &s); {
	case err != nil:
		c.Shutdown()
		return nil, fmt.Errorf("fleet: %s's first line %q: %v", brokerProgram, line, err)
	case s.Error != "":
		c.Shutdown()
		return nil, errors.New(s.Error)
	}
	c.port = s.Port
	return c, nil
}

// childBroker is ecsinspect-broker running: it serves until its input
// closes.
type childBroker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	port int
}

// Port is the broker's port on loopback.
func (c *childBroker) Port() int { return c.port }

// Shutdown closes the broker's input and waits for it to end (killing it
// after 5 s).
func (c *childBroker) Shutdown() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// findBroker is the path of ecsinspect-broker: beside this program (go
// install ./cmd/... puts them together), on PATH, or, run from the
// source tree (go run ./cmd/ecsinspect fleet), built there into the
// user's cache once (go build keeps it current after).
func findBroker(out io.Writer) (string, error) {
	name := brokerProgram + exeSuffix()
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isFile(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(brokerProgram); err == nil {
		return p, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("fleet: the local broker is its own program, %s, and it is not beside ecsinspect nor on PATH: go install github.com/ecsinspect/ecsinspect/cmd/%s", brokerProgram, brokerProgram)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dst := filepath.Join(cache, "ecsinspect", name)
	fmt.Fprintf(out, "fleet: building the local broker (%s; the first time takes about a minute)...\n", brokerProgram)
	build := exec.Command(goTool, "build", "-o", dst, "github.com/ecsinspect/ecsinspect/cmd/"+brokerProgram)
	build.Stdout, build.Stderr = out, out
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("fleet: building %s (run fleet from the ecsinspect source tree, or go install github.com/ecsinspect/ecsinspect/cmd/%s): %w", brokerProgram, brokerProgram, err)
	}
	return dst, nil
}

// isFile reports whether p is a regular file.
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// exeSuffix is what executables' names end with here.
func exeSuffix() string {
	if filepath.Separator == '\\' {
		return ".exe"
	}
	return ""
}

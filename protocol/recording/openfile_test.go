//go:build unix

package recording

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOIsNoRecording: a FIFO named as a recording, or lying among a
// flight recording's segments, is refused or passed over at once, never
// waited on (nothing ever writes to it here).
func TestFIFOIsNoRecording(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.ecsrec")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := OpenRecording(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO opened as a recording: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("opening a FIFO as a recording waits for a writer")
	}
	flight := filepath.Join(dir, "flight.ecsrec")
	if err := os.Mkdir(flight, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(flight, "000001.ecsrec"), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := OpenRecording(flight)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a flight recording of one FIFO opened")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO among a flight recording's segments is waited on")
	}
}

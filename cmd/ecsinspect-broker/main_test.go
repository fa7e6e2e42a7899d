package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestRunSaysWhatItDid: options that do not parse get a one-line error
// and exit 1; good ones get the port, then the broker serves until its
// input ends, and exits 0.
func TestRunSaysWhatItDid(t *testing.T) {
	var out bytes.Buffer
	if code := run(strings.NewReader("{not json\n"), &out); code != 1 || !strings.Contains(out.String(), `"error":"ecsinspect-broker: the options`) {
		t.Fatalf("bad options: exit %d, said %q", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader(""), &out); code != 1 || !strings.Contains(out.String(), "reading the options") {
		t.Fatalf("no options: exit %d, said %q", code, out.String())
	}
	out.Reset()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() { done <- run(pr, &out) }() // out is read once run returned
	if _, err := pw.Write([]byte(`{"port":0}` + "\n")); err != nil {
		t.Fatal(err)
	}
	pw.Close() // the parent is gone: the broker stops
	if code := <-done; code != 0 {
		t.Fatalf("exit %d, said %q", code, out.String())
	}
	var s started
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Port == 0 || s.Error != "" {
		t.Fatalf("said %q (%v)", out.String(), err)
	}
}

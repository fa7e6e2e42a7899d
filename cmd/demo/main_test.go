package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

func TestServeRecordsAndStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	var out bytes.Buffer
	err := run([]string{"--listen", "127.0.0.1:0", "--entities", "500", "--hz", "500", "--frames", "200", "--record", path}, &out, make(chan os.Signal))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "tick 200 ") || !strings.Contains(out.String(), "recording written") {
		t.Errorf("output:\n%s", out.String())
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) < 3 || rec.Truncated {
		t.Errorf("recording: %d frames, truncated %v", len(rec.Frames), rec.Truncated)
	}
}

func TestBench(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"--entities", "500", "--frames", "50", "--bench"}, &out, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"without the agent", "with one client on the summary", "p99", "agent overhead"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--entities", "5"}, {"--hz", "0"}, {"--bench"}, {"--listen", "0.0.0.0:0", "--frames", "1"}} {
		var out bytes.Buffer
		if err := run(args, &out, nil); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

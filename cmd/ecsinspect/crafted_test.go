package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testpace"
)

// TestDumpCraftedFiles: dump, dump --entity, --query and --diff on the
// crafted recordings (files under 1 MiB built to make a reader allocate or
// index past what it holds, protocol/recording/testdata/crafted) answer with output
// or a clear error, never a panic, and allocate under 1 GiB each.
func TestDumpCraftedFiles(t *testing.T) {
	testpace.SkipUnderRace(t, "dump decoding hundreds of MiB on one goroutine")
	files, err := filepath.Glob(filepath.Join("..", "..", "protocol", "recording", "testdata", "crafted", "*.ecsrec"))
	if err != nil || len(files) < 5 {
		t.Fatalf("the crafted corpus: %v, %v", files, err)
	}
	for _, f := range files {
		for _, args := range [][]string{
			{"dump", f},
			{"dump", f, "--entity", "1v1", "--json"},
			{"dump", f, "--query", "Pos"},
			{"dump", f, "--diff", "1", "50"},
			{"dump", f, "--first", "Pos"},
			{"dump", f, "--history", "1v1", "--json"},
		} {
			t.Run(filepath.Base(f)+" "+strings.Join(args[2:], " "), func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				code, out, errs := cli(args...)
				runtime.ReadMemStats(&after)
				if code != 0 && strings.TrimSpace(errs) == "" {
					t.Fatalf("exit %d with no error said; out %q", code, out)
				}
				if strings.Contains(errs, "panic") || strings.Contains(out, "panic") {
					t.Fatalf("panicked: %s", errs)
				}
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
					t.Fatalf("allocated %d MiB", alloc>>20)
				}
			})
		}
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestDemoRunsAndReports(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"demo", "--headless", "--entities", "500", "--hz", "1000", "--frames", "50"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), "tick 50 ") || !strings.Contains(out.String(), "entities") {
		t.Errorf("no final status line:\n%s", out.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"demo", "--entities", "5"}, {"demo", "--hz", "0"}, {"nope"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
		if errs.Len() == 0 {
			t.Errorf("%v: no error message", args)
		}
	}
	var out bytes.Buffer
	if run([]string{"--version"}, &out, &out) != 0 || !strings.HasPrefix(out.String(), "ecsinspect ") {
		t.Errorf("--version: %q", out.String())
	}
}

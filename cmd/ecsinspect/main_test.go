package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
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

// TestReorderAsksTheFlag: a boolean flag takes no value, whatever its
// name; any other flag takes the next argument.
func TestReorderAsksTheFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("brand-new-bool", false, "")
	fs.String("name", "", "")
	got := reorder(fs, []string{"ADDR", "--brand-new-bool", "POS", "--name", "N", "LAST"})
	want := []string{"--brand-new-bool", "--name", "N", "ADDR", "POS", "LAST"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("reorder = %q, want %q", got, want)
	}
}

// TestExitCodes: 0 done, 1 the command failed, 2 it was called wrong.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"dump"}, 2},
		{[]string{"dump", "--nope", "x"}, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"record", "127.0.0.1:1"}, 2},
		{[]string{"dump", "127.0.0.1:1"}, 1},
		{[]string{"open", "/nonexistent.ecsrec"}, 1},
		{[]string{"dump", "--help"}, 0},
	} {
		var out bytes.Buffer
		if code := run(c.args, &out, &out); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, out.String())
		}
	}
}

// TestTokenPrintsARandomToken: ecsinspect token prints a new token each
// time, one that games and clients take.
func TestTokenPrintsARandomToken(t *testing.T) {
	var a, b, errs strings.Builder
	if run([]string{"token"}, &a, &errs) != 0 || run([]string{"token"}, &b, &errs) != 0 {
		t.Fatalf("token failed: %s", errs.String())
	}
	ta, tb := strings.TrimSpace(a.String()), strings.TrimSpace(b.String())
	if ta == tb || protocol.CheckToken(ta) != nil || len(ta) != 32 {
		t.Fatalf("token printed %q then %q: want two random tokens of 32 characters", ta, tb)
	}
	if run([]string{"token", "extra"}, &a, &errs) != 2 {
		t.Error("token with an argument is not a usage error")
	}
}

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestNoEscapeReachesTheTerminal: a game whose system name, string field,
// map keys, resource, game name and client (the writer of an edit) hold
// escape sequences and a forged line, dumped live and from its recording
// as text and as JSON: what the commands write holds no control character
// but the line breaks they make themselves (JSON's strings escape DEL and
// C1 as \u00XX, which reads back as the game's text), and no forged line.
func TestNoEscapeReachesTheTerminal(t *testing.T) {
	addr, e := testgame.Hostile(t)
	path := filepath.Join(t.TempDir(), "hostile.ecsrec")
	if code, out, errs := cli("record", addr, "-o", path, "--frames", "3"); code != 0 {
		t.Fatalf("record: %d %s %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"dump", addr},
		{"dump", addr, "--entity", e.String()},
		{"dump", addr, "--query", "Label"},
		{"dump", addr, "--resource", "Banner"},
		{"dump", path},
		{"dump", path, "--entity", e.String()},
		{"dump", path, "--query", "Tags"},
		{"exec", addr, "hits"},
		{"dump", addr, "--json"},
		{"dump", addr, "--entity", e.String(), "--json"},
		{"dump", path, "--json"},
		{"dump", path, "--query", "Tags", "--json"},
		{"dump", path, "--history", e.String(), "--json"},
		{"exec", addr, "hits", "--json"},
		{"exec", addr, "add", e.String(), "Nope" + testgame.Escapes}, // the agent's error echoes the name
	} {
		code, out, errs := cli(args...)
		if failing := strings.HasPrefix(args[len(args)-1], "Nope"); (code != 0) != failing {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		for name, text := range map[string]string{"stdout": out, "stderr": errs} {
			if bad := strings.IndexFunc(text, func(r rune) bool { return (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) }); bad >= 0 {
				t.Errorf("%v wrote a control character to %s at %d: %q", args, name, bad, text[max(0, bad-40):min(len(text), bad+40)])
			}
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "FORGED") {
					t.Errorf("%v: a forged line on %s: %q", args, name, line)
				}
			}
		}
		if strings.Join(args[:2], " ") == "dump "+addr && len(args) == 2 && !strings.Contains(out, `\x1b]0;pwned\a`) {
			t.Errorf("%v does not show the escaped text:\n%s", args, out)
		}
	}
}

// TestDumpTakesEveryTick: --tick takes any tick the format holds (up to
// 2^64-1; one past a recording's end shows its last state, said so), and
// refuses what is not one with the range named.
func TestDumpTakesEveryTick(t *testing.T) {
	path := testgame.Record(t)
	code, out, errs := cli("dump", path, "--tick", "18446744073709551615")
	if code != 0 || !strings.Contains(out, "state as of tick") {
		t.Fatalf("dump --tick 2^64-1: %d\n%s%s", code, out, errs)
	}
	if code, _, errs := cli("dump", path, "--tick", "-1"); code == 0 || !strings.Contains(errs, "a tick is a whole number from 0 to 18446744073709551615") {
		t.Fatalf("dump --tick -1: %d %s", code, errs)
	}
}

// TestDumpSaysStoppedInsideAFrame: a game a watchpoint stopped inside a
// frame is dumped as stopped there, after the system named, not as
// paused between frames.
func TestDumpSaysStoppedInsideAFrame(t *testing.T) {
	addr, _, _ := liveDemo(t)
	if code, out, errs := cli("exec", addr, "watch", "Energy.Value<100000"); code != 0 {
		t.Fatalf("watch: %d %s %s", code, out, errs)
	}
	if code, out, errs := cli("exec", addr, "wait", "--timeout", "1m"); code != 0 {
		t.Fatalf("wait: %d %s %s", code, out, errs)
	}
	code, out, errs := cli("dump", addr)
	if code != 0 || !regexp.MustCompile(`STOPPED inside frame \d+ after \w+`).MatchString(out) || strings.Contains(out, "PAUSED") {
		t.Fatalf("dump of a game stopped inside a frame: %d %s %s", code, out, errs)
	}
}

package client

import (
	"strings"
	"testing"
)

func TestTypedInput(t *testing.T) {
	for _, c := range []struct{ kind, in, want, err string }{
		{"int", "-42", "-42", ""},
		{"int", "4.5", "", "whole number"},
		{"uint", "-1", "", "≥ 0"},
		{"float", " 3.25 ", "3.25", ""},
		{"float", "abc", "", "wants a number"},
		{"bool", "true", "true", ""},
		{"bool", "yes", "", "true or false"},
		{"entity", "42v3", `"42v3"`, ""},
		{"entity", "none", "0", ""},
		{"entity", "42", "0", "like 42v3"},
		{"string", `"quoted"`, `"quoted"`, ""},
		{"string", "bare words", `"bare words"`, ""},
	} {
		v, err := TypedInput(c.kind, c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %q: error %v, want one saying %q", c.kind, c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s %q: %v", c.kind, c.in, err)
		case c.err == "" && v.String() != c.want:
			t.Errorf("%s %q = %s, want %s", c.kind, c.in, v, c.want)
		}
	}
}

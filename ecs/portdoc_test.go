package ecs

import (
	"os"
	"strings"
	"testing"
)

// TestPortingDocShowsTheExample: the port PORTING.md shows is the one
// Example_port runs (its types and systems, as written there).
func TestPortingDocShowsTheExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/PORTING.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("port_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(ex)
	types := src[strings.Index(src, "type ("):strings.Index(src, "func Example_port")]
	systems := src[strings.Index(src, "\tbees := ecs.NewQuery2"):strings.Index(src, "\tplants := ")]
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(systems, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	want := "// ours (ecs's Example_port)\n" + strings.TrimRight(types, "\n") + "\n\n" + strings.Join(lines, "\n") + "\n```"
	if !strings.Contains(string(doc), want) {
		t.Fatalf("PORTING.md's port is not Example_port's:\n%s", want)
	}
}

package ecs

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/doccheck"
)

// TestPortingDocShowsTheExample: the port PORTING.md shows is the one
// Example_port runs (its types and systems, as written there).
func TestPortingDocShowsTheExample(t *testing.T) {
	src := doccheck.Read(t, "port_example_test.go")
	types := strings.TrimRight(src[strings.Index(src, "type ("):strings.Index(src, "func Example_port")], "\n")
	doccheck.Shows(t, "../docs/PORTING.md", "// ours (ecs's Example_port)\n"+types+"\n\n"+doccheck.Between(src, "\tbees := ecs.NewQuery2", "\tplants := "))
}

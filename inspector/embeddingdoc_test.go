package inspector

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/doccheck"
)

// TestEmbeddingDocShowsTheExample: the loop EMBEDDING.md shows is the
// package's Example, which compiles with every test run, so the page
// cannot drift into code that does not build.
func TestEmbeddingDocShowsTheExample(t *testing.T) {
	src := doccheck.Read(t, "example_test.go")
	doccheck.Shows(t, "../docs/EMBEDDING.md", "```go\n"+doccheck.Between(src, "\tagent := inspector.New", "}"))
}

package inspector

import (
	"os"
	"strings"
	"testing"
)

// TestEmbeddingDocShowsTheExample: the loop EMBEDDING.md shows is the
// package's Example, which compiles with every test run, so the page
// cannot drift into code that does not build.
func TestEmbeddingDocShowsTheExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/EMBEDDING.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := string(ex)
	body = body[strings.Index(body, "\tagent := inspector.New"):strings.LastIndex(body, "}")]
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if want := "```go\n" + strings.Join(lines, "\n") + "\n```"; !strings.Contains(string(doc), want) {
		t.Fatalf("EMBEDDING.md's loop is not the Example's body:\n%s", want)
	}
}

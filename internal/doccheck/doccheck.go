// Package doccheck keeps code shown in a document true to code that
// compiles: a test cuts the code out of its source, and doccheck fails the
// test unless the document shows it as a fenced Go block.
//
//	src := doccheck.Read(t, "example_test.go")
//	doccheck.Shows(t, "../docs/EMBEDDING.md", doccheck.Between(src, "\tagent :=", "}"))
package doccheck

import (
	"os"
	"strings"
	"testing"
)

// Read is a file's text; a file that cannot be read fails the test.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Between is src from the first from up to the last until, one tab of
// indentation taken off each line (a function's body as a page shows it).
func Between(src, from, until string) string {
	i := strings.Index(src, from)
	j := strings.LastIndex(src, until)
	if i < 0 || j < i {
		return ""
	}
	lines := strings.Split(strings.TrimRight(src[i:j], "\n"), "\n")
	for k, l := range lines {
		lines[k] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}

// Shows fails the test unless the document at path holds code at the end
// of a fenced Go block (code, then the closing fence).
func Shows(t testing.TB, path, code string) {
	t.Helper()
	if code == "" || !strings.Contains(Read(t, path), code+"\n```") {
		t.Fatalf("%s does not show, as a Go block, the code it should:\n%s", path, code)
	}
}

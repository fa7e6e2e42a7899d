package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock is a fenced Go block of a document.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// codeLines is src's lines of code, trimmed, without blank lines and
// comments standing alone: what a block and the code it shows share,
// whatever the indentation.
func codeLines(src string) []string {
	var out []string
	for l := range strings.SplitSeq(src, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// paragraphs is a block's code cut at its blank lines, each as codeLines
// joined, import lines left out (a file's imports stand apart from the
// code a page shows under them).
func paragraphs(block string) []string {
	var out []string
	for p := range strings.SplitSeq(block, "\n\n") {
		var keep []string
		for _, l := range codeLines(p) {
			if !strings.HasPrefix(l, "import ") {
				keep = append(keep, l)
			}
		}
		if len(keep) > 0 {
			out = append(out, "\n"+strings.Join(keep, "\n")+"\n")
		}
	}
	return out
}

// TestEveryGoBlockIsCompiledCode: each fenced Go block of the README and
// of docs/ is compiled code: each of its paragraphs (its lines between
// blank lines, lone comments and imports aside) appears in that order,
// one line after another, in one Go file that builds, an Example most
// often (an Example without output is compiled, not run). Declarations a
// fragment leaves out (world, schedule, running) come before it there.
func TestEveryGoBlockIsCompiledCode(t *testing.T) {
	root := "../.."
	var sources []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources = append(sources, "\n"+strings.Join(codeLines(string(b)), "\n")+"\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	blocks := 0
	for _, doc := range docs {
		for _, m := range goBlock.FindAllStringSubmatch(Read(t, doc), -1) {
			blocks++
			found := false
			for _, s := range sources {
				found = true
				for _, p := range paragraphs(m[1]) {
					if !strings.Contains(s, p) {
						found = false
						break
					}
				}
				if found {
					break
				}
			}
			if !found {
				t.Errorf("%s shows Go code no Go file of the module holds (write it as an Example, or show the Example's code):\n%s", filepath.Base(doc), m[1])
			}
		}
	}
	if blocks < 10 {
		t.Fatalf("found %d Go blocks in the README and docs/: the search is broken", blocks)
	}
}

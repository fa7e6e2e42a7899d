package ecs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectionIsOneFileOfDelegates: every method of Inspection is in
// inspect.go, documented, and only hands the call to the world (the work
// is in each topic's file), so the whole tools API reads in one place.
func TestInspectionIsOneFileOfDelegates(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			if id, ok := fd.Recv.List[0].Type.(*ast.Ident); !ok || id.Name != "Inspection" {
				continue
			}
			methods++
			switch {
			case path != "inspect.go":
				t.Errorf("Inspection.%s is in %s, not inspect.go", fd.Name.Name, path)
			case fd.Doc == nil:
				t.Errorf("Inspection.%s has no doc comment", fd.Name.Name)
			case len(fd.Body.List) != 1:
				t.Errorf("Inspection.%s does more than delegate", fd.Name.Name)
			}
		}
	}
	if methods < 30 {
		t.Fatalf("found %d Inspection methods", methods)
	}
	// And the delegates answer: a few, end to end.
	w := NewWorld()
	pos := NewMap[Position](w)
	e := pos.Spawn(Position{3, 4})
	in := w.Inspect()
	if v, ok := in.Value(e, pos.ID()); !ok || v.Interface().(Position) != (Position{3, 4}) {
		t.Fatalf("Value: %v %v", v, ok)
	}
	if b, ok := in.Bytes(e, pos.ID()); !ok || len(b) != 16 {
		t.Fatalf("Bytes: %v %v", b, ok)
	}
	if ents, total := in.Scan(Filter{With: []ComponentID{pos.ID()}}, 0, 10); total != 1 || ents[0] != e {
		t.Fatalf("Scan: %v %d", ents, total)
	}
}

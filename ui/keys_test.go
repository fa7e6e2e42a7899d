package ui

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestEveryBindingIsMatched: a key the help lists must do something: each
// binding of the keymap is matched (key.Matches) somewhere in the UI, so
// rebinding it changes what the key does, not only the help.
func TestEveryBindingIsMatched(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for f := range reflect.TypeFor[keyMap]().Fields() {
		re := regexp.MustCompile(`Matches\(\w+, (k|\w+\.keys)\.` + f.Name + `\)`)
		if !re.MatchString(src.String()) {
			t.Errorf("the binding %s is in the help but no key.Matches uses it", f.Name)
		}
	}
}

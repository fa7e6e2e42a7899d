package protocol

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestProtocolDocCoversEveryMessage keeps PROTOCOL.md true to the code:
// every message type has its heading with its number, and every field of it
// (and of the structures it carries) a row with its key.
func TestProtocolDocCoversEveryMessage(t *testing.T) {
	b, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	checked := map[reflect.Type]bool{}
	var check func(rt reflect.Type, heading string)
	check = func(rt reflect.Type, heading string) {
		if checked[rt] || rt == reflect.TypeOf(Value{}) {
			return
		}
		checked[rt] = true
		i := strings.Index(doc, "\n"+heading+"\n")
		if i < 0 {
			t.Errorf("PROTOCOL.md has no heading %q", heading)
			return
		}
		section := doc[i+1:]
		if j := strings.Index(section[1:], "\n### "); j >= 0 {
			section = section[:j+1]
		}
		for f := range rt.Fields() {
			key := strings.Split(f.Tag.Get("msgpack"), ",")[0]
			if key == "-" || !f.IsExported() {
				continue // never on the wire
			}
			if !strings.Contains(section, "| `"+key+"` |") {
				t.Errorf("%s: field %s (key %q) is not documented", heading, f.Name, key)
			}
			ft := f.Type
			for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft.PkgPath() == rt.PkgPath() {
				check(ft, "### "+ft.Name())
			}
		}
	}
	for typ := range Type(255) {
		m, err := newMessage(typ)
		if err != nil {
			continue
		}
		rt := reflect.TypeOf(m).Elem()
		check(rt, fmt.Sprintf("### %s (%d)", rt.Name(), typ))
	}
	check(reflect.TypeOf(WorldBody{}), "### WorldBody") // inside WorldFrame.z, compressed
}

package ecs

import "testing"

// FuzzParseEntity: any string either parses to a handle that prints back to
// the same text in canonical form, or is rejected; never a panic.
func FuzzParseEntity(f *testing.F) {
	for _, s := range []string{"42v3", "0v1", "4294967295v4294967295", "", "v", "1v", "01v02", "-1v2", "1v2v3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEntity(s)
		if err != nil {
			return
		}
		back, err := ParseEntity(e.String())
		if err != nil || back != e {
			t.Fatalf("%q parsed to %v, which reads back as %v, %v", s, e, back, err)
		}
	})
}

package protocol

import (
	"bytes"
	"slices"
	"testing"
)

// TestRowSetAsDocumented: PROTOCOL.md's example row set, rows 3, 4 and 9
// of a table of 10, is these bytes both ways.
func TestRowSetAsDocumented(t *testing.T) {
	want := []byte{0x00, 0x03, 0x03, 0x00, 0x04}
	if got := AppendRows(nil, []int32{3, 4, 9}, 10); !bytes.Equal(got, want) {
		t.Errorf("rows 3 4 9 code as % x, the document says % x", got, want)
	}
	rows, err := DecodeRows(want, 10, nil)
	if err != nil || !slices.Equal(rows, []int32{3, 4, 9}) {
		t.Errorf("% x decodes as %v, %v", want, rows, err)
	}
	if got := AppendRows(nil, []int32{0, 1, 2}, 3); !bytes.Equal(got, []byte{0x01}) {
		t.Errorf("every row codes as % x, want 01", got)
	}
}

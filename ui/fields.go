package ui

import (
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// fieldAt finds the schema of a field path like "Position.X" or
// "Stats.Scores[2]" among the summary's components, or nil.
func (m *model) fieldAt(path string) *protocol.FieldSchema {
	if m.summary == nil {
		return nil
	}
	parts := strings.Split(path, ".")
	var fs []protocol.FieldSchema
	for _, c := range m.summary.Components {
		if c.Short == parts[0] {
			fs = c.Fields
		}
	}
	var cur *protocol.FieldSchema
	for _, p := range parts[1:] {
		name, rest, indexed := strings.Cut(p, "[")
		cur = field(fs, name)
		if cur == nil {
			return nil
		}
		for indexed { // each [i] steps into the element
			if cur.Elem == nil {
				return nil
			}
			cur = cur.Elem
			_, rest, indexed = strings.Cut(rest, "[")
		}
		fs = cur.Fields
	}
	return cur
}

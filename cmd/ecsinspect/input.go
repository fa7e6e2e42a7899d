package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// parseInput reads what a person typed as a value when the field's type is
// unknown: a number, true/false, an entity (42v3), or else a string.
func parseInput(s string) protocol.Value {
	s = strings.TrimSpace(s)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return protocol.IntValue(i)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return protocol.FloatValue(f)
	}
	if b, err := strconv.ParseBool(s); err == nil {
		return protocol.BoolValue(b)
	}
	if _, err := protocol.ParseEntityID(s); err == nil {
		return protocol.StringValue(s) // the kernel reads "42v3" for entity fields
	}
	if unq, err := strconv.Unquote(s); err == nil {
		return protocol.StringValue(unq)
	}
	return protocol.StringValue(s)
}

// typedInput reads what a person typed for a field of a schema kind, or
// says what the field wants; nothing is sent until it reads.
func typedInput(kind, text string) (protocol.Value, error) {
	s := strings.TrimSpace(text)
	switch kind {
	case "int":
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return protocol.Nil(), fmt.Errorf("wants a whole number, got %q", s)
		}
		return protocol.IntValue(i), nil
	case "uint":
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return protocol.Nil(), fmt.Errorf("wants a whole number ≥ 0, got %q", s)
		}
		return protocol.UintValue(u), nil
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return protocol.Nil(), fmt.Errorf("wants a number, got %q", s)
		}
		return protocol.FloatValue(f), nil
	case "bool":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return protocol.Nil(), fmt.Errorf("wants true or false, got %q", s)
		}
		return protocol.BoolValue(b), nil
	case "entity":
		if s == "" || s == "none" || s == "0" {
			return protocol.IntValue(0), nil
		}
		if _, err := protocol.ParseEntityID(s); err != nil {
			return protocol.Nil(), fmt.Errorf("wants an entity like 42v3 (or none), got %q", s)
		}
		return protocol.StringValue(s), nil
	case "string":
		if unq, err := strconv.Unquote(s); err == nil {
			return protocol.StringValue(unq), nil
		}
		return protocol.StringValue(text), nil
	}
	return parseInput(s), nil
}

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

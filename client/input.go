package client

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// ParseInput reads what a person typed as a value when the field's type is
// unknown: a number, true/false, an entity (42v3), or else a string.
func ParseInput(s string) protocol.Value {
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

// TypedInput reads what a person typed for a field of a schema kind, or
// says what the field wants; nothing is sent until it reads.
func TypedInput(kind, text string) (protocol.Value, error) {
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
	return ParseInput(s), nil
}

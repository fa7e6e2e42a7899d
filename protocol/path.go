package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// Value paths: where a value sits inside a component or a resource. A path
// is a field name, then any of .Field, [i] (an item of a list) and [key]
// (an entry of a map): "HP", "Pos.X", "Slots[2]", "Grid[3][7]",
// "ByName[wolf].Energy". A key that holds [, ], " or is empty is written
// quoted as Go quotes it: ByName["a]b"]. The empty path is the value
// itself; a path may start with a step in brackets ("[3]" in a resource
// that is a list).

// PathStep is one step of a value path: a struct field by Name, or, with
// Keyed, a list item or map entry by Key.
type PathStep struct {
	Name  string
	Key   string
	Keyed bool
}

// ParsePath splits a value path into its steps.
func ParsePath(path string) ([]PathStep, error) {
	var steps []PathStep
	rest := path
	first := true
	for rest != "" {
		switch {
		case rest[0] == '[':
			key, after, err := cutKey(rest[1:])
			if err != nil {
				return nil, fmt.Errorf("path %q: %w", path, err)
			}
			steps = append(steps, PathStep{Key: key, Keyed: true})
			rest = after
		case rest[0] == '.' && !first:
			rest = rest[1:]
			fallthrough
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("path %q has an empty field name", path)
			}
			steps = append(steps, PathStep{Name: rest[:end]})
			rest = rest[end:]
		}
		first = false
	}
	return steps, nil
}

// cutKey reads a bracketed key after its [: plain up to ], or Go-quoted.
func cutKey(s string) (key, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("a quoted key does not end: %w", err)
		}
		key, _ = strconv.Unquote(q)
		s = s[len(q):]
		if !strings.HasPrefix(s, "]") {
			return "", "", fmt.Errorf("missing ] after the key %s", q)
		}
		return key, s[1:], nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", "", fmt.Errorf("missing ]")
	}
	if end == 0 {
		return "", "", fmt.Errorf(`an empty key: write [""] for the empty string`)
	}
	return s[:end], s[end+1:], nil
}

// ChildPath is the path of a child of the value at path: field name (a
// struct's), or key (a list's index or a map's key, keyed).
func ChildPath(path, key string, keyed bool) string {
	if !keyed {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	if key == "" || strings.ContainsAny(key, `[]"`) {
		key = strconv.Quote(key)
	}
	return path + "[" + key + "]"
}

// At returns the value at a path inside v (see ParsePath: "HP", "Pos.X",
// "Slots[2]", "Counts[wolf]"), if v has it. A field or a map key names a
// map entry; a number in brackets an item of a list.
func (v Value) At(path string) (Value, bool) {
	steps, err := ParsePath(path)
	if err != nil {
		return Value{}, false
	}
	for _, st := range steps {
		if v, err = v.step(st); err != nil {
			return Value{}, false
		}
	}
	return v, true
}

// step is the child of v that st names.
func (v Value) step(st PathStep) (Value, error) {
	if st.Keyed && v.kind == KindList {
		i, err := strconv.Atoi(st.Key)
		if err != nil || i < 0 || i >= v.Len() {
			return Value{}, fmt.Errorf("a list of %d items has no item [%s]", v.Len(), st.Key)
		}
		return v.Index(i), nil
	}
	name := st.Name
	if st.Keyed {
		name = st.Key
	}
	c, ok := v.Get(name)
	if !ok {
		return Value{}, fmt.Errorf("no %s here", name)
	}
	return c, nil
}

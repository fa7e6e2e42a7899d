package protocol

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"
)

// The generic msgpack decoder converts a number to the width of its field
// without a word (65537 into a uint16 is 1) and takes any bytes as a string.
// A client's message is checked against its struct before that happens:
// every integer must fit its field exactly and every string, map key and
// value string must be valid UTF-8. A client message with a wrong number is
// refused, never read as another number.

// strictCheck checks body, the generic decoding of a client message's body,
// against the fields of m's struct.
func strictCheck(m Message, body any) error {
	fields, ok := body.(map[string]any)
	if !ok {
		if body == nil {
			return nil
		}
		return fmt.Errorf("protocol: %s body is a %s, not a map", typeName(m), describeGeneric(body))
	}
	return checkStruct(reflect.TypeOf(m).Elem(), fields, typeName(m))
}

func typeName(m Message) string { return strings.TrimPrefix(fmt.Sprintf("%T", m), "*protocol.") }

var valueType = reflect.TypeFor[Value]()

func checkStruct(t reflect.Type, fields map[string]any, where string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("msgpack"), ",")
		if key == "" || key == "-" {
			continue
		}
		v, present := fields[key]
		if !present || v == nil {
			continue
		}
		if err := checkField(f.Type, v, where+"."+key); err != nil {
			return err
		}
	}
	return nil
}

func checkField(t reflect.Type, v any, where string) error {
	if t == valueType {
		return checkText(v, where)
	}
	switch t.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		u, ok := asUint(v)
		if !ok {
			return fmt.Errorf("protocol: %s wants a whole number of 0 or more, got %s", where, describeGeneric(v))
		}
		if bits := t.Bits(); bits < 64 && u >= 1<<bits {
			return fmt.Errorf("protocol: %s: %d does not fit in %d bits", where, u, bits)
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		i, ok := asInt(v)
		if !ok {
			return fmt.Errorf("protocol: %s wants a whole number, got %s", where, describeGeneric(v))
		}
		if bits := t.Bits(); bits < 64 && (i < -(1<<(bits-1)) || i >= 1<<(bits-1)) {
			return fmt.Errorf("protocol: %s: %d does not fit in %d bits", where, i, bits)
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case float64, float32, int64, uint64, int8, int16, int32, uint8, uint16, uint32:
		default:
			return fmt.Errorf("protocol: %s wants a number, got %s", where, describeGeneric(v))
		}
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("protocol: %s wants a string, got %s", where, describeGeneric(v))
		}
		if !utf8.ValidString(s) {
			return fmt.Errorf("protocol: %s is not valid UTF-8", where)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("protocol: %s wants true or false, got %s", where, describeGeneric(v))
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // bytes: a msgpack bin
			if _, ok := v.([]byte); !ok {
				return fmt.Errorf("protocol: %s wants bytes, got %s", where, describeGeneric(v))
			}
			return nil
		}
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("protocol: %s wants an array, got %s", where, describeGeneric(v))
		}
		for i, it := range items {
			if it == nil {
				return fmt.Errorf("protocol: %s[%d] is nil", where, i)
			}
			if err := checkField(t.Elem(), it, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("protocol: %s wants a map, got %s", where, describeGeneric(v))
		}
		return checkStruct(t, m, where)
	}
	return nil
}

// checkText checks that every string in a generic value, map keys
// included, is valid UTF-8.
func checkText(v any, where string) error {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return fmt.Errorf("protocol: %s holds a string that is not valid UTF-8", where)
		}
	case []any:
		for _, it := range x {
			if err := checkText(it, where); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, it := range x {
			if !utf8.ValidString(k) {
				return fmt.Errorf("protocol: %s holds a key that is not valid UTF-8", where)
			}
			if err := checkText(it, where); err != nil {
				return err
			}
		}
	}
	return nil
}

func asUint(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int64:
		return uint64(x), x >= 0
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	}
	return 0, false
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

// describeGeneric names a generic msgpack value's kind for an error,
// quoting at most a short prefix of it.
func describeGeneric(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		if len(x) > 32 {
			x = x[:32] + "…"
		}
		return fmt.Sprintf("the string %q", strings.ToValidUTF8(x, "\uFFFD"))
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	case map[string]any:
		return fmt.Sprintf("a map of %d keys", len(x))
	case bool:
		return fmt.Sprintf("the bool %v", x)
	case []byte:
		return fmt.Sprintf("%d bytes of binary", len(x))
	}
	return fmt.Sprintf("the number %v", v)
}

// genericBody decodes the body (second element) of a message array
// generically, for strictCheck; msgpack maps with non-string keys are
// refused there.
func genericBody(b []byte) (any, error) {
	var parts []any
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	if err := decodeSafe(dec, &parts); err != nil {
		return nil, err
	}
	if len(parts) < 2 {
		return nil, nil
	}
	return parts[1], nil
}

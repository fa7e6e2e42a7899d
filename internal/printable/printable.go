package printable

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Text is s with every control character (C0, DEL, C1; line breaks and
// tabs too) and every byte that is not UTF-8 written as a Go escape
// (\x1b, \n, \u009b), so that printing it moves no cursor, starts no
// sequence and breaks no line. Text without them is returned as it is,
// with no allocation.
func Text(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of s's first byte Text rewrites, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether r is a control character a terminal acts on.
func unsafeRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x2028 || r == 0x2029
}

// Clean rewrites with Text, in place, every string that v reaches through
// pointers, structs' exported fields, slices, arrays, maps and interfaces:
// v is a message about to be shown. Types that keep their text unexported
// (protocol.Value) show it through their own String, which escapes it.
// A string that needs no escape is not written to.
func Clean(v any) { walk(reflect.ValueOf(v), true, 0) }

// Dirty reports whether Clean would change anything v reaches, changing
// nothing: a message shared with others can be copied before it is
// cleaned, and only when it must.
func Dirty(v any) bool { return walk(reflect.ValueOf(v), false, 0) }

// maxDepth bounds the walk: messages are trees, a few levels deep.
const maxDepth = 64

// walk looks at every string v reaches, rewriting those that need it when
// fix, and reports whether one did.
func walk(v reflect.Value, fix bool, depth int) bool {
	if !v.IsValid() || depth > maxDepth {
		return false
	}
	switch v.Kind() {
	case reflect.String:
		if firstUnsafe(v.String()) < 0 {
			return false
		}
		if fix && v.CanSet() {
			v.SetString(Text(v.String()))
		}
		return true
	case reflect.Pointer:
		return !v.IsNil() && walk(v.Elem(), fix, depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		e := v.Elem()
		if !fix || !v.CanSet() || e.Kind() == reflect.Pointer {
			return walk(e, fix, depth+1)
		}
		// What an interface holds is not addressable: clean a copy and
		// put it back.
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		if !walk(c, true, depth+1) {
			return false
		}
		v.Set(c)
		return true
	case reflect.Struct:
		found := false
		for _, i := range textFields(v.Type()) {
			if walk(v.Field(i), fix, depth+1) {
				if found = true; !fix {
					return true
				}
			}
		}
		return found
	case reflect.Slice, reflect.Array:
		if !holdsText(v.Type().Elem()) {
			return false // numbers, and bytes (shown as bytes)
		}
		found := false
		for i := range v.Len() {
			if walk(v.Index(i), fix, depth+1) {
				if found = true; !fix {
					return true
				}
			}
		}
		return found
	case reflect.Map:
		return walkMap(v, fix, depth)
	}
	return false
}

// textFields is the exported fields of struct type t that may hold text,
// by index: the walk skips the others (numbers, handles, byte slices).
func textFields(t reflect.Type) []int {
	if f, ok := fieldsOf.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
			out = append(out, i)
		}
	}
	fieldsOf.Store(t, out)
	return out
}

var fieldsOf, textOf sync.Map // reflect.Type: []int, bool

// holdsText reports whether a value of type t may reach a string the
// walk looks at.
func holdsText(t reflect.Type) bool {
	if b, ok := textOf.Load(t); ok {
		return b.(bool)
	}
	textOf.Store(t, true) // a type that reaches itself: assume it may
	b := holdsTextUncached(t, 0)
	textOf.Store(t, b)
	return b
}

func holdsTextUncached(t reflect.Type, depth int) bool {
	if depth > maxDepth {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface, reflect.Map:
		return true
	case reflect.Pointer, reflect.Array:
		return holdsText(t.Elem())
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && holdsText(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsText(f.Type) {
				return true
			}
		}
	}
	return false
}

// walkMap looks at a map's string keys and its values.
func walkMap(m reflect.Value, fix bool, depth int) bool {
	if m.IsNil() {
		return false
	}
	found := false
	for _, k := range m.MapKeys() {
		e := m.MapIndex(k)
		fresh := reflect.New(e.Type()).Elem()
		fresh.Set(e)
		dirtyKey := k.Kind() == reflect.String && firstUnsafe(k.String()) >= 0
		dirtyValue := walk(fresh, fix, depth+1)
		if !dirtyKey && !dirtyValue {
			continue
		}
		if found = true; !fix {
			return true
		}
		nk := k
		if dirtyKey {
			nk = reflect.New(k.Type()).Elem()
			nk.SetString(Text(k.String()))
			m.SetMapIndex(k, reflect.Value{})
		}
		m.SetMapIndex(nk, fresh)
	}
	return found
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/ecsinspect/ecsinspect/internal/printable"
)

// Every JSON the command line writes goes through marshalJSON: JSON
// escapes the control characters below space, and marshalJSON escapes
// the rest a terminal acts on (DEL and the C1 controls, U+0080 to U+009F:
// U+009B starts a sequence on many terminals) as \u00XX, which reads back
// as the same string. v's strings come from a game or a file.

// marshalJSON is v as JSON (indented two spaces when indent), safe to
// print on a terminal.
func marshalJSON(v any, indent bool) ([]byte, error) {
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	return escapeTerminalControls(b), nil
}

// writeJSON writes v as indented JSON and a line break, as --json does.
func writeJSON(out io.Writer, v any) error {
	b, err := marshalJSON(v, true)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// escapeTerminalControls rewrites DEL and the C1 controls in JSON text as
// \u00XX escapes (they can only stand inside its strings).
func escapeTerminalControls(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if r == 0x7f || r >= 0x80 && r <= 0x9f {
			if out == nil {
				out = make([]byte, 0, len(b)+16)
			}
			out = append(out, b[last:i]...)
			out = append(out, `\u00`...)
			out = append(out, strconv.FormatUint(uint64(r)|0x100, 16)[1:]...)
			last = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// shownJSON is v as compact JSON for a line of text output.
func shownJSON(v any) string {
	b, err := marshalJSON(v, false)
	if err != nil {
		return printable.Text(fmt.Sprint(v))
	}
	return string(b)
}

// shownJSONIndent is v as JSON over lines, indented as prefix and indent,
// for text output.
func shownJSONIndent(v any, prefix, indent string) string {
	b, err := json.MarshalIndent(v, prefix, indent)
	if err != nil {
		return printable.Text(fmt.Sprint(v))
	}
	return string(escapeTerminalControls(b))
}

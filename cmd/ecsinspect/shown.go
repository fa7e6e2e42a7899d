package main

import (
	"encoding/json"
	"fmt"

	"github.com/ecsinspect/ecsinspect/internal/printable"
)

// shownJSON is v as compact JSON for a line of text output: JSON escapes
// the control characters below space; the rest a terminal acts on (DEL,
// C1) are escaped too, since v's strings come from a game or a file.
func shownJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return printable.Text(fmt.Sprint(v))
	}
	return printable.Text(string(b))
}

// shownJSONIndent is shownJSON over lines, indented as prefix and indent.
func shownJSONIndent(v any, prefix, indent string) string {
	b, err := json.MarshalIndent(v, prefix, indent)
	if err != nil {
		return printable.Text(fmt.Sprint(v))
	}
	return printable.Text(string(b))
}

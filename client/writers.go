package client

import (
	"fmt"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WriterNote says, in words, who wrote a component's value and who added
// it, as the agent knows: "written at tick 41 by hunt, added at tick 3 by
// spawn (commands)" when the agent saw hunt change it; when only the
// writer log says who held it for writing, that (HeldNote), never as the
// writer; "restored at tick 40 by client 1 (ui)" after a rewind. "" when
// nothing is known.
func WriterNote(c protocol.ComponentValue) string { return WriterNoteWith(c, "") }

// WriterNoteWith is WriterNote with the written part said as written
// says it, when written is not "" (the UI's note of a frame stopped at
// the write).
func WriterNoteWith(c protocol.ComponentValue, written string) string {
	var parts []string
	if r := c.Restored; r != nil { // as a rewind put it back: the writer, if known, is the one before
		parts = append(parts, fmt.Sprintf("restored at tick %d by %s", r.Tick, r.By))
	}
	if w := c.Written; w != nil {
		switch {
		case written != "":
			parts = append(parts, written)
		case w.Seen:
			parts = append(parts, fmt.Sprintf("written at tick %d by %s", w.Tick, w.By))
		default:
			parts = append(parts, HeldNote(w))
		}
	}
	if a := c.Added; a != nil && (c.Written == nil || a.Tick != c.Written.Tick || a.By != c.Written.By) {
		parts = append(parts, fmt.Sprintf("added at tick %d by %s", a.Tick, a.By))
	}
	return strings.Join(parts, ", ")
}

// HeldNote says who held a value for writing when no change was seen: a
// change stamp says only that the last of them held the row, so every
// system of that frame that could have changed it is named (Held), the
// last as such, and none as the writer.
func HeldNote(w *protocol.Provenance) string {
	if len(w.Held) > 1 {
		return fmt.Sprintf("held for writing at tick %d by %s (%s last; which of them changed it was not seen)", w.Tick, strings.Join(w.Held, ", "), w.By)
	}
	return fmt.Sprintf("held for writing at tick %d by %s, which may have left it as it was", w.Tick, w.By)
}

package ui

import (
	"fmt"
	"slices"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// haltWhere says where a frame stopped: "after grazing, system 4 of 11".
func haltWhere(h *protocol.Halt) string {
	n := slices.Index(h.Ran, h.System) + 1
	return fmt.Sprintf("after %s, system %d of %d", h.System, n, h.Of)
}

// haltMark marks a system in the Systems view while a frame is stopped:
// "▶" the system whose write stopped it, "✓" one that has run this frame,
// "·" one still to run.
func haltMark(h *protocol.Halt, name string) string {
	switch {
	case name == h.System:
		return "▶ "
	case slices.Contains(h.Ran, name):
		return "✓ "
	}
	return "· "
}

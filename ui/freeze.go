package ui

import "fmt"

// freezer holds a live list still while the user reads it (f, as k9s
// does): the pane shows its snapshot and counts what came since; f again
// follows the live list.
type freezer struct {
	on    bool
	since int // updates that came while frozen
}

// toggle freezes or follows; it reports whether the list is frozen now.
func (f *freezer) toggle() bool {
	f.on, f.since = !f.on, 0
	return f.on
}

// note counts n updates that came while frozen.
func (f *freezer) note(n int) {
	if f.on {
		f.since += n
	}
}

// banner says the list is frozen, for the pane's header ("" following).
func (f *freezer) banner(what string) string {
	if !f.on {
		return ""
	}
	return fmt.Sprintf("   FROZEN: %d %s since (f follows)", f.since, what)
}

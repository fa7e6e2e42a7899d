package protocol

import "slices"

// JournalFilter is a journal subscription's filter (Subscribe.Filter):
// the entries about one entity (42v3), one component (by name), or made
// by one system. An agent applies it to what it sends; a recording's
// reader applies the same to a frame's journal.
type JournalFilter struct {
	Text      string
	Component int      // the component the text names; -1: none
	Entity    EntityID // the entity it names; 0: none
}

// NewJournalFilter reads text; componentID finds a component's id by its
// name (full or short).
func NewJournalFilter(text string, componentID func(name string) (int, bool)) JournalFilter {
	f := JournalFilter{Text: text, Component: -1}
	if id, ok := componentID(text); ok {
		f.Component = id
	}
	if e, err := ParseEntityID(text); err == nil {
		f.Entity = e
	}
	return f
}

// Keeps reports whether the entry passes the filter; every entry passes
// an empty one.
func (f JournalFilter) Keeps(e *JournalEntry) bool {
	if f.Text == "" {
		return true
	}
	if f.Component >= 0 && (e.Component == f.Component || slices.Contains(e.Components, f.Component)) {
		return true
	}
	return e.System == f.Text || (f.Entity != 0 && e.Entity == f.Entity)
}

package protocol

import (
	"cmp"
	"slices"
)

// DiffLinks is the parents whose children differ between prev and next
// (every parent's children, by parent index): each one's children in
// next, none for a parent next no longer has.
func DiffLinks(prev, next []ChildList) []ChildList {
	was := make(map[EntityID][]EntityID, len(prev))
	for _, l := range prev {
		was[l.Parent] = l.Children
	}
	var out []ChildList
	for _, l := range next {
		if old, ok := was[l.Parent]; !ok || !slices.Equal(old, l.Children) {
			out = append(out, l)
		}
		delete(was, l.Parent)
	}
	for p := range was {
		out = append(out, ChildList{Parent: p})
	}
	slices.SortFunc(out, byParentIndex)
	return out
}

// ApplyLinks is links (every parent's children, by parent index) with
// the changed parents' lists in place: a changed parent with no children
// is one no more. links is not changed.
func ApplyLinks(links, changed []ChildList) []ChildList {
	now := make(map[EntityID]int, len(changed))
	for i, l := range changed {
		now[l.Parent] = i
	}
	out := make([]ChildList, 0, len(links)+len(changed))
	for _, l := range links {
		if _, ok := now[l.Parent]; !ok {
			out = append(out, l)
		}
	}
	for _, l := range changed {
		if len(l.Children) > 0 {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, byParentIndex)
	return out
}

// byParentIndex orders child lists by their parent's index, as the agent
// lists them.
func byParentIndex(a, b ChildList) int { return cmp.Compare(a.Parent.Index(), b.Parent.Index()) }

package ecs

// pager cuts a page out of rows met in order: it skips the first offset,
// keeps at most limit (a negative limit keeps every one after the
// offset), and counts them all. It is the kernel's one paging rule, for
// Scan and an archetype's entities; the query language's Window applies
// the same rule, and a sort, to what the agent evaluates.
type pager struct {
	offset, limit int
	total         int // rows met so far
}

// newPager starts a page of at most limit rows from offset (a negative
// offset counts as 0).
func newPager(offset, limit int) pager { return pager{offset: max(offset, 0), limit: limit} }

// take meets the next rows, in order: it appends to window those that fall
// in the page, copied, and returns it.
func (p *pager) take(window, rows []Entity) []Entity {
	lo, hi := max(p.offset-p.total, 0), len(rows)
	p.total += len(rows)
	if p.limit >= 0 {
		hi = min(hi, lo+p.limit-len(window))
	}
	if lo >= hi {
		return window
	}
	return append(window, rows[lo:hi]...)
}

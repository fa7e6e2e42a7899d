package ecs

import "math"

// Pager is the one paging rule of rows met in order: it skips the first
// offset (a negative offset counts as 0), keeps at most limit (a negative
// limit keeps every row past the offset, 0 keeps none) and counts them
// all. The kernel's Scan and ArchetypeEntities page by it; package
// protocol holds a generated copy (internal/sharedgen), by which the query
// language's Window and a resource page's children page.
//
//	p := NewPager(offset, limit)
//	for _, run := range runs {
//		lo, hi := p.Meet(len(run), len(page))
//		page = append(page, run[lo:max(lo, hi)]...)
//	}
//	total := p.Total()
type Pager struct {
	offset, limit int
	total         int // rows met so far
}

// NewPager starts a page of at most limit rows from offset.
func NewPager(offset, limit int) Pager { return Pager{offset: max(offset, 0), limit: limit} }

// Meet counts the next n rows met, given that kept rows are in the page
// already, and says which of them join it: rows[lo:hi] (none when hi <= lo).
func (p *Pager) Meet(n, kept int) (lo, hi int) {
	lo, hi = min(max(p.offset-p.total, 0), n), n
	p.total += n
	if room := p.limit - kept; p.limit >= 0 && room < hi-lo {
		hi = lo + max(room, 0)
	}
	return lo, hi
}

// Total is the number of rows met.
func (p *Pager) Total() int { return p.total }

// Offset is the first row of the page, counted from 0.
func (p *Pager) Offset() int { return p.offset }

// End is the count of rows met past which none joins the page (offset
// plus limit, at most the largest int), or -1 when the page has no limit.
func (p *Pager) End() int {
	if p.limit < 0 {
		return -1
	}
	if p.offset > math.MaxInt-p.limit {
		return math.MaxInt
	}
	return p.offset + p.limit
}

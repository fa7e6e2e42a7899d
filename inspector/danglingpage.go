package inspector

import "github.com/ecsinspect/ecsinspect/protocol"

// onGetDangling answers a GetDangling: a page of every dangling handle the
// agent lists, oldest first, grouped by where they are.
func (a *Agent) onGetDangling(r request, m *protocol.GetDangling) {
	if a.dangling == nil {
		r.fail(protocol.ErrState, "the agent does not look for dangling handles (Options.DanglingBudget is negative)")
		return
	}
	limit := protocol.PageLimit(m.Limit) // at most MaxDanglingPage: the door checked it
	list, total, over := a.dangling.Page(m.Offset, limit)
	r.c.Answer(&protocol.DanglingPage{Sub: r.id, Tick: a.tick(), Total: total, Over: over, Offset: m.Offset, List: list})
}

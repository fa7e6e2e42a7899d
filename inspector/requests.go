package inspector

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// One handler per request type, carried out on the game goroutine once
// apply has checked the session's rights and the frame's state (a request
// that changes the world runs with the client as the journal's actor).

// request is one client request being carried out: who asked, and its id.
type request struct {
	c  *peer
	id uint32
}

// ok answers the request done.
func (r request) ok() { r.c.Answer(&protocol.Reply{ID: r.id, OK: true}) }

// fail answers the request refused, with the code and the reason.
func (r request) fail(code, msg string) {
	r.c.Answer(&protocol.Reply{ID: r.id, Code: code, Message: msg})
}

// handlers holds each request type's handler.
var handlers = map[protocol.Type]func(a *Agent, r request, m protocol.Message){}

// handle registers f as the handler of M's type.
func handle[M protocol.Message](f func(a *Agent, r request, m M)) {
	var none M // a nil pointer: Type needs no message
	handlers[none.Type()] = func(a *Agent, r request, m protocol.Message) { f(a, r, m.(M)) }
}

func init() {
	handle((*Agent).onSubscribe)
	handle((*Agent).onUnsubscribe)
	handle((*Agent).onQuery)
	handle((*Agent).onGetEntity)
	handle((*Agent).onSetParent)
	handle((*Agent).onSetField)
	handle((*Agent).onAddComponent)
	handle((*Agent).onRemoveComponent)
	handle((*Agent).onSpawn)
	handle((*Agent).onDespawn)
	handle((*Agent).onPause)
	handle((*Agent).onResume)
	handle((*Agent).onStep)
	handle((*Agent).onWatch)
	handle((*Agent).onUnwatch)
	handle((*Agent).onEnableWatch)
	handle((*Agent).onRewind)
	handle((*Agent).onSnapshotRequest)
	handle((*Agent).onGetResource)
	handle((*Agent).onGetDangling)
}

// applyAs is apply's body: the request's handler, or a refusal for a type
// no handler takes.
func (a *Agent) applyAs(r request, m protocol.Message) {
	h := handlers[m.Type()]
	if h == nil {
		r.fail(protocol.ErrProtocol, fmt.Sprintf("message type %d is not a request an agent takes", m.Type()))
		return
	}
	h(a, r, m)
}

// onSubscribe carries out a Subscribe.
func (a *Agent) onSubscribe(r request, m *protocol.Subscribe) {
	if _, replaces := r.c.subs[m.ID]; !replaces && len(r.c.subs) >= protocol.MaxSubscriptions {
		r.fail(protocol.ErrTooLarge, fmt.Sprintf("a client has at most %d subscriptions: unsubscribe one first", protocol.MaxSubscriptions))
		return
	}
	if err := a.subscribe(r.c, m); err != nil {
		r.fail(codeOf(err), err.Error())
		return
	}
	r.ok()
}

// onUnsubscribe carries out a Unsubscribe.
func (a *Agent) onUnsubscribe(r request, m *protocol.Unsubscribe) {
	if _, found := r.c.subs[m.Sub]; !found {
		r.fail(protocol.ErrNotFound, fmt.Sprintf("no subscription %d", m.Sub))
		return
	}
	a.unsubscribe(r.c, m.Sub)
	r.ok()
}

// onQuery carries out a Query.
func (a *Agent) onQuery(r request, m *protocol.Query) {
	q, err := a.lw.Compile(m.Expr, m.Sort, a.lastFrameTick)
	if err != nil {
		r.fail(protocol.ErrBadQuery, err.Error())
		return
	}
	limit := protocol.PageLimit(m.Limit)
	if m.Count {
		limit = 0
	}
	a.answerPage(r.c, r.id, q, m.Offset, limit)
}

// onGetEntity carries out a GetEntity.
func (a *Agent) onGetEntity(r request, m *protocol.GetEntity) {
	if err := a.w.CheckAlive(values.Entity(m.Entity)); err != nil {
		if _, kept := a.graves.Find(values.Entity(m.Entity)); kept { // its last state, marked dead
			r.c.Answer(a.detail(r.id, values.Entity(m.Entity), m.Offset))
			return
		}
		r.fail(protocol.ErrStale, trimPkg(err)+a.despawnNote(values.Entity(m.Entity)))
		return
	}
	r.c.Answer(a.detail(r.id, values.Entity(m.Entity), m.Offset))
}

// onSetParent carries out a SetParent.
func (a *Agent) onSetParent(r request, m *protocol.SetParent) {
	child := values.Entity(m.Entity)
	var err error
	if m.Parent == 0 {
		err = a.w.ClearParent(child)
	} else {
		err = a.w.SetParent(child, values.Entity(m.Parent))
	}
	if err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.ok()
}

// onSetField carries out a SetField.
func (a *Agent) onSetField(r request, m *protocol.SetField) {
	if err := a.w.Inspect().SetField(values.Entity(m.Entity), m.Path, m.Value.Interface()); err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.ok()
}

// onAddComponent carries out a AddComponent.
func (a *Agent) onAddComponent(r request, m *protocol.AddComponent) {
	e := values.Entity(m.Entity)
	if err := a.w.CheckAlive(e); err != nil {
		r.fail(protocol.ErrStale, trimPkg(err))
		return
	}
	if info, found := a.w.Inspect().ComponentByName(m.Component); found && a.has(e, info.ID) {
		r.fail(protocol.ErrState, fmt.Sprintf("entity %v has %s already: set its fields, or remove it first", e, info.Short))
		return
	}
	if err := a.addComponent(e, m.Component, m.Value); err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.ok()
}

// onRemoveComponent carries out a RemoveComponent.
func (a *Agent) onRemoveComponent(r request, m *protocol.RemoveComponent) {
	info, found := a.w.Inspect().ComponentByName(m.Component)
	if !found {
		r.fail(protocol.ErrNotFound, "no component named "+m.Component)
		return
	}
	if e := values.Entity(m.Entity); a.w.Alive(e) && !a.has(e, info.ID) {
		r.fail(protocol.ErrNotFound, fmt.Sprintf("entity %v has no %s to remove", e, info.Short))
		return
	}
	if err := a.w.Inspect().RemoveID(values.Entity(m.Entity), info.ID); err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.ok()
}

// onSpawn carries out a Spawn.
func (a *Agent) onSpawn(r request, m *protocol.Spawn) {
	e, err := a.spawn(m.Components)
	if err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.c.Answer(&protocol.Reply{ID: r.id, OK: true, Entity: values.Handle(e)})
}

// onDespawn carries out a Despawn.
func (a *Agent) onDespawn(r request, m *protocol.Despawn) {
	e := values.Entity(m.Entity)
	var err error
	if m.Recursive {
		err = a.w.DespawnRecursive(e)
	} else {
		err = a.w.Despawn(e)
	}
	if err != nil {
		r.fail(codeOf(err), trimPkg(err))
		return
	}
	r.ok()
}

// onPause carries out a Pause (pausing a paused game is fine: it stays paused).
func (a *Agent) onPause(r request, m *protocol.Pause) {
	a.paused, a.stepLeft = true, 0
	a.held = a.held || m.Hold
	r.ok()
}

// onResume carries out a Resume (resuming a running game is fine: it keeps running).
func (a *Agent) onResume(r request, m *protocol.Resume) {
	a.paused, a.stepLeft, a.held = false, 0, false
	r.ok()
}

// onStep carries out a Step.
func (a *Agent) onStep(r request, m *protocol.Step) {
	if !a.paused && a.stepLeft == 0 {
		r.fail(protocol.ErrState, "the game is running: pause it first, then step")
		return
	}
	a.paused, a.stepLeft = false, int(m.N)
	a.held = a.held || m.Hold
	r.ok()
}

// onWatch carries out a Watch.
func (a *Agent) onWatch(r request, m *protocol.Watch) {
	w, err := a.watches.Add(r.c.ID(), m)
	if err != nil {
		r.fail(codeOf(err), err.Error())
		return
	}
	if !a.searchPast(r, w) { // else the reply follows the search of the past
		r.c.Answer(&protocol.Reply{ID: r.id, OK: true, Watch: w})
	}
	a.watches.CatchUp(w) // a hit in the frame in progress goes after the reply
}

// onUnwatch carries out a Unwatch.
func (a *Agent) onUnwatch(r request, m *protocol.Unwatch) {
	if err := a.watches.Remove(m.Watch, a.mayEdit(r.c)); err != nil {
		r.fail(codeOf(err), err.Error())
		return
	}
	r.ok()
}

// onEnableWatch carries out a EnableWatch.
func (a *Agent) onEnableWatch(r request, m *protocol.EnableWatch) {
	if err := a.watches.Enable(m.Watch, m.On, a.mayEdit(r.c)); err != nil {
		r.fail(codeOf(err), err.Error())
		return
	}
	r.ok()
}

// onRewind carries out a Rewind.
func (a *Agent) onRewind(r request, m *protocol.Rewind) {
	tick := m.Tick
	if m.Back > 0 {
		tick = a.w.Frame() - min(m.Back, a.w.Frame())
	}
	a.held = a.held || m.Hold
	a.rewind(r.c, r.id, tick, m.Exact)
}

// onSnapshotRequest carries out a SnapshotRequest.
func (a *Agent) onSnapshotRequest(r request, m *protocol.SnapshotRequest) {
	shared := a.sharedSnapshot()
	r.c.Job(0, true, func() protocol.Message { return shared.answer(r.id) })
}

// mayEdit reports whether c may change the world or its flow.
func (a *Agent) mayEdit(c *peer) bool { return !a.opts.ReadOnly && !c.ReadOnly() }

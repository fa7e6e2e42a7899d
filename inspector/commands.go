package inspector

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// apply carries out one client request on the game goroutine and answers
// it. The request's numbers and sizes were checked on the client's reader
// goroutine (checkRequest); what needs the world is checked here.
func (a *Agent) apply(c *client, m protocol.Message) {
	id := m.(protocol.Request).RequestID()
	ok := func() { c.answer(&protocol.Reply{ID: id, OK: true}) }
	fail := func(code, msg string) { c.answer(&protocol.Reply{ID: id, Code: code, Message: msg}) }
	if (a.opts.ReadOnly || c.readOnly) && changesWorld(m) { // checked at the door too; kept here as the last word
		fail(protocol.ErrReadOnly, fmt.Sprintf("this session is read-only: %s refused", describeRequest(m)))
		return
	}
	if _, ok := m.(*protocol.Rewind); ok && a.mid != nil {
		a.atFrameEnd(c, m)
		return
	}
	if why := a.midFrameRefusal(m); why != "" {
		fail(protocol.ErrState, why)
		return
	}
	// Changes a client makes are journaled as the client's, and their
	// writes attributed to it.
	if changesWorld(m) {
		a.edited = true
		a.w.Inspect().ActAs(c.actor(), func() { a.applyAs(c, m, id, ok, fail) })
		return
	}
	a.applyAs(c, m, id, ok, fail)
}

// applyAs is apply's body, run with the client as the journal's actor.
func (a *Agent) applyAs(c *client, m protocol.Message, id uint32, ok func(), fail func(code, msg string)) {
	switch m := m.(type) {
	case *protocol.Subscribe:
		if _, replaces := c.subs[m.ID]; !replaces && len(c.subs) >= MaxSubscriptions {
			fail(protocol.ErrTooLarge, fmt.Sprintf("a client has at most %d subscriptions: unsubscribe one first", MaxSubscriptions))
			return
		}
		if err := a.subscribe(c, m); err != nil {
			fail(codeOf(err), err.Error())
			return
		}
		ok()
	case *protocol.Unsubscribe:
		if _, found := c.subs[m.Sub]; !found {
			fail(protocol.ErrNotFound, fmt.Sprintf("no subscription %d", m.Sub))
			return
		}
		a.unsubscribe(c, m.Sub)
		ok()
	case *protocol.Query:
		q, err := compileQuery(a.w, a.componentSchemas(), m.Expr, m.Sort, a.lastFrameTick)
		if err != nil {
			fail(protocol.ErrBadQuery, err.Error())
			return
		}
		limit := pageLimit(m.Limit)
		if m.Count {
			limit = 0
		}
		a.answerPage(c, id, q, m.Offset, limit)
	case *protocol.GetEntity:
		if err := a.w.CheckAlive(ecsEntity(m.Entity)); err != nil {
			fail(protocol.ErrStale, trimPkg(err)+a.despawnNote(ecsEntity(m.Entity)))
			return
		}
		c.answer(a.detail(id, ecsEntity(m.Entity)))
	case *protocol.SetParent:
		child := ecsEntity(m.Entity)
		var err error
		if m.Parent == 0 {
			err = a.w.ClearParent(child)
		} else {
			err = a.w.SetParent(child, ecsEntity(m.Parent))
		}
		if err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.SetField:
		if err := a.w.Inspect().SetField(ecsEntity(m.Entity), m.Path, fromValue(m.Value)); err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.AddComponent:
		e := ecsEntity(m.Entity)
		if err := a.w.CheckAlive(e); err != nil {
			fail(protocol.ErrStale, trimPkg(err))
			return
		}
		if info, found := a.w.Inspect().ComponentByName(m.Component); found && a.has(e, info.ID) {
			fail(protocol.ErrState, fmt.Sprintf("entity %v has %s already: set its fields, or remove it first", e, info.Short))
			return
		}
		if err := a.addComponent(e, m.Component, m.Value); err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.RemoveComponent:
		info, found := a.w.Inspect().ComponentByName(m.Component)
		if !found {
			fail(protocol.ErrNotFound, "no component named "+m.Component)
			return
		}
		if e := ecsEntity(m.Entity); a.w.Alive(e) && !a.has(e, info.ID) {
			fail(protocol.ErrNotFound, fmt.Sprintf("entity %v has no %s to remove", e, info.Short))
			return
		}
		if err := a.w.Inspect().RemoveID(ecsEntity(m.Entity), info.ID); err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.Spawn:
		e, err := a.spawn(m.Components)
		if err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		c.answer(&protocol.Reply{ID: id, OK: true, Entity: wireEntity(e)})
	case *protocol.Despawn:
		e := ecsEntity(m.Entity)
		var err error
		if m.Recursive {
			err = a.w.DespawnRecursive(e)
		} else {
			err = a.w.Despawn(e)
		}
		if err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.Pause: // pausing a paused game is fine: it stays paused
		a.paused, a.stepLeft = true, 0
		a.held = a.held || m.Hold
		ok()
	case *protocol.Resume: // resuming a running game is fine: it keeps running
		a.paused, a.stepLeft, a.held = false, 0, false
		ok()
	case *protocol.Step:
		if !a.paused && a.stepLeft == 0 {
			fail(protocol.ErrState, "the game is running: pause it first, then step")
			return
		}
		a.paused, a.stepLeft = false, int(m.N)
		a.held = a.held || m.Hold
		ok()
	case *protocol.Watch:
		w, err := a.setWatch(c, m)
		if err != nil {
			fail(codeOf(err), err.Error())
			return
		}
		c.answer(&protocol.Reply{ID: id, OK: true, Watch: w})
	case *protocol.Unwatch:
		i := a.findWatch(m.Watch)
		if i < 0 {
			fail(protocol.ErrNotFound, fmt.Sprintf("no watchpoint %d", m.Watch))
			return
		}
		if !a.watches.list[i].Log && (a.opts.ReadOnly || c.readOnly) {
			fail(protocol.ErrReadOnly, fmt.Sprintf("this session is read-only: watchpoint %d pauses the game, and only a session that may edit removes it", m.Watch))
			return
		}
		a.watches.list = append(a.watches.list[:i], a.watches.list[i+1:]...)
		ok()
	case *protocol.EnableWatch:
		i := a.findWatch(m.Watch)
		if i < 0 {
			fail(protocol.ErrNotFound, fmt.Sprintf("no watchpoint %d", m.Watch))
			return
		}
		wp := a.watches.list[i]
		if !wp.Log && (a.opts.ReadOnly || c.readOnly) {
			fail(protocol.ErrReadOnly, fmt.Sprintf("this session is read-only: watchpoint %d pauses the game, and only a session that may edit turns it on or off", m.Watch))
			return
		}
		wp.On = m.On
		if m.On && wp.Suspended != "" {
			wp.Suspended = "" // try again: its next check is charged afresh
		}
		ok()
	case *protocol.Rewind:
		tick := m.Tick
		if m.Back > 0 {
			tick = a.w.Frame() - min(m.Back, a.w.Frame())
		}
		a.held = a.held || m.Hold
		a.rewind(c, id, tick, m.Exact)
	case *protocol.SnapshotRequest:
		shared := a.sharedSnapshot()
		c.job(0, true, func() protocol.Message {
			s := *shared.get() // the tables are shared, read-only
			s.ID = id
			return &s
		})
	default:
		fail(protocol.ErrProtocol, fmt.Sprintf("message type %d is not a request an agent takes", m.Type()))
	}
}

// changesWorld reports whether m changes the world or its flow: what a
// read-only session may not do. A watchpoint that would pause the game
// counts; a log-only one is a read.
func changesWorld(m protocol.Message) bool {
	switch m := m.(type) {
	case *protocol.SetField, *protocol.AddComponent, *protocol.RemoveComponent, *protocol.Spawn,
		*protocol.Despawn, *protocol.Pause, *protocol.Resume, *protocol.Step, *protocol.SetParent, *protocol.Rewind:
		return true
	case *protocol.Watch:
		return !m.Log
	}
	return false
}

func describeRequest(m protocol.Message) string {
	name := fmt.Sprintf("%T", m)
	name = strings.TrimPrefix(name, "*protocol.")
	return strings.ToLower(name)
}

// heavyRequest reports whether m may make a copy job: a client runs one
// at a time.
func heavyRequest(m protocol.Message) bool {
	switch m := m.(type) {
	case *protocol.Query, *protocol.SnapshotRequest:
		return true
	case *protocol.Subscribe:
		return m.What == protocol.SubPage
	}
	return false
}

// answerPage answers a one-off query: at once if its field tests are few,
// else on a copy off the game goroutine.
func (a *Agent) answerPage(c *client, id uint32, q *compiledQuery, offset, limit int) {
	if a.needsCopy(q) {
		qc, err := a.copyQuery(id, q, offset, limit)
		if err != nil {
			c.answer(&protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()})
			return
		}
		c.job(qc.size(), true, func() protocol.Message { return qc.build() })
		return
	}
	pc := a.page(id, q, offset, limit)
	c.job(pc.size(), false, func() protocol.Message { return pc.build() })
}

// codeOf picks the error code for a failed command.
func codeOf(err error) string {
	var qe *protocol.QueryError
	var re *requestError
	msg := err.Error()
	switch {
	case errors.As(err, &re):
		return re.code
	case errors.Is(err, ecs.ErrNoComponent):
		return protocol.ErrNotFound
	case errors.Is(err, ecs.ErrNotAlive):
		return protocol.ErrStale
	case errors.As(err, &qe):
		return protocol.ErrBadQuery
	case strings.Contains(msg, "no component named"), strings.Contains(msg, "has no field"), strings.Contains(msg, "has no "):
		return protocol.ErrNotFound
	case strings.Contains(msg, "cannot subscribe"):
		return protocol.ErrBadValue
	case strings.Contains(msg, "subscription"):
		return protocol.ErrNotFound
	}
	return protocol.ErrBadValue
}

// trimPkg drops the "ecs: " prefix: people see the agent's reply.
func trimPkg(err error) string { return strings.TrimPrefix(err.Error(), "ecs: ") }

// newValue builds a component value from its wire form: a map of fields.
func (a *Agent) newValue(name string, v protocol.Value) (reflect.Value, ecs.ComponentID, error) {
	info, found := a.w.Inspect().ComponentByName(name)
	if !found {
		return reflect.Value{}, 0, fmt.Errorf("no component named %s%s", name, protocol.SuggestComponent(a.componentSchemas(), name))
	}
	var fields map[string]any
	switch v.Kind() {
	case protocol.KindNil:
	case protocol.KindMap:
		fields = v.Interface().(map[string]any)
	default:
		return reflect.Value{}, 0, fmt.Errorf("%s wants its fields as a map, like {\"X\":1}, got %v", info.Short, v)
	}
	rv, err := a.w.Inspect().NewValue(info.ID, fields)
	return rv, info.ID, err
}

// spawn creates an entity with the given components; if any value is bad,
// or a component is named twice, nothing is created. ChildOf{Parent: E}
// links the new entity under E.
func (a *Agent) spawn(comps []protocol.ComponentValue) (ecs.Entity, error) {
	seen := map[string]bool{}
	for _, cv := range comps {
		if seen[cv.Component] {
			return ecs.Entity{}, refuse(protocol.ErrBadValue, "%s is named twice in one spawn", cv.Component)
		}
		seen[cv.Component] = true
		if cv.Component == "ChildOf" {
			if _, err := parentOf(cv.Value); err != nil {
				return ecs.Entity{}, err
			}
			continue
		}
		if _, _, err := a.newValue(cv.Component, cv.Value); err != nil {
			return ecs.Entity{}, err
		}
	}
	e := a.w.Spawn()
	for _, cv := range comps {
		if err := a.addComponent(e, cv.Component, cv.Value); err != nil {
			_ = a.w.Despawn(e)
			return ecs.Entity{}, err
		}
	}
	return e, nil
}

// addComponent adds one component from its wire form; ChildOf{Parent: E}
// sets the parent.
func (a *Agent) addComponent(e ecs.Entity, name string, v protocol.Value) error {
	if name == "ChildOf" {
		p, err := parentOf(v)
		if err != nil {
			return err
		}
		return a.w.SetParent(e, p)
	}
	rv, cid, err := a.newValue(name, v)
	if err != nil {
		return err
	}
	return a.w.Inspect().AddValue(e, cid, rv)
}

// parentOf reads ChildOf's wire form, {"Parent": E}.
func parentOf(v protocol.Value) (ecs.Entity, error) {
	p, ok := v.Get("Parent")
	if !ok || (p.Kind() != protocol.KindUint && p.Kind() != protocol.KindInt) || p.Uint() == 0 {
		return ecs.Entity{}, refuse(protocol.ErrBadValue, "ChildOf wants {\"Parent\": an entity handle}, got %v", v)
	}
	return ecsEntity(protocol.EntityID(p.Uint())), nil
}

// has reports whether live entity e has component id.
func (a *Agent) has(e ecs.Entity, id ecs.ComponentID) bool {
	_, ok := a.w.Inspect().Value(e, id)
	return ok
}

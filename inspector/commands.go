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
		delete(c.subs, m.Sub)
		ok()
	case *protocol.Query:
		q, err := compileQuery(a.w, a.componentSchemas(), m.Expr, 0)
		if err != nil {
			fail(protocol.ErrBadQuery, err.Error())
			return
		}
		a.answerPage(c, id, q, m.Offset, pageLimit(m.Limit))
	case *protocol.GetEntity:
		c.answer(a.detail(id, ecsEntity(m.Entity)))
	case *protocol.SetField:
		if err := a.w.SetField(ecsEntity(m.Entity), m.Path, fromValue(m.Value)); err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.AddComponent:
		e := ecsEntity(m.Entity)
		v, cid, err := a.newValue(m.Component, m.Value)
		if err == nil {
			err = a.w.AddValue(e, cid, v)
		}
		if err != nil {
			fail(codeOf(err), trimPkg(err))
			return
		}
		ok()
	case *protocol.RemoveComponent:
		info, found := a.w.ComponentByName(m.Component)
		if !found {
			fail(protocol.ErrNotFound, "no component named "+m.Component)
			return
		}
		if err := a.w.RemoveID(ecsEntity(m.Entity), info.ID); err != nil {
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
	case *protocol.Pause:
		a.paused, a.stepLeft = true, 0
		ok()
	case *protocol.Resume:
		a.paused, a.stepLeft = false, 0
		ok()
	case *protocol.Step:
		a.paused, a.stepLeft = false, int(m.N)
		ok()
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

func changesWorld(m protocol.Message) bool {
	switch m.(type) {
	case *protocol.SetField, *protocol.AddComponent, *protocol.RemoveComponent, *protocol.Spawn,
		*protocol.Despawn, *protocol.Pause, *protocol.Resume, *protocol.Step:
		return true
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
	case errors.Is(err, ecs.ErrNotAlive):
		return protocol.ErrStale
	case errors.As(err, &qe):
		return protocol.ErrBadQuery
	case strings.Contains(msg, "no component named"), strings.Contains(msg, "has no field"), strings.Contains(msg, "has no "):
		return protocol.ErrNotFound
	case strings.Contains(msg, "subscription"):
		return protocol.ErrNotFound
	}
	return protocol.ErrBadValue
}

// trimPkg drops the "ecs: " prefix: people see the agent's reply.
func trimPkg(err error) string { return strings.TrimPrefix(err.Error(), "ecs: ") }

// newValue builds a component value from its wire form: a map of fields.
func (a *Agent) newValue(name string, v protocol.Value) (reflect.Value, ecs.ComponentID, error) {
	info, found := a.w.ComponentByName(name)
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
	rv, err := a.w.NewValue(info.ID, fields)
	return rv, info.ID, err
}

// spawn creates an entity with the given components; if any value is bad,
// nothing is created.
func (a *Agent) spawn(comps []protocol.ComponentValue) (ecs.Entity, error) {
	vals := make([]reflect.Value, len(comps))
	ids := make([]ecs.ComponentID, len(comps))
	for i, cv := range comps {
		v, id, err := a.newValue(cv.Component, cv.Value)
		if err != nil {
			return ecs.Entity{}, err
		}
		vals[i], ids[i] = v, id
	}
	e := a.w.Spawn()
	for i := range vals {
		if err := a.w.AddValue(e, ids[i], vals[i]); err != nil {
			_ = a.w.Despawn(e)
			return ecs.Entity{}, err
		}
	}
	return e, nil
}

package inspector

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// apply carries out one client request on the game goroutine and answers it.
func (a *Agent) apply(c *client, m protocol.Message) {
	id := m.(protocol.Request).RequestID()
	ok := func() { c.reply(&protocol.Reply{ID: id, OK: true}) }
	fail := func(code, msg string) { c.reply(&protocol.Reply{ID: id, Code: code, Message: msg}) }
	if a.opts.ReadOnly && changesWorld(m) {
		fail(protocol.ErrReadOnly, fmt.Sprintf("the agent is read-only: %s refused", describeRequest(m)))
		return
	}
	switch m := m.(type) {
	case *protocol.Subscribe:
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
		q, err := compileQuery(a.w, m.Expr, 0)
		if err != nil {
			fail(protocol.ErrBadQuery, err.Error())
			return
		}
		c.reply(a.page(id, q, m.Offset, limitOr(m.Limit, 100)))
	case *protocol.GetEntity:
		c.reply(a.detail(id, ecsEntity(m.Entity)))
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
		c.reply(&protocol.Reply{ID: id, OK: true, Entity: wireEntity(e)})
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
		if m.N == 0 {
			fail(protocol.ErrBadValue, "step wants at least 1 frame")
			return
		}
		a.paused, a.stepLeft = false, int(m.N)
		ok()
	case *protocol.SnapshotRequest:
		tables, sparse := a.copyWorld()
		tick, game := a.w.Frame(), a.opts.Game
		stats := a.w.Stats()
		schemas := a.componentSchemas()
		c.job(func() protocol.Message {
			s := buildSnapshot(tables, sparse, tick, game, stats, schemas)
			s.ID = id
			return s
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

func limitOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return min(n, 10000)
}

// codeOf picks the error code for a failed command.
func codeOf(err error) string {
	var qe *protocol.QueryError
	msg := err.Error()
	switch {
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
		return reflect.Value{}, 0, fmt.Errorf("no component named %s%s", name, suggest(a.w, name))
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

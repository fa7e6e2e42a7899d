package inspector

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/server"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// apply carries out one client request on the game goroutine and answers
// it. The request's numbers and sizes were checked on the client's reader
// goroutine (the server's door); what needs the world is checked here.
func (a *Agent) apply(c *peer, m protocol.Message) {
	r := request{c: c, id: m.(protocol.Request).RequestID()}
	if !a.mayEdit(c) && protocol.ChangesWorld(m) { // checked at the door too; kept here as the last word
		r.fail(protocol.ErrReadOnly, server.ReadOnlyRefusal(m))
		return
	}
	if _, ok := m.(*protocol.Rewind); ok && a.mid != nil {
		a.atFrameEnd(c, m)
		return
	}
	if why := a.midFrameRefusal(m); why != "" {
		r.fail(protocol.ErrState, why)
		return
	}
	// Changes a client makes are journaled as the client's, and their
	// writes attributed to it.
	if protocol.ChangesWorld(m) {
		a.edited = true
		a.w.Inspect().ActAs(c.Actor(), func() { a.applyAs(r, m) })
		a.editedBy(c.Actor())
		return
	}
	a.applyAs(r, m)
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

// answerPage answers a one-off query with its page (queryPage).
func (a *Agent) answerPage(c *peer, id uint32, q *live.Query, offset, limit int) {
	f, err := a.lw.Page(id, q, offset, limit)
	if err != nil {
		c.Answer(&protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()})
		return
	}
	c.Job(f.Size, f.Heavy, f.Build)
}

// codeOf picks the error code for a failed command.
func codeOf(err error) string {
	var qe *query.QueryError
	var re *answer.RequestError
	msg := err.Error()
	switch {
	case errors.As(err, &re):
		return re.Code
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
		return reflect.Value{}, 0, fmt.Errorf("no component named %s%s", name, query.SuggestComponent(a.componentSchemas(), name))
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
			return ecs.Entity{}, answer.Refuse(protocol.ErrBadValue, "%s is named twice in one spawn", cv.Component)
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
		return ecs.Entity{}, answer.Refuse(protocol.ErrBadValue, "ChildOf wants {\"Parent\": an entity handle}, got %v", v)
	}
	return values.Entity(protocol.EntityID(p.Uint())), nil
}

// has reports whether live entity e has component id.
func (a *Agent) has(e ecs.Entity, id ecs.ComponentID) bool {
	_, ok := a.w.Inspect().Value(e, id)
	return ok
}

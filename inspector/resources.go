package inspector

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Resources as data: a page of the value at a path in a resource, for a
// GetResource or a resource subscription, and a value whole.

// resource is the world's resource by short or full name.
func (a *Agent) resource(name string) (ecs.ResourceInfo, error) {
	rs := a.w.Inspect().Resources()
	names := make([]string, len(rs))
	for i, r := range rs {
		if r.Short == name || r.Name == name {
			return r, nil
		}
		names[i] = r.Short
	}
	return ecs.ResourceInfo{}, answer.Refuse(protocol.ErrNotFound, "%s", protocol.NoResource(name, names))
}

// resourcePage takes the page of the value at path in resource name, for
// id; its frame's Build makes the copied children into items.
func (a *Agent) resourcePage(id uint32, name, path string, offset, limit int) (answer.Frame, error) {
	r, err := a.resource(name)
	if err != nil {
		return answer.Frame{}, err
	}
	w, err := values.Page(r.Short, r.Value, path, offset, limit)
	if err != nil {
		return answer.Frame{}, answer.Refuse(protocol.ErrNotFound, "resource %s: %v", r.Short, err)
	}
	tick := a.tick()
	own, written := a.pageWriters(r.Short, r.Value.Kind() == reflect.Struct, path, w.Keys())
	return answer.Frame{Size: w.Size(), Build: func() protocol.Message {
		p := w.Build()
		p.Sub, p.Tick, p.Written = id, tick, own
		if len(written) == len(p.Items) {
			for i := range p.Items {
				p.Items[i].Written = written[i]
			}
		}
		return p
	}}, nil
}

// onGetResource carries out a GetResource: a page at once, or, with all,
// the value whole, copied now (when small enough) and converted off the
// game goroutine.
func (a *Agent) onGetResource(r request, m *protocol.GetResource) {
	if !m.All {
		f, err := a.resourcePage(r.id, m.Name, m.Path, m.Offset, m.Limit)
		if err != nil {
			r.fail(codeOf(err), err.Error())
			return
		}
		r.c.Job(f.Size, false, f.Build)
		return
	}
	res, err := a.resource(m.Name)
	if err != nil {
		r.fail(codeOf(err), err.Error())
		return
	}
	steps, _ := protocol.ParsePath(m.Path) // parsed at the door
	v, err := values.Walk(res.Value, steps)
	if err != nil {
		r.fail(protocol.ErrNotFound, "resource "+res.Short+": "+err.Error())
		return
	}
	p := &protocol.ResourcePage{Sub: r.id, Tick: a.tick(), Name: res.Short, Path: m.Path, Kind: "nil"}
	if !v.IsValid() {
		r.c.Answer(p)
		return
	}
	k := values.Keep(v)
	if !k.Copy.IsValid() {
		r.fail(protocol.ErrTooLarge, "resource "+res.Short+": the value at "+describePath(m.Path)+" ("+values.Describe(v)+") holds more than 4 MiB or 16,384 parts: ask for a page of it (o, l) or a path inside it")
		return
	}
	p.Schema = values.TypeSchema(v.Type())
	p.Kind, p.GoType = p.Schema.Kind, p.Schema.Type
	r.c.Job(k.Bytes, true, func() protocol.Message {
		p.Value = k.Value()
		return p
	})
}

// describePath names a path in an error: the resource itself for "".
func describePath(path string) string {
	if path == "" {
		return "its top"
	}
	return path
}

// resourceType is a resource's type schema for the summary when it is not
// a struct (a struct's fields go as its fs).
func resourceType(v reflect.Value) *protocol.FieldSchema {
	if v.Kind() == reflect.Struct {
		return nil
	}
	return values.TypeSchema(v.Type())
}

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// dump --resource: a resource, or the value at a path in it, whole; one
// too big for that (over the agent's bound) is listed a page of children
// at a time, and says how to see the rest.

// dumpResource is the resource dump shows: Value whole, or Items from
// Offset of Total.
type dumpResource struct {
	Name   string         `json:"name"`
	Path   string         `json:"path,omitempty"`
	Kind   string         `json:"kind"`
	Type   string         `json:"type,omitempty"`
	Value  any            `json:"value,omitempty"`
	Total  int            `json:"total,omitempty"`
	Offset int            `json:"offset,omitempty"`
	Items  []dumpResChild `json:"items,omitempty"`
	Note   string         `json:"note,omitempty"`
}

// dumpResChild is one child of a value listed a page at a time.
type dumpResChild struct {
	Key   string `json:"key"`
	Path  string `json:"path"`
	Kind  string `json:"kind"`
	Len   int    `json:"len,omitempty"`
	Value any    `json:"value"`
	// Cut says the value is in brief (a page lists its children so: at
	// most 8 items a list and 24 values in all): ask for its path to see
	// it whole.
	Cut bool `json:"cut,omitempty"`
}

// lookResource fetches ask.resource ("Grid" or "Grid.Cells[3]") whole, or
// a page of it when it is too big to come whole.
func lookResource(src worldSource, ask dumpAsk) (*dumpResource, error) {
	name, path := protocol.SplitResourcePath(ask.resource)
	p, err := src.resource(name, path, 0, 0, true)
	var re *client.ReplyError
	if errors.As(err, &re) && re.Code == protocol.ErrTooLarge {
		p, err = src.resource(name, path, ask.offset, ask.limit, false)
		if err != nil {
			return nil, err
		}
		return pagedResource(p, re.Message), nil
	}
	if err != nil {
		return nil, err
	}
	return &dumpResource{Name: p.Name, Path: p.Path, Kind: p.Kind, Type: p.GoType, Value: protocol.HandlesAsTextFor(p.Value, p.Schema)}, nil
}

// pagedResource is a page of a value's children as dump shows it.
func pagedResource(p *protocol.ResourcePage, why string) *dumpResource {
	d := &dumpResource{Name: p.Name, Path: p.Path, Kind: p.Kind, Type: p.GoType, Total: p.Total, Offset: p.Offset, Items: []dumpResChild{}}
	for i, it := range p.Items {
		v := protocol.HandlesAsTextFor(it.Value, protocol.ChildSchema(p.Schema, it.Key))
		d.Items = append(d.Items, dumpResChild{Key: it.Key, Path: p.ItemPath(i), Kind: it.Kind, Len: it.Len, Value: v, Cut: cutShort(it.Value)})
	}
	d.Note = fmt.Sprintf("%s; children %d to %d of %d here (--offset N --limit N for others, or a path inside: --resource %s)",
		why, p.Offset, p.Offset+len(p.Items), p.Total, resourceAddr(p.Name, p.ItemPath(0)))
	if cut := countCut(d.Items); cut > 0 {
		d.Note += fmt.Sprintf("; %d of these children are shown in brief (cut, marked …): a child's path shows it whole", cut)
	}
	if p.Unordered {
		d.Note += "; a map this big comes in Go's order, which changes"
	}
	return d
}

// cutShort reports whether a value in brief was cut: a list's last item
// "… N more", or a map's or struct's "…" entry, at any depth (PROTOCOL.md,
// Values).
func cutShort(v protocol.Value) bool {
	switch v.Kind() {
	case protocol.KindList:
		for i := range v.Len() {
			if it := v.Index(i); it.Kind() == protocol.KindString && strings.HasPrefix(it.Str(), "… ") || cutShort(it) {
				return true
			}
		}
	case protocol.KindMap:
		for i := range v.Len() {
			if k, it := v.Entry(i); k == "…" || cutShort(it) {
				return true
			}
		}
	}
	return false
}

// countCut is how many children are in brief.
func countCut(items []dumpResChild) int {
	n := 0
	for _, it := range items {
		if it.Cut {
			n++
		}
	}
	return n
}

// resourceAddr is how --resource names the value at path in resource name.
func resourceAddr(name, path string) string {
	if path == "" || path[0] == '[' {
		return name + path
	}
	return name + "." + path
}

// printResource writes the resource part of dump's text.
func printResource(out io.Writer, r *dumpResource) {
	fmt.Fprintf(out, "\nresource %s (%s", resourceAddr(r.Name, r.Path), r.Kind)
	if r.Type != "" {
		fmt.Fprintf(out, " %s", r.Type)
	}
	fmt.Fprintln(out, "):")
	if r.Items == nil {
		fmt.Fprintf(out, "  %s\n", shownJSONIndent(r.Value, "  ", "  "))
		return
	}
	for _, it := range r.Items {
		fmt.Fprintf(out, "  %-12s %s", it.Key, shownJSON(it.Value))
		if it.Len > 0 {
			fmt.Fprintf(out, "  (%d)", it.Len)
		}
		if it.Cut {
			fmt.Fprint(out, "  (in brief)")
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "note:", r.Note)
}

package query

import (
	"fmt"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WatchSpec is a parsed watchpoint expression.
type WatchSpec struct {
	Kind string // value, spawn, despawn, add, remove, system, frame, stale, skipped, dangling, resource
	// Query is a value watchpoint's query (the query language), or the
	// filter a spawn must match ("" for any); Expr is it parsed (nil for
	// none), so that whoever checks or compiles it parses it no more.
	Query string
	Expr  *Expr
	// Entity limits the watchpoint to one entity (0: any).
	Entity protocol.EntityID
	// Component is what an add or remove watchpoint watches.
	Component string
	// System and Over are a timing watchpoint's system ("" for the frame)
	// and bound; System is also a skipped watchpoint's system ("" for any).
	System string
	// In is a dangling watchpoint's component or resource ("" for any),
	// and a resource watchpoint's resource.
	In string
	// Stored: a dangling watchpoint fires only for a handle its holder's
	// component was written with at or after its entity's despawn (the
	// write that stored it), naming that writer.
	Stored bool
	// Path is where in its resource a resource watchpoint looks ("" for
	// the whole value).
	Path string
	Over time.Duration
}

// ParseWatch reads a watchpoint expression:
//
//	Energy.Value<0                   a value: the query language, with at least one field test
//	42v3 Energy.Value<0              the same, for one entity
//	spawn [QUERY]                    an entity spawned (with the query's components)
//	despawn [E | QUERY]              an entity (E) despawned; with a query, one whose last state it held for (despawn FlowerPatch)
//	add COMP [to E]                  a component added (to E)
//	remove COMP [from E]             a component removed (from E)
//	system NAME > 2ms                a system's run took longer
//	frame > 20ms                     a frame took longer
//	stale                            a handle that names no live entity is used
//	skipped [SYSTEM]                 a command a system (SYSTEM) queued was skipped
//	dangling [NAME]                  a handle stored in a component or resource (NAME) names no live entity
//	dangling stored [NAME]           the same, written there at or after its entity's despawn
//	resource NAME[.PATH]             the value at PATH in resource NAME changes (resource Grid.Cells[12])
//
// A value watchpoint fires for an entity when a write makes its query
// hold: only entities whose tested components were written during the
// frame are checked, so a set watchpoint costs in proportion to what the
// game writes. Each entity fires it once.
func ParseWatch(expr string) (WatchSpec, error) {
	words := strings.Fields(expr)
	if len(words) == 0 {
		return WatchSpec{}, fmt.Errorf("an empty watchpoint: try Energy.Value<0, despawn 42v3, add Fleeing, system hunt > 2ms or frame > 20ms")
	}
	entity := func(s, what string) (protocol.EntityID, error) {
		e, err := protocol.ParseEntityID(s)
		if err != nil || e == 0 {
			return 0, fmt.Errorf("%s: %q is not an entity like 42v3", what, s)
		}
		return e, nil
	}
	switch words[0] {
	case "stale":
		if len(words) > 1 {
			return WatchSpec{}, fmt.Errorf("stale takes nothing: it fires on the first use of a dead handle")
		}
		return WatchSpec{Kind: "stale"}, nil
	case "skipped":
		return WatchSpec{Kind: "skipped", System: strings.Join(words[1:], " ")}, nil
	case "dangling":
		stored := len(words) > 1 && words[1] == "stored"
		if stored {
			words = words[1:]
		}
		if len(words) > 2 {
			return WatchSpec{}, fmt.Errorf("dangling takes at most one component or resource: dangling Hunts, or dangling stored Hunts")
		}
		return WatchSpec{Kind: "dangling", In: strings.Join(words[1:], " "), Stored: stored}, nil
	case "resource":
		if len(words) != 2 {
			return WatchSpec{}, fmt.Errorf("resource takes a resource and, if you like, a path in it: resource Grid.Cells[12]")
		}
		name, path, _ := strings.Cut(words[1], ".")
		if i := strings.IndexByte(name, '['); i >= 0 { // resource Grid[3]: the path starts at an index
			name, path = name[:i], strings.TrimPrefix(words[1][i:], ".")
		}
		if _, err := protocol.ParsePath(path); err != nil {
			return WatchSpec{}, fmt.Errorf("resource %s: %v", name, err)
		}
		return WatchSpec{Kind: "resource", In: name, Path: path}, nil
	case "spawn":
		return withQuery(WatchSpec{Kind: "spawn", Query: strings.Join(words[1:], " ")})
	case "despawn":
		if len(words) == 2 {
			if e, err := protocol.ParseEntityID(words[1]); err == nil && e != 0 {
				return WatchSpec{Kind: "despawn", Entity: e}, nil
			}
		}
		// A query, tested on the entity's last state: despawn FlowerPatch.
		return withQuery(WatchSpec{Kind: "despawn", Query: strings.Join(words[1:], " ")})
	case "add", "remove":
		prep := map[string]string{"add": "to", "remove": "from"}[words[0]]
		switch {
		case len(words) == 2:
			return WatchSpec{Kind: words[0], Component: words[1]}, nil
		case len(words) == 4 && words[2] == prep:
			e, err := entity(words[3], words[0])
			return WatchSpec{Kind: words[0], Component: words[1], Entity: e}, err
		}
		return WatchSpec{}, fmt.Errorf("%s takes a component and, if you like, an entity: %s Fleeing %s 42v3", words[0], words[0], prep)
	case "system", "frame":
		rest := words[1:]
		spec := WatchSpec{Kind: words[0]}
		if words[0] == "system" {
			// The name is everything before the ">": names may hold spaces.
			name, bound, found := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(expr), "system")), ">")
			name = strings.Join(strings.Fields(name), " ")
			if name == "" {
				return WatchSpec{}, fmt.Errorf("system takes a name and a bound: system hunt > 2ms")
			}
			spec.System, rest = name, nil
			if found {
				rest = []string{">" + strings.TrimSpace(bound)}
			}
		}
		bound := strings.TrimPrefix(strings.Join(rest, ""), ">")
		if len(rest) == 0 || !strings.HasPrefix(strings.Join(rest, ""), ">") {
			return WatchSpec{}, fmt.Errorf("%s watchpoints compare with >: %s > 2ms", words[0], strings.TrimSpace(words[0]+" "+spec.System))
		}
		d, err := time.ParseDuration(bound)
		if err != nil || d <= 0 {
			return WatchSpec{}, fmt.Errorf("%q is not a duration like 2ms or 500us", bound)
		}
		spec.Over = d
		return spec, nil
	}
	spec := WatchSpec{Kind: "value", Query: expr}
	if e, err := protocol.ParseEntityID(words[0]); err == nil && e != 0 {
		spec.Entity, spec.Query = e, strings.Join(words[1:], " ")
	}
	spec, err := withQuery(spec)
	if err != nil {
		return WatchSpec{}, err
	}
	if spec.Expr == nil || !hasFieldTest(spec.Expr) {
		return WatchSpec{}, fmt.Errorf("a value watchpoint needs a field test, like Energy.Value<0 (for spawns and adds: spawn %s, add COMP)", spec.Query)
	}
	return spec, nil
}

// withQuery parses spec's query, if it has one, into spec.Expr.
func withQuery(spec WatchSpec) (WatchSpec, error) {
	if strings.TrimSpace(spec.Query) == "" {
		return spec, nil
	}
	ex, err := ParseQuery(spec.Query)
	if err != nil {
		return WatchSpec{}, err
	}
	spec.Expr = ex
	return spec, nil
}

// hasFieldTest reports whether a query tests a field's value.
func hasFieldTest(q *Expr) bool {
	for _, t := range q.Terms {
		if t.Kind == TermField {
			return true
		}
	}
	return false
}

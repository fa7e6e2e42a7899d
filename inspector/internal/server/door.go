package server

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// The door: a request's numbers and sizes are checked on the client's
// reader goroutine against the bounds package protocol names (PROTOCOL.md,
// "Limits"), before the request reaches the game goroutine.

// checkRequest checks a request's numbers and sizes against the documented
// bounds; readOnly refuses what would change the world or its flow.
func checkRequest(m protocol.Message, readOnly bool) *answer.RequestError {
	if readOnly && protocol.ChangesWorld(m) {
		return answer.Refuse(protocol.ErrReadOnly, "%s", ReadOnlyRefusal(m))
	}
	switch m := m.(type) {
	case *protocol.Subscribe:
		if math.IsNaN(m.Hz) || math.IsInf(m.Hz, 0) || m.Hz < 0 {
			return answer.Refuse(protocol.ErrBadValue, "hz must be a finite number of 0 or more (0: the agent's default), got %v", m.Hz)
		}
		switch m.What {
		case protocol.SubPage:
			if m.Archetype < 0 || m.Archetype > math.MaxUint32 {
				return answer.Refuse(protocol.ErrBadValue, "arch must be 1 + an archetype id, or 0; got %d", m.Archetype)
			}
			if err := checkWindow(m.Offset, m.Limit); err != nil {
				return err
			}
			if m.Archetype > 0 && m.Query != "" {
				return answer.Refuse(protocol.ErrBadValue, "a page lists a query (q) or an archetype (arch), not both")
			}
			if m.Archetype > 0 && m.Sort != "" {
				return answer.Refuse(protocol.ErrBadValue, "a page sorts a query (q), not an archetype: list the archetype's components as the query")
			}
			if err := checkText("s", m.Sort); err != nil {
				return err
			}
			return checkQuery(m.Query)
		case protocol.SubEvents:
			if m.Sample < 0 || m.Sample > protocol.MaxEventSample {
				return answer.Refuse(protocol.ErrBadValue, "n must be 0 to %d recent events per queue, got %d", protocol.MaxEventSample, m.Sample)
			}
		case protocol.SubJournal:
			return checkText("f", m.Filter)
		case protocol.SubResource:
			return checkResource(m.Resource, m.Path, m.Offset, m.Limit)
		case protocol.SubSeries:
			if len(m.Query) > protocol.MaxQueryBytes {
				return answer.Refuse(protocol.ErrTooLarge, "a series is at most %d bytes, got %d", protocol.MaxQueryBytes, len(m.Query))
			}
			spec, err := protocol.ParseSeries(m.Query)
			if err != nil {
				return answer.Refuse(protocol.ErrBadValue, "%v", err)
			}
			return checkQuery(spec.Query)
		}
	case *protocol.Query:
		if err := checkWindow(m.Offset, m.Limit); err != nil {
			return err
		}
		if err := checkText("s", m.Sort); err != nil {
			return err
		}
		return checkQuery(m.Expr)
	case *protocol.GetResource:
		return checkResource(m.Name, m.Path, m.Offset, m.Limit)
	case *protocol.GetDangling:
		if m.Offset < 0 || m.Offset > protocol.MaxOffset {
			return answer.Refuse(protocol.ErrBadValue, "o (first handle) must be 0 to %d, got %d", protocol.MaxOffset, m.Offset)
		}
		if m.Limit < 0 || m.Limit > protocol.MaxDanglingPage {
			return answer.Refuse(protocol.ErrBadValue, "l (handles) must be 0 to %d (0: %d), got %d", protocol.MaxDanglingPage, protocol.DefaultPageLimit, m.Limit)
		}
	case *protocol.SetField:
		return checkText("p", m.Path)
	case *protocol.AddComponent:
		return checkText("c", m.Component)
	case *protocol.RemoveComponent:
		return checkText("c", m.Component)
	case *protocol.Spawn:
		if len(m.Components) > protocol.MaxSpawnComponents {
			return answer.Refuse(protocol.ErrTooLarge, "a spawn takes at most %d components, got %d", protocol.MaxSpawnComponents, len(m.Components))
		}
		for _, cv := range m.Components {
			if err := checkText("c", cv.Component); err != nil {
				return err
			}
		}
	case *protocol.Watch:
		if len(m.Expr) > protocol.MaxQueryBytes {
			return answer.Refuse(protocol.ErrTooLarge, "a watchpoint is at most %d bytes, got %d", protocol.MaxQueryBytes, len(m.Expr))
		}
		if !utf8.ValidString(m.Expr) {
			return answer.Refuse(protocol.ErrBadValue, "x is not valid UTF-8")
		}
		// A watchpoint's query is held to a query's bounds: its terms are
		// tested on every row the game writes.
		if spec, err := query.ParseWatch(m.Expr); err == nil && spec.Expr != nil {
			return checkTerms(spec.Expr)
		}
	case *protocol.Step:
		if m.N == 0 || m.N > protocol.MaxStep {
			return answer.Refuse(protocol.ErrBadValue, "step takes 1 to %d frames, got %d", protocol.MaxStep, m.N)
		}
	}
	return nil
}

func checkWindow(offset, limit int) *answer.RequestError {
	if offset < 0 || offset > protocol.MaxOffset {
		return answer.Refuse(protocol.ErrBadValue, "o (first row) must be 0 to %d, got %d", protocol.MaxOffset, offset)
	}
	if limit < 0 || limit > protocol.MaxPageRows {
		return answer.Refuse(protocol.ErrBadValue, "l (rows) must be 0 to %d (0: %d), got %d", protocol.MaxPageRows, protocol.DefaultPageLimit, limit)
	}
	return nil
}

// checkResource checks a resource request: a name, a path that parses, a
// window of at most protocol.MaxResourceItems children.
func checkResource(name, path string, offset, limit int) *answer.RequestError {
	if name == "" {
		return answer.Refuse(protocol.ErrBadValue, "a resource request names the resource (n, or r in a subscription)")
	}
	if err := checkText("n", name); err != nil {
		return err
	}
	if err := checkText("p", path); err != nil {
		return err
	}
	if _, err := protocol.ParsePath(path); err != nil {
		return answer.Refuse(protocol.ErrBadValue, "%v", err)
	}
	if offset < 0 || offset > protocol.MaxOffset {
		return answer.Refuse(protocol.ErrBadValue, "o (first child) must be 0 to %d, got %d", protocol.MaxOffset, offset)
	}
	if limit < 0 || limit > protocol.MaxResourceItems {
		return answer.Refuse(protocol.ErrBadValue, "l (children) must be 0 to %d (0: %d), got %d", protocol.MaxResourceItems, protocol.DefaultPageLimit, limit)
	}
	return nil
}

func checkQuery(expr string) *answer.RequestError {
	if len(expr) > protocol.MaxQueryBytes {
		return answer.Refuse(protocol.ErrTooLarge, "a query is at most %d bytes, got %d", protocol.MaxQueryBytes, len(expr))
	}
	ex, err := query.ParseQuery(expr)
	if err != nil {
		return answer.Refuse(protocol.ErrBadQuery, "%v", err)
	}
	return checkTerms(ex)
}

// checkTerms holds a parsed query to the protocol's count of terms.
func checkTerms(ex *query.Expr) *answer.RequestError {
	if len(ex.Terms) > protocol.MaxQueryTerms {
		return answer.Refuse(protocol.ErrTooLarge, "a query has at most %d terms, got %d", protocol.MaxQueryTerms, len(ex.Terms))
	}
	return nil
}

func checkText(key, s string) *answer.RequestError {
	if len(s) > protocol.MaxTextBytes {
		return answer.Refuse(protocol.ErrTooLarge, "%s is at most %d bytes, got %d", key, protocol.MaxTextBytes, len(s))
	}
	if !utf8.ValidString(s) {
		return answer.Refuse(protocol.ErrBadValue, "%s is not valid UTF-8", key)
	}
	return nil
}

// ReadOnlyRefusal is what a read-only session is told of a change it sent.
func ReadOnlyRefusal(m protocol.Message) string {
	return "this session is read-only: " + DescribeRequest(m) + " refused"
}

// DescribeRequest names a request's type in words: "setfield".
func DescribeRequest(m protocol.Message) string {
	return strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", m), "*protocol."))
}

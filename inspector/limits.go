package inspector

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// The bounds on what one request may ask, checked on the client's reader
// goroutine before the request reaches the game goroutine. PROTOCOL.md
// lists them with their error codes ("Limits").
const (
	// MaxQueryBytes bounds a query expression.
	MaxQueryBytes = 2048
	// MaxQueryTerms bounds a query's terms (components, field tests).
	MaxQueryTerms = 32
	// DefaultPageRows is the rows of a page that asks for none.
	DefaultPageRows = 100
	// MaxPageRows bounds the rows of one page; a larger limit is refused.
	MaxPageRows = 10000
	// MaxOffset bounds a page's first row.
	MaxOffset = math.MaxInt32
	// MaxEventSample bounds the recent events sent per queue.
	MaxEventSample = 64
	// MaxSubscriptions bounds one client's subscriptions.
	MaxSubscriptions = 64
	// MaxSpawnComponents bounds the components of one Spawn.
	MaxSpawnComponents = 64
	// MaxTextBytes bounds a field path, a component name or a journal filter.
	MaxTextBytes = 256
	// MaxStep bounds the frames of one Step.
	MaxStep = 1 << 20
	// MaxInFlight bounds a client's requests read but not yet answered:
	// past it the agent stops reading that client's socket until replies
	// are taken, so a client that sends without reading holds its own
	// requests back, not the game.
	MaxInFlight = 32
	// MaxQueuedBytes is the default of Options.MaxQueuedBytes.
	MaxQueuedBytes = 64 << 20
	// MaxCopyBytes bounds the memory one query copied off the game
	// goroutine may take; a query over it is refused as too large.
	MaxCopyBytes = 256 << 20
)

// requestBudget is the game-goroutine time one Sync gives clients'
// requests together: requests past it wait for the next frame, taken from
// each client in turn, so no client can hold the game or starve another.
const requestBudget = 2 * time.Millisecond

// requestError is a request refused at the door, with its code.
type requestError struct {
	code string
	msg  string
}

func (e *requestError) Error() string { return e.msg }

func refuse(code, format string, args ...any) *requestError {
	return &requestError{code: code, msg: fmt.Sprintf(format, args...)}
}

// checkRequest checks a request's numbers and sizes against the documented
// bounds; readOnly refuses what would change the world or its flow.
func checkRequest(m protocol.Message, readOnly bool) *requestError {
	if readOnly && changesWorld(m) {
		return refuse(protocol.ErrReadOnly, "this session is read-only: %s refused", describeRequest(m))
	}
	switch m := m.(type) {
	case *protocol.Subscribe:
		if math.IsNaN(m.Hz) || math.IsInf(m.Hz, 0) || m.Hz < 0 {
			return refuse(protocol.ErrBadValue, "hz must be a finite number of 0 or more (0: the agent's default), got %v", m.Hz)
		}
		switch m.What {
		case protocol.SubPage:
			if m.Archetype < 0 || m.Archetype > math.MaxUint32 {
				return refuse(protocol.ErrBadValue, "arch must be 1 + an archetype id, or 0; got %d", m.Archetype)
			}
			if err := checkWindow(m.Offset, m.Limit); err != nil {
				return err
			}
			if m.Archetype > 0 && m.Query != "" {
				return refuse(protocol.ErrBadValue, "a page lists a query (q) or an archetype (arch), not both")
			}
			if m.Archetype > 0 && m.Sort != "" {
				return refuse(protocol.ErrBadValue, "a page sorts a query (q), not an archetype: list the archetype's components as the query")
			}
			if err := checkText("s", m.Sort); err != nil {
				return err
			}
			return checkQuery(m.Query)
		case protocol.SubEvents:
			if m.Sample < 0 || m.Sample > MaxEventSample {
				return refuse(protocol.ErrBadValue, "n must be 0 to %d recent events per queue, got %d", MaxEventSample, m.Sample)
			}
		case protocol.SubJournal:
			return checkText("f", m.Filter)
		case protocol.SubSeries:
			if len(m.Query) > MaxQueryBytes {
				return refuse(protocol.ErrTooLarge, "a series is at most %d bytes, got %d", MaxQueryBytes, len(m.Query))
			}
			spec, err := protocol.ParseSeries(m.Query)
			if err != nil {
				return refuse(protocol.ErrBadValue, "%v", err)
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
	case *protocol.SetField:
		return checkText("p", m.Path)
	case *protocol.AddComponent:
		return checkText("c", m.Component)
	case *protocol.RemoveComponent:
		return checkText("c", m.Component)
	case *protocol.Spawn:
		if len(m.Components) > MaxSpawnComponents {
			return refuse(protocol.ErrTooLarge, "a spawn takes at most %d components, got %d", MaxSpawnComponents, len(m.Components))
		}
		for _, cv := range m.Components {
			if err := checkText("c", cv.Component); err != nil {
				return err
			}
		}
	case *protocol.Watch:
		if len(m.Expr) > MaxQueryBytes {
			return refuse(protocol.ErrTooLarge, "a watchpoint is at most %d bytes, got %d", MaxQueryBytes, len(m.Expr))
		}
		if !utf8.ValidString(m.Expr) {
			return refuse(protocol.ErrBadValue, "x is not valid UTF-8")
		}
		// A watchpoint's query is held to a query's bounds: its terms are
		// tested on every row the game writes.
		if spec, err := query.ParseWatch(m.Expr); err == nil && spec.Query != "" {
			return checkQuery(spec.Query)
		}
	case *protocol.Step:
		if m.N == 0 || m.N > MaxStep {
			return refuse(protocol.ErrBadValue, "step takes 1 to %d frames, got %d", MaxStep, m.N)
		}
	}
	return nil
}

func checkWindow(offset, limit int) *requestError {
	if offset < 0 || offset > MaxOffset {
		return refuse(protocol.ErrBadValue, "o (first row) must be 0 to %d, got %d", MaxOffset, offset)
	}
	if limit < 0 || limit > MaxPageRows {
		return refuse(protocol.ErrBadValue, "l (rows) must be 0 to %d (0: %d), got %d", MaxPageRows, DefaultPageRows, limit)
	}
	return nil
}

func checkQuery(expr string) *requestError {
	if len(expr) > MaxQueryBytes {
		return refuse(protocol.ErrTooLarge, "a query is at most %d bytes, got %d", MaxQueryBytes, len(expr))
	}
	ex, err := query.ParseQuery(expr)
	if err != nil {
		return refuse(protocol.ErrBadQuery, "%v", err)
	}
	if len(ex.Terms) > MaxQueryTerms {
		return refuse(protocol.ErrTooLarge, "a query has at most %d terms, got %d", MaxQueryTerms, len(ex.Terms))
	}
	return nil
}

func checkText(key, s string) *requestError {
	if len(s) > MaxTextBytes {
		return refuse(protocol.ErrTooLarge, "%s is at most %d bytes, got %d", key, MaxTextBytes, len(s))
	}
	if !utf8.ValidString(s) {
		return refuse(protocol.ErrBadValue, "%s is not valid UTF-8", key)
	}
	return nil
}

// pageLimit is the rows a valid request's l asks for.
func pageLimit(l int) int {
	if l <= 0 {
		return DefaultPageRows
	}
	return l
}

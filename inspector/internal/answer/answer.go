package answer

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Frame is a captured subscription frame on its way to a client's writer:
// a ready message, or Build run on the writer goroutine.
type Frame struct {
	Msg   protocol.Message
	Build func() protocol.Message
	Size  int64 // estimated bytes, counted against the client's queued bytes
	Heavy bool  // Build filters or sorts a copy: it holds the client's heavy slot
	Reset bool  // send it full: the subscription was (re)started
}

// Message is the frame's message, built if it has a Build.
func (f Frame) Message() protocol.Message {
	if f.Build != nil {
		return f.Build()
	}
	return f.Msg
}

// RequestError is a request refused, at the door or by the game half,
// with the code its Reply carries.
type RequestError struct {
	Code string // a protocol.Err... code
	Msg  string
}

func (e *RequestError) Error() string { return e.Msg }

// Refuse makes a RequestError.
func Refuse(code, format string, args ...any) *RequestError {
	return &RequestError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

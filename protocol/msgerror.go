package protocol

import (
	"errors"
	"math"
	"reflect"
	"strings"
)

// MessageError is a whole frame whose payload is not a message the reader
// takes: not msgpack, not [type, body], an unknown type, a field of the
// wrong kind or out of range. The frame boundary is intact, so the
// connection can go on: an agent answers it with a Reply of code
// ErrProtocol carrying ID (0 when the id could not be read) and keeps
// reading.
type MessageError struct {
	Type  Type   // the message type, if it could be read (0 if not)
	ID    uint32 // the request id, if it could be read
	HasID bool   // whether ID was read from the message
	Err   error  // what is wrong
}

func (e *MessageError) Error() string { return e.Err.Error() }

// Unwrap returns what is wrong.
func (e *MessageError) Unwrap() error { return e.Err }

// newMessageError wraps err with what can be read of b's type and id.
func newMessageError(b []byte, err error) error {
	var me *MessageError
	if errors.As(err, &me) {
		return err
	}
	me = &MessageError{Err: err}
	if _, cerr := checkMsgpack(b, maxDepth, decodeBudget(len(b))); cerr != nil {
		return me
	}
	var parts []any
	if unmarshal(b, &parts) != nil || len(parts) < 2 {
		return me
	}
	if t, ok := asUint(parts[0]); ok && t <= math.MaxUint8 {
		me.Type = Type(t)
	}
	if body, ok := parts[1].(map[string]any); ok {
		if id, ok := asUint(body["id"]); ok && id <= math.MaxUint32 {
			me.ID, me.HasID = uint32(id), true
		}
	}
	return me
}

// IDOf is the `id` a message carries, 0 if it has none: what a reply to a
// message that is not a request answers (a Reply's id, say).
func IDOf(m Message) uint32 {
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("msgpack"), ","); name == "id" && f.Type.Kind() == reflect.Uint32 {
			return uint32(v.Field(i).Uint())
		}
	}
	return 0
}

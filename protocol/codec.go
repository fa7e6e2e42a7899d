package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// maxDepth bounds how deeply a message may nest (values included).
const maxDepth = 32

// newMessage returns an empty message of type t.
func newMessage(t Type) (Message, error) {
	switch t {
	case TypeHello:
		return &Hello{}, nil
	case TypeSubscribe:
		return &Subscribe{}, nil
	case TypeUnsubscribe:
		return &Unsubscribe{}, nil
	case TypeQuery:
		return &Query{}, nil
	case TypeGetEntity:
		return &GetEntity{}, nil
	case TypeSetField:
		return &SetField{}, nil
	case TypeAddComponent:
		return &AddComponent{}, nil
	case TypeRemoveComponent:
		return &RemoveComponent{}, nil
	case TypeSpawn:
		return &Spawn{}, nil
	case TypeDespawn:
		return &Despawn{}, nil
	case TypePause:
		return &Pause{}, nil
	case TypeResume:
		return &Resume{}, nil
	case TypeStep:
		return &Step{}, nil
	case TypeSnapshotRequest:
		return &SnapshotRequest{}, nil
	case TypeSetParent:
		return &SetParent{}, nil
	case TypeWatch:
		return &Watch{}, nil
	case TypeUnwatch:
		return &Unwatch{}, nil
	case TypeEnableWatch:
		return &EnableWatch{}, nil
	case TypeRewind:
		return &Rewind{}, nil
	case TypeWatchHit:
		return &WatchHit{}, nil
	case TypeWelcome:
		return &Welcome{}, nil
	case TypeReject:
		return &Reject{}, nil
	case TypeReply:
		return &Reply{}, nil
	case TypeSummary:
		return &Summary{}, nil
	case TypePage:
		return &Page{}, nil
	case TypeDetail:
		return &Detail{}, nil
	case TypeEvents:
		return &Events{}, nil
	case TypeJournal:
		return &Journal{}, nil
	case TypeSnapshot:
		return &Snapshot{}, nil
	case TypeWorldFrame:
		return &WorldFrame{}, nil
	case TypeSeries:
		return &Series{}, nil
	case TypeGetResource:
		return &GetResource{}, nil
	case TypeAuth:
		return &Auth{}, nil
	case TypeChallenge:
		return &Challenge{}, nil
	case TypeResourcePage:
		return &ResourcePage{}, nil
	case TypeGetDangling:
		return &GetDangling{}, nil
	case TypeDanglingPage:
		return &DanglingPage{}, nil
	case TypePoints:
		return &Points{}, nil
	}
	return nil, fmt.Errorf("protocol: unknown message type %d", t)
}

var encoders = sync.Pool{New: func() any { return msgpack.NewEncoder(nil) }}

// AppendEncode appends the msgpack encoding of m, [type, body], to dst.
func AppendEncode(dst []byte, m Message) ([]byte, error) {
	if e, ok := m.(*Encoded); ok {
		if len(dst) == 0 {
			return e.Bytes, nil
		}
		return append(dst, e.Bytes...), nil
	}
	buf := bytes.NewBuffer(dst)
	enc := encoders.Get().(*msgpack.Encoder)
	defer encoders.Put(enc)
	enc.ResetWriter(buf) // keeps the flags, which Reset clears
	enc.UseCompactInts(true)
	if err := enc.EncodeArrayLen(2); err != nil {
		return dst, err
	}
	if err := enc.EncodeUint(uint64(m.Type())); err != nil {
		return dst, err
	}
	if err := enc.Encode(m); err != nil {
		return dst, fmt.Errorf("protocol: encode %T: %w", m, err)
	}
	return buf.Bytes(), nil
}

// Encode returns the msgpack encoding of m.
func Encode(m Message) ([]byte, error) { return AppendEncode(nil, m) }

var decoders = sync.Pool{New: func() any { return msgpack.NewDecoder(nil) }}

// decodeBudget bounds what decoding a frame of n bytes may allocate: 64
// bytes per byte of input (a one-byte msgpack value becomes a 56-byte
// Value), plus some slack. A 5-byte message cannot ask for gigabytes.
func decodeBudget(n int) int64 { return 64*int64(n) + 64<<10 }

// Decode reads one message from b, a whole frame's payload. The bytes are
// checked (every declared length against the bytes left, nesting, a bound
// on what decoding allocates) before the decoder sees them, and the message
// is decoded only into its typed struct. Fields a message does not know are
// ignored, so old clients read newer agents. A payload that is not a
// message this package reads comes back as a *MessageError.
func Decode(b []byte) (Message, error) {
	m, err := decode(b)
	if err != nil {
		return nil, newMessageError(b, err)
	}
	return m, nil
}

func decode(b []byte) (Message, error) {
	n, err := checkMsgpack(b, maxDepth, decodeBudget(len(b)))
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, fmt.Errorf("protocol: %d bytes after the message", len(b)-n)
	}
	if len(b) >= 2 && b[0] == 0x92 && (b[1] == byte(TypePage) || b[1] == byte(TypeSnapshot) || b[1] == byte(TypeJournal) || b[1] == byte(TypeSummary)) {
		m, _ := newMessage(Type(b[1]))
		r := &reader{b: b, pos: 2}
		if err := m.(bodyDecoder).decodeBody(r); err != nil {
			return nil, fmt.Errorf("protocol: decode %T: %w", m, err)
		}
		if r.pos != len(b) {
			return nil, fmt.Errorf("protocol: %d bytes after the message", len(b)-r.pos)
		}
		return m, nil
	}
	dec := decoders.Get().(*msgpack.Decoder)
	defer decoders.Put(dec)
	dec.Reset(bytes.NewReader(b))
	parts, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, fmt.Errorf("protocol: message is not [type, body]: %w", err)
	}
	if parts < 2 {
		return nil, errors.New("protocol: message is not [type, body]")
	}
	t, err := dec.DecodeUint8()
	if err != nil {
		return nil, fmt.Errorf("protocol: message type: %w", err)
	}
	m, err := newMessage(Type(t))
	if err != nil {
		return nil, err
	}
	if err := decodeSafe(dec, m); err != nil {
		return nil, fmt.Errorf("protocol: decode %s: %w", typeName(m), err)
	}
	if t < byte(TypeWelcome) { // a client's message: numbers exact, text UTF-8
		body, err := genericBody(b)
		if err != nil {
			return nil, fmt.Errorf("protocol: decode %s: %w", typeName(m), err)
		}
		if err := strictCheck(m, body); err != nil {
			return nil, err
		}
	}
	for range parts - 2 { // room to grow: later versions may add parts
		if err := dec.Skip(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// unmarshal is msgpack.Unmarshal made safe for hostile bytes: the library
// panics on some inputs (nil decoded into a struct field, for one); that
// panic becomes an error here.
func unmarshal(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("protocol: malformed msgpack: %v", r)
		}
	}()
	return msgpack.Unmarshal(b, v)
}

// decodeSafe is dec.Decode with the same guard.
func decodeSafe(dec *msgpack.Decoder, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed msgpack: %v", r)
		}
	}()
	return dec.Decode(v)
}

// UnmarshalChecked decodes b into v after checking it as Decode checks a
// message (lengths within b, nesting at most maxDepth): for the msgpack
// records of a file (a recording's header), read as hostile bytes.
func UnmarshalChecked(b []byte, maxDepth int, v any) error {
	if _, err := checkMsgpack(b, maxDepth, decodeBudget(len(b))); err != nil {
		return err
	}
	return unmarshal(b, v)
}

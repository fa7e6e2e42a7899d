package protocol

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// EncodeMsgpack writes the frame exactly as msgpack's struct encoder
// would with compact integers, as world bodies are encoded (a map of its
// non-empty fields, in field order), but its lists element by element
// without reflection: a keyframe of a million slots otherwise paid a type
// lookup per generation.
func (a *AllocFrame) EncodeMsgpack(enc *msgpack.Encoder) error {
	n := 1
	for _, set := range []bool{len(a.Gens) > 0, a.Keep != 0, len(a.Free) > 0} {
		if set {
			n++
		}
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	if err := encodeKeyInt(enc, "n", int64(a.Slots)); err != nil {
		return err
	}
	if err := encodeKeyUints(enc, "g", a.Gens); err != nil {
		return err
	}
	if a.Keep != 0 {
		if err := encodeKeyInt(enc, "k", int64(a.Keep)); err != nil {
			return err
		}
	}
	return encodeKeyUints(enc, "f", a.Free)
}

// encodeKeyUints writes key and list as an array of unsigned integers,
// nothing when the list is empty (as omitempty does).
func encodeKeyUints[T uint32 | EntityID](enc *msgpack.Encoder, key string, list []T) error {
	if len(list) == 0 {
		return nil
	}
	if err := encodeKeyArray(enc, key, len(list)); err != nil {
		return err
	}
	for _, v := range list {
		if err := enc.EncodeUint(uint64(v)); err != nil {
			return err
		}
	}
	return nil
}

func encodeKeyInt(enc *msgpack.Encoder, key string, v int64) error {
	if err := enc.EncodeString(key); err != nil {
		return err
	}
	return enc.EncodeInt(v)
}

func encodeKeyArray(enc *msgpack.Encoder, key string, n int) error {
	if err := enc.EncodeString(key); err != nil {
		return err
	}
	return enc.EncodeArrayLen(n)
}

// DecodeMsgpack reads what EncodeMsgpack writes (and any map with these
// keys, integers in any width), without reflection per element; unknown
// keys are skipped.
func (a *AllocFrame) DecodeMsgpack(dec *msgpack.Decoder) error {
	n, err := dec.DecodeMapLen()
	if err != nil {
		return err
	}
	*a = AllocFrame{}
	for range max(n, 0) {
		key, err := dec.DecodeString()
		if err != nil {
			return err
		}
		switch key {
		case "n":
			a.Slots, err = dec.DecodeInt()
		case "k":
			a.Keep, err = dec.DecodeInt()
		case "g":
			err = decodeList(dec, &a.Gens, func() (uint32, error) { return dec.DecodeUint32() })
		case "f":
			err = decodeList(dec, &a.Free, func() (EntityID, error) {
				v, err := dec.DecodeUint64()
				return EntityID(v), err
			})
		default:
			err = dec.Skip()
		}
		if err != nil {
			return fmt.Errorf("allocator %q: %w", key, err)
		}
	}
	return nil
}

// decodeList reads an array (nil for msgpack's nil) element by element.
// The length a message claims reserves at most a few thousand entries: the
// rest grows as elements actually arrive.
func decodeList[T any](dec *msgpack.Decoder, out *[]T, next func() (T, error)) error {
	n, err := dec.DecodeArrayLen()
	if err != nil || n < 0 {
		*out = nil
		return err
	}
	if n > MaxTableRows {
		return fmt.Errorf("a list of %d entries", n)
	}
	s := make([]T, 0, min(n, 4096))
	for range n {
		v, err := next()
		if err != nil {
			return err
		}
		s = append(s, v)
	}
	*out = s
	return nil
}

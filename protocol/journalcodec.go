package protocol

import (
	"bytes"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// EncodeMsgpack writes a journal entry as its struct tags say, without
// reflection: a busy game's journal goes to every client that follows it,
// thousands of entries a frame, and this is most of their cost to encode.
// A Journal's entries are decoded by hand too (Journal.decodeBody).
func (e *JournalEntry) EncodeMsgpack(enc *msgpack.Encoder) error {
	n := 6
	if len(e.Components) > 0 {
		n++
	}
	if e.To != 0 {
		n++
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	for _, kv := range []struct {
		k string
		v uint64
	}{{"s", e.Seq}, {"f", e.Frame}} {
		if err := enc.EncodeString(kv.k); err != nil {
			return err
		}
		if err := enc.EncodeUint(kv.v); err != nil {
			return err
		}
	}
	if err := encodeKV(enc, "op", e.Op); err != nil {
		return err
	}
	if err := enc.EncodeString("e"); err != nil {
		return err
	}
	if err := enc.EncodeUint(uint64(e.Entity)); err != nil {
		return err
	}
	if err := enc.EncodeString("c"); err != nil {
		return err
	}
	if err := enc.EncodeInt(int64(e.Component)); err != nil {
		return err
	}
	if err := encodeKV(enc, "sy", e.System); err != nil {
		return err
	}
	if len(e.Components) > 0 {
		if err := enc.EncodeString("cs"); err != nil {
			return err
		}
		if err := enc.EncodeArrayLen(len(e.Components)); err != nil {
			return err
		}
		for _, c := range e.Components {
			if err := enc.EncodeInt(int64(c)); err != nil {
				return err
			}
		}
	}
	if e.To != 0 {
		if err := enc.EncodeString("to"); err != nil {
			return err
		}
		return enc.EncodeUint(e.To)
	}
	return nil
}

func encodeKV(enc *msgpack.Encoder, k, v string) error {
	if err := enc.EncodeString(k); err != nil {
		return err
	}
	return enc.EncodeString(v)
}

var _ msgpack.CustomEncoder = (*JournalEntry)(nil)

// JournalBatch is journal entries that several subscriptions send alike
// (every client that follows the whole journal, from the same place):
// encoded once, by the first writer that sends them, and copied as bytes
// by the others. Its entries are not changed once shared.
type JournalBatch struct {
	Entries []JournalEntry
	once    sync.Once
	raw     []byte
	err     error
}

// encoded is the batch's entries as a msgpack array.
func (b *JournalBatch) encoded() ([]byte, error) {
	b.once.Do(func() {
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.UseCompactInts(true)
		if b.err = enc.EncodeArrayLen(len(b.Entries)); b.err != nil {
			return
		}
		for i := range b.Entries {
			if b.err = b.Entries[i].EncodeMsgpack(enc); b.err != nil {
				return
			}
		}
		b.raw = buf.Bytes()
	})
	return b.raw, b.err
}

// Share makes j send b's entries, encoded once for every journal that
// shares them.
func (j *Journal) Share(b *JournalBatch) { j.Entries, j.batch = b.Entries, b }

// EncodeMsgpack writes a journal as its struct tags say, its entries from
// their shared batch when it has one.
func (j *Journal) EncodeMsgpack(enc *msgpack.Encoder) error {
	if err := enc.EncodeMapLen(3); err != nil {
		return err
	}
	if err := enc.EncodeString("sub"); err != nil {
		return err
	}
	if err := enc.EncodeUint(uint64(j.Sub)); err != nil {
		return err
	}
	if err := enc.EncodeString("t"); err != nil {
		return err
	}
	if err := enc.EncodeUint(j.Tick); err != nil {
		return err
	}
	if err := enc.EncodeString("en"); err != nil {
		return err
	}
	if j.batch != nil {
		raw, err := j.batch.encoded()
		if err != nil {
			return err
		}
		return enc.Encode(msgpack.RawMessage(raw))
	}
	if j.Entries == nil {
		return enc.EncodeNil()
	}
	if err := enc.EncodeArrayLen(len(j.Entries)); err != nil {
		return err
	}
	for i := range j.Entries {
		if err := j.Entries[i].EncodeMsgpack(enc); err != nil {
			return err
		}
	}
	return nil
}

var _ msgpack.CustomEncoder = (*Journal)(nil)

// DecodeMsgpack reads a journal with its hand decoder, whichever way the
// message came (see Page's).
func (j *Journal) DecodeMsgpack(dec *msgpack.Decoder) error { return decodeRaw(dec, j.decodeBody) }

// decodeBody reads a journal without reflection: a client that follows a
// busy game's journal reads thousands of entries a second.
func (j *Journal) decodeBody(r *reader) error {
	*j = Journal{}
	for range r.containerLen(true) {
		switch r.key() {
		case "sub":
			j.Sub = uint32(r.uint())
		case "t":
			j.Tick = r.uint()
		case "en":
			j.Entries = listOf(r, r.journalEntry)
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return r.err
		}
	}
	return r.err
}

// journalEntry reads one entry, its fields as JournalEntry's tags say.
func (r *reader) journalEntry(e *JournalEntry) {
	for range r.containerLen(true) {
		switch r.key() {
		case "s":
			e.Seq = r.uint()
		case "f":
			e.Frame = r.uint()
		case "op":
			e.Op = r.key()
		case "e":
			e.Entity = EntityID(r.uint())
		case "c":
			e.Component = r.int()
		case "sy":
			e.System = r.key()
		case "cs":
			e.Components = listOf(r, func(c *int) { *c = r.int() })
		case "to":
			e.To = r.uint()
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return
		}
	}
}

// listOf reads a list, each item with read; nil for an empty one.
func listOf[T any](r *reader, read func(*T)) []T {
	n := r.list()
	if n <= 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		read(&out[i])
	}
	return out
}

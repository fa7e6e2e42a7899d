package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
)

// TemplateID is the request id a message is encoded with to make a
// Template: a value no request takes, encoded at its full width so every
// other id fits in its place.
const TemplateID = math.MaxUint32

// templateIDField is how a message whose first field is its request id
// "id" holds TemplateID: the key, then the uint32 marker and four bytes.
var templateIDField = []byte{0xa2, 'i', 'd', 0xce, 0xff, 0xff, 0xff, 0xff}

// A Template is an answer encoded once and sent many times, each time
// with its own request id: one copy of the world answers every snapshot
// request of the next second, and encoding it once spares the other
// requests the encoder's time and its garbage.
type Template struct {
	of Type
	b  []byte
	at int // the id's four bytes
}

// EncodeTemplate encodes m, whose first field is its request id "id" and
// holds TemplateID.
func EncodeTemplate(m Message) (*Template, error) {
	b, err := Encode(m)
	if err != nil {
		return nil, err
	}
	// The id comes right after [type, map header]: within the first bytes.
	i := bytes.Index(b[:min(len(b), 16)], templateIDField)
	if i < 0 {
		return nil, errors.New("protocol: a template's message must start with its id, set to TemplateID")
	}
	return &Template{of: m.Type(), b: b, at: i + len(templateIDField) - 4}, nil
}

// Len is the size of the encoded message.
func (t *Template) Len() int { return len(t.b) }

// For returns the message answering request id: a copy of the template's
// bytes with the id in place, sent as they are.
func (t *Template) For(id uint32) *Encoded {
	b := bytes.Clone(t.b)
	binary.BigEndian.PutUint32(b[t.at:], id)
	return &Encoded{Of: t.of, ID: id, Bytes: b}
}

// Encoded is a message already encoded (Bytes, as Encode gives them), for
// an answer made from a Template; ID is the request it answers. Encode
// returns its Bytes themselves. It is never decoded: the bytes decode as
// the message of type Of.
type Encoded struct {
	Of    Type
	ID    uint32
	Bytes []byte
}

// Type is the type of the message the bytes hold.
func (e *Encoded) Type() Type { return e.Of }

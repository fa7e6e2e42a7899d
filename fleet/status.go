package fleet

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// Status is what an instance announces of itself on the broker: who it is
// and how its game runs. On the wire it is a msgpack map with these keys;
// readers ignore keys they do not know.
type Status struct {
	Game     string  `msgpack:"game"`
	Instance string  `msgpack:"inst"`
	Host     string  `msgpack:"host"`
	PID      int     `msgpack:"pid"`
	Build    string  `msgpack:"build,omitempty"` // the game's build (its main module's version and VCS revision)
	Started  int64   `msgpack:"start"`           // when the agent started, Unix ms
	Tick     uint64  `msgpack:"t"`               // the game's frame
	TPS      float64 `msgpack:"tps"`             // frames a second, lately (0 while paused)
	FrameP99 float64 `msgpack:"p99"`             // the 99th percentile of the last 128 frames' times (the schedule's run and the agent's turn, not the wait between frames), ms
	Entities int     `msgpack:"ents"`
	Paused   bool    `msgpack:"paused,omitempty"`
	Hits     uint64  `msgpack:"hits,omitempty"` // watchpoint hits of the watchpoints set now
	Clients  int     `msgpack:"cl,omitempty"`   // clients connected (sockets and sessions)
	At       int64   `msgpack:"at"`             // when this status was sent, Unix ms
	Every    float64 `msgpack:"every"`          // seconds between announcements
	Gone     bool    `msgpack:"gone,omitempty"` // the instance's agent is closing
}

// MaxStatus bounds an encoded Status; a longer message is refused.
const MaxStatus = 4 << 10

// EncodeStatus encodes s as it travels.
func EncodeStatus(s Status) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(&s); err != nil {
		return nil, err
	}
	if buf.Len() > MaxStatus {
		return nil, fmt.Errorf("fleet: a status of %d bytes is over %d", buf.Len(), MaxStatus)
	}
	return buf.Bytes(), nil
}

// DecodeStatus reads a Status from the broker, refusing what no agent
// sends: more than MaxStatus bytes, not a map, fields of the wrong kind,
// an instance name that is not one, numbers out of range.
func DecodeStatus(b []byte) (Status, error) {
	var s Status
	if len(b) > MaxStatus {
		return s, fmt.Errorf("fleet: a status of %d bytes (at most %d)", len(b), MaxStatus)
	}
	if len(b) == 0 || b[0]&0xf0 != 0x80 && b[0] != 0xde {
		return s, errors.New("fleet: a status must be a msgpack map")
	}
	r := bytes.NewReader(b)
	if err := msgpack.NewDecoder(r).Decode(&s); err != nil {
		return Status{}, fmt.Errorf("fleet: status: %w", err)
	}
	if r.Len() != 0 {
		return Status{}, errors.New("fleet: bytes after the status")
	}
	if err := CheckName("instance", s.Instance, false); err != nil {
		return Status{}, err
	}
	if s.PID < 0 || s.Entities < 0 || s.Clients < 0 || s.TPS < 0 || s.FrameP99 < 0 || s.Every < 0 || s.TPS != s.TPS || s.FrameP99 != s.FrameP99 || s.Every != s.Every {
		return Status{}, errors.New("fleet: status: a count or a rate out of range")
	}
	return s, nil
}

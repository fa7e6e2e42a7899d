package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// EntityID is an entity handle on the wire: the generation in the high 32
// bits, the slot index in the low 32 (a msgpack uint). Zero is no entity.
type EntityID uint64

// MakeEntityID packs a slot index and generation.
func MakeEntityID(index, generation uint32) EntityID {
	return EntityID(uint64(generation)<<32 | uint64(index))
}

// Index is the entity's slot.
func (e EntityID) Index() uint32 { return uint32(e) }

// Generation is the slot's generation when the entity was spawned.
func (e EntityID) Generation() uint32 { return uint32(e >> 32) }

// String prints the handle as the kernel does: "42v3".
func (e EntityID) String() string {
	return strconv.FormatUint(uint64(e.Index()), 10) + "v" + strconv.FormatUint(uint64(e.Generation()), 10)
}

// ParseEntityID reads "42v3".
func ParseEntityID(s string) (EntityID, error) {
	i, g, ok := strings.Cut(s, "v")
	if !ok {
		return 0, fmt.Errorf("protocol: entity %q: want INDEXvGENERATION, like 42v3", s)
	}
	index, err1 := strconv.ParseUint(i, 10, 32)
	gen, err2 := strconv.ParseUint(g, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("protocol: entity %q: want INDEXvGENERATION, like 42v3", s)
	}
	return MakeEntityID(uint32(index), uint32(gen)), nil
}

// MarshalJSON writes the handle as people read it, "42v3" (the wire keeps
// the packed msgpack uint): what dump --json and --diff --json print.
func (e EntityID) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, e.String()), nil
}

// UnmarshalJSON reads "42v3", or a packed number.
func (e *EntityID) UnmarshalJSON(b []byte) error {
	if s, err := strconv.Unquote(string(b)); err == nil {
		id, err := ParseEntityID(s)
		*e = id
		return err
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("protocol: entity %s: want \"42v3\" or a packed handle", b)
	}
	*e = EntityID(n)
	return nil
}

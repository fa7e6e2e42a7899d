package protocol

import (
	"fmt"
	"strconv"
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
func (e EntityID) String() string { return formatHandle(e.Index(), e.Generation()) }

// ParseEntityID reads "42v3", as the kernel's ParseEntity does.
func ParseEntityID(s string) (EntityID, error) {
	index, gen, err := parseHandle(s)
	if err != nil {
		return 0, fmt.Errorf("protocol: %w", err)
	}
	return MakeEntityID(index, gen), nil
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

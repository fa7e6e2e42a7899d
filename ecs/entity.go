package ecs

import (
	"fmt"
)

// Entity is a generational handle to an entity in a [World]: a slot index and
// the generation of that slot when the entity was spawned. Despawning bumps the
// slot's generation, so a handle kept past its entity's despawn is stale and
// every operation rejects it. The zero Entity is never alive.
type Entity struct {
	index uint32
	gen   uint32
}

// EntityOf builds a handle from its parts, as read back from [Entity.String],
// a file or the wire. Whether it names a live entity is for [World.Alive].
func EntityOf(index, generation uint32) Entity {
	return Entity{index: index, gen: generation}
}

// Index is the slot the entity occupies in the world's entity table.
func (e Entity) Index() uint32 { return e.index }

// Generation counts how often the entity's slot had been reused when the
// entity was spawned; fresh slots start at generation 1.
func (e Entity) Generation() uint32 { return e.gen }

// IsZero reports whether e is the zero handle, which never names an entity.
func (e Entity) IsZero() bool { return e == Entity{} }

// String prints the handle as index "v" generation, for example "42v3".
func (e Entity) String() string { return formatHandle(e.index, e.gen) }

// ParseEntity reads a handle printed by [Entity.String], such as "42v3".
func ParseEntity(s string) (Entity, error) {
	index, gen, err := parseHandle(s)
	if err != nil {
		return Entity{}, fmt.Errorf("ecs: %w", err)
	}
	return Entity{index: index, gen: gen}, nil
}

package ecs

import "math/bits"

// MaxComponents is how many component types one [World] can register.
const MaxComponents = 256

// Mask is a set of component ids, one bit each.
type Mask [MaxComponents / 64]uint64

// Set adds id to the mask.
func (m *Mask) Set(id ComponentID) { m[id>>6] |= 1 << (id & 63) }

// Clear removes id from the mask.
func (m *Mask) Clear(id ComponentID) { m[id>>6] &^= 1 << (id & 63) }

// Has reports whether id is in the mask.
func (m *Mask) Has(id ComponentID) bool { return m[id>>6]&(1<<(id&63)) != 0 }

// ContainsAll reports whether every id of o is in m.
func (m *Mask) ContainsAll(o *Mask) bool {
	return m[0]&o[0] == o[0] && m[1]&o[1] == o[1] && m[2]&o[2] == o[2] && m[3]&o[3] == o[3]
}

// ContainsAny reports whether m and o share an id.
func (m *Mask) ContainsAny(o *Mask) bool {
	return m[0]&o[0]|m[1]&o[1]|m[2]&o[2]|m[3]&o[3] != 0
}

// IsZero reports whether the mask is empty.
func (m *Mask) IsZero() bool { return m[0]|m[1]|m[2]|m[3] == 0 }

// Len counts the ids in the mask.
func (m *Mask) Len() int {
	return bits.OnesCount64(m[0]) + bits.OnesCount64(m[1]) + bits.OnesCount64(m[2]) + bits.OnesCount64(m[3])
}

// IDs lists the ids in the mask in ascending order.
func (m *Mask) IDs() []ComponentID { return m.AppendIDs(make([]ComponentID, 0, m.Len())) }

// AppendIDs appends the ids in the mask to ids, ascending, and returns it.
func (m *Mask) AppendIDs(ids []ComponentID) []ComponentID {
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			ids = append(ids, ComponentID(w*64+b))
			word &= word - 1
		}
	}
	return ids
}

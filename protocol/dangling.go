package protocol

import "fmt"

// Dangling handles: handles stored in components and resources that name
// no live entity, found by the agent's scan before a system uses them.

// DanglingAudit is the agent's list of dangling handles (a Summary's dg).
type DanglingAudit struct {
	N    int        `msgpack:"n"`           // dangling handles found, in all
	List []Dangling `msgpack:"l,omitempty"` // the newest found first, at most MaxDanglingListed (see Between)
	// Between, when the list is cut, is how many handles found between
	// its halves are not listed: the list holds the newest
	// MaxDanglingListed/2 found and then the first ones found (the ones
	// a hunt starts from), newest first.
	Between int `msgpack:"bt,omitempty"`
}

// MaxDanglingListed bounds the dangling handles a Summary lists.
const MaxDanglingListed = 100

// Dangling is one handle, stored in a component or a resource, that names
// no live entity.
type Dangling struct {
	Holder    EntityID `msgpack:"e,omitempty"`  // the entity whose component holds it; 0 for a resource
	Component string   `msgpack:"c,omitempty"`  // that component
	Resource  string   `msgpack:"r,omitempty"`  // or the resource that holds it
	Path      string   `msgpack:"p"`            // where, from the component's or resource's name: "Hunts.Prey", "Grid.Cells[3]"
	Key       bool     `msgpack:"k,omitempty"`  // the handle is the key of the map entry Path ends at
	Handle    EntityID `msgpack:"h"`            // the handle
	Since     uint64   `msgpack:"t"`            // the tick its entity was despawned, or, when that is not known, the tick the agent found it
	By        string   `msgpack:"by,omitempty"` // who despawned it, when known: a system, or "external"
	Why       string   `msgpack:"w"`            // why it names no entity, in the kernel's words
	// Stored is who last wrote the holder's component (or held it for
	// writing: see Provenance), where the agent knows: a handle is stored
	// by a write of the component that holds it, and a write at or after
	// the despawn (Since) may be the one that put the dead handle there.
	// For a resource, who last changed the item that holds it, where the
	// agent saw it change (ResourceItem.Written: while a client is
	// attached).
	Stored *Provenance `msgpack:"st,omitempty"`
}

// StoredAfter reports whether the holder's component was written at or
// after its handle's entity was despawned: that write, if not an older
// one, left the dead handle where it is.
func (d Dangling) StoredAfter() bool {
	return d.Stored != nil && d.By != "" && d.Stored.Tick >= d.Since
}

// String says where the handle is and what became of its entity: "40v1's
// Hunts.Prey holds 12v3, despawned at tick 812 by hunting".
func (d Dangling) String() string {
	where := d.Path
	if d.Holder != 0 {
		where = d.Holder.String() + "'s " + d.Path
	}
	if d.Key {
		where += " (the key)"
	}
	stored := ""
	if st := d.Stored; st != nil {
		verb := "held for writing"
		if st.Seen {
			verb = "written"
		}
		what := d.Component
		if what == "" { // a resource's: the item itself
			what = d.Path
		}
		stored = fmt.Sprintf("; %s last %s at tick %d by %s", what, verb, st.Tick, st.By)
		if d.StoredAfter() {
			stored += ", after the despawn"
		}
	}
	if d.By != "" {
		return fmt.Sprintf("%s holds %v, despawned at tick %d by %s%s", where, d.Handle, d.Since, d.By, stored)
	}
	return fmt.Sprintf("%s holds %v, which %s%s", where, d.Handle, d.Why, stored)
}

// Message types of the dangling list's pages.
const (
	TypeGetDangling  Type = 22 // client: a page of every dangling handle the agent lists
	TypeDanglingPage Type = 78 // agent: the answer
)

// MaxDanglingPage bounds the handles of one DanglingPage.
const MaxDanglingPage = 1000

// GetDangling asks for a page of every dangling handle the agent lists
// (a Summary's DanglingAudit lists at most MaxDanglingListed): the oldest
// found first, grouped by where they are (an entity's handles together,
// a resource's together), the groups in the order their first handle was
// found. Limit 0 asks for DefaultPageLimit, at most MaxDanglingPage.
type GetDangling struct {
	ID     uint32 `msgpack:"id"`
	Offset int    `msgpack:"o,omitempty"`
	Limit  int    `msgpack:"l,omitempty"`
}

// DanglingPage is a page of the dangling list, as GetDangling orders it.
type DanglingPage struct {
	Sub    uint32     `msgpack:"sub"` // the GetDangling id
	Tick   uint64     `msgpack:"t"`
	Total  int        `msgpack:"tot"` // handles listed in all (the page's list is a window of them)
	Over   int        `msgpack:"ov,omitempty"`
	Offset int        `msgpack:"o"`
	List   []Dangling `msgpack:"l,omitempty"`
}

func (*GetDangling) Type() Type          { return TypeGetDangling }
func (*DanglingPage) Type() Type         { return TypeDanglingPage }
func (m *GetDangling) RequestID() uint32 { return m.ID }

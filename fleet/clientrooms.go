package fleet

import "time"

// Each client of an instance opens sessions from a budget of its own (a
// rate and a number open at once), within the instance's: one client's
// flood of openings costs that client, and leaves the instance's room to
// the others.

// A client's own bounds on opening sessions with one instance.
const (
	ClientOpenRate  = 4  // sessions a second
	ClientOpenBurst = 8  // at once
	ClientSessions  = 16 // open at once
)

// maxClientRooms bounds the clients an instance keeps a budget for; past
// it, rooms of clients with no session open are let go first.
const maxClientRooms = 1024

// clientRoom is one client's budget with an instance.
type clientRoom struct {
	opens    float64
	refilled time.Time
	sessions int
}

// clientRooms are an instance's clients' budgets. Its methods run under
// the Listener's lock.
type clientRooms map[string]*clientRoom

// take reports whether client may open a session now, and if so counts
// it; why says what refused it ("" for a flood's opening past the rate,
// answered by nothing).
func (r clientRooms) take(client string, now time.Time) (ok bool, why string) {
	room := r[client]
	if room == nil {
		if len(r) >= maxClientRooms && !r.evict(now) {
			return false, "the instance serves too many clients over the broker"
		}
		room = &clientRoom{opens: ClientOpenBurst, refilled: now}
		r[client] = room
	}
	room.opens = min(ClientOpenBurst, room.opens+now.Sub(room.refilled).Seconds()*ClientOpenRate)
	room.refilled = now
	switch {
	case room.sessions >= ClientSessions:
		return false, "this client has 16 sessions open with the instance"
	case room.opens < 1:
		return false, ""
	}
	room.opens--
	room.sessions++
	return true, ""
}

// give returns a client's session (it closed, or was never served).
func (r clientRooms) give(client string) {
	if room := r[client]; room != nil && room.sessions > 0 {
		room.sessions--
	}
}

// evict lets go of one room of a client with no session open, the one
// that opened longest ago; false if every client has one open.
func (r clientRooms) evict(now time.Time) bool {
	oldest, at := "", now
	for name, room := range r {
		if room.sessions == 0 && !room.refilled.After(at) {
			oldest, at = name, room.refilled
		}
	}
	if oldest == "" {
		return false
	}
	delete(r, oldest)
	return true
}

package ecs

// roomKeeper lets a buffer that is reused apply after apply (a command
// buffer's queue, an event queue's buffers frame after frame) give back the
// room a burst made. It follows the buffer's recent need: each apply's
// count when that is more, else the need less a sixteenth. When the room
// is over four times the need it says to keep twice what this apply
// held, so a burst's room goes back some twenty applies later, and a
// buffer that bursts more often than that keeps it. (A game's first
// frames that queue a million commands would otherwise keep their memory
// for good.)
type roomKeeper struct {
	need int
}

// keep notes an apply of n elements in a buffer with room for have and
// returns the room to keep, or 0 to keep it all.
func (k *roomKeeper) keep(n, have int) int {
	k.need = max(n, k.need-k.need/roomDecay)
	if have > minRoomKept && have > 4*k.need {
		return max(2*n, minRoomKept)
	}
	return 0
}

// Room keeping: how fast the need falls (a sixteenth an apply), and the
// least room worth giving back.
const (
	roomDecay   = 16
	minRoomKept = 1024
)

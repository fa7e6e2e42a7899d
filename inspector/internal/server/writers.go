package server

import (
	"strconv"
	"sync"
)

// The names clients write under in the world's journal and writer log.
// The kernel keeps every name it is given for the life of the world, so
// the agent bounds how many it gives: the first maxNumberedWriters clients
// that change the world are named one by one ("client 7 (ecsinspect
// exec)"); later ones are folded by name ("a client (ecsinspect exec)"),
// maxFoldedWriters names at most, and past those into one ("other
// clients"). With names cut to protocol.MaxClientName, the journal's
// names from clients stay under half a MiB however many connect.
const (
	maxNumberedWriters = 4096
	maxFoldedWriters   = 1024
	otherWriters       = "other clients"
)

// writerNames hands out the names clients write under.
type writerNames struct {
	mu       sync.Mutex
	numbered int
	folded   map[string]bool
}

// name is the writer name for client id called name.
func (n *writerNames) name(id int, name string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.numbered < maxNumberedWriters {
		n.numbered++
		return "client " + strconv.Itoa(id) + " (" + name + ")"
	}
	if n.folded == nil {
		n.folded = map[string]bool{}
	}
	if !n.folded[name] && len(n.folded) >= maxFoldedWriters {
		return otherWriters
	}
	n.folded[name] = true
	return "a client (" + name + ")"
}

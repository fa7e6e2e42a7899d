package fleet

import (
	"sync"
	"time"
)

// deadline is a settable point in time that closes a channel when it
// passes, so a blocked Read wakes when its deadline moves.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	passed chan struct{} // closed once the deadline passed
}

func newDeadline() *deadline { return &deadline{passed: make(chan struct{})} }

// set moves the deadline (zero: none).
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed // the timer fired: wait for it to close the channel
	}
	d.timer = nil
	select {
	case <-d.passed:
		d.passed = make(chan struct{})
	default:
	}
	if t.IsZero() {
		return
	}
	wait := time.Until(t)
	if wait <= 0 {
		close(d.passed)
		return
	}
	ch := d.passed
	d.timer = time.AfterFunc(wait, func() { close(ch) })
}

// wait is the channel closed when the deadline passes.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed
}

package ui

import (
	"testing"
	"time"
)

// gameLoop runs frame every period on its own goroutine, as a game's main
// loop would, until the test ends. The function it returns runs fn on that
// goroutine between frames and waits for it, for tests that must touch the
// world where the game does.
func gameLoop(t *testing.T, period time.Duration, frame func()) (onGame func(fn func())) {
	stop, done, do := make(chan struct{}), make(chan struct{}), make(chan func())
	go func() {
		defer close(done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case fn := <-do:
				fn()
			case <-tk.C:
				frame()
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return func(fn func()) {
		ran := make(chan struct{})
		do <- func() { fn(); close(ran) }
		<-ran
	}
}

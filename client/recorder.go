package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Recorder records a running game from outside, over a connection of
// its own: a `world` subscription whose frames (every entity and value,
// keyframes and deltas, coded by the agent) go to the file as they
// arrive. `ecsinspect record` and the UI's r both use it.
type Recorder struct {
	Path string // the file
	o    *OneShot
	w    *protocol.RecordWriter
	done chan error

	mu     sync.Mutex
	frames int
	bytes  int64
	last   uint64
}

// StartRecording connects to addr and records to path at hz frames per
// second (every frame the game runs when 0).
func StartRecording(addr, token, path string, hz float64) (*Recorder, error) {
	o, err := Dial(addr, token)
	if err != nil {
		return nil, err
	}
	w, err := protocol.CreateRecording(path, protocol.RecordingHeader{Game: o.Game, Hz: hz})
	if err != nil {
		o.Close()
		return nil, err
	}
	if err := o.Conn.Send(&protocol.Subscribe{ID: 1, What: protocol.SubWorld, Hz: hz}); err != nil {
		o.Close()
		_ = w.Close()
		return nil, err
	}
	r := &Recorder{Path: path, o: o, w: w, done: make(chan error, 1)}
	go r.run()
	return r, nil
}

func (r *Recorder) run() {
	_ = r.o.Conn.SetReadDeadline(time.Time{})
	idle := time.AfterFunc(protocol.FlushEvery, r.flush)
	defer idle.Stop()
	for {
		m, err := r.o.Conn.Receive()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = nil
			} else {
				err = fmt.Errorf("connection lost: %w (the recording keeps what arrived)", err)
			}
			r.finish(err)
			return
		}
		switch m := m.(type) {
		case *protocol.WorldFrame:
			r.mu.Lock()
			err = r.w.WriteWorld(m)
			r.frames++
			r.bytes, r.last = r.w.Bytes(), m.Tick
			r.mu.Unlock()
			idle.Reset(protocol.FlushEvery)
		case *protocol.Reply:
			if !m.OK {
				err = fmt.Errorf("the agent refused to stream the world: %s", m.Message)
			}
		case *protocol.Reject:
			err = fmt.Errorf("the agent dropped the recorder (%s): %s", m.Code, m.Reason)
		}
		if err != nil {
			r.finish(err)
			return
		}
	}
}

// flush pushes written frames to disk when none came for a while.
func (r *Recorder) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.w.Flush()
}

func (r *Recorder) finish(err error) {
	r.mu.Lock()
	cerr := r.w.Close()
	r.mu.Unlock()
	if err == nil {
		err = cerr
	}
	r.done <- err
}

// Progress reports frames and bytes written and the last tick.
func (r *Recorder) Progress() (frames int, bytes int64, tick uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frames, r.bytes, r.last
}

// Done yields the outcome once the recording has ended by itself.
func (r *Recorder) Done() <-chan error { return r.done }

// Stop closes the connection and the file, whole.
func (r *Recorder) Stop() error {
	r.o.Close()
	return <-r.done
}

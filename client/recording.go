package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Recording is a running game recorded from outside, over a connection of
// its own: a `world` subscription whose frames (every entity and value,
// keyframes and deltas, coded by the agent) go to the file as they
// arrive. `ecsinspect record` and the UI's r both use it.
//
// A file's ticks never go backwards: when the game is rewound, the agent
// starts the stream again from a keyframe and the recording goes on in a
// new file beside the first ("run.ecsrec", then "run-2.ecsrec", ...);
// Files lists them.
type Recording struct {
	Path string // the first file
	o    *OneShot
	w    recording.FrameWriter
	kept bool // a flight recording (StartRecordingKept)
	hdr  recording.RecordingHeader
	done chan error

	mu       sync.Mutex
	frames   int
	bytes    int64 // in all files
	closed   int64 // bytes of the files already closed
	written  int64 // bytes of frames written, in all (Written)
	started  time.Time
	last     uint64
	files    []string
	rewinds  []string // what each rewind did, for the user
	notified int      // rewinds reported by Rewinds
	stopped  bool     // Stop ended it: the connection closing is no loss
	limit    int      // frames after which it ends by itself (0: none)
	// dropped counts the game's frames an every-frame recording lacks
	// (ticks skipped between two frames), and dropWhy says why, as the
	// agent said in the frame after the gap (WorldFrame.SkipWhy).
	dropped uint64
	dropWhy string
}

// Dropped reports the game's frames an every-frame recording lacks so
// far, and why, as the agent said at the newest gap ("" if none).
func (r *Recording) Dropped() (frames uint64, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped, r.dropWhy
}

// recordFrameLimit is the largest frame a recorder reads: a world body at
// its largest, and the frame around it.
const recordFrameLimit = protocol.MaxWorldBody + 1<<20

// StartRecording connects to g and records to path at hz frames per
// second (every frame the game runs when 0), until Stop or, when frames
// is more than 0, until the file holds that many frames: the recording
// then ends by itself and Done yields nil.
func StartRecording(g Game, path string, hz float64, frames int) (*Recording, error) {
	return startRecording(g, path, hz, frames, func(hdr recording.RecordingHeader) (recording.FrameWriter, error) {
		return recording.CreateRecording(path, hdr)
	})
}

// StartRecordingKept is StartRecording as a flight recording: the
// directory path keeps only the last of the run (keep: minutes, or bytes
// on disk), in segments that open as one (recording.Keep). A rewind ends
// it: its ticks would go back.
func StartRecordingKept(g Game, path string, hz float64, keep recording.Keep) (*Recording, error) {
	r, err := startRecording(g, path, hz, 0, func(hdr recording.RecordingHeader) (recording.FrameWriter, error) {
		return recording.CreateKept(path, hdr, keep)
	})
	if r != nil {
		r.kept = true
	}
	return r, err
}

// startRecording is StartRecording into what create makes.
func startRecording(g Game, path string, hz float64, frames int, create func(recording.RecordingHeader) (recording.FrameWriter, error)) (*Recording, error) {
	// A world frame of a million entities is tens of MiB: the recorder
	// reads frames up to the largest world body the protocol allows.
	c, wel, err := g.connect("ecsinspect "+Version+" (recording)", recordFrameLimit)
	if err != nil {
		return nil, err
	}
	o := &OneShot{Conn: c, ID: 100, Game: wel.Game}
	hdr := recording.RecordingHeader{Game: o.Game, Hz: hz}
	w, err := create(hdr)
	if err != nil {
		o.Close()
		return nil, err
	}
	if err := o.Conn.Send(&protocol.Subscribe{ID: 1, What: protocol.SubWorld, Hz: hz}); err != nil {
		o.Close()
		_ = w.Close()
		return nil, err
	}
	r := &Recording{Path: path, o: o, w: w, hdr: hdr, done: make(chan error, 1), files: []string{path}, limit: max(frames, 0), started: time.Now()}
	go r.run()
	return r, nil
}

func (r *Recording) run() {
	_ = r.o.Conn.SetReadDeadline(time.Time{})
	idle := time.AfterFunc(recording.FlushEvery, r.flush)
	defer idle.Stop()
	for {
		m, err := r.o.Conn.Receive()
		if err != nil {
			r.mu.Lock()
			last, stopped := r.last, r.stopped
			r.mu.Unlock()
			switch {
			case stopped && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)):
				err = nil // Stop closed it
			case errors.Is(err, io.EOF):
				err = fmt.Errorf("the game went away at tick %d (the recording keeps what arrived)", last)
			default:
				err = fmt.Errorf("connection lost at tick %d: %w (the recording keeps what arrived)", last, err)
			}
			r.finish(err)
			return
		}
		switch m := m.(type) {
		case *protocol.WorldFrame:
			r.mu.Lock()
			if r.frames > 0 && m.Tick < r.last {
				err = r.nextFile(m)
			} else if r.hdr.Hz == 0 && r.frames > 0 && m.Tick > r.last+1 {
				r.dropped += m.Tick - r.last - 1
				r.dropWhy = m.SkipWhy
				if r.dropWhy == "" {
					r.dropWhy = "the agent did not say why"
				}
			}
			if err == nil {
				m.Sub = 0 // a recording's frames carry 0 (PROTOCOL.md)
				before := r.w.Bytes()
				err = r.w.WriteWorld(m)
				r.frames++
				r.written += max(r.w.Bytes()-before, int64(len(m.Body)))
				r.bytes, r.last = r.closed+r.w.Bytes(), m.Tick
			}
			reached := err == nil && r.limit > 0 && r.frames >= r.limit
			if reached {
				r.stopped = true
			}
			r.mu.Unlock()
			if reached {
				r.o.Close()
				r.finish(nil)
				return
			}
			idle.Reset(recording.FlushEvery)
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

// nextFile closes the file at a rewind (a frame whose tick is before the
// last one's) and opens the next, which starts with that frame, a
// keyframe: the agent starts its streams again from one after a rewind.
func (r *Recording) nextFile(f *protocol.WorldFrame) error {
	if r.kept {
		return fmt.Errorf("the game was rewound from tick %d to %d: a flight recording's ticks go forward only, so it stops here (%s keeps the run to tick %d)", r.last, f.Tick, r.Path, r.last)
	}
	if !f.Full {
		return fmt.Errorf("the game went back from tick %d to %d without a keyframe: the recording stops here", r.last, f.Tick)
	}
	if err := r.w.Close(); err != nil {
		return err
	}
	r.closed += r.w.Bytes()
	name := segmentName(r.Path, len(r.files)+1)
	w, err := recording.CreateRecording(name, r.hdr)
	if err != nil {
		return err
	}
	r.w = w
	r.files = append(r.files, name)
	r.rewinds = append(r.rewinds, fmt.Sprintf("the game was rewound from tick %d to %d: the recording goes on in %s", r.last, f.Tick, name))
	return nil
}

// segmentName is the name of a recording's nth file: run.ecsrec,
// run-2.ecsrec, run-3.ecsrec.
func segmentName(path string, n int) string {
	if n <= 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(path, ext), n, ext)
}

// Files lists the recording's files, the first one first: more than one
// when the game was rewound while it recorded.
func (r *Recording) Files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.files)
}

// Rewinds returns what rewinds did to the recording since the last call
// (each started a new file), for the user.
func (r *Recording) Rewinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.rewinds[r.notified:])
	r.notified = len(r.rewinds)
	return out
}

// flush pushes written frames to disk when none came for a while.
func (r *Recording) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.w.Flush()
}

func (r *Recording) finish(err error) {
	r.mu.Lock()
	cerr := r.w.Close()
	r.mu.Unlock()
	if err == nil {
		err = cerr
	}
	r.done <- err
}

// Written is the bytes of frames written so far, whatever a flight
// recording let go since.
func (r *Recording) Written() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// PerMinute is what the recording grows a minute, as it went so far (0
// for its first second): what a run of the game costs on disk, or what a
// flight recording writes and lets go.
func (r *Recording) PerMinute() int64 {
	took := time.Since(r.started)
	if took < time.Second {
		return 0
	}
	return int64(float64(r.Written()) / took.Minutes())
}

// Progress reports frames and bytes on disk and the last tick.
func (r *Recording) Progress() (frames int, bytes int64, tick uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frames, r.bytes, r.last
}

// Done yields the outcome once the recording has ended by itself.
func (r *Recording) Done() <-chan error { return r.done }

// Stop closes the connection and the file, whole.
func (r *Recording) Stop() error {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.o.Close()
	return <-r.done
}

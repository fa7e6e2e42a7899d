package inspector

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Recorder records the game's run to a file: every entity and value at
// every recorded tick, as WorldFrames (keyframes and deltas, see
// PROTOCOL.md). Captures happen in Sync; encoding, compression and writing
// on the recorder's goroutine.
type Recorder struct{ r *record.Recorder }

// Record starts recording the run to path: hz frames per second, or every
// frame the agent sees (every Sync) when hz <= 0. Stop it with
// Recorder.Stop. Call it on the game goroutine: the first frame, a
// keyframe, is taken there and then.
func (a *Agent) Record(path string, hz float64) (*Recorder, error) {
	w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: a.opts.Game, Hz: max(hz, 0)})
	if err != nil {
		return nil, err
	}
	return a.recordTo(w, path, hz), nil
}

// RecordKept is Record as a flight recording: the directory path keeps
// only the last of the run (keep: minutes, or bytes on disk), in
// segments that open as one recording (recording.Keep).
func (a *Agent) RecordKept(path string, hz float64, keep recording.Keep) (*Recorder, error) {
	w, err := recording.CreateKept(path, recording.RecordingHeader{Game: a.opts.Game, Hz: max(hz, 0)}, keep)
	if err != nil {
		return nil, err
	}
	return a.recordTo(w, path, hz), nil
}

// recordTo starts recording into w, named path.
func (a *Agent) recordTo(w record.Sink, path string, hz float64) *Recorder {
	r := a.newRecorder(w, hz, nil)
	a.recorders = append(a.recorders, r)
	a.tel.recording.Store(path)
	r.Begin()
	return &Recorder{r}
}

// newRecorder makes a recorder of the world into w that has taken nothing
// yet (Begin starts it); its encoder ends when closed does (nil: when it
// is stopped). As it ends it leaves the agent's list of recordings.
func (a *Agent) newRecorder(w record.Sink, hz float64, closed <-chan struct{}) *record.Recorder {
	stream := record.NewStream(a.w, a.summaryOf)
	// From the first grave kept: the stream's first frame, a keyframe,
	// carries the recent dead (the newest protocol.MaxRecordedDead), so a
	// reader that starts there knows of them as a later keyframe's does.
	stream.CarryDead(a.graves.Since, 0)
	return record.New(w, stream, hz, closed, record.Hooks{Ended: a.recordingEnded, Logf: a.logf})
}

// recordingEnded takes a recording that ended off the agent's list: Sync
// captures no more for it.
func (a *Agent) recordingEnded(r *record.Recorder) {
	for i, x := range a.recorders {
		if x == r {
			a.recorders = append(a.recorders[:i], a.recorders[i+1:]...)
			break
		}
	}
	if len(a.recorders) == 0 {
		a.tel.recording.Store("")
	}
}

// Keyframe makes the next recorded frame a keyframe: a place review can
// jump to ({ }) and seek from. Keyframes come by themselves too (see
// PROTOCOL.md); this marks a moment.
func (r *Recorder) Keyframe() { r.r.Keyframe() }

// Frames is how many frames the recorder has written.
func (r *Recorder) Frames() int { return r.r.Frames() }

// Skipped is how many frames were not recorded because the writer was
// behind (the game never waits for the disk).
func (r *Recorder) Skipped() int { return r.r.Skipped() }

// Bytes is how many bytes the recording holds so far.
func (r *Recorder) Bytes() int64 { return r.r.Bytes() }

// Coded is the bytes of the frames written so far, in all: what the run
// costs, though a flight recording (RecordKept) holds only its last.
func (r *Recorder) Coded() int64 { return r.r.Coded() }

// Stop ends the recording, writing the index, and waits for the file to
// close; call it on the game goroutine. A recording of every frame ends
// with the world as Stop finds it, even when the frames just before were
// missed (they are counted in the file). A recording that already ended (a
// rewind ends it: a file's ticks never go backwards) is closed already:
// Stop then only reports its outcome. Stop may be called any number of
// times.
func (r *Recorder) Stop() error {
	if err := r.r.Stop(); err != nil {
		return fmt.Errorf("inspector: recording: %w", err)
	}
	return nil
}

// Ended says why the recording ended by itself ("the game was rewound"),
// or "" while it runs or if Stop ended it.
func (r *Recorder) Ended() string { return r.r.Ended() }

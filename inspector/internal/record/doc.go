// Package record is the agent's recordings: a Stream captures the world on
// the game goroutine (memory copies) and encodes WorldFrames off it; a
// Recorder paces captures, queues them for its encoder and writes the
// frames to a Sink (a file, the in-memory Ring a rewind restores from, or
// clients listening to a world feed); Rebuild turns a span of the ring's
// frames back into an image of the world.
//
//	rec := record.New(file, record.NewStream(w, summaryOf), 0, nil, record.Hooks{})
//	rec.Begin()                 // the first frame, a keyframe, now
//	// each Sync: rec.Capture(time.Now())
//	err := rec.Stop()           // the file's index written and closed
package record

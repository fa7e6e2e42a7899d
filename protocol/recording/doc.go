// Package recording is the .ecsrec file format and the world rebuilt from
// world frames: RecordWriter and Recording write and read a file (an
// index, keyframes and deltas, every read bounded by what the file paid
// for); WorldState applies frames, from a file or a live world stream, and
// answers queries, details and diffs on the world as it stood; Replay
// seeks a recording to a tick; WorldEncoder makes the frames from a
// world's tables (the agent's side).
//
//	rec, err := recording.OpenRecording("session.ecsrec")
//	defer rec.Close()
//	st, _, err := recording.NewReplay(rec).AtTick(40000)
//	page, err := st.Query("Energy.Value<0", 0, 0, 20)
//	diff := recording.Diff(before, st)
package recording

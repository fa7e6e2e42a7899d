package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

const recordUsage = `Usage: ecsinspect record ADDR -o FILE.ecsrec [--duration D] [--hz H] [--token T]

Records a running game to a file for offline review: a snapshot of the
whole world first, then summaries at H per second (full ones as keyframes,
deltas between). Shows frames, bytes and time as it goes; Ctrl-C, or the end
of --duration, closes the file cleanly.
`

func runRecord(args []string, out io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { fmt.Fprint(out, recordUsage); fs.PrintDefaults() }
	path := fs.String("o", "", "the file to write (.ecsrec)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	hz := fs.Float64("hz", 10, "summaries per second")
	token := fs.String("token", "", "the agent's token")
	if err := fs.Parse(reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 || *path == "" {
		return fmt.Errorf("want an address and -o FILE\n\n%s", recordUsage)
	}
	o, err := dialOneShot(fs.Arg(0), *token)
	if err != nil {
		return err
	}
	defer o.close()
	w, err := protocol.CreateRecording(*path, "")
	if err != nil {
		return err
	}
	// The snapshot first: the keyframe the review starts from.
	o.id++
	snapID := o.id
	if err := o.c.Send(&protocol.SnapshotRequest{ID: snapID}); err != nil {
		return err
	}
	m, err := o.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && s.ID == snapID })
	if err != nil {
		_ = w.Close()
		return err
	}
	snap := m.(*protocol.Snapshot)
	if err := w.Write(snap.Tick, time.Now(), true, snap); err != nil {
		_ = w.Close()
		return err
	}
	if err := o.c.Send(&protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: *hz}); err != nil {
		_ = w.Close()
		return err
	}
	msgs := make(chan protocol.Message, 64)
	readErr := make(chan error, 1)
	go func() {
		_ = o.c.SetReadDeadline(time.Time{})
		for {
			m, err := o.c.Receive()
			if err != nil {
				readErr <- err
				return
			}
			msgs <- m
		}
	}()
	start := time.Now()
	var deadline <-chan time.Time
	if *duration > 0 {
		deadline = time.After(*duration)
	}
	progress := time.NewTicker(250 * time.Millisecond)
	defer progress.Stop()
	show := func(final bool) {
		end := "\r"
		if final {
			end = "\n"
		}
		fmt.Fprintf(out, "recording %s: %d frames, %s, %s%s", *path, w.Frames(), sizeOf(int(w.Bytes())), time.Since(start).Round(100*time.Millisecond), end)
	}
	var loopErr error
loop:
	for {
		select {
		case m := <-msgs:
			if s, ok := m.(*protocol.Summary); ok {
				if err := w.Write(s.Tick, time.Now(), s.Full, s); err != nil {
					loopErr = err
					break loop
				}
			}
		case err := <-readErr:
			if !errors.Is(err, io.EOF) {
				loopErr = fmt.Errorf("connection lost: %w (the recording keeps what arrived)", err)
			}
			break loop
		case <-progress.C:
			show(false)
		case <-deadline:
			break loop
		case <-stop:
			break loop
		}
	}
	show(true)
	if err := w.Close(); err != nil {
		return err
	}
	return loopErr
}

package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

const recordUsage = `Usage: ecsinspect record ADDR -o FILE.ecsrec [--duration D] [--frames N] [--hz H] [--keep 10m|2GB] [--token T]

Records a running game to a file for offline review (ecsinspect open,
ecsinspect dump): every entity and every component value at every
recorded frame, with resources, events, system timings and the journal.
The agent codes the frames (keyframes and compressed deltas); this command
writes them as they arrive. Shows frames, bytes and time as it goes;
Ctrl-C, SIGTERM, the end of --duration or the file holding --frames
frames (whichever comes first) closes the file cleanly, and a
file cut short by a crash still opens. A file's ticks never go backwards:
if the game is rewound while it records, the recording goes on in a new
file beside the first (run.ecsrec, run-2.ecsrec, ...), and says so. If
the game goes away, record says at which tick and exits 1; the file keeps
what arrived. With --keep, a flight recording: -o names a directory of
segments that keeps only the last of the run (10m: the last ten minutes;
2GB: the last 2 GB on disk), opened by open and dump as one recording; the
progress line shows what the run costs a minute either way.
`

func runRecord(args []string, out io.Writer, stop <-chan os.Signal) error {
	fs := commandFlags("record", recordUsage, out)
	path := fs.String("o", "", "the file to write (.ecsrec)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	frames := fs.Int("frames", 0, "stop once the file holds this many frames (0: no limit)")
	hz := fs.Float64("hz", 0, "frames per second to record (0: every frame the game runs)")
	token := fs.String("token", "", "the agent's token")
	var keep recording.Keep
	fs.Func("keep", "a flight recording: keep only the last 10m, or the last 2GB, in the directory -o names", func(v string) error {
		k, err := recording.ParseKeep(v)
		keep = k
		return err
	})
	brokerFlags(fs)
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 || *path == "" {
		return usageError{fmt.Errorf("want an address and -o FILE\n\n%s", recordUsage)}
	}
	if *hz < 0 {
		return usageError{fmt.Errorf("--hz %v: want 0 (every frame) or more", *hz)}
	}
	if *frames < 0 {
		return usageError{fmt.Errorf("--frames %d: want 0 (no limit) or more", *frames)}
	}
	game := client.GameAt(fs.Arg(0), *token)
	var r *client.Recording
	var err error
	switch {
	case keep != (recording.Keep{}) && *frames > 0:
		return usageError{fmt.Errorf("--keep keeps the last of a run: it takes no --frames")}
	case keep != (recording.Keep{}):
		r, err = client.StartRecordingKept(game, *path, *hz, keep)
	default:
		r, err = client.StartRecording(game, *path, *hz, *frames)
	}
	if err != nil {
		return err
	}
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
		frames, bytes, tick := r.Progress()
		for _, note := range r.Rewinds() {
			fmt.Fprintf(out, "\n%s\n", printable.Text(note))
		}
		missed := ""
		if n, why := r.Dropped(); n > 0 {
			missed = fmt.Sprintf(", %d frames missed (%s)", n, printable.Text(why))
		}
		took := time.Since(start)
		rate := ""
		if per := r.PerMinute(); per > 0 {
			rate = fmt.Sprintf(" (+%s a minute)", protocol.ByteSize(per))
		}
		kept := ""
		if keep != (recording.Keep{}) {
			kept = ", keeping the last " + keep.String()
		}
		fmt.Fprintf(out, "recording %s: %d frames to tick %d%s, %s%s%s, %s%s", *path, frames, tick, missed, protocol.ByteSize(int(bytes)), rate, kept, took.Round(100*time.Millisecond), end)
	}
	for {
		select {
		case err := <-r.Done():
			show(true)
			return err
		case <-progress.C:
			show(false)
		case <-deadline:
			err := r.Stop()
			show(true)
			return err
		case <-stop:
			err := r.Stop()
			show(true)
			return err
		}
	}
}

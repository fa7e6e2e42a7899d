package recording

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens path for reading if it is a regular file, and its
// size: a FIFO, a device or a socket named as a recording (or as a flight
// recording's segment) would block a reader, or never end. It opens
// without waiting for a FIFO's writer, then looks at what it opened, so a
// file swapped after a look cannot slip through.
func openRegular(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("not a regular file (%s): a recording is a file or a flight recording's directory", st.Mode().Type())
	}
	return f, st.Size(), nil
}

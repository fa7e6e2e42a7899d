package recording

import (
	"flag"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var update = flag.Bool("update", false, "rewrite the crafted files in testdata/")

var (
	zencOnce sync.Once
	zenc     *zstd.Encoder
)

// zstdEncoder compresses hand-made bodies as the agent's frames are.
func zstdEncoder() *zstd.Encoder {
	zencOnce.Do(func() {
		var err error
		if zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest)); err != nil {
			panic(err)
		}
	})
	return zenc
}

// must fails the test on an error from the code under test.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

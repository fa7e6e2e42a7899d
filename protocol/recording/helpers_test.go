package recording

import (
	"flag"
	"sync"

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

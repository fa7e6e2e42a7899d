package ui

import (
	"path/filepath"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestOpenCraftedFiles: open on the crafted recordings (files under 1 MiB
// built to make a reader allocate or index past what it holds) refuses
// them with an error or shows what they hold, and every view's frame
// (summary, pages, an entity) is built without a panic.
func TestOpenCraftedFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "protocol", "recording", "testdata", "crafted", "*.ecsrec"))
	if err != nil || len(files) < 5 {
		t.Fatalf("the crafted corpus: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := openPlayer(f)
			if err != nil {
				if err.Error() == "" {
					t.Fatal("refused without a reason")
				}
				return
			}
			defer p.close()
			for id, sub := range []protocol.Subscribe{
				{What: protocol.SubSummary},
				{What: protocol.SubPage, Query: "Pos", Limit: 50},
				{What: protocol.SubPage, Archetype: 2, Limit: 50},
				{What: protocol.SubEntity, Entity: protocol.MakeEntityID(1, 1)},
				{What: protocol.SubEvents},
				{What: protocol.SubJournal},
			} {
				sub.ID = uint32(id + 1)
				p.mu.Lock()
				p.subs[sub.ID] = sub
				p.mu.Unlock()
				p.frameCmd(sub.ID)()
			}
		})
	}
}

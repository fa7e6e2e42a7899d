package recording

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestSeekGivesTheFramesOwnJournal: a seek passes the frames before its
// target without their journal and events, and the state it returns holds
// the target's own, whether it started from the keyframe or went on from
// the frame before.
func TestSeekGivesTheFramesOwnJournal(t *testing.T) {
	enc := NewWorldEncoder()
	var frames []*protocol.WorldFrame
	for tick := range 8 {
		in := &WorldInput{Tick: uint64(tick), Full: tick == 0, Summary: summaryWith(clockAndGrass(int64(tick))),
			Journal: []protocol.JournalEntry{{Seq: uint64(tick + 1), Frame: uint64(tick), Op: "spawn", Entity: protocol.MakeEntityID(uint32(tick+1), 1), Component: -1}},
			Events:  []protocol.EventQueue{{Name: "Hit", Total: uint64(tick)}}}
		f, err := enc.Encode(in)
		must(t, err)
		frames = append(frames, f)
	}
	rp := NewReplay(openFrames(t, frames...))
	for _, i := range []int{5, 6, 7, 3} { // from the keyframe, then on by one, then back
		st, err := rp.At(i)
		must(t, err)
		if len(st.Journal) != 1 || st.Journal[0].Frame != uint64(i) || len(st.Events) != 1 || st.Events[0].Total != uint64(i) {
			t.Fatalf("frame %d: journal %+v, events %+v", i, st.Journal, st.Events)
		}
		if got := st.Summary.Resources[0].Value.String(); got != clockAndGrass(int64(i)).Value.String() {
			t.Fatalf("frame %d: the clock reads %s", i, got)
		}
	}
}

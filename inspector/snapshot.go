package inspector

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// WriteSnapshot saves the whole world to path as a one-frame .ecsrec
// recording. Call it on the game goroutine: it copies the world there (at
// memory speed) and converts, encodes and writes it on another goroutine.
// The returned channel yields the outcome once the file is written.
func (a *Agent) WriteSnapshot(path string) <-chan error {
	done := make(chan error, 1)
	stream := record.NewStream(a.w, a.summaryOf)
	job := stream.Capture()
	go func() {
		w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: a.opts.Game})
		if err != nil {
			done <- err
			return
		}
		f, err := stream.Encode(job)
		stream.Cap.Release() // one frame: nothing comes to reuse its memory
		if err == nil {
			err = w.WriteWorld(f)
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return done
}

// PanicSnapshot is for deferring in the game loop: if the game panics, it
// writes a post-mortem snapshot to path, waits for the file, closes every
// recording the agent runs (so they end at the crash, whole), then panics
// again with the same value.
//
//	defer agent.PanicSnapshot("crash.ecsrec")
//
// A panic in a system run by ecs.Schedule, parallel or not, reaches it: the
// schedule re-raises it on the goroutine that called Run, as an
// *ecs.SystemPanic naming the system, after the systems running beside it
// returned, so the copy races nothing.
func (a *Agent) PanicSnapshot(path string) {
	r := recover()
	if r == nil {
		return
	}
	if err := <-a.WriteSnapshot(path); err != nil {
		a.logf("post-mortem snapshot: %v", err)
	} else {
		a.logf("post-mortem snapshot of tick %d written to %s", a.w.Frame(), path)
	}
	for len(a.recorders) > 0 {
		if err := a.recorders[0].Stop(); err != nil {
			a.logf("closing a recording after the panic: %v", err)
		}
	}
	panic(r)
}

// sparseCopy is one sparse component's entities and values.
type sparseCopy struct {
	id   ecs.ComponentID
	ents []ecs.Entity
	vals reflect.Value
}

// copyWorld copies every table and sparse set: the game goroutine's share of
// a snapshot, at memory speed.
func (a *Agent) copyWorld() ([]ecs.TableCopy, []sparseCopy) {
	tables := a.w.Inspect().CopyTables()
	var sparse []sparseCopy
	for _, c := range a.w.Inspect().Components() {
		if c.Storage == ecs.SparseStorage {
			ents, vals := a.w.Inspect().CopySparse(c.ID)
			if len(ents) > 0 {
				sparse = append(sparse, sparseCopy{id: c.ID, ents: ents, vals: vals})
			}
		}
	}
	return tables, sparse
}

// buildSnapshot turns copies into a Snapshot message, off the game goroutine.
// Each sparse component becomes a table of its own.
func buildSnapshot(tables []ecs.TableCopy, sparse []sparseCopy, tick uint64, game string, st ecs.EntityStats, schemas []protocol.Component) *protocol.Snapshot {
	s := &protocol.Snapshot{Tick: tick, Game: game, Components: schemas,
		Stats: protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved}}
	for _, t := range tables {
		pt := protocol.Table{Components: make([]uint16, len(t.Components)), Entities: make([]protocol.EntityID, len(t.Entities))}
		for i, c := range t.Components {
			pt.Components[i] = uint16(c)
		}
		for i, e := range t.Entities {
			pt.Entities[i] = values.Handle(e)
		}
		for _, col := range t.Columns {
			vals := make([]protocol.Value, col.Len())
			for i := range vals {
				vals[i] = values.Whole(col.Index(i))
			}
			pt.Columns = append(pt.Columns, vals)
		}
		s.Tables = append(s.Tables, pt)
	}
	for _, sp := range sparse {
		pt := protocol.Table{Components: []uint16{uint16(sp.id)}, Entities: make([]protocol.EntityID, len(sp.ents))}
		vals := make([]protocol.Value, len(sp.ents))
		for i, e := range sp.ents {
			pt.Entities[i] = values.Handle(e)
			vals[i] = values.Whole(sp.vals.Index(i))
		}
		pt.Columns = [][]protocol.Value{vals}
		s.Sparse = append(s.Sparse, pt)
	}
	return s
}

package live

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type pos struct{ X, Y float64 }

type pooled struct{ Data []float64 }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// liveWorld is a world of movers, some holding a slice they all share,
// with its live view.
func liveWorld(t *testing.T, n int) (*ecs.World, *World, []ecs.Entity) {
	t.Helper()
	w := ecs.NewWorld()
	shared := make([]float64, 100)
	ps, pl := ecs.NewMap[pos](w), ecs.NewMap[pooled](w)
	var ents []ecs.Entity
	for i := range n {
		e := w.Spawn()
		must(t, ps.Add(e, pos{X: float64(i), Y: float64(n - i)}))
		if i%2 == 0 {
			must(t, pl.Add(e, pooled{Data: shared}))
		}
		ents = append(ents, e)
	}
	var schemas []protocol.Component
	lw := New(w, func() []protocol.Component {
		for _, c := range w.Inspect().Components()[len(schemas):] {
			schemas = append(schemas, values.Schema(c))
		}
		return schemas
	}, w.Frame)
	return w, lw, ents
}

// TestPageSortsFiltersAndCounts: a page of a filtered, sorted query holds
// the rows of its window in order, and the total of every match.
func TestPageSortsFiltersAndCounts(t *testing.T) {
	_, lw, _ := liveWorld(t, 50)
	q, err := lw.Compile("pos pos.X>=10", "pos.Y", 0)
	must(t, err)
	f, err := lw.Page(1, q, 5, 10)
	must(t, err)
	p := f.Build().(*protocol.Page)
	if p.Total != 40 || len(p.Rows) != 10 || p.Offset != 5 {
		t.Fatalf("total %d, %d rows from %d; want 40, 10 from 5", p.Total, len(p.Rows), p.Offset)
	}
	col := -1
	for i, c := range p.Columns {
		if lw.schemas()[c].Short == "pos" {
			col = i
		}
	}
	// pos.Y = 50 - X, X >= 10: Y from 1 to 40, sorted up; the window from the 6th.
	for i, r := range p.Rows {
		if y, _ := r.Values[col].Get("Y"); y.Float() != float64(6+i) {
			t.Fatalf("row %d: Y %v, want %d", i, y, 6+i)
		}
	}
	if _, err := lw.Compile("pos.Nope>1", "", 0); err == nil {
		t.Fatal("a query on no field compiled")
	}
}

// TestSnapshotShowsSharedMemoryOnce: a snapshot shows a slice that many
// entities share whole at the first holder and as a repeat naming it at
// the others.
func TestSnapshotShowsSharedMemoryOnce(t *testing.T) {
	w, lw, _ := liveWorld(t, 6)
	s := BuildSnapshot(lw.CopyAll(), w.Frame(), "test", w.Inspect().Stats(), lw.schemas())
	var whole, repeats int
	var first string
	for _, tb := range s.Tables {
		for ci, c := range tb.Components {
			if lw.schemas()[c].Short != "pooled" {
				continue
			}
			for row, v := range tb.Columns[ci] {
				data, _ := v.Get("Data")
				switch {
				case data.Kind() == protocol.KindList && data.Len() == 100:
					whole++
					first = tb.Entities[row].String()
				case strings.HasPrefix(data.Str(), values.RepeatPrefix):
					repeats++
					if want := values.RepeatPrefix + first + ".Data"; data.Str() != want {
						t.Fatalf("a repeat reads %q, want %q", data.Str(), want)
					}
				default:
					t.Fatalf("a holder's Data: %v", data)
				}
			}
		}
	}
	if whole != 1 || repeats != 2 {
		t.Fatalf("the shared slice shown whole %d times and repeated %d, want 1 and 2", whole, repeats)
	}
}

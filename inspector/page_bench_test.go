package inspector

import (
	"math/rand/v2"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// BenchmarkEntitiesPage: a page of 100 rows over a million entities,
// filtered by a field and sorted by another, as the Entities view asks for
// it: the game goroutine's copy and the writer's evaluation, paging and
// sorting, in one iteration.
func BenchmarkEntitiesPage(b *testing.B) {
	w := ecs.NewWorld()
	rng := rand.New(rand.NewPCG(1, 2))
	ecs.NewMap2[churnPos, churnHP](w).SpawnBatch(1_000_000, func(i int, _ ecs.Entity, p *churnPos, h *churnHP) {
		*p = churnPos{X: rng.Float64() * 100, Y: float64(i)}
		h.HP = int16(rng.IntN(1000))
	})
	a := New(w, Options{Addr: "127.0.0.1:0"})
	q, err := a.lw.Compile("churnPos.X>50", "-churnHP.HP", 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		qc, err := a.lw.CopyQuery(1, q, 100, 100)
		if err != nil {
			b.Fatal(err)
		}
		if p := qc.Build(); p.Total < 400_000 || len(p.Rows) != 100 {
			b.Fatalf("a page of %d rows of %d matches", len(p.Rows), p.Total)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/page")
}

// BenchmarkPageCapture: the game goroutine's half of a 100-row page of a
// plain query over 100,000 entities of three components (one holding a
// string): the window found and its values copied.
func BenchmarkPageCapture(b *testing.B) {
	w := ecs.NewWorld()
	ecs.NewMap3[churnPos, churnHP, Name](w).SpawnBatch(100_000, func(i int, _ ecs.Entity, p *churnPos, h *churnHP, n *Name) {
		*p, h.HP, n.Value = churnPos{X: float64(i)}, int16(i), "animal"
	})
	a := New(w, Options{Addr: "127.0.0.1:0"})
	q, err := a.lw.Compile("churnPos churnHP ?Name", "", 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if pc := a.lw.KernelPage(1, q, 50_000, 100); pc.Len() != 100 {
			b.Fatalf("a page of %d rows", pc.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/row")
}

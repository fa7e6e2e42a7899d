package inspector

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
)

// TestSystemsShowTheirAllocations: on the demo with its agent, the
// summary's systems carry what their runs allocate, measured on the
// frames the agent samples (one in a few of this small world's short
// frames), each system's runs either its own or shared.
func TestSystemsShowTheirAllocations(t *testing.T) {
	sim := ecosystem.New(5_000, 1)
	a := New(sim.World, Options{Schedule: sim.Schedule})
	defer func() { must(t, a.Close()) }()
	for range 30 {
		stepSim(sim, a)
	}
	measured := 0
	for _, s := range a.summary().Systems {
		t.Logf("%s: %.0f B, %.1f objects a run over %d runs, %d shared", s.Name, s.AllocBytes, s.AllocObjects, s.AllocRuns, s.AllocShared)
		if s.AllocRuns+s.AllocShared > 0 {
			measured++
		}
	}
	if measured != len(a.summary().Systems) || measured == 0 {
		t.Fatalf("%d of %d systems measured after 30 frames", measured, len(a.summary().Systems))
	}
}

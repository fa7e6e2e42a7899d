// Package dangling keeps the agent's list of dangling handles: handles
// stored in components and resources that name no live entity. At each
// Sync the tracker reads a budget of the world's stored handles (the
// kernel's HandleScan), lists those that dangle with where they are and
// since when, and drops them once a pass reads them no more. Watchpoints
// ask it for the ones found since they last looked.
//
//	t := dangling.New(w, dangling.DefaultBudget)
//	t.Step()              // at each Sync
//	audit := t.Audit()    // the Summary's list
package dangling

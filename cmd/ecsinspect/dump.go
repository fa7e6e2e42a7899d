package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// dumpResult is dump's output: the JSON is stable (see the README) and the
// text form is made from it.
type dumpResult struct {
	Source  string `json:"source"`
	Tick    uint64 `json:"tick"`
	FrameNs int64  `json:"frame_ns"`          // between the last two frames, pauses left out
	WorkNs  int64  `json:"work_ns,omitempty"` // the game's work in the last frame (its schedule's run)
	Paused  bool   `json:"paused"`
	// GC is the game's heap and collections, as the Go runtime counted
	// them (absent from an agent that does not say).
	GC *dumpGC `json:"gc,omitempty"`
	// StoppedAfter names the system after whose write a watchpoint
	// stopped the game inside the frame (the frame is not finished).
	StoppedAfter string       `json:"stopped_after,omitempty"`
	Entities     int          `json:"entities"`
	Archetypes   []dumpArch   `json:"archetypes"`
	Systems      []dumpSystem `json:"systems"`
	// Resources are the world's resources by name, handles as text
	// (lists past 64 items cut, as components' values are).
	Resources map[string]any `json:"resources"`
	// Dangling lists the handles stored in components and resources that
	// name no live entity: [] when the agent looks and found none, null
	// when it does not look (a recording; DanglingBudget < 0).
	Dangling      []dumpDangling `json:"dangling"`
	DanglingTotal int            `json:"dangling_total"`
	// DanglingBetween, when the list is cut, is how many found between the
	// newest half listed and the first found are not listed.
	DanglingBetween int `json:"dangling_not_listed,omitempty"`
	// DanglingPaged, with --dangling: the list is every handle's page,
	// oldest first, grouped by where they are.
	DanglingPaged *dumpPaging   `json:"dangling_page,omitempty"`
	Matches       *dumpMatches  `json:"matches,omitempty"`
	Entity        *dumpEntity   `json:"entity,omitempty"`
	Resource      *dumpResource `json:"resource,omitempty"`
	Frames        int           `json:"frames,omitempty"`
	FirstTick     *uint64       `json:"first_tick,omitempty"`
	LastTick      *uint64       `json:"last_tick,omitempty"`
	// Gaps and GapTicks: in a recording of every frame, the places ticks
	// were skipped and how many in all (the file says why at each).
	Gaps      int    `json:"gaps,omitempty"`
	GapTicks  uint64 `json:"gap_ticks,omitempty"`
	Note      string `json:"note,omitempty"`
	AsOf      string `json:"as_of,omitempty"` // the tick asked for was not recorded
	compNames map[uint16]string
	schemas   map[string][]protocol.FieldSchema // by component name: handles print as 40v1
}

// dumpDangling is a dangling handle: in which entity (or "resource"), at
// which path, the handle, since which tick, despawned by whom.
type dumpDangling struct {
	In     string `json:"in"`
	Path   string `json:"path"`
	Handle string `json:"handle"`
	Since  uint64 `json:"since"`
	By     string `json:"by,omitempty"`
	Key    bool   `json:"key,omitempty"`
	Why    string `json:"why"`
	// Stored is who last wrote (or held for writing) the holder's
	// component: a component's handle is stored by such a write; After,
	// that it was at or after the despawn.
	Stored *dumpWriter `json:"stored,omitempty"`
	After  bool        `json:"stored_after_despawn,omitempty"`
}

type dumpArch struct {
	ID         uint32   `json:"id"`
	Components []string `json:"components"`
	Entities   int      `json:"entities"`
	Bytes      int      `json:"bytes"`
	// Targets: in a table of one relation target's holders, each
	// relation's target, by the relation's name.
	Targets map[string]string `json:"targets,omitempty"`
}

type dumpSystem struct {
	Name   string `json:"name"`
	LastNs int64  `json:"last_ns"`
	MeanNs int64  `json:"mean_ns"`
	MaxNs  int64  `json:"max_ns"`
	Runs   uint64 `json:"runs"`
	// Skipped counts the commands it queued that were skipped; SkippedWhy
	// the newest reasons ("tick 812: ...").
	Skipped    uint64   `json:"skipped"`
	SkippedWhy []string `json:"skipped_why,omitempty"`
	// AllocBytes and AllocObjects: what a run allocates, the mean of the
	// recent runs measured alone (AllocRuns of them); AllocShared the runs
	// beside another system, attributed to neither.
	AllocBytes   float64 `json:"alloc_bytes"`
	AllocObjects float64 `json:"alloc_objects"`
	AllocRuns    int     `json:"alloc_runs"`
	AllocShared  int     `json:"alloc_shared"`
}

type dumpMatches struct {
	Query    string       `json:"query"`
	Total    int          `json:"total"`
	Offset   int          `json:"offset"`         // the first match listed, counted from 0
	Next     int          `json:"next,omitempty"` // --offset for the next page, when more match than are listed
	Entities []dumpEntity `json:"entities"`
}

type dumpEntity struct {
	Entity     string         `json:"entity"`
	Alive      bool           `json:"alive"`
	Archetype  *uint32        `json:"archetype,omitempty"`
	Row        *int           `json:"row,omitempty"`
	Parent     string         `json:"parent,omitempty"`
	Children   []string       `json:"children,omitempty"`
	ChildCount int            `json:"child_count,omitempty"` // children in all, when more than listed
	Components map[string]any `json:"components"`
	Reason     string         `json:"reason,omitempty"`
	// Died: dead, with its last state in Components (who despawned it,
	// in which tick).
	Died *dumpDeath `json:"died,omitempty"`
	// HeldBy lists, by relation kind, the entities whose relation points
	// at this one: how many, and the first of them (at most 1,000).
	HeldBy map[string]dumpHeldBy `json:"held_by,omitempty"`
	// Writers says, by component, who wrote its value and who added it,
	// as far as the agent knows (live, or as the despawn kept it).
	Writers map[string]dumpWriter `json:"writers,omitempty"`
}

// dumpGC is a Go game's memory and collections (runtime/metrics):
// counters since the process began.
type dumpGC struct {
	HeapBytes    uint64  `json:"heap_bytes"`
	GoalBytes    uint64  `json:"heap_goal_bytes"`
	Cycles       uint64  `json:"cycles"`
	Pauses       uint64  `json:"pauses"`
	PauseMs      float64 `json:"pause_total_ms"`
	AllocBytes   uint64  `json:"alloc_bytes"`
	AllocObjects uint64  `json:"alloc_objects"`
}

// dumpHeldBy is one relation kind's holders of an entity.
type dumpHeldBy struct {
	Count   int      `json:"count"`
	Holders []string `json:"holders"`
}

// dumpWriter is who wrote a component's value and who added it.
type dumpWriter struct {
	// Tick and By: the change the agent saw (Seen), else the last system
	// that held it for writing, which may have left it as it was; Held is
	// then every system that held it for writing in that frame, By last.
	Tick    uint64     `json:"tick,omitempty"`
	By      string     `json:"by,omitempty"`
	Seen    bool       `json:"seen"`
	Held    []string   `json:"held,omitempty"`
	Added   *dumpDeath `json:"added,omitempty"`
	Summary string     `json:"summary"` // in words, as the UI says it
}

type dumpDeath struct {
	Tick uint64 `json:"tick"`
	By   string `json:"by"`
}

const dumpUsage = `Usage: ecsinspect dump ADDR|FILE.ecsrec [--tick T] [--query EXPR] [--entity 42v3] [--resource NAME[.PATH]] [--offset N] [--limit N] [--json]
       ecsinspect dump FILE.ecsrec --diff T1 T2 [--json]
       ecsinspect dump FILE.ecsrec --first QUERY | --history 42v1 [--json]
       ecsinspect dump --all [--filter F] [--query EXPR] [--json] nats://host:4222

Prints a game's summary, archetypes and systems, with the entities matching
a query or one entity, from a live agent or a recording (at --tick T: the
state of the last recorded tick at or before T, and it says so). A query
lists --limit matches from the --offset-th and says the --offset of the
next page when more match. --json
prints one JSON object with tick, entities, archetypes, systems and
resources (plus matches, entity, resource, and for recordings frames,
first_tick and last_tick). --resource prints a resource whole, or the
value at a path in it (Grid.Cells[3], ByName[wolf]); one too big to print
whole is listed a page of children at a time (--offset, --limit).
--diff compares two ticks of a recording: entities spawned, despawned and
changed (field by field, old and new), archetype counts and resources.
--first reads every frame of a recording once and says the first and last
tick a query holds at (and for whom); --history says every change of one
entity's components across the file, with who spawned, added, removed or
despawned it where the file's journal says.
--all asks every instance on a broker: one line each with its discovery
fields (and with --query its total and first matches); --json prints one
object with an "instances" array. ADDR may be one game on a broker,
nats://host:4222/INSTANCE.
`

var errHelp = flag.ErrHelp

func runDump(args []string, out io.Writer) error {
	fs := commandFlags("dump", dumpUsage, out)
	var tick *uint64 // nil: the last
	fs.Func("tick", "recordings: the tick to show, 0 to 18446744073709551615 (default the last)", func(v string) error {
		t, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("a tick is a whole number from 0 to %d, got %q", uint64(math.MaxUint64), v)
		}
		tick = &t
		return nil
	})
	query := fs.String("query", "", "list the entities matching this query")
	entity := fs.String("entity", "", "show this entity, like 42v3")
	limit := fs.Int("limit", 100, "most matches to list; with --resource, most children of a value too big to print whole")
	resource := fs.String("resource", "", "show this resource whole, or the value at a path in it: Grid, Grid.Cells[3]")
	offset := fs.Int("offset", 0, "the first match listed (from 0); with --resource, the first child listed of a value too big to print whole")
	dangling := fs.Bool("dangling", false, "every dangling handle the agent lists, oldest first, grouped by where they are, a page at a time (--offset, --limit); without it, the summary's newest")
	asJSON := fs.Bool("json", false, "print JSON")
	token := fs.String("token", "", "the agent's token")
	brokerFlags(fs)
	diff := fs.String("diff", "", "recordings: compare tick T1 with tick T2 (--diff T1 T2)")
	all := fs.Bool("all", false, "every instance on the broker nats://host:4222 names: one line each (with --query: its total and first matches)")
	filter := fs.String("filter", "", "with --all: only instances passing this filter on their discovery fields (game=ecosystem,instance=demo-0*,hits>0)")
	first := fs.String("first", "", "recordings: the first and last tick this query holds at, in one pass over the file")
	history := fs.String("history", "", "recordings: every change of this entity's components across the file (42v1)")
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return err
	}
	if *first != "" || *history != "" {
		if fs.NArg() != 1 {
			return usageError{fmt.Errorf("--first and --history want one .ecsrec file\n\n%s", dumpUsage)}
		}
		return runScan(fs.Arg(0), *first, *history, *asJSON, out)
	}
	if *all {
		if fs.NArg() != 1 {
			return usageError{fmt.Errorf("--all wants the broker's URL\n\n%s", dumpUsage)}
		}
		return dumpAll(fs.Arg(0), *filter, *token, *query, *entity, *limit, *asJSON, out)
	}
	if *filter != "" {
		return usageError{fmt.Errorf("--filter picks instances for --all")}
	}
	if *diff != "" {
		return runDiff(fs.Args(), *diff, *asJSON, out)
	}
	if fs.NArg() != 1 {
		return usageError{fmt.Errorf("want one address or .ecsrec file\n\n%s", dumpUsage)}
	}
	src := fs.Arg(0)
	ask := dumpAsk{query: *query, entity: *entity, resource: *resource, offset: *offset, limit: *limit, dangling: *dangling}
	var res *dumpResult
	var err error
	if _, statErr := os.Stat(src); statErr == nil || strings.HasSuffix(src, ".ecsrec") {
		res, err = dumpFile(src, tick, ask)
	} else {
		res, err = dumpLive(client.GameAt(src, *token), ask)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(out, res)
	}
	printable.Clean(res) // a game's or a file's names and strings, shown on a terminal
	printDump(out, res)
	return nil
}

func fromSummary(res *dumpResult, s *protocol.Summary) {
	res.Tick, res.FrameNs, res.WorkNs, res.Paused, res.Entities = s.Tick, s.FrameNs, s.WorkNs, s.Paused, s.Entities
	if g := s.Agent.GC; g != nil {
		res.GC = &dumpGC{HeapBytes: g.Heap, GoalBytes: g.Goal, Cycles: g.Cycles, Pauses: g.Pauses, PauseMs: float64(g.PauseNs) / 1e6,
			AllocBytes: g.AllocBytes, AllocObjects: g.AllocObjects}
	}
	if s.Halt != nil {
		res.StoppedAfter = s.Halt.System
	}
	res.compNames, res.schemas = map[uint16]string{}, map[string][]protocol.FieldSchema{}
	for _, c := range s.Components {
		res.compNames[c.ID] = c.Short
		res.schemas[c.Short] = c.Fields
	}
	res.Archetypes = []dumpArch{}
	for _, a := range s.Archetypes {
		if a.Len == 0 {
			continue
		}
		da := dumpArch{ID: a.ID, Components: res.names(a.Components), Entities: a.Len, Bytes: a.Bytes}
		for _, t := range a.Targets {
			if da.Targets == nil {
				da.Targets = map[string]string{}
			}
			da.Targets[res.names([]uint16{t.Kind})[0]] = t.Target.String()
		}
		res.Archetypes = append(res.Archetypes, da)
	}
	res.Resources = map[string]any{}
	for i := range s.Resources {
		r := &s.Resources[i]
		res.Resources[r.Name] = protocol.HandlesAsTextFor(r.Value, r.Schema())
	}
	if dg := s.Dangling; dg != nil {
		res.Dangling, res.DanglingTotal, res.DanglingBetween = []dumpDangling{}, dg.N, dg.Between
		for _, d := range dg.List {
			res.Dangling = append(res.Dangling, dumpDanglingOf(d))
		}
	}
	res.Systems = []dumpSystem{}
	for _, sy := range s.Systems {
		ds := dumpSystem{Name: sy.Name, LastNs: sy.Last, MeanNs: sy.Mean, MaxNs: sy.Max, Runs: sy.Count, Skipped: sy.Skipped,
			AllocBytes: sy.AllocBytes, AllocObjects: sy.AllocObjects, AllocRuns: sy.AllocRuns, AllocShared: sy.AllocShared}
		for _, r := range sy.SkippedWhy {
			ds.SkippedWhy = append(ds.SkippedWhy, fmt.Sprintf("tick %d: %s", r.Tick, r.Why))
		}
		res.Systems = append(res.Systems, ds)
	}
}

func (r *dumpResult) names(ids []uint16) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if n, ok := r.compNames[id]; ok {
			out[i] = n
		} else {
			out[i] = fmt.Sprintf("#%d", id)
		}
	}
	return out
}

// dumpAsk is what dump looks up besides the summary.
type dumpAsk struct {
	query, entity, resource string
	offset, limit           int
	dangling                bool // every dangling handle, a page at a time
}

func dumpLive(g client.Game, ask dumpAsk) (*dumpResult, error) {
	o, s, err := dialSummary(g, "dump")
	if err != nil {
		return nil, err
	}
	defer o.Close()
	res := &dumpResult{Source: g.String()}
	fromSummary(res, s)
	return res, res.look(liveWorld{o}, ask)
}

// worldSource is what dump reads matches and an entity from: a live game,
// or a recording's state at a tick.
type worldSource interface {
	query(expr string, offset, limit int) (*protocol.Page, error)
	entity(e protocol.EntityID) (*protocol.Detail, error)
	resource(name, path string, offset, limit int, all bool) (*protocol.ResourcePage, error)
	dangling(offset, limit int) (*protocol.DanglingPage, error)
}

type liveWorld struct{ o *client.OneShot }

func (w liveWorld) query(expr string, offset, limit int) (*protocol.Page, error) {
	return w.o.QueryFrom(expr, offset, limit)
}
func (w liveWorld) entity(e protocol.EntityID) (*protocol.Detail, error) { return w.o.Entity(e) }
func (w liveWorld) resource(name, path string, offset, limit int, all bool) (*protocol.ResourcePage, error) {
	return w.o.Resource(name, path, offset, limit, all)
}
func (w liveWorld) dangling(offset, limit int) (*protocol.DanglingPage, error) {
	return w.o.Dangling(offset, limit)
}

type recordedWorld struct{ st *recording.WorldState }

func (w recordedWorld) query(expr string, offset, limit int) (*protocol.Page, error) {
	return w.st.Query(expr, 0, offset, limit)
}
func (w recordedWorld) entity(e protocol.EntityID) (*protocol.Detail, error) {
	return w.st.Detail(e), nil
}
func (w recordedWorld) resource(name, path string, offset, limit int, all bool) (*protocol.ResourcePage, error) {
	return w.st.Resource(name, path, offset, limit, all)
}
func (w recordedWorld) dangling(int, int) (*protocol.DanglingPage, error) {
	return nil, fmt.Errorf("--dangling pages a live game's list: a recording keeps the list its summaries held (dump FILE shows it)")
}

// look adds the query's matches, the entity and the resource asked for,
// from src.
func (r *dumpResult) look(src worldSource, ask dumpAsk) error {
	if ask.query != "" {
		p, err := src.query(ask.query, ask.offset, ask.limit)
		if err != nil {
			return err
		}
		r.matches(ask.query, ask.offset, p)
	}
	if ask.entity != "" {
		e, err := protocol.ParseEntityID(ask.entity)
		if err != nil {
			return err
		}
		d, err := src.entity(e)
		if err != nil {
			return err
		}
		r.Entity = r.entityOf(d)
	}
	if ask.dangling {
		p, err := src.dangling(ask.offset, ask.limit)
		if err != nil {
			return err
		}
		r.danglingPage(p)
	}
	if ask.resource != "" {
		res, err := lookResource(src, ask)
		if err != nil {
			return err
		}
		r.Resource = res
	}
	return nil
}

func dumpFile(path string, tick *uint64, ask dumpAsk) (*dumpResult, error) {
	rec, err := recording.OpenFrames(path)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	res := &dumpResult{Source: path, Frames: len(rec.Frames)}
	if rec.Truncated {
		res.Note = rec.Note
	}
	first, last := rec.Frames[0].Tick, rec.Frames[len(rec.Frames)-1].Tick
	res.FirstTick, res.LastTick = &first, &last
	res.Gaps, res.GapTicks = rec.Gaps()
	i := len(rec.Frames) - 1
	if tick != nil {
		if i, res.AsOf, err = rec.FrameFor(*tick); err != nil {
			return nil, err
		}
	}
	st, err := recording.NewReplay(rec).At(i)
	if err != nil {
		return nil, err
	}
	fromSummary(res, st.Summary)
	res.Tick, res.Entities = st.Tick, st.Entities()
	return res, res.look(recordedWorld{st}, ask)
}

// diffFile compares the states of a recording at two ticks: the diff
// without its changed entities, and the two states, which
// WorldDiff.EachChanged compares entity by entity.
func diffFile(path string, t1, t2 uint64) (d *recording.WorldDiff, a, b *recording.WorldState, err error) {
	rec, err := recording.OpenFrames(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rec.Close()
	if a, _, err = recording.NewReplay(rec).AtTick(t1); err != nil {
		return nil, nil, nil, err
	}
	if b, _, err = recording.NewReplay(rec).AtTick(t2); err != nil {
		return nil, nil, nil, err
	}
	d = recording.DiffParts(a, b)
	_, d.FromAsOf, _ = rec.FrameFor(t1) // asked and answered by AtTick: only the note is new
	_, d.ToAsOf, _ = rec.FrameFor(t2)
	return d, a, b, nil
}

// matches fills the matches of a query from its page.
func (r *dumpResult) matches(query string, offset int, p *protocol.Page) {
	r.Matches = &dumpMatches{Query: query, Total: p.Total, Offset: offset, Entities: []dumpEntity{}}
	if next := offset + len(p.Rows); next < p.Total && len(p.Rows) > 0 {
		r.Matches.Next = next
	}
	for _, row := range p.Rows {
		de := dumpEntity{Entity: row.Entity.String(), Alive: true, Components: map[string]any{}}
		for i, v := range row.Values {
			if v.Kind() != protocol.KindNil {
				name := r.names([]uint16{p.Columns[i]})[0]
				de.Components[name] = protocol.HandlesAsText(v, r.schemas[name]) // JSON: a float32 as its shortest decimal
			}
		}
		r.Matches.Entities = append(r.Matches.Entities, de)
	}
}

// entityOf is one entity's detail as dump prints it.
func (r *dumpResult) entityOf(d *protocol.Detail) *dumpEntity {
	de := dumpEntity{Entity: d.Entity.String(), Alive: d.Alive, Components: map[string]any{}, Reason: d.Reason}
	if d.Alive {
		a, row := d.Archetype, d.Row
		de.Archetype, de.Row = &a, &row
	}
	if d.Parent != 0 {
		de.Parent = d.Parent.String()
	}
	for _, k := range d.Children {
		de.Children = append(de.Children, k.String())
	}
	if d.ChildCount > len(d.Children) {
		de.ChildCount = d.ChildCount
	}
	if d.Died != nil {
		de.Died = &dumpDeath{Tick: d.Died.Tick, By: d.Died.By}
	}
	for _, h := range d.HeldBy {
		if de.HeldBy == nil {
			de.HeldBy = map[string]dumpHeldBy{}
		}
		hb := dumpHeldBy{Count: h.Count, Holders: []string{}}
		for _, e := range h.Holders {
			hb.Holders = append(hb.Holders, e.String())
		}
		de.HeldBy[h.Kind] = hb
	}
	for _, c := range d.Components {
		de.Components[c.Component] = protocol.HandlesAsText(c.Value, r.schemas[c.Component])
		if c.Written == nil && c.Added == nil {
			continue
		}
		if de.Writers == nil {
			de.Writers = map[string]dumpWriter{}
		}
		de.Writers[c.Component] = dumpWriterOf(c)
	}
	return &de
}

// dumpDanglingOf is a dangling handle as dump gives it.
func dumpDanglingOf(d protocol.Dangling) dumpDangling {
	in := "resource"
	if d.Holder != 0 {
		in = d.Holder.String()
	}
	dd := dumpDangling{In: in, Path: d.Path, Handle: d.Handle.String(), Since: d.Since, By: d.By, Key: d.Key, Why: d.Why, After: d.StoredAfter()}
	if d.Stored != nil {
		dw := dumpWriterOf(protocol.ComponentValue{Component: d.Component, Written: d.Stored})
		dd.Stored = &dw
	}
	return dd
}

// danglingPage puts a page of every dangling handle in place of the
// summary's newest: oldest first, grouped, with where the next page
// starts.
func (r *dumpResult) danglingPage(p *protocol.DanglingPage) {
	r.Dangling, r.DanglingTotal, r.DanglingBetween = []dumpDangling{}, p.Total+p.Over, 0
	for _, d := range p.List {
		r.Dangling = append(r.Dangling, dumpDanglingOf(d))
	}
	r.DanglingPaged = &dumpPaging{Offset: p.Offset}
	if next := p.Offset + len(p.List); next < p.Total && len(p.List) > 0 {
		r.DanglingPaged.Next = next
	}
}

// dumpPaging says which window of a list was given: the first listed,
// and the --offset of the next page when more are left.
type dumpPaging struct {
	Offset int `json:"offset"`
	Next   int `json:"next,omitempty"`
}

// dumpWriterOf is who wrote and added a component's value, as JSON gives
// it (the one rule for a writer: a component's, a dangling handle's).
func dumpWriterOf(c protocol.ComponentValue) dumpWriter {
	dw := dumpWriter{Summary: client.WriterNote(c)}
	if w := c.Written; w != nil {
		dw.Tick, dw.By, dw.Seen, dw.Held = w.Tick, w.By, w.Seen, w.Held
	}
	if a := c.Added; a != nil {
		dw.Added = &dumpDeath{Tick: a.Tick, By: a.By}
	}
	return dw
}

func printDump(out io.Writer, r *dumpResult) {
	fmt.Fprintf(out, "%s  tick %d  entities %d  %s", r.Source, r.Tick, r.Entities, client.FrameFigures(r.WorkNs, r.FrameNs))
	switch {
	case r.StoppedAfter != "":
		fmt.Fprintf(out, "  STOPPED inside frame %d after %s (exec resume, or step, finishes it)", r.Tick, r.StoppedAfter)
	case r.Paused:
		fmt.Fprint(out, "  PAUSED")
	}
	fmt.Fprintln(out)
	if g := r.GC; g != nil {
		fmt.Fprintf(out, "memory: heap %s (next collection at %s), %d collections, %.1fms paused in all, %s allocated\n",
			protocol.ByteSize(int(g.HeapBytes)), protocol.ByteSize(int(g.GoalBytes)), g.Cycles, g.PauseMs, protocol.ByteSize(int(g.AllocBytes)))
	}
	if r.Frames > 0 {
		fmt.Fprintf(out, "recording: %d frames, ticks %d to %d\n", r.Frames, *r.FirstTick, *r.LastTick)
		if r.Gaps > 0 {
			fmt.Fprintf(out, "gaps: %d ticks not recorded in %d places (dump --tick N in one says why)\n", r.GapTicks, r.Gaps)
		}
	}
	if r.Note != "" {
		fmt.Fprintln(out, "note:", r.Note)
	}
	if r.AsOf != "" {
		fmt.Fprintln(out, "note:", r.AsOf)
	}
	fmt.Fprintln(out, "\narchetypes:")
	for _, a := range r.Archetypes {
		comps := slices.Clone(a.Components)
		for i, c := range comps {
			if tg, ok := a.Targets[c]; ok {
				comps[i] += "→" + tg
			}
		}
		fmt.Fprintf(out, "  %4d %8d  %s\n", a.ID, a.Entities, strings.Join(comps, " "))
	}
	if len(r.Systems) > 0 {
		fmt.Fprintln(out, "\nsystems:")
		for _, s := range r.Systems {
			fmt.Fprintf(out, "  %-20s last %-10s mean %-10s max %-10s runs %d", s.Name, client.Duration(s.LastNs), client.Duration(s.MeanNs), client.Duration(s.MaxNs), s.Runs)
			switch {
			case s.AllocRuns > 0:
				fmt.Fprintf(out, "  allocates %s, %.1f objects a run", protocol.ByteSize(int64(s.AllocBytes)), s.AllocObjects)
			case s.AllocShared > 0:
				fmt.Fprint(out, "  allocations shared with the systems beside it")
			}
			if s.Skipped > 0 {
				fmt.Fprintf(out, "  %d commands skipped", s.Skipped)
			}
			fmt.Fprintln(out)
			for _, why := range s.SkippedWhy {
				fmt.Fprintf(out, "      %s\n", why)
			}
		}
	}
	if len(r.Resources) > 0 {
		fmt.Fprintln(out, "\nresources:")
		for _, n := range slices.Sorted(maps.Keys(r.Resources)) {
			line := []rune(shownJSON(r.Resources[n]))
			if len(line) > 100 {
				line = append(line[:100], []rune("… (--resource "+n+" for the whole)")...)
			}
			fmt.Fprintf(out, "  %-20s %s\n", n, string(line))
		}
	}
	if r.Dangling != nil && len(r.Dangling) == 0 {
		fmt.Fprintln(out, "\ndangling handles: none found")
	}
	if len(r.Dangling) > 0 {
		fmt.Fprintf(out, "\ndangling handles: %d", r.DanglingTotal)
		switch n := len(r.Dangling); {
		case r.DanglingPaged != nil:
			fmt.Fprintf(out, " (oldest first, grouped by where they are: %d to %d", r.DanglingPaged.Offset, r.DanglingPaged.Offset+n-1)
			if r.DanglingPaged.Next > 0 {
				fmt.Fprintf(out, "; --offset %d for the next page", r.DanglingPaged.Next)
			}
			fmt.Fprint(out, ")")
		case n < r.DanglingTotal:
			fmt.Fprintf(out, " (%d listed, newest first", n)
			if r.DanglingBetween > 0 {
				fmt.Fprintf(out, ": the newest %d, then the first %d found; %d between not listed", n-n/2, n/2, r.DanglingBetween)
			}
			fmt.Fprint(out, "; dump --dangling lists them all, a page at a time)")
		}
		fmt.Fprintln(out)
		for i, d := range r.Dangling {
			if r.DanglingBetween > 0 && i == len(r.Dangling)-len(r.Dangling)/2 {
				fmt.Fprintf(out, "  ... %d more found between ...\n", r.DanglingBetween)
			}
			fmt.Fprintf(out, "  %-10s %-28s %-10s since tick %d", d.In, d.Path, d.Handle, d.Since)
			if d.By != "" {
				fmt.Fprintf(out, " by %s", d.By)
			}
			if d.Stored != nil {
				fmt.Fprintf(out, "; stored: %s", d.Stored.Summary)
				if d.After {
					fmt.Fprint(out, ", after the despawn")
				}
			}
			fmt.Fprintln(out)
		}
	}
	printEntity := func(e dumpEntity) {
		fmt.Fprintf(out, "  %s", e.Entity)
		if !e.Alive {
			fmt.Fprintf(out, "  (%s)\n", e.Reason)
			if e.Died == nil {
				return
			}
			fmt.Fprintf(out, "  DEAD: its last state, as its despawn at tick %d by %s found it:\n   ", e.Died.Tick, e.Died.By)
		}
		for _, n := range slices.Sorted(maps.Keys(e.Components)) {
			fmt.Fprintf(out, "  %s%s", n, shownJSON(e.Components[n]))
		}
		fmt.Fprintln(out)
		for _, n := range slices.Sorted(maps.Keys(e.Writers)) {
			fmt.Fprintf(out, "    %s: %s\n", n, e.Writers[n].Summary)
		}
		for _, n := range slices.Sorted(maps.Keys(e.HeldBy)) {
			h := e.HeldBy[n]
			shown := min(len(h.Holders), 20)
			fmt.Fprintf(out, "    held by %d through %s: %s", h.Count, n, strings.Join(h.Holders[:shown], " "))
			if shown < h.Count {
				fmt.Fprintf(out, " and %d more (--json lists %d)", h.Count-shown, len(h.Holders))
			}
			fmt.Fprintln(out)
		}
	}
	if r.Matches != nil {
		fmt.Fprintf(out, "\n%d match %s", r.Matches.Total, r.Matches.Query)
		if m := r.Matches; m.Offset > 0 || m.Next > 0 {
			fmt.Fprintf(out, " (listed: %d to %d", m.Offset+1, m.Offset+len(m.Entities))
			if m.Next > 0 {
				fmt.Fprintf(out, "; --offset %d for the next", m.Next)
			}
			fmt.Fprint(out, ")")
		}
		fmt.Fprintln(out, ":")
		for _, e := range r.Matches.Entities {
			printEntity(e)
		}
	}
	if r.Entity != nil {
		fmt.Fprintln(out, "\nentity:")
		printEntity(*r.Entity)
	}
	if r.Resource != nil {
		printResource(out, r.Resource)
	}
}

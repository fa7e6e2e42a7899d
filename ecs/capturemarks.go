package ecs

// Write marks in captures: who wrote each captured row, for a recording
// that must say so after the world is rebuilt from it (a rewind). A row's
// change stamp is the mark of the run that wrote it (writers.go); a capture
// that keeps marks lists them beside the values, as runs (the rows a query
// run wrote share one mark, so a column written by one system is one run),
// and [Inspection.MarkProvenance] names the run while the writer log still
// holds it.

// MarkRun is a run of captured rows whose writes carry one mark.
type MarkRun struct {
	Rows int32  // how many rows, in the order the capture lists them
	Mark uint32 // 0: never written; else [Inspection.MarkProvenance] names who
}

// inspectMarkProvenance is [Inspection.MarkProvenance].
func (w *World) inspectMarkProvenance(id ComponentID, mark uint32) Provenance {
	return w.provenance(mark, id)
}

// markRuns are the runs of marks of rows 0 to n-1 (all), else of the rows
// listed, mark(r) giving row r's.
func markRuns(all bool, n int, rows []int32, mark func(r int) uint32) []MarkRun {
	var out []MarkRun
	add := func(m uint32) {
		if k := len(out) - 1; k >= 0 && out[k].Mark == m {
			out[k].Rows++
			return
		}
		out = append(out, MarkRun{Rows: 1, Mark: m})
	}
	if all {
		for r := range n {
			add(mark(r))
		}
		return out
	}
	for _, r := range rows {
		add(mark(int(r)))
	}
	return out
}

// captureMarks fills a table column's marks: every row's when all, else
// the changed rows' and the added rows'.
func captureMarks(tk *colStamps, n int, cc *ColumnCapture, all bool) {
	cc.WriteMarks = markRuns(all, n, cc.Changed, tk.effective)
	cc.AddMarks = markRuns(all, n, cc.Added, tk.effectiveAdded)
}

// captureMarks fills a sparse set's column marks, as for a table.
func (s *sparseSet[T]) captureMarks(cc *ColumnCapture, all bool) {
	n := len(s.dense)
	cc.WriteMarks = markRuns(all, n, cc.Changed, func(r int) uint32 { return s.changed[r] })
	cc.AddMarks = markRuns(all, n, cc.Added, func(r int) uint32 { return s.added[r] })
}

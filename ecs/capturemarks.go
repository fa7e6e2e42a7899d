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

// markRuns gathers marks, row by row, into runs.
type markRuns []MarkRun

// add counts one more row of mark m.
func (runs *markRuns) add(m uint32) {
	if k := len(*runs) - 1; k >= 0 && (*runs)[k].Mark == m {
		(*runs)[k].Rows++
		return
	}
	*runs = append(*runs, MarkRun{Rows: 1, Mark: m})
}

// captureMarks fills a table column's marks: every row's when all, else
// the changed rows' and the added rows'. A row's mark is its stamp, its
// chunk's counted (colStamps.effective): read here in one loop, not a call
// a row, since a capture of a big world marks every row of every column.
func captureMarks(tk *colStamps, n int, cc *ColumnCapture, all bool) {
	cc.WriteMarks = columnMarks(all, n, cc.Changed, tk, false)
	cc.AddMarks = columnMarks(all, n, cc.Added, tk, true)
}

// columnMarks are the runs of the changed (or added) marks of a table
// column's rows 0 to n-1 (all), else of the rows listed.
func columnMarks(all bool, n int, listed []int32, tk *colStamps, added bool) []MarkRun {
	chunks := tk.stamp
	if added {
		chunks = tk.astamp
	}
	mark := func(r int) uint32 {
		own := tk.rows[r].changed
		if added {
			own = tk.rows[r].added
		}
		return newest(own, chunks[r>>chunkShift])
	}
	var runs markRuns
	if all {
		for r := range n {
			runs.add(mark(r))
		}
		return runs
	}
	for _, r := range listed {
		runs.add(mark(int(r)))
	}
	return runs
}

// captureMarks fills a sparse set's column marks, as for a table.
func (s *sparseSet[T]) captureMarks(cc *ColumnCapture, all bool) {
	cc.WriteMarks = sliceMarks(all, len(s.dense), cc.Changed, s.changed)
	cc.AddMarks = sliceMarks(all, len(s.dense), cc.Added, s.added)
}

// sliceMarks are the runs of marks[r] of rows 0 to n-1 (all), else of the
// rows listed.
func sliceMarks(all bool, n int, listed []int32, marks []uint32) []MarkRun {
	var runs markRuns
	if all {
		for _, m := range marks[:n] {
			runs.add(m)
		}
		return runs
	}
	for _, r := range listed {
		runs.add(marks[r])
	}
	return runs
}

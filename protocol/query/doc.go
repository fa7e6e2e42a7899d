// Package query is the query language of PROTOCOL.md: parsing an
// expression, compiling it against a world's component schemas (names,
// field paths and literal kinds checked, with suggestions), and the one
// paging and sorting rule every evaluator uses (Window). The agent, the
// recording player, dump and the UI all go through it, so a query means
// the same live and offline and fails with the same message.
//
//	q, err := query.CompileQuery("Energy.Value<10 !Predator", summary.Components)
//	key, err := query.CompileSort("-Energy.Value", summary.Components)
//	win := query.NewWindow(0, 100, key, keyOf)
//	for _, row := range rows { win.Add(row) } // in the world's order
//	page, total := win.Rows(), win.Total()
//
// Watchpoint expressions (ParseWatch) are parsed here too: a value
// watchpoint is a query with a field test.
package query

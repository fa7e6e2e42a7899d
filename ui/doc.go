// Package ui is ecsinspect's terminal UI (Bubble Tea): it attaches to a
// live game's agent, or opens a recording, and shows the world in views
// (overview, archetypes, entities, systems, events, journal, resources),
// an entity's detail, forms, a command palette and a timeline for
// recordings. It speaks only the protocol: it imports protocol and client,
// never the ecs kernel (TestUIImportsNoKernel checks), so it can look at
// any game that serves the protocol.
//
//	err := ui.Run("127.0.0.1:7777", "", os.Stderr) // a live game
//	err = ui.Open([]string{"run.ecsrec"})          // a recording
package ui

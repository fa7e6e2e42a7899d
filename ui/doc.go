// Package ui is ecsinspect's terminal UI (Bubble Tea): it attaches to a
// live game's agent, or opens a recording, and shows the world in views
// (overview, archetypes, entities, systems, events, journal, resources),
// an entity's detail, forms, a command palette and a timeline for
// recordings. It speaks only the protocol: it imports protocol, client
// (every connection, to an agent or a broker) and fleet (the roster's
// members and their filter, as announcements carry them), never the ecs
// kernel or NATS itself (TestUIImportsNoKernel and
// TestUIReachesBrokersOnlyThroughTheClient check), so it can look at any
// game that serves the protocol.
//
// The screen is built of components. One root model (tui.go) owns the
// size, the pane on screen, the entity detail over it, a stack of modals,
// the flash line and the status bar, and routes every message: data to
// every pane and modal (each takes what is its own), keys to the top
// modal, else to a review's timeline, the keys that work everywhere, and
// the pane on screen. Each pane (overview, archetypes, entities, systems,
// events, journal, resources, detail) is a file with Update, View,
// SetSize and KeyMap and a test of its own; the modals (prompt, confirm,
// form, help, comparison, hierarchy) likewise. Panes and modals read a
// shared context (common.go) and ask the root to navigate through a small
// interface, synchronously, so that a burst of keys applies in order. The
// live session and the recording player sit behind one source interface;
// disk and network work runs in commands, never in Update.
//
//	err := ui.Run("127.0.0.1:7777", "", os.Stderr) // a live game
//	err = ui.Open([]string{"run.ecsrec"})          // a recording
package ui

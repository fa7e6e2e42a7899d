//go:build race

package ui

// raceEnabled: the race detector slows everything several times over.
const raceEnabled = true

//go:build race

package inspector

// raceEnabled: the race detector slows everything several times over.
const raceEnabled = true

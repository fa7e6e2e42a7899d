//go:build !race

package inspector

const raceEnabled = false

package ecosystem

// Random is a small random number generator (SplitMix64) whose whole
// state is one exported number: kept in a resource, it is recorded with
// the world and put back by a rewind, so the frames played after a rewind
// draw the numbers they drew the first time. It is a math/rand/v2 Source.
type Random struct{ State uint64 }

// Uint64 returns the next number and advances the state.
func (r *Random) Uint64() uint64 {
	r.State += 0x9e3779b97f4a7c15
	z := r.State
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Dice is the resource that holds each random system's generator: one
// each, so a run replays exactly whatever runs in parallel, and the starve
// bug's own, so the simulation draws the same with the bug on or off.
type Dice struct {
	Flee, Hunt, Birth, Death, Bug Random
}

// newDice seeds every generator from the run's seed.
func newDice(seed uint64) Dice {
	at := func(k uint64) Random {
		r := Random{State: seed ^ k*0xd1b54a32d192ed03}
		r.Uint64() // mix the seed in before the first draw
		return r
	}
	return Dice{Flee: at(1), Hunt: at(2), Birth: at(3), Death: at(4), Bug: at(9)}
}

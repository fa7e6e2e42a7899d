package ecosystem

import "github.com/ecsinspect/ecsinspect/ecs"

// Components.
type (
	// Position is where an animal stands, in world units.
	Position struct{ X, Y float32 }
	// Velocity is how fast it moves, in units per second.
	Velocity struct{ X, Y float32 }
	// Energy runs down with time and up with food; at zero the animal dies.
	Energy struct{ Value float32 }
	// Age counts the frames an animal has lived.
	Age struct{ Frames uint32 }
	// Herbivore marks grazers.
	Herbivore struct{}
	// Predator marks hunters. A pack is a leader and its ChildOf members.
	Predator struct{}
	// Fleeing marks a herbivore running from a predator. It is toggled every
	// few frames, so it lives in a sparse set: toggling moves no rows.
	Fleeing struct{ From ecs.Entity }
)

// Storage keeps Fleeing in a sparse set.
func (Fleeing) Storage() ecs.StorageKind { return ecs.SparseStorage }

// Events.
type (
	// Born is sent when an animal is born.
	Born struct{ Who, Parent ecs.Entity }
	// Eaten is sent when a predator catches a herbivore.
	Eaten struct{ Prey, Predator ecs.Entity }
	// Died is sent when an animal dies of hunger or age.
	Died struct {
		Who   ecs.Entity
		Cause string
	}
)

// Resources.
type (
	// Clock is simulated time.
	Clock struct {
		Frame   uint64
		Seconds float64
	}
	// Seed is the random seed the run started from: the same seed replays
	// the same run.
	Seed struct{ Value uint64 }
	// Grid is the grass: a square of cells that animals graze and that
	// grows back.
	Grid struct {
		Cells int       // per side
		Size  float32   // world units per cell
		Grass []float32 // Cells*Cells amounts, 0 to 1
	}
	// Stats counts what happened.
	Stats struct {
		Herbivores, Predators, Packs int
		Births, Deaths, Eaten        uint64
	}
)

package ecs

import (
	"fmt"
	"runtime/debug"
)

// SystemPanic is what [Schedule.Run] panics with when a system panics: the
// system's name, the value it panicked with and the stack where it did. In
// a parallel stage the panic is caught on the worker goroutine, the stage's
// other running systems are let finish (none starts after it), and the
// panic is raised again on the goroutine that called Run, so one deferred
// recover in the game loop catches every system's panic and nothing touches
// the world while it runs.
type SystemPanic struct {
	System string // the system that panicked
	Value  any    // what it panicked with
	Stack  []byte // its goroutine's stack at the panic
}

func (p *SystemPanic) Error() string {
	return fmt.Sprintf("ecs: system %q panicked: %v\n\n%s", p.System, p.Value, p.Stack)
}

// Unwrap returns the panic value if it is an error.
func (p *SystemPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// runCaught runs the system and returns its panic, if any, as a
// *SystemPanic (a panic that already is one passes through unchanged).
func (sys *system) runCaught(w *World) *SystemPanic {
	return sys.catch(func() { sys.run(w) })
}

// catch runs f, turning a panic in it into the system's SystemPanic.
func (sys *system) catch(f func()) (caught *SystemPanic) {
	defer func() {
		if r := recover(); r != nil {
			if sp, ok := r.(*SystemPanic); ok {
				caught = sp
				return
			}
			caught = &SystemPanic{System: sys.name, Value: r, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

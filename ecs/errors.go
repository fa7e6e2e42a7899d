package ecs

import (
	"errors"
	"fmt"
)

// ErrNotAlive is matched (with errors.Is) by every error about a handle that
// does not name a live entity.
var ErrNotAlive = errors.New("entity is not alive")

// EntityError says why a handle was rejected, in words a person can act on:
// "entity 42v3 is stale: slot 42 is now generation 4".
type EntityError struct {
	Entity Entity
	Reason string
}

func (e *EntityError) Error() string { return "entity " + e.Entity.String() + " " + e.Reason }

// Unwrap makes errors.Is(err, ErrNotAlive) true.
func (e *EntityError) Unwrap() error { return ErrNotAlive }

// ErrNoComponent is matched (with errors.Is) by errors about a live entity
// that lacks the component named.
var ErrNoComponent = errors.New("entity lacks the component")

// ComponentError says a live entity lacks a component: "entity 42v3 has no
// Health".
type ComponentError struct {
	Entity    Entity
	Component string
}

func (e *ComponentError) Error() string {
	return "entity " + e.Entity.String() + " has no " + e.Component
}

// Unwrap makes errors.Is(err, ErrNoComponent) true.
func (e *ComponentError) Unwrap() error { return ErrNoComponent }

// entityError is the error of an operation given a handle that names no
// live entity: the use is noted for the stale-handle audit (audit.go).
func (w *World) entityError(e Entity) error {
	w.noteStale(e)
	return w.deadError(e)
}

// deadError says why e names no live entity, noting nothing: for checks
// (World.CheckAlive), which are not uses.
func (w *World) deadError(e Entity) error {
	var reason string
	switch {
	case e.IsZero():
		reason = "is the zero handle, which names no entity"
	case int(e.index) >= len(w.records):
		reason = fmt.Sprintf("was never issued: the highest slot is %d", len(w.records)-1)
	default:
		rec := &w.records[e.index]
		switch {
		case rec.gen == e.gen && rec.table == deadTable && e.gen == maxGeneration:
			reason = fmt.Sprintf("is despawned: slot %d is retired", e.index)
		case rec.gen == e.gen && rec.table == deadTable:
			reason = fmt.Sprintf("was never issued: slot %d is free at generation %d", e.index, rec.gen)
		case newer(e.gen, rec.gen):
			reason = fmt.Sprintf("was never issued: slot %d is at generation %d", e.index, rec.gen)
		case rec.table == deadTable:
			reason = fmt.Sprintf("is stale: slot %d is free (generation %d)", e.index, rec.gen)
		default:
			reason = fmt.Sprintf("is stale: slot %d is now generation %d", e.index, rec.gen)
		}
	}
	return &EntityError{Entity: e, Reason: reason}
}

// lockedPanic is the message of the panic raised by a structural change made
// while a query iterates.
func lockedPanic(op string) string {
	return "ecs: " + op + " during query iteration: structural changes (spawn, despawn, add, remove) would move rows " +
		"under the running query. Queue them in a command buffer (ecs.Commands) and apply it after the loop, " +
		"or call Close on the query iterator before changing the world"
}

// batchInitPanic is the message of the panic raised by a structural change
// made from a batch spawn's init callback.
func batchInitPanic(op string) string {
	return "ecs: " + op + " inside a SpawnBatch init callback: structural changes (spawn, despawn, add, remove) would move " +
		"the rows init is setting up. Let init set values only; queue the change in a command buffer (ecs.Commands) " +
		"and apply it after SpawnBatch returns"
}

// inSystemPanic is the message of the panic raised by a structural change
// made while a schedule stage runs.
func inSystemPanic(op string) string {
	return "ecs: " + op + " inside a system: structural changes (spawn, despawn, add, remove) " +
		"from a system must go through its command buffer (the *Commands the schedule passes it), " +
		"applied at the end of the stage"
}

// issued reports whether the world ever handed out e: it is alive, or it
// names an earlier generation of a slot in use (a stale handle). The zero
// handle and handles from the future are not issued.
func (w *World) issued(e Entity) bool {
	if e.IsZero() || int(e.index) >= len(w.records) {
		return false
	}
	rec := &w.records[e.index]
	switch {
	case rec.gen == e.gen:
		return rec.table != deadTable || e.gen == maxGeneration
	case newer(e.gen, rec.gen):
		return false
	}
	return true
}

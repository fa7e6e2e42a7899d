package ecs

import (
	"fmt"
	"strconv"
	"strings"
)

// An entity handle as text: its slot index, "v", its generation ("42v3").
// The kernel's Entity and the wire's EntityID print and read handles by
// this one rule; package protocol holds a generated copy
// (internal/sharedgen).

// formatHandle prints a handle: "42v3".
func formatHandle(index, generation uint32) string {
	return strconv.FormatUint(uint64(index), 10) + "v" + strconv.FormatUint(uint64(generation), 10)
}

// parseHandle reads a handle printed by formatHandle.
func parseHandle(s string) (index, generation uint32, err error) {
	i, g, ok := strings.Cut(s, "v")
	if !ok {
		return 0, 0, fmt.Errorf("entity %q: want INDEXvGENERATION, like 42v3", s)
	}
	in, err := strconv.ParseUint(i, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("entity %q: bad index: want INDEXvGENERATION, like 42v3", s)
	}
	gen, err := strconv.ParseUint(g, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("entity %q: bad generation: want INDEXvGENERATION, like 42v3", s)
	}
	return uint32(in), uint32(gen), nil
}

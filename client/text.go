package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Duration prints nanoseconds as people read them.
func Duration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d >= time.Microsecond:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%dns", ns)
}

// DiffLines renders a diff as text, at most perList items per list.
func DiffLines(d *recording.WorldDiff, perList int) []string {
	changed := len(d.Changed) + d.Unlisted
	lines := []string{fmt.Sprintf("tick %d → tick %d: %d spawned, %d despawned, %d changed", d.From, d.To, len(d.Spawned), len(d.Despawned), changed)}
	for _, note := range []string{d.FromAsOf, d.ToAsOf} {
		if note != "" {
			lines = append(lines, "note: "+note)
		}
	}
	ents := func(label string, es []protocol.EntityID) {
		if len(es) == 0 {
			return
		}
		var b strings.Builder
		for i, e := range es {
			if i == perList {
				fmt.Fprintf(&b, " … %d more", len(es)-i)
				break
			}
			b.WriteString(" " + e.String())
		}
		lines = append(lines, fmt.Sprintf("%s (%d):%s", label, len(es), b.String()))
	}
	ents("spawned", d.Spawned)
	ents("despawned", d.Despawned)
	for _, a := range d.Archetypes {
		lines = append(lines, fmt.Sprintf("archetype %d [%s]: %d → %d", a.ID, strings.Join(a.Components, " "), a.From, a.To))
	}
	for _, r := range d.Resources {
		lines = append(lines, "resource "+changeText(r))
	}
	if changed > 0 {
		lines = append(lines, fmt.Sprintf("changed (%d):", changed))
	}
	for i, e := range d.Changed {
		if i == perList {
			lines = append(lines, fmt.Sprintf("  … %d more", changed-i))
			break
		}
		for _, c := range e.Components {
			lines = append(lines, "  "+e.Entity.String()+" "+changeText(c))
		}
	}
	if len(d.Changed) <= perList && d.Unlisted > 0 {
		lines = append(lines, fmt.Sprintf("  … %d more", d.Unlisted))
	}
	return lines
}

func changeText(c recording.ComponentChange) string {
	switch {
	case c.Added:
		return c.Name + " added"
	case c.Removed:
		return c.Name + " removed"
	}
	parts := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		name := c.Name
		if f.Path != "" {
			name += "." + f.Path
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", name, f.Old, f.New))
	}
	return strings.Join(parts, ", ")
}

// FrameFigures says what a frame cost and how often frames come: "work
// 0.13ms of frame 16.7ms" (the game's work in its last frame, and the
// interval between frames), or "frame 16.7ms" when the work is not known.
func FrameFigures(workNs, frameNs int64) string {
	if workNs <= 0 {
		return "frame " + Duration(frameNs)
	}
	return "work " + Duration(workNs) + " of frame " + Duration(frameNs)
}

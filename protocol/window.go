package protocol

import (
	"fmt"
	"slices"
)

// Windows in a delta Summary. A system's Recent runs and the Summary's
// Frames are windows of the last MaxFrames that slide a little each
// frame: a delta sends what slid in (SystemTails, FrameTail) rather than
// the window again, and the reader appends it to its own and keeps the
// last MaxFrames.

// slide is the window base with tail appended, its last MaxFrames kept,
// in new memory.
func slide[T any](base, tail []T) []T {
	out := slices.Concat(base, tail)
	return out[max(len(out)-MaxFrames, 0):]
}

// systemTails is next's systems as tails against prev's (each one's
// static fields left out, its Recent the runs since prev's), or false
// when some system changed otherwise than by running: the list whole
// then.
func systemTails(prev, next []System) ([]System, bool) {
	if len(prev) != len(next) {
		return nil, false
	}
	tails := make([]System, len(next))
	for i := range next {
		p, n := &prev[i], &next[i]
		if p.Name != n.Name || p.Stage != n.Stage || !slices.Equal(p.Reads, n.Reads) || !slices.Equal(p.Writes, n.Writes) ||
			n.Count < p.Count || n.Count-p.Count > uint64(len(n.Recent)) {
			return nil, false
		}
		ran := len(n.Recent) - int(n.Count-p.Count)
		if !slices.Equal(slide(p.Recent, n.Recent[ran:]), n.Recent) {
			return nil, false
		}
		tails[i] = *n
		tails[i].Stage, tails[i].Reads, tails[i].Writes = "", nil, nil
		tails[i].Recent = n.Recent[ran:]
	}
	return tails, true
}

// applySystemTails is base's systems with tails applied.
func applySystemTails(base, tails []System) ([]System, error) {
	if len(tails) != len(base) {
		return nil, fmt.Errorf("protocol: %d system tails for %d systems", len(tails), len(base))
	}
	out := make([]System, len(tails))
	for i := range tails {
		b := &base[i]
		if tails[i].Name != b.Name {
			return nil, fmt.Errorf("protocol: system tail %d is %q, the system there %q", i, tails[i].Name, b.Name)
		}
		out[i] = tails[i]
		out[i].Stage, out[i].Reads, out[i].Writes = b.Stage, b.Reads, b.Writes
		out[i].Recent = slide(b.Recent, tails[i].Recent)
	}
	return out, nil
}

// frameTail is the frames of next newer than prev's newest, or false when
// next is not prev's window slid on by them.
func frameTail(prev, next []FrameStat) ([]FrameStat, bool) {
	if len(prev) == 0 {
		return nil, false
	}
	newest := prev[len(prev)-1].Tick
	at := len(next)
	for at > 0 && next[at-1].Tick > newest {
		at--
	}
	if !slices.Equal(slide(prev, next[at:]), next) {
		return nil, false
	}
	return next[at:], true
}

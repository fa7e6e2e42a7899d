package conformance

// Resources as a client written from PROTOCOL.md rebuilds them from world
// frames: whole in a keyframe or a delta's `rs`, else by `rsc`, each change
// whole or the numbers that changed, predicted from each number's last two
// values. Numbers are found in the order a value is written, so maps are
// read here in their order (a Go map would lose it).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// Field is the churning game's resource: a tick, cells that grow (some
// capped, a few eaten), and a note that changes now and then (its shape:
// the resource comes whole).
type Field struct {
	Tick  int64
	Cells []float64
	Note  string
	Wind  float32
}

// ordered is a msgpack map in its order: keys and values alternately.
type ordered []any

// orderedBody decodes a world body with every map in its order.
func orderedBody(t *testing.T, raw []byte) ordered {
	t.Helper()
	dec := msgpack.NewDecoder(bytes.NewReader(raw))
	dec.SetMapDecoder(func(d *msgpack.Decoder) (any, error) {
		n, err := d.DecodeMapLen()
		if err != nil {
			return nil, err
		}
		out := make(ordered, 0, 2*max(n, 0))
		for range 2 * max(n, 0) {
			v, err := d.DecodeInterface()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	})
	v, err := dec.DecodeInterface()
	if err != nil {
		t.Fatal(err)
	}
	return v.(ordered)
}

// get is the value at key in an ordered map.
func (m ordered) get(key string) (any, bool) {
	for i := 0; i+1 < len(m); i += 2 {
		if m[i] == key {
			return m[i+1], true
		}
	}
	return nil, false
}

// docResource is one resource as the client holds it: its name, value,
// and each number's value and the one before (PROTOCOL.md's v and p).
type docResource struct {
	name  string
	value any
	v, p  []uint64
}

// applyResources applies a frame's resources: `sum.rs` whole, else `rsc`.
func (d *docWorld) applyResources(t *testing.T, body ordered, full bool) {
	t.Helper()
	sumAny, _ := body.get("sum")
	sum, _ := sumAny.(ordered)
	rs, listed := sum.get("rs")
	rsc, changed := body.get("rsc")
	if changed && (listed || full) {
		t.Fatalf("frame %d: rsc beside rs, or on a keyframe", d.frames)
	}
	if listed || full {
		d.resources = nil
		for _, r := range list(rs) {
			d.resources = append(d.resources, wholeResource(r.(ordered)))
		}
		return
	}
	for _, c := range list(rsc) {
		c := c.(ordered)
		at, _ := c.get("i")
		i := int(num0(at))
		if i < 0 || i >= len(d.resources) {
			t.Fatalf("frame %d: a change of resource %d of %d", d.frames, i, len(d.resources))
		}
		if w, ok := c.get("w"); ok {
			d.resources[i] = wholeResource(w.(ordered))
			d.resWhole++
			continue
		}
		r := &d.resources[i]
		rowsB, _ := c.get("r")
		rawB, _ := c.get("x")
		rows := rowSet(t, bin(rowsB), len(r.v))
		lanes := unpackLanes(t, bin(rawB), len(rows), 8)
		for k, row := range rows {
			z := binary.LittleEndian.Uint64(lanes[8*k:])
			pred := 2*r.v[row] - r.p[row]
			r.p[row], r.v[row] = r.v[row], (z>>1^-(z&1))+pred
		}
		nums := r.v
		r.value = withDocNumbers(r.value, &nums)
		d.resNumbers++
	}
}

// wholeResource is a resource that came whole: each number's p is its v.
func wholeResource(r ordered) docResource {
	name, _ := r.get("n")
	v, _ := r.get("v")
	nums := docNumbers(v, nil)
	return docResource{name: str(name), value: v, v: nums, p: append([]uint64(nil), nums...)}
}

// docNumbers appends v's numbers, in the order v is written.
func docNumbers(v any, out []uint64) []uint64 {
	switch x := v.(type) {
	case int8, int16, int32, int64:
		return append(out, uint64(num0(x)))
	case uint8:
		return append(out, uint64(x))
	case uint16:
		return append(out, uint64(x))
	case uint32:
		return append(out, uint64(x))
	case uint64:
		return append(out, x)
	case float32: // "the bits of that float32 in the low 4 bytes"
		return append(out, uint64(math.Float32bits(x)))
	case float64:
		return append(out, math.Float64bits(x))
	case []any:
		for _, it := range x {
			out = docNumbers(it, out)
		}
	case ordered:
		for _, it := range x {
			out = docNumbers(it, out)
		}
	}
	return out
}

// withDocNumbers is v with its numbers taken, in order, from nums.
func withDocNumbers(v any, nums *[]uint64) any {
	next := func() uint64 { n := (*nums)[0]; *nums = (*nums)[1:]; return n }
	switch x := v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return int64(next())
	case uint64:
		return next()
	case float32:
		return math.Float32frombits(uint32(next()))
	case float64:
		return math.Float64frombits(next())
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = withDocNumbers(it, nums)
		}
		return out
	case ordered:
		out := make(ordered, len(x))
		for i, it := range x {
			out[i] = withDocNumbers(it, nums)
		}
		return out
	}
	return v
}

// docText writes a value for comparison: numbers by value, maps in order.
func docText(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			b.WriteString("[")
			for _, it := range x {
				walk(it)
				b.WriteString(" ")
			}
			b.WriteString("]")
		case ordered:
			b.WriteString("{")
			for _, it := range x {
				walk(it)
				b.WriteString(" ")
			}
			b.WriteString("}")
		case float32:
			fmt.Fprint(&b, float64(x))
		case int8, int16, int32, int64, uint8, uint16, uint32:
			fmt.Fprint(&b, num0(x))
		default:
			fmt.Fprint(&b, x)
		}
	}
	walk(v)
	return b.String()
}

// matchesKeyframe compares the resources rebuilt from the stream's frames
// with those of a fresh keyframe (the world paused: the same tick).
func (d *docWorld) matchesKeyframe(t *testing.T, key ordered) {
	t.Helper()
	fresh := docWorld{}
	fresh.applyResources(t, key, true)
	if len(fresh.resources) != len(d.resources) || len(d.resources) == 0 {
		t.Fatalf("%d resources rebuilt, %d in a keyframe", len(d.resources), len(fresh.resources))
	}
	for i, r := range d.resources {
		if got, want := docText(r.value), docText(fresh.resources[i].value); r.name != fresh.resources[i].name || got != want {
			t.Errorf("resource %s rebuilt as %s; a keyframe says %s %s", r.name, got, fresh.resources[i].name, want)
		}
	}
}

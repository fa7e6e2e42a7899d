package recording

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// clockAndGrass is a resource with an int and a list of floats: the
// example PROTOCOL.md works.
func clockAndGrass(tick int64, grass ...float64) protocol.Resource {
	cells := make([]protocol.Value, len(grass))
	for i, g := range grass {
		cells[i] = protocol.FloatValue(g)
	}
	return protocol.Resource{Name: "Field", Value: protocol.MapValue(
		protocol.Field{Name: "Tick", Value: protocol.IntValue(tick)},
		protocol.Field{Name: "Grass", Value: protocol.ListValue(cells...)})}
}

func summaryWith(res ...protocol.Resource) *protocol.Summary {
	return &protocol.Summary{Full: true, Resources: res}
}

// TestResourceChangeAsDocumented: PROTOCOL.md's example, byte for byte.
// The tick goes 6, 7, 8: the second delta predicts 8 and sends a lane of
// no bytes; the grass that did not change is not sent.
func TestResourceChangeAsDocumented(t *testing.T) {
	enc := NewWorldEncoder()
	var got [][]protocol.ResourceChange
	for i, tick := range []int64{6, 7, 8} {
		f, err := enc.Encode(&WorldInput{Tick: uint64(i), Full: i == 0, Summary: summaryWith(clockAndGrass(tick, 0.5, 1.0))})
		must(t, err)
		body, err := protocol.OpenBody(f)
		must(t, err)
		if i > 0 && body.Summary.Resources != nil {
			t.Fatalf("frame %d carries the resources whole: %v", i, body.Summary.Resources)
		}
		got = append(got, body.ResourcesChanged)
	}
	want := []protocol.ResourceChange{{At: 0, Rows: []byte{0, 1, 0}, Raw: []byte{0x01, 0x02}}} // 7 - 6: zigzag 2, one byte
	if !reflect.DeepEqual(got[1], want) {
		t.Errorf("tick 6 to 7: %+v, want %+v", got[1], want)
	}
	want = []protocol.ResourceChange{{At: 0, Rows: []byte{0, 1, 0}, Raw: []byte{0x00}}}
	if !reflect.DeepEqual(got[2], want) {
		t.Errorf("tick 7 to 8 (predicted): %+v, want %+v", got[2], want)
	}
}

// TestResourcesRebuiltFromChanges: over frames where resources change
// their numbers, their shape (a list grows, a string, a float32 becomes
// a float64, a field's schema) and the list itself, a reader that applies
// every frame holds each frame's resources exactly, and deltas whose
// shape held send the changed numbers, not the resource.
func TestResourcesRebuiltFromChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	enc, st := NewWorldEncoder(), NewWorldState()
	grass := make([]float64, 400)
	for i := range grass {
		grass[i] = rng.Float64()
	}
	label := "calm"
	coded, whole := 0, 0
	for tick := range 300 {
		for i := range grass { // grows a step, saturating; a few cells eaten
			grass[i] = min(grass[i]+0.01, 1)
			if rng.IntN(50) == 0 {
				grass[i] /= 2
			}
		}
		if tick%37 == 36 {
			grass = append(grass, 0)
		}
		if tick%53 == 52 {
			label = fmt.Sprint("storm ", tick)
		}
		f32 := protocol.Float32Value(float32(tick) / 3)
		if tick%41 == 40 {
			f32 = protocol.FloatValue(float64(tick))
		}
		res := []protocol.Resource{
			clockAndGrass(int64(tick), grass...),
			{Name: "Weather", Value: protocol.MapValue(
				protocol.Field{Name: "Label", Value: protocol.StringValue(label)},
				protocol.Field{Name: "Wind", Value: f32},
				protocol.Field{Name: "Gust", Value: protocol.UintValue(1<<63 + uint64(tick%3))})},
		}
		if tick%29 == 0 {
			res[1].Fields = []protocol.FieldSchema{{Name: "Label", Kind: "string"}, {Name: "Wind", Kind: fmt.Sprint("float", tick)}}
		}
		switch { // a third resource, for a while: the list changes; then one of its shape in its place
		case tick >= 150 && tick < 160:
			res = append(res, protocol.Resource{Name: "Fog", Value: protocol.IntValue(int64(tick))})
		case tick >= 160 && tick < 170:
			res = append(res, protocol.Resource{Name: "Mist", Value: protocol.IntValue(int64(tick))})
		}
		in := &WorldInput{Tick: uint64(tick), Full: tick%100 == 0, Summary: summaryWith(res...)}
		f, err := enc.Encode(in)
		must(t, err)
		body, err := protocol.OpenBody(f)
		must(t, err)
		for _, c := range body.ResourcesChanged {
			if c.Whole != nil {
				whole++
			} else {
				coded++
			}
		}
		must(t, st.Apply(f))
		if len(st.Summary.Resources) != len(res) {
			t.Fatalf("tick %d: %d resources read, %d written", tick, len(st.Summary.Resources), len(res))
		}
		for i, r := range res {
			g := st.Summary.Resources[i]
			if g.Name != r.Name || !g.Value.Equal(r.Value) || !reflect.DeepEqual(g.Fields, r.Fields) || g.Value.String() != r.Value.String() {
				t.Fatalf("tick %d: resource %s read as %v, written %v", tick, r.Name, g.Value, r.Value)
			}
		}
	}
	if coded < 250 || whole < 10 {
		t.Errorf("%d resources sent as their numbers, %d whole: want both", coded, whole)
	}
}

// TestResourceChangesCostTheCellsThatChanged: a 2,500-cell grid where a
// hundred cells grow by a step a frame and the rest sit at their cap sends
// those hundred, each predicted once a step is known: under 2 bytes a changed cell before
// compression, where the grid whole is 9 bytes a cell.
func TestResourceChangesCostTheCellsThatChanged(t *testing.T) {
	enc := NewWorldEncoder()
	grass := make([]float64, 2500)
	for i := range grass {
		grass[i] = 1
		if i%25 == 0 {
			grass[i] = 0.25
		}
	}
	for tick := range 10 {
		for i := 0; i < len(grass); i += 25 {
			grass[i] += 1.0 / 64
		}
		f, err := enc.Encode(&WorldInput{Tick: uint64(tick), Full: tick == 0, Summary: summaryWith(clockAndGrass(int64(tick), grass...))})
		must(t, err)
		if tick < 2 { // the keyframe, and the delta after it: no difference known yet
			continue
		}
		body, err := protocol.OpenBody(f)
		must(t, err)
		n := 0
		for _, c := range body.ResourcesChanged {
			n += len(c.Rows) + len(c.Raw)
		}
		if changed := 100 + 1; n > 2*changed || n == 0 {
			t.Errorf("tick %d: %d bytes for %d changed numbers", tick, n, changed)
		}
	}
}

// TestBadResourceChangesChangeNothing: a delta whose resource changes do
// not fit what the reader holds is an error, and the state stays as it
// was.
func TestBadResourceChangesChangeNothing(t *testing.T) {
	enc := NewWorldEncoder()
	var frames []*protocol.WorldFrame
	for tick := range 3 {
		f, err := enc.Encode(&WorldInput{Tick: uint64(tick), Full: tick == 0, Summary: summaryWith(clockAndGrass(int64(tick), 0.5, float64(tick)))})
		must(t, err)
		frames = append(frames, f)
	}
	body, err := protocol.OpenBody(frames[1])
	must(t, err)
	good := body.ResourcesChanged[0]
	for name, bad := range map[string][]protocol.ResourceChange{
		"past the list":       {{At: 1, Rows: good.Rows, Raw: good.Raw}},
		"twice":               {good, good},
		"a row past the end":  {{At: 0, Rows: []byte{0, 1, 3}, Raw: good.Raw}},
		"no rows":             {{At: 0, Raw: good.Raw}},
		"nothing":             {{At: 0}},
		"too few values":      {{At: 0, Rows: []byte{1}, Raw: good.Raw}},
		"whole and numbers":   {{At: 0, Rows: good.Rows, Raw: good.Raw, Whole: &protocol.Resource{Name: "X"}}},
		"values cut short":    {{At: 0, Rows: good.Rows}},
		"a negative place":    {{At: -1, Rows: good.Rows, Raw: good.Raw}},
		"beside a whole list": nil, // made below
	} {
		t.Run(name, func(t *testing.T) {
			st := NewWorldState()
			must(t, st.Apply(frames[0]))
			before := st.Summary.Resources[0].Value.String()
			b := *body
			b.ResourcesChanged = bad
			if bad == nil {
				b.ResourcesChanged = []protocol.ResourceChange{good}
				b.Summary.Resources = []protocol.Resource{clockAndGrass(9)}
			}
			f := *frames[1]
			must(t, protocol.SealBody(&f, &b))
			if err := st.Apply(&f); err == nil {
				t.Fatalf("applied: %v", st.Summary.Resources)
			}
			if got := st.Summary.Resources[0].Value.String(); got != before || st.Tick != 0 {
				t.Fatalf("the state changed: %s at tick %d, was %s", got, st.Tick, before)
			}
			must(t, st.Apply(frames[1])) // the good frame still applies
			if !bytes.Contains([]byte(st.Summary.Resources[0].Value.String()), []byte("1")) {
				t.Fatalf("the good frame: %v", st.Summary.Resources[0].Value)
			}
		})
	}
}

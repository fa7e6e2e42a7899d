package protocol

import "testing"

// TestHandlesAsText: entity fields, by the schema, print as handles,
// nested and in lists; other fields and values without a schema stay.
func TestHandlesAsText(t *testing.T) {
	fs := []FieldSchema{
		{Name: "Who", Kind: "entity"},
		{Name: "N", Kind: "int"},
		{Name: "Pair", Kind: "struct", Fields: []FieldSchema{{Name: "A", Kind: "entity"}}},
		{Name: "All", Kind: "slice", Elem: &FieldSchema{Kind: "entity"}},
	}
	e := MakeEntityID(40, 1)
	v := MapValue(
		Field{Name: "Who", Value: UintValue(uint64(e))},
		Field{Name: "N", Value: IntValue(int64(e))},
		Field{Name: "Pair", Value: MapValue(Field{Name: "A", Value: IntValue(int64(MakeEntityID(7, 2)))})},
		Field{Name: "All", Value: ListValue(UintValue(uint64(MakeEntityID(1, 1))), UintValue(0))},
	)
	got := HandlesAsText(v, fs)
	want := MapValue(
		Field{Name: "Who", Value: StringValue("40v1")},
		Field{Name: "N", Value: IntValue(int64(e))},
		Field{Name: "Pair", Value: MapValue(Field{Name: "A", Value: StringValue("7v2")})},
		Field{Name: "All", Value: ListValue(StringValue("1v1"), StringValue(EntityID(0).String()))},
	)
	if !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if plain := HandlesAsText(v, nil); !plain.Equal(v) {
		t.Fatalf("without a schema: %v", plain)
	}
}

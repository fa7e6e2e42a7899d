package protocol

import (
	"reflect"
	"testing"
)

// TestEveryAnswerSaysWhatItAnswers: every agent message that carries a
// subscription (Sub) is an Answer giving that id, so an error sent in
// its place reaches the request that waits for it; the ones answering by
// request id (Reply, Snapshot, Encoded) give their ID.
func TestEveryAnswerSaysWhatItAnswers(t *testing.T) {
	byID := map[reflect.Type]bool{reflect.TypeFor[Reply](): true, reflect.TypeFor[Snapshot](): true, reflect.TypeFor[Encoded](): true}
	seen := 0
	for typ := Type(0); typ < 255; typ++ {
		m, err := newMessage(typ)
		if err != nil {
			continue
		}
		v := reflect.ValueOf(m).Elem()
		sub := v.FieldByName("Sub")
		if _, isRequest := m.(Request); isRequest || (!sub.IsValid() && !byID[v.Type()]) {
			if _, ok := m.(Answer); ok && !byID[v.Type()] {
				t.Errorf("%T is an Answer but carries no subscription", m)
			}
			continue
		}
		a, ok := m.(Answer)
		if !ok {
			t.Errorf("%T carries a subscription but is no Answer: an error in its place would carry id 0", m)
			continue
		}
		field := sub
		if byID[v.Type()] {
			field = v.FieldByName("ID")
		}
		field.SetUint(4242)
		if got := a.AnswerTo(); got != 4242 {
			t.Errorf("%T answers %d, want its %s 4242", m, got, map[bool]string{true: "ID", false: "Sub"}[byID[v.Type()]])
		}
		seen++
	}
	if seen != 12 { // Encoded is never decoded, so not in the table
		t.Errorf("%d answers checked, want the 12 the protocol sends", seen)
	}
	if got := (&Encoded{ID: 7}).AnswerTo(); got != 7 {
		t.Errorf("an encoded answer answers %d, want its ID 7", got)
	}
}

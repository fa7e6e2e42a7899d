package inspector

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestEveryRequestHasAHandler: each message type the protocol decodes as a
// request (it carries a request id), Hello aside, has its handler, and no
// handler is registered for a type that is not a request.
func TestEveryRequestHasAHandler(t *testing.T) {
	requests := 0
	for typ := range 256 {
		// [type, {}]: the smallest encoding of every message type.
		m, err := protocol.Decode([]byte{0x92, 0xcc, byte(typ), 0x80})
		_, isRequest := m.(protocol.Request)
		isRequest = err == nil && isRequest && m.Type() != protocol.TypeHello
		_, handled := handlers[protocol.Type(typ)]
		if isRequest != handled {
			t.Errorf("message type %d (%T): a request %v, a handler %v", typ, m, isRequest, handled)
		}
		if handled {
			requests++
		}
	}
	if requests < 18 {
		t.Fatalf("%d request types handled, want every one of the 18 or more", requests)
	}
}

package answer

import "github.com/ecsinspect/ecsinspect/protocol"

// EstimateSize guesses the encoded bytes of a message, for the per-client
// budget of what waits to be sent.
func EstimateSize(m protocol.Message) int64 {
	switch m := m.(type) {
	case *protocol.Page:
		n := int64(64)
		for _, r := range m.Rows {
			n += 16 + 16*int64(len(r.Values))
		}
		return n
	case *protocol.Journal:
		return 64 + 48*int64(len(m.Entries))
	case *protocol.Summary:
		return 512 + 64*int64(len(m.Archetypes)+len(m.Systems)+len(m.Components)+len(m.Events)+len(m.Resources))
	case *protocol.Detail:
		return 256 + 128*int64(len(m.Components)+len(m.Children))
	case *protocol.Events:
		return 256 + 256*int64(len(m.Queues))
	case *protocol.WorldFrame:
		return 64 + int64(len(m.Body))
	case *protocol.Encoded:
		return int64(len(m.Bytes))
	}
	return 128
}

// Package answer holds what the agent's parts hand a client's writer: a
// subscription's Frame (a message, or one built on the writer goroutine,
// with its estimated size) and a RequestError, the refusal a Reply
// carries. The server, the live queries and the watchpoints share it
// without depending on one another.
//
//	if n > limit {
//		return answer.Frame{}, answer.Refuse(protocol.ErrTooLarge, "at most %d", limit)
//	}
//	return answer.Frame{Build: page.Build, Size: page.Size()}, nil
package answer

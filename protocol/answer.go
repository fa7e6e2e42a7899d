package protocol

// Answer is an agent message sent for one client request or one
// subscription: AnswerTo is that request's id (a Reply's ID, a
// Snapshot's) or the subscription's (Sub, which a one-off request's
// answer carries as its id). An answer the agent cannot send (over the
// client's frame limit, or failing to encode) becomes a Reply error with
// this id, so the client waiting for it is not left waiting.
type Answer interface {
	Message
	AnswerTo() uint32
}

func (m *Reply) AnswerTo() uint32        { return m.ID }
func (m *Snapshot) AnswerTo() uint32     { return m.ID }
func (m *Encoded) AnswerTo() uint32      { return m.ID }
func (m *Summary) AnswerTo() uint32      { return m.Sub }
func (m *Page) AnswerTo() uint32         { return m.Sub }
func (m *Detail) AnswerTo() uint32       { return m.Sub }
func (m *Events) AnswerTo() uint32       { return m.Sub }
func (m *Journal) AnswerTo() uint32      { return m.Sub }
func (m *WorldFrame) AnswerTo() uint32   { return m.Sub }
func (m *ResourcePage) AnswerTo() uint32 { return m.Sub }
func (m *DanglingPage) AnswerTo() uint32 { return m.Sub }
func (m *Points) AnswerTo() uint32       { return m.Sub }
func (m *Series) AnswerTo() uint32       { return m.Sub }

package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestChildListSaysWhatDidNotFit(t *testing.T) {
	kids := make([]protocol.EntityID, 12)
	for i := range kids {
		kids[i] = protocol.MakeEntityID(uint32(100+i), 1)
	}
	if got := childList(kids[:2], 80); got != "children (2): 100v1 101v1" {
		t.Errorf("two children: %q", got)
	}
	got := childList(kids, 40)
	if len(got) > 40 || !strings.HasSuffix(got, "more") || !strings.HasPrefix(got, "children (12): 100v1") {
		t.Errorf("twelve children in 40 cells: %q (%d)", got, len(got))
	}
}

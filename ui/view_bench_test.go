package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// BenchmarkEntitiesView renders the entities view of a 1,000,000-entity
// world at 160x48. The list is windowed: the agent sends the visible rows
// only, so the cost does not grow with the world.
func BenchmarkEntitiesView(b *testing.B) {
	m := newModel(newSession(client.GameAt("x", "")), "127.0.0.1:7777")
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.view = viewEntities
	m.conn = connMsg{state: stateConnected}
	m.summary = &protocol.Summary{Tick: 40000, Entities: 1_000_000, FrameNs: 16_600_000,
		Components: []protocol.Component{{ID: 1, Short: "Position"}, {ID: 2, Short: "Velocity"}, {ID: 3, Short: "Energy"}}}
	p := &protocol.Page{Sub: subPageFirst, Tick: 40000, Full: true, Total: 1_000_000, Offset: 500_000, Columns: []uint16{1, 2, 3}}
	for i := range m.bodyHeight() - 2 {
		p.Rows = append(p.Rows, protocol.Row{Entity: protocol.MakeEntityID(uint32(500_000+i), 3), Values: []protocol.Value{
			protocol.MapValue(protocol.Field{Name: "X", Value: protocol.FloatValue(float64(i) * 1.5)}, protocol.Field{Name: "Y", Value: protocol.FloatValue(2)}),
			protocol.MapValue(protocol.Field{Name: "X", Value: protocol.FloatValue(-1)}, protocol.Field{Name: "Y", Value: protocol.FloatValue(0.25)}),
			protocol.MapValue(protocol.Field{Name: "Value", Value: protocol.FloatValue(42)}),
		}})
	}
	m.entities.page = p
	m.entities.offset = 500_000
	m.entities.sortBy = "Position.X" // sorted by the agent: the view only draws the window
	m.summary.Components[0].Fields = []protocol.FieldSchema{{Name: "X", Kind: "float", Type: "float32", Size: 4}, {Name: "Y", Kind: "float", Type: "float32", Offset: 4, Size: 4}}
	m.summary.Components[1].Fields = m.summary.Components[0].Fields
	m.summary.Components[2].Fields = []protocol.FieldSchema{{Name: "Value", Kind: "float", Type: "float32", Size: 4}}
	if v := m.View(); !strings.Contains(v, "sorted by Position.X") || !strings.Contains(v, "Energy.Value") {
		b.Fatalf("not the sorted table:\n%s", v)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

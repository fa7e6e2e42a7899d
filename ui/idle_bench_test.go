package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// BenchmarkUIIdle is the UI's own work while it sits on a view of the
// 10,000-animal demo running at 60 Hz: two seconds of what the agent
// sends for that view's subscriptions (the same the UI asks for), each
// message decoded, cleaned, applied and drawn as the UI does. The
// baseline decodes the same messages and prints each with fmt: the least
// a client that shows them does. ns/s is per second of traffic: divided
// by 10^7 it is the share of a core in percent.
func BenchmarkUIIdle(b *testing.B) {
	sim := ecosystem.New(10_000, 7)
	agent := inspector.New(sim.World, inspector.Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: sim.Schedule})
	if err := agent.Start(); err != nil {
		b.Fatal(err)
	}
	testgame.Loop(b, time.Second/60, func() { sim.Step(); agent.Sync() })
	b.Cleanup(func() { agent.Close() })
	for _, v := range []struct {
		name string
		view int
	}{{"Overview", viewOverview}, {"Entities", viewEntities}, {"Journal", viewJournal}, {"Events", viewEvents}} {
		b.Run("view="+v.name, func(b *testing.B) {
			s := newSession(client.GameAt(agent.Addr(), ""))
			m := newModel(s, agent.Addr())
			m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
			m.conn = connMsg{state: stateConnected}
			m.Init()
			m.showPane(v.view)
			const seconds = 2
			traffic := capture(b, agent.Addr(), s, seconds*time.Second)
			subject := func() {
				in := inbox{pages: map[uint32]*protocol.Page{}}
				for _, f := range traffic {
					msg, err := protocol.Decode(f)
					if err != nil {
						b.Fatal(err)
					}
					if tm := in.take(s, msg); tm != nil {
						m.Update(tm)
						_ = m.View()
					}
				}
			}
			baseline := func() {
				for _, f := range traffic {
					msg, err := protocol.Decode(f)
					if err != nil {
						b.Fatal(err)
					}
					_ = fmt.Sprint(msg)
				}
			}
			subject() // the view shows what came
			if v.view == viewEntities && m.entities.page == nil || v.view == viewJournal && len(m.journal) == 0 {
				b.Fatalf("%s got nothing from %d messages", v.name, len(traffic))
			}
			benchpair.Run(b, seconds, "ns/s", subject, baseline)
		})
	}
}

// capture sends what the UI's session has queued (its subscriptions) on a
// connection of its own and keeps, encoded, what the agent sends back for
// d.
func capture(b *testing.B, addr string, s *session, d time.Duration) [][]byte {
	conn, _, err := client.Connect(addr, "", "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	for len(s.outbox) > 0 {
		if err := conn.Send((<-s.outbox).m); err != nil {
			b.Fatal(err)
		}
	}
	var out [][]byte
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		_ = conn.SetReadDeadline(end)
		msg, err := conn.Receive()
		if err != nil {
			break
		}
		f, err := protocol.Encode(msg)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

package main

import (
	"path/filepath"
	"testing"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// BenchmarkAgentDemo: the 100,000-animal demo's frame with the agent on
// its default options (journal, in-memory recording for rewinds), against
// the same world from the same seed with no agent, interleaved: off (no
// agent on either side: the noise floor), idle (no client), subscribed
// (one client on the summary and a page of entities, reading what it is
// sent) and recording (to a file, every frame).
func BenchmarkAgentDemo(b *testing.B) {
	for _, mode := range []string{"off", "idle", "subscribed", "recording"} {
		b.Run("agent="+mode, func(b *testing.B) {
			subject, plain := ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
			var agent *inspector.Agent
			if mode != "off" {
				agent = inspector.New(subject.World, inspector.Options{Addr: "127.0.0.1:0", Game: "demo", Schedule: subject.Schedule})
				if err := agent.Start(); err != nil {
					b.Fatal(err)
				}
				defer agent.Close()
			}
			switch mode {
			case "subscribed":
				o, err := client.Dial(agent.Addr(), "")
				if err != nil {
					b.Fatal(err)
				}
				defer o.Close()
				for _, s := range []protocol.Subscribe{
					{ID: 1, What: protocol.SubSummary, Hz: 10},
					{ID: 2, What: protocol.SubPage, Query: "Energy", Limit: 40, Hz: 10},
				} {
					if err := o.Conn.Send(&s); err != nil {
						b.Fatal(err)
					}
				}
				go func() {
					for {
						if _, err := o.Conn.Receive(); err != nil {
							return
						}
					}
				}()
			case "recording":
				rec, err := agent.Record(filepath.Join(b.TempDir(), "bench.ecsrec"), 0)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := rec.Stop(); err != nil {
						b.Error(err)
					}
				}()
			}
			withAgent, alone := demoFrames(b, subject, agent, plain)
			framesPaired(b, withAgent, alone)
		})
	}
}

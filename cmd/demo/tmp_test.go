package main

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestTmpCapture(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		s := ecosystem.New(n, 1)
		a := inspector.New(s.World, inspector.Options{Addr: "127.0.0.1:0", Schedule: s.Schedule})
		a.Start()
		o, _ := client.Dial(a.Addr(), "")
		o.Conn.Send(&protocol.Subscribe{ID: 1, What: protocol.SubWorld})
		go func() {
			for {
				if _, err := o.Conn.Receive(); err != nil {
					return
				}
			}
		}()
		var sync, step time.Duration
		for i := range 300 {
			t0 := time.Now()
			s.Step()
			t1 := time.Now()
			a.Sync()
			if i >= 100 {
				step += t1.Sub(t0)
				sync += time.Since(t1)
			}
		}
		t.Logf("%d: step %v sync %v per frame", n, step/200, sync/200)
		o.Close()
		a.Close()
	}
}

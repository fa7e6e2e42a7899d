// Command demo runs the ecosystem (package ecosystem beside it) headless,
// with an inspector agent, the way a real game would link ecsinspect.
//
//	go run ./cmd/demo [--listen ADDR] [--entities N] [--hz H] [--seed S]
//	                  [--token T] [--read-only] [--record FILE] [--frames N] [--bench]
//
// It prints a status line each second and stops on Ctrl-C or after
// --frames. With --bench it runs --frames as fast as it can, first without
// the agent, then with one client subscribed to the summary, and prints the
// frame times (mean, p50, p99) of both.
package main

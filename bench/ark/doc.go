// Package ark measures ecsinspect's kernel against mlange-42/ark, the
// fastest Go ECS in public cross-library benchmarks, in the same process:
// each benchmark runs the same workload through both engines, one after the
// other, so this VM's drifting speed affects both alike.
//
// It is its own module so that the main module, and the games that link
// ecs, never depend on ark. Run it from this directory:
//
//	go test -run '^$' -bench . -count 5
//
// Results name the engine last (`/engine=ark`, `/engine=ecs`), so
// `benchstat -col /engine` puts them side by side.
package ark

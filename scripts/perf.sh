#!/usr/bin/env bash
# perf.sh: every benchmark behind docs/PERFORMANCE.md's tables, in the
# order of its sections, printed as they come (about five minutes on the
# project's 2-vCPU machine class). Pass a section's number to run one:
#
#   scripts/perf.sh        # all
#   scripts/perf.sh 1      # the public suite against ark
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-all}
run() { [ "$want" = all ] || [ "$want" = "$1" ]; }
if run 1; then (cd bench/ark && go test -run '^$' -bench 'Suite' -timeout 60m); fi
if run 2; then go test ./ecs -run '^$' -bench 'Paired|ChangedQuery$|ScanChanged|QuerySparseFilter|Schedule|Events|SetField' -timeout 30m; fi
if run 3; then (cd bench/ark && go test -run '^$' -bench 'Footprint|VsArk|Create10Comp' -timeout 30m); fi
if run 4; then go test ./cmd/demo -run '^$' -bench . -timeout 60m; fi
if run 5; then go test ./inspector -run '^$' -bench 'RecordFrame|RecordBytes|RecordGrid|Seek|Rewind|EntitiesPage|PageCapture|EncodeKeyframe' -timeout 30m; fi
if run 6; then go test ./client -run '^$' -bench 'FleetDiscover|FleetFanOut' -benchtime 20x -timeout 30m; fi
if run 7; then go test ./ui -run '^$' -bench 'UIIdle' -benchtime 20x -timeout 30m; fi

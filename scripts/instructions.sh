#!/usr/bin/env bash
# instructions.sh PKG BENCH: the instructions one run of a benchmark spends
# in PKG's own code, counted by valgrind's cachegrind. Wall time on a shared
# VM drifts by tens of percent; instruction counts do not, so use this to
# judge a change to a hot path, and the benchmark itself for the result.
#
#   scripts/instructions.sh ./ecs '^BenchmarkAddRemove$'
#
# Needs valgrind (apt-get install valgrind). Setup code of the benchmark is
# counted too: compare two versions of the code, not absolute numbers.
set -euo pipefail
pkg=${1:?usage: instructions.sh PKG BENCH}
bench=${2:?usage: instructions.sh PKG BENCH}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
dir=$(go list -f '{{.Dir}}' "$pkg")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/pkg.test" "$pkg"
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg.out" \
	"$work/pkg.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x > "$work/run.log" 2>&1
cg_annotate "$work/cg.out" | sed -n '/file:function/,$p' | grep -F "$dir/" | grep -v '_test.go:' |
	awk '{gsub(",", "", $1); total += $1; if (n++ < 8) top = top "\n  " $0} END {printf "%d instructions in %s\nlargest:%s\n", total, "'"$pkg"'", top}'

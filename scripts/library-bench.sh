#!/usr/bin/env bash
# Compares the Go library with eval batch on 10,000 small inputs (the real
# Codex captures, in order, repeated; the same as BenchmarkAuditMany's
# default): eval batch --jobs 2 over 10,000 files, one process, against
# protocol.AuditBytes of the same inputs already in memory and
# protocol.AuditFile of the same files, in one Go process.
#
#   scripts/library-bench.sh [ROUNDS]     # default 3
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} n=10000
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/cairn" ./cmd/cairn
mkdir "$dir/in"
mapfile -t real < <(printf '%s\n' testdata/codex/real/*/*.jsonl)
for i in $(seq 0 $((n - 1))); do
  cp "${real[i % ${#real[@]}]}" "$dir/in/$i.jsonl"
  echo "$dir/in/$i.jsonl"
done > "$dir/list"
du -sh --apparent-size "$dir/in" | awk -v n="$n" '{print n " inputs:", $1}'
export CAIRN_EVAL=1
for r in $(seq "$rounds"); do
  t0=$EPOCHREALTIME
  # shellcheck disable=SC2046
  "$dir/cairn" eval batch --format codex-jsonl --json --jobs 2 $(cat "$dir/list") >"$dir/out" || true
  t1=$EPOCHREALTIME
  awk -v r="$r" -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "round %d: eval batch --jobs 2: %.0f ms, %.0f µs/input\n", r, (b - a) * 1000, (b - a) * 1e6 / n }'
done
[ "$(wc -l < "$dir/out")" = "$n" ] || { echo "batch printed $(wc -l < "$dir/out") reports, want $n"; exit 1; }
GOMAXPROCS=2 CAIRN_BENCH_INPUTS="$dir/list" go test -run '^$' -bench 'AuditMany' -benchtime 1x -count "$rounds" ./audit/protocol |
  grep '^Benchmark'

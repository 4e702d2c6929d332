#!/usr/bin/env bash
# Measures eval batch against xargs -P2 of single eval protocol runs, side
# by side in one run (SPEC §10; the 6x target of the batch issue), and the
# batch's peak RSS for few and many inputs.
#
#   scripts/batch-bench.sh [N [ROUNDS]]     # N exports of 20-200 KB (default 1000)
#
# Needs GNU time (/usr/bin/time) for the RSS figures.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000} rounds=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/cairn" ./cmd/cairn
go build -o "$dir/gencodex" ./scripts/gencodex
mkdir "$dir/in"
for i in $(seq "$n"); do
  size=$(( (20 + (i * 7919) % 181) * 1024 ))
  "$dir/gencodex" -size "$size" -seed "$i" > "$dir/in/run-$i.jsonl"
done
du -sh "$dir/in" | awk '{print "inputs:", $1}'
export CAIRN_EVAL=1
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
for r in $(seq "$rounds"); do
  t0=$EPOCHREALTIME
  find "$dir/in" -name '*.jsonl' -print0 | xargs -0 -P2 -n1 "$dir/cairn" eval protocol --json --codex-jsonl >/dev/null || true
  t1=$EPOCHREALTIME
  find "$dir/in" -name '*.jsonl' -print0 | xargs -0 "$dir/cairn" eval batch --format codex-jsonl --json --jobs 2 >/dev/null || true
  t2=$EPOCHREALTIME
  x=$(ms "$t0" "$t1") b=$(ms "$t1" "$t2")
  awk -v r="$r" -v x="$x" -v b="$b" 'BEGIN { printf "round %d: xargs -P2 %d ms, batch --jobs 2 %d ms, %.1fx\n", r, x, b, x / b }'
done
if [ -x /usr/bin/time ]; then
  find "$dir/in" -name '*.jsonl' > "$dir/list"
  # 10,000 paths: the inputs listed again and again (memory must not grow
  # with the number of inputs).
  for _ in $(seq 10); do cat "$dir/list"; done | head -n 10000 > "$dir/list10k" || true
  for k in 100 10000; do
    head -n "$k" "$dir/list10k" > "$dir/listk" || true
    # shellcheck disable=SC2046
    /usr/bin/time -f "batch of $k inputs: peak RSS %M KiB, %e s" "$dir/cairn" eval batch --format codex-jsonl --json --jobs 2 $(cat "$dir/listk") >/dev/null || true
  done
fi

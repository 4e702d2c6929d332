#!/usr/bin/env bash
# Compares cairn binaries on one export, interleaved: for each binary and
# round, `perf stat -r RUNS` gives CPU time, page faults and wall time (the
# mean of RUNS runs). On this project's VM a comparison is only meaningful
# within one call of this script: its speed drifts between minutes.
#
#   scripts/ab.sh FILE ROUNDS BIN...
#   e.g. git worktree add /tmp/old HEAD; (cd /tmp/old && CGO_ENABLED=0 go build -o /tmp/old/cairn ./cmd/cairn)
#        CGO_ENABLED=0 go build -o /tmp/new ./cmd/cairn
#        scripts/ab.sh max.jsonl 3 /tmp/old /tmp/new
#
# Without perf (or where it may not read software counters), it falls back
# to the median wall time of RUNS direct runs.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: scripts/ab.sh FILE ROUNDS BIN..."; exit 2; }
file=$1 rounds=$2
shift 2
runs=${RUNS:-10}
export CAIRN_EVAL=1
have_perf=false
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  have_perf=true
fi
for _ in $(seq "$rounds"); do
  for bin in "$@"; do
    if $have_perf; then
      # cairn exits 1 when a check fails: that is a result, not an error.
      { perf stat -r "$runs" -e task-clock,page-faults "$bin" eval protocol --codex-jsonl "$file" --json 2>&1 >/dev/null || true; } |
        awk -v b="$bin" '/task-clock/ {c = $1} /page-faults/ {p = $1} /elapsed/ {e = $1 * 1000}
          END {printf "%-24s wall %7.2f ms  cpu %7.2f ms  page faults %s\n", b, e, c, p}'
    else
      for _ in $(seq "$runs"); do
        t0=$EPOCHREALTIME
        "$bin" eval protocol --codex-jsonl "$file" --json >/dev/null 2>&1 || true
        t1=$EPOCHREALTIME
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
      done | sort -n | awk -v b="$bin" '{a[NR] = $1} END {printf "%-24s wall %7.2f ms (median of %d)\n", b, a[int((NR + 1) / 2)], NR}'
    fi
  done
done

#!/usr/bin/env bash
# Benchmarks the built cairn binary against `jq -c .` on the same generated
# exports, interleaved in one run, and prints median wall times, their
# ratio and peak RSS (GNU /usr/bin/time -v). Usage: scripts/bench.sh [ROUNDS]
#
# Wall times are taken around a direct run of each tool, with bash's
# microsecond clock ($EPOCHREALTIME), so that neither time's own fork nor a
# date(1) process is counted; peak RSS comes from separate runs under
# /usr/bin/time -v, interleaved with the timed ones. The binary is built
# static (CGO_ENABLED=0), as a release build is: see docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
command -v jq >/dev/null || { echo "bench.sh needs jq"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench.sh needs GNU time at /usr/bin/time"; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$dir/cairn" ./cmd/cairn
go run ./scripts/gencodex > "$dir/max.jsonl"
go run ./scripts/gencodex -short > "$dir/short.jsonl"
go run ./scripts/gencodex -size 1048576 > "$dir/1mib.jsonl"
# A malformed record at line 3 of a max-size export: reading must stop there.
{ head -n 2 "$dir/max.jsonl"; echo '{"type":'; tail -n +4 "$dir/max.jsonl"; } | head -c 16777000 > "$dir/bad3.jsonl"

export CAIRN_EVAL=1
# seconds of one direct run of "$@", output discarded
wall() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
# peak RSS in KiB of one run of "$@", from GNU time -v
rss() {
  /usr/bin/time -v -o "$dir/t" "$@" >/dev/null 2>&1 || true
  awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The cost of starting a process from this shell: the net ratio subtracts
# it from both tools' times.
: > "$dir/f"
for _ in $(seq "$rounds"); do wall /bin/true >> "$dir/f"; done
floor=$(median < "$dir/f")
echo "process start floor: ${floor}s (median of $rounds direct runs of /bin/true)"
printf '%-8s %10s %8s %9s %9s %7s %10s %10s  %s\n' file bytes records cairn_s jq_s ratio net_ratio cairn_rss per_round
for f in max short 1mib bad3; do
  in="$dir/$f.jsonl"
  : > "$dir/c"; : > "$dir/j"; : > "$dir/r"
  for _ in $(seq "$rounds"); do
    wall "$dir/cairn" eval protocol --codex-jsonl "$in" --json >> "$dir/c"
    if [ "$f" != bad3 ]; then
      wall jq -c . "$in" >> "$dir/j"
    fi
    rss "$dir/cairn" eval protocol --codex-jsonl "$in" --json >> "$dir/r"
  done
  c=$(median < "$dir/c"); r=$(sort -n "$dir/r" | tail -n 1)
  if [ "$f" != bad3 ]; then
    j=$(median < "$dir/j")
    ratio=$(awk -v c="$c" -v j="$j" 'BEGIN { if (c > 0) printf "%.1fx", j / c; else print "inf" }')
    net=$(awk -v c="$c" -v j="$j" -v f="$floor" 'BEGIN { if (c > f) printf "%.1fx", (j - f) / (c - f); else print "inf" }')
    # The ratio within each round (the two tools ran seconds apart), so
    # that the machine's drift between minutes cancels: median and
    # quartiles over the rounds.
    pairs=$(paste "$dir/c" "$dir/j" | awk '$1 > 0 { print $2 / $1 }' | sort -n |
      awk '{a[NR]=$1} END {printf "%.1fx [%.1f-%.1f]", a[int((NR+1)/2)], a[int((NR+3)/4)], a[int((3*NR+3)/4)]}')
  else
    j=-; ratio=-; net=-; pairs=-
  fi
  printf '%-8s %10d %8d %9s %9s %7s %10s %6d KiB  %s\n' "$f" "$(wc -c < "$in")" "$(wc -l < "$in")" "$c" "$j" "$ratio" "$net" "$r" "$pairs"
done
echo "(wall times include each tool's own process start-up; cairn_rss is the largest of the $rounds runs;"
echo " per_round is the median of each round's jq/cairn ratio, with its quartiles)"

#!/usr/bin/env bash
# Benchmarks the built cairn binary against `jq -c .` on the same generated
# exports, interleaved in one run, and prints median wall times, their
# ratio and peak RSS (GNU /usr/bin/time -v). Usage: scripts/bench.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
command -v jq >/dev/null || { echo "bench.sh needs jq"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench.sh needs GNU time at /usr/bin/time"; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/cairn" ./cmd/cairn
go run ./scripts/gencodex > "$dir/max.jsonl"
go run ./scripts/gencodex -short > "$dir/short.jsonl"
go run ./scripts/gencodex -size 1048576 > "$dir/1mib.jsonl"
# A malformed record at line 3 of a max-size export: reading must stop there.
{ head -n 2 "$dir/max.jsonl"; echo '{"type":'; tail -n +4 "$dir/max.jsonl"; } | head -c 16777000 > "$dir/bad3.jsonl"

export CAIRN_EVAL=1
# wall seconds (from a nanosecond clock) and peak RSS in KiB of one run of
# "$@"; GNU time's own wall figure has only 10 ms steps.
measure() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$dir/t" "$@" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') $(tail -n 1 "$dir/t")"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The cost of starting a process here (GNU time, then a do-nothing binary):
# on a VM it can be tens of milliseconds. The net ratio subtracts it from
# both tools' times.
: > "$dir/f"
for _ in $(seq "$rounds"); do read -r s _ < <(measure true); echo "$s" >> "$dir/f"; done
floor=$(median < "$dir/f")
echo "process start floor: ${floor}s (median of $rounds runs of /usr/bin/time true)"
printf '%-8s %10s %8s %9s %9s %7s %10s %10s\n' file bytes records cairn_s jq_s ratio net_ratio cairn_rss
for f in max short 1mib bad3; do
  in="$dir/$f.jsonl"
  : > "$dir/c"; : > "$dir/j"; : > "$dir/r"
  for _ in $(seq "$rounds"); do
    read -r s rss < <(measure "$dir/cairn" eval protocol --codex-jsonl "$in" --json)
    echo "$s" >> "$dir/c"; echo "$rss" >> "$dir/r"
    if [ "$f" != bad3 ]; then
      read -r s _ < <(measure jq -c . "$in")
      echo "$s" >> "$dir/j"
    fi
  done
  c=$(median < "$dir/c"); r=$(sort -n "$dir/r" | tail -n 1)
  if [ "$f" != bad3 ]; then
    j=$(median < "$dir/j")
    ratio=$(awk -v c="$c" -v j="$j" 'BEGIN { if (c > 0) printf "%.1fx", j / c; else print "inf" }')
    net=$(awk -v c="$c" -v j="$j" -v f="$floor" 'BEGIN { if (c > f) printf "%.1fx", (j - f) / (c - f); else print "inf" }')
  else
    j=-; ratio=-; net=-
  fi
  printf '%-8s %10d %8d %9s %9s %7s %10s %6d KiB\n' "$f" "$(wc -c < "$in")" "$(wc -l < "$in")" "$c" "$j" "$ratio" "$net" "$r"
done
echo "(wall times include process start-up and GNU time's own fork, the same for both tools)"

#!/usr/bin/env bash
# Where the wall time of a cold run goes. Builds cairn with -tags timeline
# (stream/timeline.go: other builds record nothing), runs it ROUNDS times
# on a codex export and prints the median of each phase, in ms:
#
#   start     exec to main.main: the runtime, package initialisers, their page faults
#   cli       main.main to the first read: kong, opening the file
#   read      reading, checking and decoding every record (the three stages)
#   report    the report, encoded and written
#   exit      os.Exit to the shell seeing the process end (the kernel's teardown)
#
# and, for the read-ahead stages, the busy time of each (framing, JSON
# check, decoding: between taking a batch and handing it on) and the first
# batch's framing time, which nothing downstream can overlap.
#
#   scripts/timeline.sh FILE [ROUNDS [BIN]]
#
# ROUNDS defaults to 15. BIN is a binary already built with -tags timeline
# (to compare two builds: run the script for each, in the same minute).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/timeline.sh FILE [ROUNDS [BIN]]"; exit 2; }
file=$(realpath "$1") rounds=${2:-15} bin=${3:+$(realpath "$3")}
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -n "$bin" ]; then
  cp "$bin" "$dir/cairn"
else
  CGO_ENABLED=0 go build -trimpath -tags timeline -o "$dir/cairn" ./cmd/cairn
fi
export CAIRN_EVAL=1
for _ in $(seq "$rounds"); do
  t0=$EPOCHREALTIME
  # cairn exits 1 or 3 on a failing or inconclusive audit: a result.
  "$dir/cairn" eval protocol --codex-jsonl "$file" --json >/dev/null 2>"$dir/err" || true
  t1=$EPOCHREALTIME
  awk -v t0="$t0" -v t1="$t1" '
    $1 == "timeline" {
      t = ($3 / 1e9 - t0) * 1000; what = $2
      if (!(what in at)) at[what] = t
      stage = substr(what, 1, length(what) - 1); edge = substr(what, length(what))
      if (edge == "+") open[stage] = t
      if (edge == "-" && (stage in open)) {
        busy[stage] += t - open[stage]
        if (stage == "frame" && !("first" in at)) at["first"] = t - open[stage]
        delete open[stage]
      }
    }
    END {
      end = (t1 - t0) * 1000
      printf "start %.3f cli %.3f read %.3f report %.3f exit %.3f total %.3f ", at["main"], at["read"] - at["main"], at["read-end"] - at["read"], at["exit"] - at["read-end"], end - at["exit"], end
      printf "frame %.3f check %.3f decode %.3f first_batch %.3f\n", busy["frame"], busy["check"], busy["use"], at["first"]
    }' "$dir/err"
done > "$dir/runs"
for _ in $(seq "$rounds"); do
  t0=$EPOCHREALTIME; /bin/true; t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "floor %.3f\n", (b - a) * 1000 }'
done >> "$dir/runs"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
col() { awk -v k="$1" '{for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1)}' "$dir/runs" | median; }
echo "$(basename "$file"), median of $rounds runs, ms:"
printf '  %-8s %7.1f   (starting and ending /bin/true: %.1f)\n' total "$(col total)" "$(col floor)"
printf '  %-8s %7.1f\n' start "$(col start)" cli "$(col cli)" read "$(col read)" report "$(col report)" exit "$(col exit)"
printf '  stages busy: framing %.1f, check %.1f, decode %.1f; first batch framed in %.1f\n' \
  "$(col frame)" "$(col check)" "$(col decode)" "$(col first_batch)"

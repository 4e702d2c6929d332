#!/usr/bin/env bash
# Benchmarks the built cairn binary against `jq -c .` and against the
# floor (scripts/floor: read, SHA-256, one validating scan and the
# per-record decode, the least an audit must do) on the same generated
# exports, interleaved in one run: each round runs every tool once on every
# input. It prints, per input, the CPU time (user + system) and the wall
# time of each tool as min/median/max over the rounds, the ratios
# jq/cairn (the median of each round's ratio, with its min and max) and
# cairn/floor, cairn's CPU time per MiB, and cairn's peak RSS (GNU
# /usr/bin/time -v, separate runs). Usage: scripts/bench.sh [ROUNDS]
#
# CPU time is the figure to compare across runs: on a shared machine wall
# time swings with the load, CPU time much less. Wall and CPU times are
# taken around a direct run of each tool (bash's `time` keyword and its
# microsecond clock, $EPOCHREALTIME), so that no time(1) or date(1)
# process is counted. The binaries are built static (CGO_ENABLED=0), as a
# release build is: see docs/performance.md.
#
# The inputs: codex max (16 MiB), 4mib, 1mib, short (50,000 records), 10k,
# 1k; claude, gemini, pi and opencode at 16, 4 and 1 MiB (claude4, …);
# ocexport (an OpenCode export, 16 MiB); bad3 (max, record 3 malformed).
# BENCH_ONLY="max short" runs only those inputs; BENCH_DIR=dir keeps the
# generated inputs there (and reuses them); BENCH_BINS="/tmp/old ..." runs
# those cairn binaries too, in the same rounds, each on rows of its own
# (a before/after comparison in one run).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11}
command -v jq >/dev/null || { echo "bench.sh needs jq (apt-get install -y jq)"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench.sh needs GNU time at /usr/bin/time (apt-get install -y time)"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${BENCH_DIR:-$tmp}
mkdir -p "$dir"
CGO_ENABLED=0 go build -trimpath -o "$tmp/cairn" ./cmd/cairn
CGO_ENABLED=0 go build -trimpath -o "$tmp/floor" ./scripts/floor
gen() { # name command...
  [ -s "$dir/$1.jsonl" ] || "${@:2}" > "$dir/$1.jsonl"
}
gen max go run ./scripts/gencodex
gen 4mib go run ./scripts/gencodex -size 4194304
gen 1mib go run ./scripts/gencodex -size 1048576
gen short go run ./scripts/gencodex -short
gen 10k go run ./scripts/gencodex -short -records 10000
gen 1k go run ./scripts/gencodex -short -records 1000
gen claude go run ./scripts/genclaude
gen gemini go run ./scripts/gengemini
for n in 1 4; do
  gen claude$n go run ./scripts/genclaude -size $((n << 20))
  gen gemini$n go run ./scripts/gengemini -size $((n << 20))
  [ -d scripts/genpi ] && gen pi$n go run ./scripts/genpi -size $((n << 20))
  [ -d scripts/genopencode ] && gen opencode$n go run ./scripts/genopencode -size $((n << 20))
done
for g in genpi genopencode; do
  [ -d "scripts/$g" ] || echo "(no scripts/$g: that format is not measured)"
done
[ -d scripts/genpi ] && gen pi go run ./scripts/genpi
[ -d scripts/genopencode ] && gen opencode go run ./scripts/genopencode
[ -d scripts/genopencode ] && gen ocexport go run ./scripts/genopencode -export
# A malformed record at line 3 of a max-size export: reading must stop there.
[ -s "$dir/bad3.jsonl" ] ||
  { head -n 2 "$dir/max.jsonl"; echo '{"type":'; tail -n +4 "$dir/max.jsonl"; } | head -c 16777000 > "$dir/bad3.jsonl"

inputs=${BENCH_ONLY:-"max 4mib 1mib short 10k 1k claude claude4 claude1 gemini gemini4 gemini1 pi pi4 pi1 opencode opencode4 opencode1 ocexport bad3"}
flag() {
  case $1 in
    claude*) echo --claude-jsonl ;; gemini*) echo --gemini-jsonl ;;
    pi*) echo --pi-jsonl ;; opencode*) echo --opencode-jsonl ;; ocexport) echo --opencode-export ;;
    *) echo --codex-jsonl ;;
  esac
}

export CAIRN_EVAL=1
TIMEFORMAT='%3U %3S'
# one direct run of "$@", output discarded: appends "wall_s cpu_s" to $out
measure() {
  local out=$1 t0 t1 cpu
  shift
  t0=$EPOCHREALTIME
  cpu=$( { time "$@" >/dev/null 2>&1; } 2>&1 || true)
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { split(c, u, " "); printf "%.4f %.4f\n", b - a, u[1] + u[2] }' >> "$out"
}
# peak RSS in KiB of one run of "$@", from GNU time -v
rss() {
  /usr/bin/time -v -o "$tmp/t" "$@" >/dev/null 2>&1 || true
  awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/t"
}
# min/median/max in ms of column $1 of file $2
mmm() {
  awk -v k="$1" '{ print $k * 1000 }' "$2" | sort -n |
    awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.1f/%.1f/%.1f", a[1], (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[NR] }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
# the median, min and max over the rounds of column $1 of file $2 over file $3's
ratio() {
  paste "$2" "$3" | awk -v k="$1" '{ if ($k > 0) print $(k + 2) / $k }' | sort -n |
    awk '{ a[NR] = $1 } END { printf "%.1fx [%.1f-%.1f]", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], a[NR] }'
}

bins="$tmp/cairn ${BENCH_BINS:-}"
present=""
for f in $inputs; do
  [ -s "$dir/$f.jsonl" ] && present="$present $f"
  : > "$tmp/$f.j"; : > "$tmp/$f.f"
  k=0
  for b in $bins; do : > "$tmp/$f.c$k"; : > "$tmp/$f.r$k"; k=$((k + 1)); done
done
: > "$tmp/true"
for _ in $(seq "$rounds"); do
  measure "$tmp/true" /bin/true
  for f in $present; do
    in="$dir/$f.jsonl"
    k=0
    for b in $bins; do
      measure "$tmp/$f.c$k" "$b" eval protocol "$(flag "$f")" "$in" --json
      k=$((k + 1))
    done
    if [ "$f" != bad3 ]; then
      measure "$tmp/$f.j" jq -c . "$in"
    fi
    # The floor frames JSONL: not an export, which is one document.
    case $f in bad3 | ocexport) ;; *) measure "$tmp/$f.f" "$tmp/floor" "$in" ;; esac
    k=0
    for b in $bins; do
      rss "$b" eval protocol "$(flag "$f")" "$in" --json >> "$tmp/$f.r$k"
      k=$((k + 1))
    done
  done
done
# name of the k-th binary: "cairn" for this tree's build
binname() {
  local k=0 b
  for b in $bins; do
    if [ "$k" = "$1" ]; then
      [ "$k" = 0 ] && echo cairn || basename "$b"
      return
    fi
    k=$((k + 1))
  done
}
nbins=$(echo $bins | wc -w)

echo "process start: /bin/true wall $(mmm 1 "$tmp/true") ms, cpu $(mmm 2 "$tmp/true") ms (min/median/max of $rounds rounds)"
echo
echo "CPU time (user + system), ms, min/median/max of $rounds rounds"
printf '%-8s %-12s %9s %7s  %-18s %-20s %-18s  %-22s %7s %7s %10s\n' file binary bytes records cairn jq floor jq/cairn cairn/fl ms/MiB cairn_rss
for f in $present; do
  in="$dir/$f.jsonl"
  bytes=$(wc -c < "$in")
  for k in $(seq 0 $((nbins - 1))); do
    c="$tmp/$f.c$k"
    permib=$(awk '{ print $2 }' "$c" | median | awk -v b="$bytes" '{ printf "%.2f", $1 * 1000 / (b / 1048576) }')
    r=$(sort -n "$tmp/$f.r$k" | tail -n 1)
    if [ "$f" != bad3 ]; then
      fl=$(paste "$c" "$tmp/$f.f" | awk '$4 > 0 { print $2 / $4 }' | median | awk 'NF { printf "%.2fx", $1 } END { if (!NR) print "-" }')
      printf '%-8s %-12s %9d %7d  %-18s %-20s %-18s  %-22s %7s %7s %6d KiB\n' "$f" "$(binname $k)" "$bytes" "$(wc -l < "$in")" \
        "$(mmm 2 "$c")" "$(mmm 2 "$tmp/$f.j")" "$(mmm 2 "$tmp/$f.f")" "$(ratio 2 "$c" "$tmp/$f.j")" "$fl" "$permib" "$r"
    else
      printf '%-8s %-12s %9d %7d  %-18s %-20s %-18s  %-22s %7s %7s %6d KiB\n' "$f" "$(binname $k)" "$bytes" "$(wc -l < "$in")" \
        "$(mmm 2 "$c")" - - - - "$permib" "$r"
    fi
  done
done
echo
echo "Wall time, ms, min/median/max of $rounds rounds"
printf '%-8s %-12s  %-20s %-22s %-20s  %-22s %8s\n' file binary cairn jq floor jq/cairn cairn/fl
for f in $present; do
  for k in $(seq 0 $((nbins - 1))); do
    c="$tmp/$f.c$k"
    if [ "$f" != bad3 ]; then
      fl=$(paste "$c" "$tmp/$f.f" | awk '$3 > 0 { print $1 / $3 }' | median | awk 'NF { printf "%.2fx", $1 } END { if (!NR) print "-" }')
      printf '%-8s %-12s  %-20s %-22s %-20s  %-22s %8s\n' "$f" "$(binname $k)" "$(mmm 1 "$c")" "$(mmm 1 "$tmp/$f.j")" "$(mmm 1 "$tmp/$f.f")" "$(ratio 1 "$c" "$tmp/$f.j")" "$fl"
    else
      printf '%-8s %-12s  %-20s %-22s %-20s  %-22s %8s\n' "$f" "$(binname $k)" "$(mmm 1 "$c")" - - - -
    fi
  done
done
echo "(jq/cairn: the median of each round's ratio [its min-max]; cairn/fl: cairn over the floor, median of"
echo " each round's; ms/MiB: cairn's median CPU time per MiB of input; cairn_rss: the largest of $rounds runs)"

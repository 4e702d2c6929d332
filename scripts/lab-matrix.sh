#!/usr/bin/env bash
# lab-matrix.sh — the release-ledger lab's 2×2 table, offline.
#
# For each pairing of a protocol export (testdata/lab/protocol-{pass,fail}.jsonl)
# with a ledger implementation (testdata/lab/{correct,incorrect}/src/release-ledger.mjs)
# it runs `cairn eval protocol --codex-jsonl EXPORT --json` and the independent
# grader `node scripts/verify-release-ledger.mjs MODULE`, then prints each
# cell's cairn exit code and grader tally. It shows that the protocol and the
# code can each fail on its own: they are separate evidence.
#
# Usage, from anywhere in the repository (needs Go and Node.js):
#
#   scripts/lab-matrix.sh                 # builds cairn from ./cmd/cairn
#   CAIRN=/path/to/cairn scripts/lab-matrix.sh
#
# Exit status: 0 when every cell came out as the controls promise, 1 when
# one did not, 2 when a tool is missing or cairn does not build.
#
# The grader imports and runs the two shipped controls (synthetic, checked
# in); each run is bounded by `timeout 60` where that command exists. These
# controls say nothing about any model.
set -u

if [ -n "${CAIRN:-}" ]; then
  case $CAIRN in
    /*) cairn=$CAIRN ;;
    */*) cairn=$PWD/$CAIRN ;; # relative to the caller's directory
    *) cairn=$(command -v "$CAIRN") || { echo "lab-matrix: \$CAIRN is not a command" >&2; exit 2; } ;;
  esac
fi
cd "$(dirname "$0")/.." || exit 2

if ! command -v node >/dev/null 2>&1; then
  echo "lab-matrix: node is not installed: the release-ledger grader needs Node.js" >&2
  exit 2
fi
if [ -z "${CAIRN:-}" ]; then
  # Build once rather than `go run` per cell: `go run` reports every
  # non-zero exit as 1, which would hide invalid (2) and inconclusive (3).
  if ! command -v go >/dev/null 2>&1; then
    echo "lab-matrix: go is not installed; set CAIRN to a cairn binary" >&2
    exit 2
  fi
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  go build -o "$tmp/cairn" ./cmd/cairn || { echo "lab-matrix: cairn does not build" >&2; exit 2; }
  cairn=$tmp/cairn
fi

bound=()
if command -v timeout >/dev/null 2>&1; then bound=(timeout 60); fi

protocols=(pass fail)
codes=(correct incorrect)
width=38
unexpected=0
line1=() line2=() line3=() # cell i = 2*protocol + code (no associative arrays: bash 3.2 lacks them)
i=0

for p in "${protocols[@]}"; do
  for c in "${codes[@]}"; do
    report=$(CAIRN_EVAL=1 "$cairn" eval protocol --codex-jsonl "testdata/lab/protocol-$p.jsonl" --json 2>/dev/null)
    pec=$?
    status=$(printf '%s\n' "$report" | sed -n 's/^{"schema":"cairn\.eval\.protocol\/v1","enabled":true,"status":"\([a-z]*\)".*/\1/p')

    graded=$(${bound[@]+"${bound[@]}"} node scripts/verify-release-ledger.mjs "testdata/lab/$c/src/release-ledger.mjs" 2>/dev/null)
    gec=$?
    tally=$(printf '%s\n' "$graded" | sed -n '$s/^\([0-9]* passed, [0-9]* failed\)$/\1/p')
    failing=$(printf '%s\n' "$graded" | sed -n 's/^not ok \([0-9]*\) - .*/\1/p' | paste -sd, -)

    line1[i]="cairn exit $pec (${status:-no report})"
    line2[i]="grader exit $gec: ${tally:-no tally}${failing:+ (not ok $failing)}"
    if [ "$pec" -eq 0 ] && [ "$gec" -eq 0 ]; then verdict="both pass"
    elif [ "$gec" -eq 0 ]; then verdict="protocol fails alone"
    elif [ "$pec" -eq 0 ]; then verdict="code fails alone"
    else verdict="both fail"
    fi
    line3[i]="=> $verdict"

    # What the controls promise: the pass export exits 0 and the fail export
    # 1; the correct module scores 15/0 and the incorrect one fails.
    want_pec=0; [ "$p" = fail ] && want_pec=1
    want_gec=0; [ "$c" = incorrect ] && want_gec=1
    if [ "$pec" -ne "$want_pec" ] || [ "$gec" -ne "$want_gec" ]; then
      unexpected=1
    fi
    if [ "$c" = correct ] && [ "$tally" != "15 passed, 0 failed" ]; then
      unexpected=1
    fi
    i=$((i + 1))
  done
done

echo "release-ledger lab: protocol (cairn eval protocol) x code (verify-release-ledger.mjs)"
echo
printf '%-16s%-*s%s\n' "" "$width" "code correct" "code incorrect"
for i in 0 2; do
  printf '%-16s%-*s%s\n' "protocol ${protocols[i / 2]}" "$width" "${line1[i]}" "${line1[i + 1]}"
  printf '%-16s%-*s%s\n' "" "$width" "${line2[i]}" "${line2[i + 1]}"
  printf '%-16s%-*s%s\n' "" "$width" "${line3[i]}" "${line3[i + 1]}"
done
echo

if [ "$unexpected" -ne 0 ]; then
  echo "UNEXPECTED: a cell differs from what the controls promise (see testdata/lab/README.md)"
  exit 1
fi
echo "Each dimension failed on its own: a passing protocol audit says nothing about"
echo "the code, and correct code says nothing about the protocol. Synthetic controls;"
echo "not evidence about any model."

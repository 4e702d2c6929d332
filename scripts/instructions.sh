#!/usr/bin/env bash
# instructions.sh: the instructions one audit costs, per format, without
# SHA-256 — a figure that does not move with the machine's load (issue
# #38). It builds cairn, writes one input with each generator into DIR
# (default a temporary directory; kept when given), runs the audit once
# under callgrind per input and prints, per input: its size, its records,
# all instructions, those of SHA-256 (crypto/sha256 and crypto/internal,
# inclusive), the rest, and the rest per MiB.
#
#   scripts/instructions.sh [DIR] [FORMAT...]
#
# FORMAT names a row below (codex, short, claude, …); none means all.
# valgrind cannot run Go's RDTSCP or follow its preemption signals, hence
# GODEBUG. SHA-256 runs its AVX2 code under valgrind, not SHA-NI, so it
# is left out: compare the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt install valgrind)" >&2; exit 2; }

dir=${1:-}
[ $# -gt 0 ] && shift
if [ -z "$dir" ]; then dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
mkdir -p "$dir"

CGO_ENABLED=0 go build -o "$dir/cairn" ./cmd/cairn

# name, generator and its flags, cairn's input flag
rows=(
	"codex|gencodex|--codex-jsonl"
	"short|gencodex -short|--codex-jsonl"
	"claude|genclaude|--claude-jsonl"
	"gemini|gengemini|--gemini-jsonl"
	"pi|genpi|--pi-jsonl"
	"opencode|genopencode|--opencode-jsonl"
	"export|genopencode -export|--opencode-export"
	"copilot|gencopilot|--copilot-jsonl"
	"qwen|genqwen|--qwen-jsonl"
	"cline|gencline|--cline-jsonl"
)

want=" $* "
printf '%-9s %9s %7s %10s %9s %10s %9s\n' input bytes lines all sha256 rest rest/MiB
for row in "${rows[@]}"; do
	IFS='|' read -r name gen flag <<<"$row"
	[ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
	[ -d "scripts/${gen%% *}" ] || continue
	in="$dir/$name.json"
	[ -s "$in" ] || go run ./scripts/$gen >"$in"
	out="$dir/$name.cg"
	CAIRN_EVAL=1 GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1 valgrind --tool=callgrind \
		--callgrind-out-file="$out" "$dir/cairn" eval protocol "$flag" "$in" --json >/dev/null 2>"$dir/$name.vg" || true
	all=$(callgrind_annotate --auto=no "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); t = $1} END {print t + 0}')
	sha=$(callgrind_annotate --auto=no --inclusive=no "$out" 2>/dev/null |
		awk '/:crypto\/(sha256|internal\/fips140\/sha256)\./ {gsub(",", "", $1); s += $1} END {print s + 0}')
	bytes=$(stat -c %s "$in")
	recs=$(wc -l <"$in")
	awk -v n="$name" -v b="$bytes" -v r="$recs" -v a="$all" -v s="$sha" 'BEGIN {
		rest = a - s
		printf "%-9s %9d %7d %9.1fM %8.1fM %9.1fM %9.2fM\n", n, b, r, a/1e6, s/1e6, rest/1e6, rest/1e6/(b/1048576)
	}'
done

#!/usr/bin/env bash
# The WASI build's size and speed beside the native binary's: the module's
# size (as built, and with -ldflags=-s -w), and the time to audit a 16 MiB
# Codex export and a 651-byte control, native (a fresh process each run)
# and under Node's node:wasi (one Node process that compiles the module
# once, then one instance per run; the compile is timed apart).
#
#   scripts/wasm-bench.sh [ROUNDS]     # default 5; needs node 20+
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/cairn" ./cmd/cairn
GOOS=wasip1 GOARCH=wasm go build -o "$dir/cairn.wasm" ./cmd/cairn
GOOS=wasip1 GOARCH=wasm go build -ldflags='-s -w' -o "$dir/cairn-stripped.wasm" ./cmd/cairn
go run ./scripts/gencodex > "$dir/big.jsonl"
small=testdata/controls/protocol-codex.jsonl
ls -l "$dir/cairn" "$dir/cairn.wasm" "$dir/cairn-stripped.wasm" "$dir/big.jsonl" | awk '{printf "%-12s %9d bytes (%.1f MiB)\n", $NF, $5, $5 / 1048576}' | sed "s|$dir/||"
export CAIRN_EVAL=1
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }
for in in "$small" "$dir/big.jsonl"; do
  for _ in $(seq "$rounds"); do
    t0=$EPOCHREALTIME
    "$dir/cairn" eval protocol --codex-jsonl "$in" --json >/dev/null || true
    t1=$EPOCHREALTIME
    echo "native $(basename "$in"): $(ms "$t0" "$t1") ms"
  done
done
jobs="["
for in in "$small" "$dir/big.jsonl"; do
  for _ in $(seq "$rounds"); do
    jobs+="{\"args\":[\"eval\",\"protocol\",\"--codex-jsonl\",\"$(realpath "$in")\",\"--json\"],\"env\":{\"CAIRN_EVAL\":\"1\"},\"cwd\":\"$PWD\",\"stdin\":null,\"stdout\":\"/dev/null\",\"stderr\":\"/dev/null\"},"
  done
done
echo "${jobs%,}]" > "$dir/jobs.json"
t0=$EPOCHREALTIME
CAIRN_WASI_TIMES=1 node --no-warnings --expose-gc cmd/cairn/wasitest/testdata/run.mjs "$dir/cairn.wasm" "$dir/jobs.json" 2>&1 >/dev/null |
  awk -v r="$rounds" '{ printf "wasm %s: %s %s\n", ($2 + 0 < r ? "protocol-codex.jsonl" : "big.jsonl"), $3, $4 }'
t1=$EPOCHREALTIME
echo "node in all (compile and $((2 * rounds)) runs): $(ms "$t0" "$t1") ms"

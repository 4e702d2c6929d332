#!/usr/bin/env bash
# Installs cairn with `go install` into a temporary GOBIN and runs the
# shipped controls with that binary, as a user would, checking exit codes
# and statuses exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install ./cmd/cairn
cairn="$bin/cairn"

fail=0
expect() { # expect EXIT STATUS cairn-args...
  local want_exit=$1 want_status=$2; shift 2
  local out rc=0
  out=$(CAIRN_EVAL=1 "$cairn" "$@" --json) || rc=$?
  if [ "$rc" != "$want_exit" ] || ! grep -q "\"status\":\"$want_status\"" <<<"$out"; then
    echo "FAIL: cairn $* => exit $rc, want $want_exit ($want_status)"; fail=1
  else
    echo "ok: cairn $* => exit $rc ($want_status)"
  fi
}
expect 0 pass eval protocol --trajectory testdata/controls/protocol-project-search.json
expect 1 fail eval protocol --trajectory testdata/controls/protocol-narration.json
expect 0 pass eval protocol --codex-jsonl testdata/controls/protocol-codex.jsonl
expect 0 pass eval protocol --codex-jsonl - < testdata/controls/protocol-codex.jsonl
expect 3 inconclusive eval protocol --codex-jsonl testdata/codex/g-coding-session.jsonl
expect 0 pass eval protocol --claude-jsonl testdata/controls/protocol-claude.jsonl
expect 1 fail eval protocol --claude-jsonl - < testdata/controls/protocol-claude-command-first.jsonl
expect 0 pass eval protocol --gemini-jsonl testdata/controls/protocol-gemini.jsonl
expect 0 pass eval protocol --pi-jsonl testdata/controls/protocol-pi.jsonl
expect 0 pass eval protocol --opencode-jsonl testdata/controls/protocol-opencode.jsonl
expect 0 pass eval protocol --cline-jsonl testdata/controls/protocol-cline.jsonl

out=$("$cairn" eval protocol --codex-jsonl testdata/controls/protocol-codex.jsonl --json)
if [ "$out" != '{"schema":"cairn.eval.protocol/v1","enabled":false,"status":"disabled"}' ]; then
  echo "FAIL: the gate is not off by default"; fail=1
else
  echo "ok: disabled by default"
fi
"$cairn" version | grep -q '^cairn ' || { echo "FAIL: cairn version"; fail=1; }
"$cairn" completion bash | bash -n || { echo "FAIL: bash completion"; fail=1; }
exit $fail

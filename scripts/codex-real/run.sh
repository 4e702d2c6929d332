#!/usr/bin/env bash
# Capture what the real `codex exec --json` prints, offline.
#
#   scripts/codex-real/run.sh [VERSION...]        (default: the versions below)
#   SCENARIOS="memory-first http-400" scripts/codex-real/run.sh 0.171.0
#
# For each version: installs @openai/codex@VERSION-linux-x64 from npm into
# $CAIRN_CODEX_NPM/VERSION (outside the repository) if it is not there yet,
# then runs every scenario inside a network namespace that has only a
# loopback interface (unshare -n; needs root or user namespaces), against the
# scripted model server and the cairn-memory MCP server of harness/. Writes
# testdata/codex/real/VERSION/<scenario>.jsonl (codex's stdout, unmodified),
# <scenario>.shape.txt and want.json. Exits non-zero if a scenario fails to run.
set -euo pipefail

DEFAULT_VERSIONS=(0.125.0 0.147.0 0.163.0 0.171.0)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
npm_root=${CAIRN_CODEX_NPM:-/tmp/cairn-codex-npm}
work=${CAIRN_CODEX_REAL_TMP:-/tmp/cairn-codex-real}
out="$repo/testdata/codex/real"
read -r -a scenarios <<<"${SCENARIOS:-}"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=("${DEFAULT_VERSIONS[@]}")

say() { printf '==> %s\n' "$*"; }

say "building the harness (model server, MCP server, shape printer)"
mkdir -p "$work/bin"
(cd "$repo" && go build -o "$work/bin/harness" ./scripts/codex-real/harness)

# The binary codex runs is the native one inside the npm package; the package
# layout moved (vendor/<triple>/codex/codex at 0.125, vendor/<triple>/bin/codex later).
find_codex() {
	local dir=$1/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl
	local c
	for c in "$dir/bin/codex" "$dir/codex/codex"; do
		if [ -x "$c" ] && [ -f "$c" ]; then echo "$c"; return 0; fi
	done
	return 1
}

status=0
start_all=$(date +%s)
for v in "${versions[@]}"; do
	dir="$npm_root/$v"
	if ! bin=$(find_codex "$dir"); then
		say "installing @openai/codex@$v-linux-x64 into $dir"
		mkdir -p "$dir"
		npm install --silent --no-audit --no-fund --no-save --prefix "$dir" "@openai/codex@$v-linux-x64"
		bin=$(find_codex "$dir") || { echo "no codex binary in $dir" >&2; status=1; continue; }
	fi
	say "codex $v: $("$bin" --version 2>/dev/null) ($bin)"
	say "running scenarios for $v inside an offline network namespace (loopback only)"
	t0=$(date +%s)
	# shellcheck disable=SC2016
	if ! unshare -n -- bash -c 'ip link set lo up && exec "$@"' harness \
		"$work/bin/harness" run -codex "$bin" -version "$v" -out "$out" -logs "$work/logs" "${scenarios[@]}"; then
		status=1
	fi
	say "codex $v done in $(( $(date +%s) - t0 ))s"
done
say "all done in $(( $(date +%s) - start_all ))s; review: git diff --stat -- testdata/codex/real"
exit $status

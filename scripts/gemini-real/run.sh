#!/usr/bin/env bash
# Capture what the real Gemini CLI prints with
#   gemini -p PROMPT --output-format stream-json -m gemini-2.5-pro [--yolo]
# for every scenario of scripts/gemini-real/capture/scenarios.go, fully
# offline, into testdata/gemini/real/<VERSION>/.
#
#   scripts/gemini-real/run.sh [VERSION...]     (default: 0.61.0 0.56.0)
#   ONLY=memory-first,no-call scripts/gemini-real/run.sh 0.61.0
#
# gemini, the scripted Generative Language API and the MCP server run inside a
# network namespace that has only loopback (unshare -n): nothing can leave the
# machine. The npm install is the one network access, made before entering
# the namespace. Needs root (for unshare), go, node (20 or newer), npm, ip.
#
# Environment: ONLY (comma-separated scenario names; default all, which first
# clears the version's folder), CAIRN_GEMINI_NPM (npm install cache, default
# /tmp/cairn-gemini-npm), CAIRN_GEMINI_BIN (built helpers, default
# /tmp/cairn-gemini-bin).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(0.61.0 0.56.0)
npmroot=${CAIRN_GEMINI_NPM:-/tmp/cairn-gemini-npm}
bin=${CAIRN_GEMINI_BIN:-/tmp/cairn-gemini-bin}
only=${ONLY:-}

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: needs root for unshare -n" >&2
	exit 2
fi

go build -o "$bin/capture" ./scripts/gemini-real/capture
# The cairn-memory MCP server is the capture kit's.
go build -o "$bin/mcpserver" ./scripts/capturekit/mcpserver

# offline CMD...: run CMD in a new network namespace with only loopback up.
offline() {
	unshare -n bash -c 'ip link set lo up && exec "$@"' offline "$@"
}

for v in "${versions[@]}"; do
	dir="$npmroot/$v"
	gemini="$dir/node_modules/@google/gemini-cli/bundle/gemini.js"
	if [ ! -f "$gemini" ]; then
		echo "== installing @google/gemini-cli@$v into $dir"
		mkdir -p "$dir"
		[ -f "$dir/package.json" ] || echo '{"name":"cairn-gemini-capture","private":true}' >"$dir/package.json"
		(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@google/gemini-cli@$v")
	fi
	mkdir -p "$bin/version-home"
	got=$(offline env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$bin/version-home" node "$gemini" --version)
	if [ "$got" != "$v" ]; then
		echo "run.sh: $gemini --version says '$got', want $v" >&2
		exit 1
	fi
	out="$repo/testdata/gemini/real/$v"
	mkdir -p "$out"
	if [ -z "$only" ]; then
		rm -f "$out"/*.jsonl "$out"/*.shape.txt "$out"/*.requests.txt "$out"/want.json "$out"/inventory.txt
	fi
	echo "== capturing gemini $got into testdata/gemini/real/$v"
	start=$(date +%s)
	offline "$bin/capture" -gemini "$gemini" -version "$v" -mcpserver "$bin/mcpserver" -out "$out" ${only:+-only "$only"}
	"$bin/capture" -inventory "$out"
	echo "== $v done in $(($(date +%s) - start))s"
done
"$bin/capture" -readme "$repo/testdata/gemini/real/README.md"

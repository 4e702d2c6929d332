#!/usr/bin/env bash
# Capture what the real OpenCode CLI prints with
#   opencode run --format json PROMPT        (then)
#   opencode export SESSIONID
# for every scenario of scripts/opencode-real/capture/scenarios.go, fully
# offline, into testdata/opencode/real/<VERSION>/.
#
#   scripts/opencode-real/run.sh [VERSION...]     (default: 1.18.33 1.3.2)
#   ONLY=memory-first,no-call scripts/opencode-real/run.sh 1.18.33
#
# opencode, the scripted OpenAI chat-completions API and the MCP server run
# inside a network namespace that has only loopback (unshare -n): nothing can
# leave the machine. The npm install is the one network access, made before
# entering the namespace. Needs root (for unshare), go, npm, ip.
#
# Environment: ONLY (comma-separated scenario names; default all, which first
# clears the version's folder), CAIRN_OPENCODE_NPM (npm install cache, default
# /tmp/cairn-opencode-npm), CAIRN_OPENCODE_BIN (built helpers, default
# /tmp/cairn-opencode-bin).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(1.18.33 1.3.2)
npmroot=${CAIRN_OPENCODE_NPM:-/tmp/cairn-opencode-npm}
bin=${CAIRN_OPENCODE_BIN:-/tmp/cairn-opencode-bin}
only=${ONLY:-}

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: needs root for unshare -n" >&2
	exit 2
fi

go build -o "$bin/capture" ./scripts/opencode-real/capture
# The cairn-memory MCP server is the capture kit's.
go build -o "$bin/mcpserver" ./scripts/capturekit/mcpserver

# offline CMD...: run CMD in a new network namespace with only loopback up.
offline() {
	unshare -n bash -c 'ip link set lo up && exec "$@"' offline "$@"
}

for v in "${versions[@]}"; do
	dir="$npmroot/$v"
	# The npm package's bin/opencode.exe is a copy of the native binary that
	# its postinstall puts there; the binary itself ships in the optional
	# dependency opencode-linux-x64.
	opencode="$dir/node_modules/opencode-linux-x64/bin/opencode"
	if [ ! -x "$opencode" ]; then
		echo "== installing opencode-ai@$v into $dir"
		mkdir -p "$dir"
		[ -f "$dir/package.json" ] || echo '{"name":"cairn-opencode-capture","private":true}' >"$dir/package.json"
		(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "opencode-ai@$v")
	fi
	mkdir -p "$bin/version-home"
	got=$(offline env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$bin/version-home" OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 "$opencode" --version)
	if [ "$got" != "$v" ]; then
		echo "run.sh: $opencode --version says '$got', want $v" >&2
		exit 1
	fi
	out="$repo/testdata/opencode/real/$v"
	mkdir -p "$out"
	if [ -z "$only" ]; then
		rm -f "$out"/*.jsonl "$out"/*.json "$out"/*.shape.txt "$out"/*.requests.txt "$out"/inventory.txt
	fi
	echo "== capturing opencode $got into testdata/opencode/real/$v"
	start=$(date +%s)
	offline "$bin/capture" -opencode "$opencode" -version "$v" -mcpserver "$bin/mcpserver" -out "$out" ${only:+-only "$only"}
	"$bin/capture" -inventory "$out"
	echo "== $v done in $(($(date +%s) - start))s"
done
"$bin/capture" -readme "$repo/testdata/opencode/real/README.md"

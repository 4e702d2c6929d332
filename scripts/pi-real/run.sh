#!/usr/bin/env bash
# Capture what the real Pi coding agent prints with
#   pi --mode json [--no-session] PROMPT
# for every scenario of scripts/pi-real/capture/scenarios.go, fully offline,
# into testdata/pi/real/<VERSION>/.
#
#   scripts/pi-real/run.sh [VERSION...]     (default: 1.6.0 1.3.0 0.86.1)
#   ONLY=memory-first,no-call scripts/pi-real/run.sh 1.6.0
#
# pi (on node 22 from npm: pi 1.x needs node >= 22.19), the scripted
# OpenAI-compatible chat-completions API and the MCP server run inside a
# network namespace that has only loopback (unshare -n): nothing can leave
# the machine. The npm installs are the one network access, made before
# entering the namespace. Versions before 0.99 have no built-in MCP: they run
# the pi-mcp-adapter scenarios, with the extension installed beside pi.
# Needs root (for unshare), go, npm, ip.
#
# Environment: ONLY (comma-separated scenario names; default all, which first
# clears the version's folder), CAIRN_PI_NPM (npm install cache, default
# /tmp/cairn-pi-npm), CAIRN_PI_BIN (built helpers, default /tmp/cairn-pi-bin),
# CAIRN_PI_NODE (node package version, default 22.23.3), CAIRN_PI_ADAPTER
# (pi-mcp-adapter version for pi < 0.99, default 2.36.0).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(1.6.0 1.3.0 0.86.1)
npmroot=${CAIRN_PI_NPM:-/tmp/cairn-pi-npm}
bin=${CAIRN_PI_BIN:-/tmp/cairn-pi-bin}
nodever=${CAIRN_PI_NODE:-22.23.3}
adapterver=${CAIRN_PI_ADAPTER:-2.36.0}
only=${ONLY:-}

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: needs root for unshare -n" >&2
	exit 2
fi

go build -o "$bin/capture" ./scripts/pi-real/capture
# The cairn-memory MCP server is the capture kit's.
go build -o "$bin/mcpserver" ./scripts/capturekit/mcpserver

# npmin DIR SPEC...: npm install SPEC... into DIR (a private package folder).
npmin() {
	local dir=$1
	shift
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{"name":"cairn-pi-capture","private":true}' >"$dir/package.json"
	(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@")
}

# offline CMD...: run CMD in a new network namespace with only loopback up.
offline() {
	unshare -n bash -c 'ip link set lo up && exec "$@"' offline "$@"
}

# node 22 from npm (the package "node" ships the binary as a dependency).
node="$npmroot/node-$nodever/node_modules/node/bin/node"
if [ ! -x "$node" ]; then
	echo "== installing node@$nodever into $npmroot/node-$nodever"
	npmin "$npmroot/node-$nodever" "node@$nodever"
fi
"$node" --version

# before VERSION 0.99.0: whether VERSION is older (no built-in MCP).
before() {
	[ "$(printf '%s\n%s\n' "$1" 0.99.0 | sort -V | head -1)" = "$1" ] && [ "$1" != 0.99.0 ]
}

for v in "${versions[@]}"; do
	dir="$npmroot/$v"
	pkg="$dir/node_modules/@earendil-works/pi-coding-agent"
	pi="$pkg/dist/bundle/cli.js"
	adapter=()
	if before "$v"; then
		if [ ! -f "$dir/node_modules/pi-mcp-adapter/package.json" ] || [ ! -f "$pi" ]; then
			echo "== installing @earendil-works/pi-coding-agent@$v and pi-mcp-adapter@$adapterver into $dir"
			npmin "$dir" "@earendil-works/pi-coding-agent@$v" "pi-mcp-adapter@$adapterver"
		fi
		adapter=(-adapter "$dir/node_modules/pi-mcp-adapter")
	elif [ ! -f "$pi" ]; then
		echo "== installing @earendil-works/pi-coding-agent@$v into $dir"
		npmin "$dir" "@earendil-works/pi-coding-agent@$v"
	fi
	mkdir -p "$bin/version-home"
	got=$(offline env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$bin/version-home" PI_OFFLINE=1 "$node" "$pi" --version)
	if [ "$got" != "$v" ]; then
		echo "run.sh: $pi --version says '$got', want $v" >&2
		exit 1
	fi
	out="$repo/testdata/pi/real/$v"
	mkdir -p "$out"
	if [ -z "$only" ]; then
		rm -f "$out"/*.jsonl "$out"/*.shape.txt "$out"/*.requests.txt "$out"/want.json "$out"/inventory.txt
	fi
	echo "== capturing pi $got into testdata/pi/real/$v"
	start=$(date +%s)
	offline "$bin/capture" -node "$node" -pi "$pi" -version "$v" -mcpserver "$bin/mcpserver" "${adapter[@]}" -out "$out" ${only:+-only "$only"}
	"$bin/capture" -inventory "$out"
	echo "== $v done in $(($(date +%s) - start))s"
done
"$bin/capture" -readme "$repo/testdata/pi/real/README.md"

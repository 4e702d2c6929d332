#!/usr/bin/env bash
# Capture what the real Claude Code CLI prints with
#   claude -p --output-format stream-json --verbose
# for every scenario of scripts/claude-real/capture/scenarios.go, fully
# offline, into testdata/claude/real/<VERSION>/.
#
#   scripts/claude-real/run.sh [VERSION...]     (default: 2.1.332 2.1.290)
#   ONLY=memory-first,no-call scripts/claude-real/run.sh 2.1.332
#
# claude, the scripted Messages API and the MCP server run inside a network
# namespace that has only loopback (unshare -n): nothing can leave the
# machine. Needs root (for unshare), go, npm, ip.
#
# Environment: ONLY (comma-separated scenario names; default all, which first
# clears the version's folder), CAIRN_CLAUDE_NPM (npm install cache, default
# /tmp/cairn-claude-npm), CAIRN_CLAUDE_BIN (built helpers, default
# /tmp/cairn-claude-bin).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(2.1.332 2.1.290)
npmroot=${CAIRN_CLAUDE_NPM:-/tmp/cairn-claude-npm}
bin=${CAIRN_CLAUDE_BIN:-/tmp/cairn-claude-bin}
only=${ONLY:-}

if [ "$(id -u)" != 0 ]; then
	echo "run.sh: needs root for unshare -n" >&2
	exit 2
fi

go build -o "$bin/capture" ./scripts/claude-real/capture
go build -o "$bin/mcpserver" ./scripts/claude-real/mcpserver

# offline CMD...: run CMD in a new network namespace with only loopback up.
offline() {
	unshare -n bash -c 'ip link set lo up && exec "$@"' offline "$@"
}

for v in "${versions[@]}"; do
	dir="$npmroot/$v"
	claude="$dir/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
	if [ ! -x "$claude" ]; then
		echo "== installing @anthropic-ai/claude-code@$v into $dir"
		mkdir -p "$dir"
		[ -f "$dir/package.json" ] || echo '{"name":"cairn-claude-capture","private":true}' >"$dir/package.json"
		# The native build comes as the optional dependency
		# @anthropic-ai/claude-code-linux-x64; the postinstall (which only
		# links it into bin/) is not needed.
		(cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "@anthropic-ai/claude-code@$v")
	fi
	got=$(offline "$claude" --version)
	case "$got" in
	"$v "*) ;;
	*)
		echo "run.sh: $claude --version says '$got', want $v" >&2
		exit 1
		;;
	esac
	out="$repo/testdata/claude/real/$v"
	mkdir -p "$out"
	if [ -z "$only" ]; then
		rm -f "$out"/*.jsonl "$out"/*.shape.txt "$out"/*.requests.txt "$out"/want.json "$out"/inventory.txt
	fi
	echo "== capturing $got into testdata/claude/real/$v"
	start=$(date +%s)
	offline "$bin/capture" -claude "$claude" -version "$v" -mcpserver "$bin/mcpserver" -out "$out" ${only:+-only "$only"}
	"$bin/capture" -inventory "$out"
	echo "== $v done in $(($(date +%s) - start))s"
done
"$bin/capture" -readme "$repo/testdata/claude/real/README.md"

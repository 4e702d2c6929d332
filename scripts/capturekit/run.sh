#!/usr/bin/env bash
# Capture what a real agent CLI prints, fully offline, into
# testdata/CLI/real/VERSION (scripts/README.md says how, and how to add a
# CLI):
#
#   scripts/capturekit/run.sh CLI [VERSION...]    (CLI: claude codex gemini opencode pi copilot qwen cline)
#   ONLY=memory-first,no-call scripts/capturekit/run.sh claude 2.1.332
#
# Builds the kit (capture, mcpserver) into $CAIRN_CAPTURE_BIN (default
# /tmp/cairn-capture-bin-N, N a checksum of this checkout's path, so that
# two checkouts never run each other's kit) and runs `capture CLI`: it installs the CLI from
# npm into /tmp/cairn-CLI-npm/VERSION (the one network access), then runs
# every scenario inside a network namespace with only loopback up
# (unshare -n), then writes each version's inventory and the README. Needs
# root, go, npm, ip.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
bin=${CAIRN_CAPTURE_BIN:-/tmp/cairn-capture-bin-$(printf %s "$repo" | cksum | cut -d" " -f1)}
go build -o "$bin/capture" ./scripts/capturekit/capture
go build -o "$bin/mcpserver" ./scripts/capturekit/mcpserver
exec "$bin/capture" "$@"

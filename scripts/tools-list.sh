#!/usr/bin/env bash
# Re-makes testdata/catalog/tools-list/: the tools/list answer of each real
# memory server, exactly as it printed it. Each server runs as a stdio MCP
# server inside a network namespace with only the loopback up, with its
# store in a fresh temporary folder; the script sends initialize,
# notifications/initialized and tools/list and keeps the line with id 2.
# Then the MCP Inspector's CLI mode lists server-memory's tools (its
# result alone, indented), as a user would save it.
#
#   scripts/tools-list.sh [NPMDIR]     # NPMDIR: where to npm install (a new temporary folder by default)
#
# Needs npm, a C++ toolchain (better-sqlite3 12 builds from source: 13
# segfaults under Node 20) and unshare (root, or user namespaces).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
npmdir=${1:-$(mktemp -d)}
out=$repo/testdata/catalog/tools-list
mkdir -p "$npmdir" "$out"
cd "$npmdir"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund @modelcontextprotocol/server-memory@2026.8.31 \
  @ai-devkit/memory@0.20.1 better-sqlite3@12.11.1 mcp-memory-keeper@0.14.1 \
  @modelcontextprotocol/inspector@0.15.0 >/dev/null
[ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] ||
  (cd node_modules/better-sqlite3 && npm exec --yes node-gyp -- rebuild --release >/dev/null)

# tools_list PACKAGE FILE-PREFIX CMD...: the server's tools/list line.
tools_list() {
  local pkg=$1 name=$2 store version
  shift 2
  store=$(mktemp -d)
  version=$(node -p "require('./node_modules/$pkg/package.json').version")
  coproc SERVER { HOME=$store MEMORY_FILE_PATH=$store/memory.jsonl DATA_DIR=$store \
    unshare -n bash -c 'ip link set lo up && exec "$@"' x "$@" 2>/dev/null; }
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cairn-tools-list","version":"1"}}}' >&"${SERVER[1]}"
  local line
  while IFS= read -r line <&"${SERVER[0]}"; do [[ $line == *'"id":1'* ]] && break; done
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}' >&"${SERVER[1]}"
  while IFS= read -r line <&"${SERVER[0]}"; do
    if [[ $line == *'"id":2'* ]]; then
      printf '%s\n' "$line" > "$out/$name-$version.json"
      break
    fi
  done
  exec {SERVER[1]}>&- # end of input: the server exits
  wait "$SERVER_PID" || true
  rm -rf "$store"
  echo "$name-$version.json: $(wc -c < "$out/$name-$version.json") bytes"
}

# Each by its real path: ai-devkit starts only when argv[1] is its own
# file, never through node_modules/.bin's link.
m=$npmdir/node_modules
tools_list @modelcontextprotocol/server-memory server-memory node "$m/@modelcontextprotocol/server-memory/dist/index.js"
tools_list @ai-devkit/memory ai-devkit-memory node "$m/@ai-devkit/memory/dist/index.js"
tools_list mcp-memory-keeper mcp-memory-keeper node "$m/mcp-memory-keeper/bin/mcp-memory-keeper"

store=$(mktemp -d)
MEMORY_FILE_PATH=$store/memory.jsonl unshare -n bash -c 'ip link set lo up && exec "$@"' x \
  "$m/.bin/mcp-inspector" --cli node "$m/@modelcontextprotocol/server-memory/dist/index.js" --method tools/list \
  > "$out/server-memory-2026.8.31-inspector-0.15.0.json" 2>/dev/null
rm -rf "$store"
echo "server-memory-2026.8.31-inspector-0.15.0.json: $(wc -c < "$out/server-memory-2026.8.31-inspector-0.15.0.json") bytes"

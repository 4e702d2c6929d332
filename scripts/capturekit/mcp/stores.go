//go:build unix

package mcp

import (
	"strconv"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

// store is what the server answers: its tools and fixed entries.
type store struct {
	version string
	tools   []any
	hits    []any                   // what memory_search finds
	stored  func(n int) ordered.Obj // the answer to the n-th memory_store
	// searchError is memory_search's error text with -search-error.
	searchError string
	// deletesRefused is -delete-error's default.
	deletesRefused bool
	// rpcErrors are the JSON-RPC errors of -rpc-error-tool, by tool
	// (default -32602 "unknown tool").
	rpcErrors map[string]rpcError
	// unknownIsRPC answers a call of an unknown tool with a JSON-RPC error,
	// not an error result; templates answers resources/templates/list.
	unknownIsRPC, templates bool
}

var stores = map[string]*store{"cairn": cairn, "codex": codex}

// schema is a JSON schema of an object.
func schema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var (
	str   = map[string]any{"type": "string"}
	scope = map[string]any{"type": "string", "enum": []any{"project", "global"}}
	// annotations are the catalog's (SPEC §6.5).
	readOnly    = map[string]any{"readOnlyHint": true}
	additive    = map[string]any{"readOnlyHint": false, "destructiveHint": false}
	destructive = map[string]any{"readOnlyHint": false, "destructiveHint": true}
)

func tool(name, title, description string, input map[string]any, annotations map[string]any, withTitle bool) map[string]any {
	a := map[string]any{"title": title}
	for k, v := range annotations {
		a[k] = v
	}
	t := map[string]any{"name": name, "description": description, "inputSchema": input, "annotations": a}
	if withTitle {
		t["title"] = title
	}
	return t
}

// cairn is the store of every capture but Codex's (-store codex).
var cairn = &store{
	version: "0.0.1",
	tools: []any{
		tool("memory_search", "Memory Search", "Search the project memory. Always pass scope \"project\" for this repository.",
			schema(map[string]any{"query": str, "scope": scope, "limit": map[string]any{"type": "integer"}}, "query"), readOnly, true),
		tool("memory_store", "Memory Store", "Store a new memory.", schema(map[string]any{"text": str, "scope": str}, "text"), additive, true),
		tool("memory_delete", "Memory Delete", "Delete a memory by id.", schema(map[string]any{"id": str}, "id"), destructive, true),
	},
	hits:           []any{ordered.O("id", "mem_1", "text", "The release ledger lives in src/release-ledger.mjs; amounts are integer cents.", "score", 0.91)},
	stored:         func(n int) ordered.Obj { return ordered.O("stored", true, "id", "mem_"+strconv.Itoa(n+1)) },
	searchError:    "index unavailable",
	deletesRefused: true,
}

// codex is the store of the Codex captures.
var codex = &store{
	version: "1.0.0",
	tools: []any{
		tool("memory_search", "Search memory", "Search the project memory.",
			schema(map[string]any{"scope": scope, "query": str, "mode": map[string]any{"type": "string", "enum": []any{"semantic", "substring"}}, "limit": map[string]any{"type": "integer"}}, "scope", "query"), readOnly, false),
		tool("memory_store", "Store memory", "Store a memory entry.", schema(map[string]any{"scope": scope, "key": str, "text": str}, "scope", "key", "text"), additive, false),
		tool("memory_delete", "Delete memory", "Delete a memory entry.", schema(map[string]any{"scope": scope, "key": str}, "scope", "key"), destructive, false),
	},
	hits:         []any{ordered.O("key", "decisions/token-refresh", "score", 0.82, "text", "Token refresh retries use exponential backoff, at most 3 attempts.")},
	stored:       func(int) ordered.Obj { return ordered.O("stored", true, "key", "notes/cairn-harness") },
	searchError:  "memory index is locked by another process",
	rpcErrors:    map[string]rpcError{"memory_delete": {Code: -32000, Message: "memory_delete: permission denied for key"}},
	unknownIsRPC: true,
	templates:    true,
}

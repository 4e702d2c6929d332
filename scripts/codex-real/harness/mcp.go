//go:build unix

package main

// The cairn-memory stdio MCP server: newline-delimited JSON-RPC 2.0 on
// stdin/stdout. Its answers are fixed, so captures are repeatable.
//
// Modes (comma-separated, -mode):
//
//	search-error   memory_search answers with isError: true
//	meta           memory_search results carry a _meta object
//	delete-fail    memory_delete answers with a JSON-RPC error (the call fails)
//	slow           every tools/call answer waits 700 ms

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

type rpcMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

func cmdMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	mode := fs.String("mode", "", "comma-separated modes")
	logPath := fs.String("log", "", "append every message received to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	modes := map[string]bool{}
	for _, m := range strings.Split(*mode, ",") {
		if m != "" {
			modes[m] = true
		}
	}
	var logw io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex // guards out and logw
	var wg sync.WaitGroup
	for in.Scan() {
		line := in.Bytes()
		mu.Lock()
		fmt.Fprintf(logw, "<- %s\n", line)
		mu.Unlock()
		var m rpcMsg
		if err := json.Unmarshal(line, &m); err != nil {
			continue
		}
		if len(m.ID) == 0 || m.Method == "" { // notification or a response to us
			continue
		}
		// Calls are answered concurrently, so that a client that runs
		// them in parallel sees them overlap (mode slow makes each
		// memory_search take a moment).
		wg.Add(1)
		go func(m rpcMsg) {
			defer wg.Done()
			if m.Method == "tools/call" && modes["slow"] {
				time.Sleep(700 * time.Millisecond)
			}
			result, rpcErr := mcpHandle(m, modes)
			resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
			if rpcErr != nil {
				resp["error"] = rpcErr
			} else {
				resp["result"] = result
			}
			b, _ := json.Marshal(resp)
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(logw, "-> %s\n", b)
			out.Write(b)
			out.WriteByte('\n')
			out.Flush()
		}(m)
	}
	wg.Wait()
	return in.Err()
}

func mcpHandle(m rpcMsg, modes map[string]bool) (any, any) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": "cairn-memory", "version": "1.0.0"},
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": mcpTools()}, nil
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{}}, nil
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		return mcpCall(p.Name, modes)
	}
	return nil, map[string]any{"code": -32601, "message": "method not found"}
}

func mcpTools() []any {
	obj := func(props map[string]any, required ...string) map[string]any {
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	str := map[string]any{"type": "string"}
	scope := map[string]any{"type": "string", "enum": []string{"project", "global"}}
	return []any{
		map[string]any{
			"name":        "memory_search",
			"description": "Search the project memory.",
			"inputSchema": obj(map[string]any{"scope": scope, "query": str, "mode": map[string]any{"type": "string", "enum": []string{"semantic", "substring"}}, "limit": map[string]any{"type": "integer"}}, "scope", "query"),
			"annotations": map[string]any{"title": "Search memory", "readOnlyHint": true},
		},
		map[string]any{
			"name":        "memory_store",
			"description": "Store a memory entry.",
			"inputSchema": obj(map[string]any{"scope": scope, "key": str, "text": str}, "scope", "key", "text"),
			"annotations": map[string]any{"title": "Store memory", "readOnlyHint": false, "destructiveHint": false},
		},
		map[string]any{
			"name":        "memory_delete",
			"description": "Delete a memory entry.",
			"inputSchema": obj(map[string]any{"scope": scope, "key": str}, "scope", "key"),
			"annotations": map[string]any{"title": "Delete memory", "readOnlyHint": false, "destructiveHint": true},
		},
	}
}

func textResult(v any, isError bool) map[string]any {
	b, _ := json.Marshal(v)
	r := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": string(b)}},
		"structuredContent": v,
	}
	if isError {
		r["isError"] = true
	}
	return r
}

func mcpCall(name string, modes map[string]bool) (any, any) {
	switch name {
	case "memory_search":
		if modes["search-error"] {
			return map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "memory index is locked by another process"}},
				"isError": true,
			}, nil
		}
		// Raw JSON keeps the member order: mode, count, results.
		v := json.RawMessage(`{"mode":"semantic","count":1,"results":[{"key":"decisions/token-refresh","score":0.82,"text":"Token refresh retries use exponential backoff, at most 3 attempts."}]}`)
		r := textResult(v, false)
		if modes["meta"] {
			r["_meta"] = json.RawMessage(`{"cairn/index":"v2","cairn/elapsed_ms":3}`)
		}
		return r, nil
	case "memory_store":
		return textResult(json.RawMessage(`{"stored":true,"key":"notes/cairn-harness"}`), false), nil
	case "memory_delete":
		if modes["delete-fail"] {
			return nil, map[string]any{"code": -32000, "message": "memory_delete: permission denied for key"}
		}
		return textResult(json.RawMessage(`{"deleted":true}`), false), nil
	}
	return nil, map[string]any{"code": -32602, "message": "unknown tool"}
}

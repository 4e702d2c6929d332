// Command mcpserver is a tiny stdio MCP server standing in for the
// cairn-memory server while real Claude Code streams are captured
// (scripts/claude-real). It speaks newline-delimited JSON-RPC 2.0 on
// stdin/stdout, offers memory_search, memory_store and memory_delete with the
// catalog's annotations (SPEC §6.5), and answers from a fixed, in-memory
// store. Flags make single tools fail so that error results can be captured.
//
// It never opens a file or a socket; it logs each call to stderr (which the
// CLI keeps out of its stdout).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var (
	name        = flag.String("name", "cairn-memory", "serverInfo.name this server reports")
	failStart   = flag.Bool("fail-start", false, "exit 1 at once, before reading anything")
	searchError = flag.Bool("search-error", false, "memory_search answers isError: true")
	storeError  = flag.Bool("store-error", false, "memory_store answers isError: true")
	deleteError = flag.Bool("delete-error", true, "memory_delete answers isError: true (the default: the store refuses deletes)")
	rpcErrTool  = flag.String("rpc-error-tool", "", "answer a JSON-RPC error for tools/call of this tool")
	emptySearch = flag.Bool("empty-search", false, "memory_search finds nothing (count 0)")
)

func main() {
	flag.Parse()
	if *failStart {
		fmt.Fprintln(os.Stderr, "mcpserver: refusing to start (-fail-start)")
		os.Exit(1)
	}
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	enc := json.NewEncoder(out)
	nextID := 2
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				fmt.Fprintln(os.Stderr, "mcpserver: bad line:", jerr)
			} else if len(req.ID) > 0 && req.Method != "" {
				resp := handle(req, &nextID)
				if werr := enc.Encode(resp); werr != nil {
					return werr
				}
			}
			// Notifications (no id) and responses need no answer.
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func handle(req request, nextID *int) response {
	resp := response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		resp.Result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": *name, "version": "0.0.1"},
		}
	case "ping":
		resp.Result = map[string]any{}
	case "tools/list":
		resp.Result = map[string]any{"tools": tools()}
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		fmt.Fprintf(os.Stderr, "mcpserver: call %s %v\n", p.Name, p.Arguments)
		if p.Name == *rpcErrTool {
			resp.Error = &rpcError{Code: -32602, Message: "unknown tool"}
			return resp
		}
		resp.Result = call(p.Name, p.Arguments, nextID)
	case "resources/list":
		resp.Result = map[string]any{"resources": []any{}}
	case "prompts/list":
		resp.Result = map[string]any{"prompts": []any{}}
	default:
		resp.Error = &rpcError{Code: -32601, Message: "method not found"}
	}
	return resp
}

func tools() []any {
	str := map[string]any{"type": "string"}
	return []any{
		map[string]any{
			"name":        "memory_search",
			"title":       "Memory Search",
			"description": "Search the project memory. Always pass scope \"project\" for this repository.",
			"inputSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"query": str,
					"scope": map[string]any{"type": "string", "enum": []any{"project", "global"}},
					"limit": map[string]any{"type": "integer"},
				},
				"required": []any{"query"},
			},
			"annotations": map[string]any{"title": "Memory Search", "readOnlyHint": true},
		},
		map[string]any{
			"name":        "memory_store",
			"title":       "Memory Store",
			"description": "Store a new memory.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"text": str, "scope": str},
				"required":   []any{"text"},
			},
			"annotations": map[string]any{"title": "Memory Store", "readOnlyHint": false, "destructiveHint": false},
		},
		map[string]any{
			"name":        "memory_delete",
			"title":       "Memory Delete",
			"description": "Delete a memory by id.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"id": str},
				"required":   []any{"id"},
			},
			"annotations": map[string]any{"title": "Memory Delete", "readOnlyHint": false, "destructiveHint": true},
		},
	}
}

func textResult(v any, structured bool) map[string]any {
	b, _ := json.Marshal(v)
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}}
	if structured {
		res["structuredContent"] = v
	}
	return res
}

func errorResult(msg string) map[string]any {
	return map[string]any{
		"content": []any{map[string]any{"type": "text", "text": msg}},
		"isError": true,
	}
}

// The answers are structs so that their members keep this order in the text.
type searchResult struct {
	Mode    string `json:"mode"`
	Count   int    `json:"count"`
	Results []hit  `json:"results"`
}

type hit struct {
	ID    string  `json:"id"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

type stored struct {
	Stored bool   `json:"stored"`
	ID     string `json:"id"`
}

func call(tool string, args map[string]any, nextID *int) map[string]any {
	switch tool {
	case "memory_search":
		if *searchError {
			return errorResult("index unavailable")
		}
		results := []hit{{ID: "mem_1", Text: "The release ledger lives in src/release-ledger.mjs; amounts are integer cents.", Score: 0.91}}
		if *emptySearch {
			results = []hit{}
		}
		return textResult(searchResult{Mode: "semantic", Count: len(results), Results: results}, true)
	case "memory_store":
		if *storeError {
			return errorResult("store is read-only")
		}
		id := fmt.Sprintf("mem_%d", *nextID)
		*nextID++
		return textResult(stored{Stored: true, ID: id}, true)
	case "memory_delete":
		if *deleteError {
			return errorResult("delete refused: memory is append-only")
		}
		return textResult(map[string]any{"deleted": true}, true)
	}
	return errorResult("unknown tool " + tool)
}

//go:build unix

// Package mcp is the capture kit's stdio MCP server: newline-delimited
// JSON-RPC 2.0 on stdin/stdout, standing in for a memory server while a
// real CLI is captured. It offers memory_search, memory_store and
// memory_delete with the catalog's annotations (SPEC §6.5) and answers from
// a fixed store, so captures are repeatable. Its flags make single tools
// fail, answer late or never, and set the name it reports.
//
// The same relay sits between a CLI and any MCP server (a real one from
// npm, or this one) as `capture mcp-hang` and `capture mcp-slow`: a
// tools/call of one tool is then held for ever (the CLI is interrupted
// while it runs) or passed on late (so that a parallel call finishes
// first).
//
// It never opens a socket; it logs each call to stderr (which the CLIs
// keep out of their stdout), and with -log every message to a file.
package mcp

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

// Main is the scripted server on stdin and stdout; it returns the exit
// code.
func Main(args []string) int { return Serve(args, os.Stdin, os.Stdout) }

// Serve is the scripted server on in and out.
func Serve(args []string, in io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet("mcpserver", flag.ContinueOnError)
	var c config
	storeName := fs.String("store", "cairn", "the fixed store: cairn (memory_store adds ids, memory_delete is refused) or codex (the Codex harness's entries)")
	fs.StringVar(&c.name, "name", "cairn-memory", "serverInfo.name this server reports")
	failStart := fs.Bool("fail-start", false, "exit 1 at once, before reading anything")
	fs.BoolVar(&c.searchError, "search-error", false, "memory_search answers isError: true")
	fs.BoolVar(&c.storeError, "store-error", false, "memory_store answers isError: true")
	deleteError := fs.Bool("delete-error", true, "memory_delete answers isError: true (store cairn's default: the store refuses deletes)")
	fs.StringVar(&c.rpcErrorTool, "rpc-error-tool", "", "answer a JSON-RPC error for tools/call of this tool")
	fs.BoolVar(&c.emptySearch, "empty-search", false, "memory_search finds nothing (count 0)")
	fs.BoolVar(&c.meta, "meta", false, "memory_search results carry a _meta object")
	delay := fs.Duration("delay", 0, "every tools/call is answered this late, calls overlapping")
	logPath := fs.String("log", "", "append every message received and sent to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	st, ok := stores[*storeName]
	if !ok {
		fmt.Fprintf(os.Stderr, "mcpserver: no store %q\n", *storeName)
		return 2
	}
	c.store = st
	c.deleteError = st.deletesRefused
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "delete-error" {
			c.deleteError = *deleteError
		}
	})
	if *failStart {
		fmt.Fprintln(os.Stderr, "mcpserver: refusing to start (-fail-start)")
		return 1
	}
	c.log = io.Discard
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpserver:", err)
			return 1
		}
		defer f.Close()
		c.log = f
	}
	var mu sync.Mutex // guards stdout and the log
	out := bufio.NewWriter(stdout)
	r := relay{slow: "*", delay: *delay, pass: func(line []byte) error {
		resp, ok := c.handle(line)
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(c.log, "<- %s", line)
		if !ok {
			return nil
		}
		b, _ := json.Marshal(resp)
		fmt.Fprintf(c.log, "-> %s\n", b)
		out.Write(append(b, '\n'))
		return out.Flush()
	}}
	if *delay == 0 {
		r.slow = ""
	}
	if err := r.run(in); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		return 1
	}
	return 0
}

// Proxy is `capture mcp-hang -marker FILE -tool NAME -- CMD ARGS...` (the
// tool's calls never return; the marker file says one came) or
// `capture mcp-slow -delay D -tool NAME -- CMD ARGS...` (they reach the
// server D late): CMD is the MCP server, its stdout and stderr ours.
func Proxy(mode string, args []string) int {
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	var r relay
	fs.StringVar(&r.marker, "marker", "", "mcp-hang: the file to create when the tool is called")
	tool := fs.String("tool", "", "the tool whose calls are held")
	fs.DurationVar(&r.delay, "delay", 0, "mcp-slow: how long a call of the tool is held before it is passed on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 || *tool == "" || (mode == "mcp-hang") == (r.marker == "") || (mode == "mcp-slow") == (r.delay == 0) {
		fmt.Fprintf(os.Stderr, "%s: usage: capture mcp-hang -marker FILE -tool NAME -- CMD ARGS... | capture mcp-slow -delay D -tool NAME -- CMD ARGS...\n", mode)
		return 2
	}
	if mode == "mcp-hang" {
		r.hold = *tool
	} else {
		r.slow = *tool
	}
	c := exec.Command(rest[0], rest[1:]...)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	in, err := c.StdinPipe()
	if err == nil {
		err = c.Start()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", mode, err)
		return 1
	}
	var mu sync.Mutex
	r.pass = func(line []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := in.Write(line)
		return err
	}
	_ = r.run(os.Stdin)
	in.Close()
	_ = c.Wait()
	return 0
}

// relay reads JSON-RPC lines and passes each on, except a tools/call of
// hold, which never passes (marker is created instead), and one of slow
// ("*": every tool), which passes delay late without holding up the rest.
type relay struct {
	hold, marker, slow string
	delay              time.Duration
	pass               func(line []byte) error
}

func (r relay) run(in io.Reader) error {
	var held sync.WaitGroup
	defer held.Wait()
	br := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			call := json.Unmarshal(line, &req) == nil && req.Method == "tools/call"
			switch {
			case call && req.Params.Name == r.hold:
				fmt.Fprintf(os.Stderr, "mcp: holding the call of %s\n", r.hold)
				_ = os.WriteFile(r.marker, nil, 0o644)
			case call && (r.slow == "*" || req.Params.Name == r.slow):
				held.Add(1)
				go func() {
					defer held.Done()
					time.Sleep(r.delay)
					_ = r.pass(line)
				}()
			default:
				if perr := r.pass(line); perr != nil {
					return perr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// config is what the flags chose.
type config struct {
	store                                *store
	name, rpcErrorTool                   string
	searchError, storeError, deleteError bool
	emptySearch, meta                    bool
	log                                  io.Writer
	mu                                   sync.Mutex
	stored                               int // memory_store calls so far
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

// handle answers one line; ok is false for a notification or a response
// (no answer) and a line that is not JSON.
func (c *config) handle(line []byte) (resp response, ok bool) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver: bad line:", err)
		return resp, false
	}
	if len(req.ID) == 0 || req.Method == "" {
		return resp, false
	}
	resp = response{JSONRPC: "2.0", ID: req.ID}
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
			"serverInfo":      map[string]any{"name": c.name, "version": c.store.version},
		}
	case "ping":
		resp.Result = map[string]any{}
	case "tools/list":
		resp.Result = map[string]any{"tools": c.store.tools}
	case "resources/list":
		resp.Result = map[string]any{"resources": []any{}}
	case "prompts/list":
		resp.Result = map[string]any{"prompts": []any{}}
	case "resources/templates/list":
		if !c.store.templates {
			resp.Error = &rpcError{Code: -32601, Message: "method not found"}
			break
		}
		resp.Result = map[string]any{"resourceTemplates": []any{}}
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		fmt.Fprintf(os.Stderr, "mcpserver: call %s %v\n", p.Name, p.Arguments)
		resp.Result, resp.Error = c.call(p.Name)
	default:
		resp.Error = &rpcError{Code: -32601, Message: "method not found"}
	}
	return resp, true
}

func (c *config) call(tool string) (any, *rpcError) {
	st := c.store
	if tool == c.rpcErrorTool {
		if e, ok := st.rpcErrors[tool]; ok {
			return nil, &e
		}
		return nil, &rpcError{Code: -32602, Message: "unknown tool"}
	}
	switch tool {
	case "memory_search":
		if c.searchError {
			return errorResult(st.searchError), nil
		}
		hits := st.hits
		if c.emptySearch {
			hits = []any{}
		}
		r := textResult(ordered.O("mode", "semantic", "count", len(hits), "results", hits))
		if c.meta {
			r["_meta"] = ordered.O("cairn/index", "v2", "cairn/elapsed_ms", 3)
		}
		return r, nil
	case "memory_store":
		if c.storeError {
			return errorResult("store is read-only"), nil
		}
		c.mu.Lock()
		c.stored++
		n := c.stored
		c.mu.Unlock()
		return textResult(st.stored(n)), nil
	case "memory_delete":
		if c.deleteError {
			return errorResult("delete refused: memory is append-only"), nil
		}
		return textResult(ordered.O("deleted", true)), nil
	}
	if st.unknownIsRPC {
		return nil, &rpcError{Code: -32602, Message: "unknown tool"}
	}
	return errorResult("unknown tool " + tool), nil
}

// textResult is v as the text content and the structured content of a
// result.
func textResult(v any) map[string]any {
	b, _ := json.Marshal(v)
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}, "structuredContent": v}
}

func errorResult(msg string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": msg}}, "isError": true}
}

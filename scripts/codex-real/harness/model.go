//go:build unix

package main

// The scripted model: a Responses-API server (POST /v1/responses, SSE) on
// 127.0.0.1. Each request gets the next turn of the scenario's script. The
// turn is found from the request itself, not from a counter: every call the
// script makes has a call_id "call_<prefix>_<turn>_<k>", so the next turn is
// one past the highest turn whose call ids appear in the request's input.
// A retried or repeated request therefore gets the same answer.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Turn is one scripted model response.
type Turn struct {
	Items  []Item
	Status int           // non-zero: answer with this HTTP status and an error body
	Delay  time.Duration // wait this long before answering
	// DropFirst: the first time this turn is asked for, the stream is cut
	// after response.created (no response.completed), so codex retries.
	DropFirst bool
}

// Item is one output item of a turn.
type Item struct {
	Kind string // mcp, shell, plan, func, wait, patch, web_search, message
	Tool string // mcp: the MCP tool; func: the function name
	Args string // raw JSON arguments (kept as written: key order matters)
	Cmd  string // shell
	Text string // message; web_search: the query
}

// Script is what the model server answers for one codex run.
type Script struct {
	Prefix string // call id prefix of this run
	Turns  []Turn
	// Sub answers requests of a sub-agent thread: those whose user
	// messages contain SubMarker.
	SubMarker string
	Sub       []Turn
}

type modelServer struct {
	mu       sync.Mutex
	script   Script
	logDir   string
	nreq     int
	served   map[string]int // "main:2" -> times served
	extra    int            // requests past the end of the script
	srv      *http.Server
	lastBody []byte
}

func startModel(addr string, script Script, logDir string) (*modelServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	m := &modelServer{script: script, logDir: logDir, served: map[string]int{}}
	m.srv = &http.Server{Handler: m}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *modelServer) setScript(s Script) {
	m.mu.Lock()
	m.script = s
	m.served = map[string]int{}
	m.mu.Unlock()
}

func (m *modelServer) close() { m.srv.Close() }

func (m *modelServer) count(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.served[key]
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.nreq++
	n := m.nreq
	script := m.script
	m.mu.Unlock()
	if m.logDir != "" {
		var hdr bytes.Buffer
		fmt.Fprintf(&hdr, "%s %s\n", r.Method, r.URL.String())
		for k, v := range r.Header {
			if strings.EqualFold(k, "Authorization") {
				v = []string{"(redacted)"}
			}
			fmt.Fprintf(&hdr, "%s: %s\n", k, strings.Join(v, ", "))
		}
		hdr.WriteString("\n")
		hdr.Write(body)
		os.WriteFile(filepath.Join(m.logDir, fmt.Sprintf("req-%03d.txt", n)), hdr.Bytes(), 0o644)
	}
	path := r.URL.Path
	switch {
	case r.Method == "POST" && strings.HasSuffix(path, "/responses"):
		m.responses(w, body, script, n)
	case r.Method == "GET" && strings.HasSuffix(path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"models":[],"data":[],"object":"list"}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"not served by the cairn scripted model","type":"invalid_request_error"}}`)
	}
}

var callIDRe = regexp.MustCompile(`^call_([a-z0-9]+)_(\d+)_\d+$`)

func (m *modelServer) responses(w http.ResponseWriter, body []byte, script Script, n int) {
	var req struct {
		Input []map[string]any `json:"input"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	turns, prefix, which := script.Turns, script.Prefix, "main"
	if script.SubMarker != "" && userTextContains(req.Input, script.SubMarker) {
		turns, prefix, which = script.Sub, "sub", "sub"
	}
	t := 0
	for _, it := range req.Input {
		id, _ := it["call_id"].(string)
		if mm := callIDRe.FindStringSubmatch(id); mm != nil && mm[1] == prefix {
			k, _ := strconv.Atoi(mm[2])
			if k+1 > t {
				t = k + 1
			}
		}
	}
	m.mu.Lock()
	m.served[fmt.Sprintf("%s:%d", which, t)]++
	firstTime := m.served[fmt.Sprintf("%s:%d", which, t)] == 1
	m.mu.Unlock()
	var turn Turn
	if t < len(turns) {
		turn = turns[t]
	} else {
		m.mu.Lock()
		m.extra++
		m.mu.Unlock()
		turn = Turn{Items: []Item{{Kind: "message", Text: "Nothing more to do."}}}
	}
	drop := turn.DropFirst && firstTime // decided before a tool_search stands in for the turn
	if turn.Delay > 0 {
		time.Sleep(turn.Delay)
	}
	if turn.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Status)
		io.WriteString(w, `{"error":{"message":"Invalid value for 'input': the scripted model rejects this request.","type":"invalid_request_error","param":"input","code":"invalid_value"}}`)
		return
	}
	// Tools the request offers, plus those a client-side tool_search
	// exposed earlier in the thread (codex 0.16x+ defers MCP tools).
	all := append([]map[string]any{}, req.Tools...)
	for _, it := range req.Input {
		if it["type"] == "tool_search_output" {
			if ts, ok := it["tools"].([]any); ok {
				for _, x := range ts {
					if t, ok := x.(map[string]any); ok {
						all = append(all, t)
					}
				}
			}
		}
	}
	tools := indexTools(all)
	// A deferred MCP tool must be discovered first, as a real model would:
	// answer with a tool_search call (its call id does not count as a turn).
	if _, ok := tools["tool_search"]; ok {
		for _, it := range turn.Items {
			known := false
			switch it.Kind {
			case "mcp":
				_, known = tools["bare:"+it.Tool]
			case "func":
				_, known = tools[it.Tool]
			case "wait":
				_, k1 := tools["wait"]
				_, k2 := tools["wait_agent"]
				known = k1 || k2
			default:
				known = true
			}
			if !known && !searched(req.Input, fmt.Sprintf("%ss_%d", prefix, t)) {
				q := it.Tool
				switch it.Kind {
				case "mcp":
					q = "cairn-memory " + q
				case "wait":
					q = "wait agent"
				}
				turn = Turn{Items: []Item{{Kind: "tool_search", Text: q}}}
				prefix += "s"
				break
			}
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
	respID := fmt.Sprintf("resp_%s_%s_%d", which, prefix, t)
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "response", "status": "in_progress"}})
	if drop {
		return // the handler returns: the stream ends without response.completed
	}
	for k, it := range turn.Items {
		out := buildItem(it, tools, req.Input, fmt.Sprintf("call_%s_%d_%d", prefix, t, k), fmt.Sprintf("%s_%d_%d", prefix, t, k))
		if out["type"] == "web_search_call" {
			added := map[string]any{"type": "web_search_call", "id": out["id"], "status": "in_progress"}
			send(map[string]any{"type": "response.output_item.added", "output_index": k, "item": added})
		}
		send(map[string]any{"type": "response.output_item.done", "output_index": k, "item": out})
	}
	in := 1000 + 100*t
	send(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "object": "response", "status": "completed",
		"usage": map[string]any{
			"input_tokens":          in,
			"input_tokens_details":  map[string]any{"cached_tokens": 0},
			"output_tokens":         50,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          in + 50,
		},
	}})
}

// searched reports whether this turn already made its tool_search (so a
// tool the search did not expose is called anyway, and fails visibly).
func searched(input []map[string]any, prefix string) bool {
	for _, it := range input {
		id, _ := it["call_id"].(string)
		if it["type"] == "tool_search_call" && strings.HasPrefix(id, "call_"+prefix+"_") {
			return true
		}
	}
	return false
}

func userTextContains(input []map[string]any, marker string) bool {
	for _, it := range input {
		if it["type"] != "message" || it["role"] != "user" {
			continue
		}
		b, _ := json.Marshal(it["content"])
		if bytes.Contains(b, []byte(marker)) {
			return true
		}
	}
	return false
}

// toolRef is how the request names a tool: its function name and, when
// codex groups tools in namespaces, the namespace.
type toolRef struct {
	Name, Namespace, Type string
}

func indexTools(tools []map[string]any) map[string]toolRef {
	idx := map[string]toolRef{}
	var walk func(ts []any, ns string)
	add := func(t map[string]any, ns string) {
		typ, _ := t["type"].(string)
		name, _ := t["name"].(string)
		if typ == "namespace" || t["tools"] != nil {
			sub, _ := t["tools"].([]any)
			walk(sub, name)
			return
		}
		if name == "" {
			name = typ // local_shell, web_search
		}
		ref := toolRef{Name: name, Namespace: ns, Type: typ}
		idx[name] = ref
		// Also index the bare MCP tool name of qualified names.
		if i := strings.LastIndex(name, "__"); i >= 0 {
			if _, ok := idx["bare:"+name[i+2:]]; !ok {
				idx["bare:"+name[i+2:]] = ref
			}
		} else if ns != "" {
			idx["bare:"+name] = ref
		}
	}
	walk = func(ts []any, ns string) {
		for _, x := range ts {
			if t, ok := x.(map[string]any); ok {
				add(t, ns)
			}
		}
	}
	for _, t := range tools {
		add(t, "")
	}
	return idx
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func funcCall(ref toolRef, callID, fcID, args string) map[string]any {
	out := map[string]any{"type": "function_call", "id": "fc_" + fcID, "call_id": callID, "name": ref.Name, "arguments": args, "status": "completed"}
	if ref.Namespace != "" {
		out["namespace"] = ref.Namespace
	}
	return out
}

func buildItem(it Item, tools map[string]toolRef, input []map[string]any, callID, id string) map[string]any {
	args := it.Args
	switch it.Kind {
	case "message":
		return map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}}
	case "tool_search":
		return map[string]any{"type": "tool_search_call", "id": "ts_" + id, "call_id": callID, "status": "completed", "execution": "client",
			"arguments": map[string]any{"query": it.Text, "limit": 8}}
	case "patch":
		// apply_patch is a freeform (custom) tool in every supported release.
		ref, ok := tools["apply_patch"]
		if ok && ref.Type == "function" {
			b, _ := json.Marshal(map[string]string{"input": it.Text})
			return funcCall(ref, callID, id, string(b))
		}
		return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": callID, "name": "apply_patch", "input": it.Text, "status": "completed"}
	case "web_search":
		return map[string]any{"type": "web_search_call", "id": "ws_" + id, "status": "completed",
			"action": map[string]any{"type": "search", "query": it.Text}}
	case "mcp":
		ref, ok := tools["bare:"+it.Tool]
		if !ok {
			ref = toolRef{Name: "mcp__cairn-memory__" + it.Tool}
		}
		return funcCall(ref, callID, id, args)
	case "wait":
		// The collab wait tool: wait {ids} up to 0.16x, wait_agent {targets} later.
		agent := spawnedAgent(input)
		if ref, ok := tools["wait_agent"]; ok {
			b, _ := json.Marshal(map[string]any{"targets": []string{agent}, "timeout_ms": 30000})
			return funcCall(ref, callID, id, string(b))
		}
		ref, ok := tools["wait"]
		if !ok {
			ref = toolRef{Name: "wait"}
		}
		b, _ := json.Marshal(map[string]any{"ids": []string{agent}, "timeout_ms": 30000})
		return funcCall(ref, callID, id, string(b))
	case "func", "plan":
		name := it.Tool
		if it.Kind == "plan" {
			name = "update_plan"
		}
		ref, ok := tools[name]
		if !ok {
			ref = toolRef{Name: name}
		}
		return funcCall(ref, callID, id, args)
	case "shell":
		// Use whichever shell tool this codex offers.
		if ref, ok := tools["shell_command"]; ok {
			return funcCall(ref, callID, id, `{"command":`+jsonString(it.Cmd)+`}`)
		}
		if ref, ok := tools["exec_command"]; ok {
			return funcCall(ref, callID, id, `{"cmd":`+jsonString(it.Cmd)+`}`)
		}
		if ref, ok := tools["shell"]; ok {
			return funcCall(ref, callID, id, `{"command":["bash","-lc",`+jsonString(it.Cmd)+`]}`)
		}
		if _, ok := tools["local_shell"]; ok {
			return map[string]any{"type": "local_shell_call", "id": "lsh_" + id, "call_id": callID, "status": "completed",
				"action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", it.Cmd}}}
		}
		return funcCall(toolRef{Name: "shell_command"}, callID, id, `{"command":`+jsonString(it.Cmd)+`}`)
	}
	panic("unknown item kind " + it.Kind)
}

var agentIDRe = regexp.MustCompile(`"agent_id"\s*:\s*"([^"]+)"`)

// spawnedAgent is the agent id of the last spawn_agent output in the input.
func spawnedAgent(input []map[string]any) string {
	id := ""
	for _, it := range input {
		if it["type"] != "function_call_output" {
			continue
		}
		b, _ := json.Marshal(it["output"])
		var s string
		if json.Unmarshal(b, &s) != nil {
			s = string(b)
		}
		if m := agentIDRe.FindStringSubmatch(s); m != nil {
			id = m[1]
		}
	}
	return id
}

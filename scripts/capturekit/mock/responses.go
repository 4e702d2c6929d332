//go:build unix

package mock

// The OpenAI Responses API (POST /v1/responses, SSE), as Codex speaks it.
// The turn is read from the request, not counted: every call the script
// makes has a call_id "call_<prefix>_<turn>_<k>", so the next turn is one
// past the highest turn whose call ids appear in the request's input. Tools
// are named the way the request offers them (a namespace, a shell tool of
// this release); a tool deferred behind tool_search (Codex 0.16x+) is first
// discovered with a client tool_search_call, as a real model would.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Responses is the Responses API for sc, whose call ids start with prefix.
type Responses struct {
	mu     sync.Mutex
	sc     Script
	prefix string
	served map[string]int // "main:2" -> times served
}

// NewResponses is the Responses API for sc.
func NewResponses(sc Script, prefix string) *Responses {
	return &Responses{sc: sc, prefix: prefix, served: map[string]int{}}
}

// Reset answers from sc from now on (a resumed run), its call ids
// starting with prefix.
func (m *Responses) Reset(sc Script, prefix string) {
	m.mu.Lock()
	m.sc, m.prefix, m.served = sc, prefix, map[string]int{}
	m.mu.Unlock()
}

// Asked is how many times turn of conv ("main", "sub") was asked for.
func (m *Responses) Asked(conv string, turn int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.served[fmt.Sprintf("%s:%d", conv, turn)]
}

func (m *Responses) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte, n int) {
	switch {
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/responses"):
		m.responses(s, w, body, n)
	case r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/models"):
		s.logf("%d GET %s -> models", n, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"models":[],"data":[],"object":"list"}`)
	default:
		s.logf("%d %s %s -> 404", n, r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"not served by the cairn scripted model","type":"invalid_request_error"}}`)
	}
}

var callIDRe = regexp.MustCompile(`^call_([a-z0-9]+)_(\d+)_\d+$`)

func (m *Responses) responses(s *Server, w http.ResponseWriter, body []byte, n int) {
	var req struct {
		Input []map[string]any `json:"input"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.logf("%d POST /v1/responses -> 400 unparseable", n)
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	m.mu.Lock()
	sc, prefix, conv := m.sc, m.prefix, "main"
	m.mu.Unlock()
	if sc.SubMarker != "" && userTextContains(req.Input, sc.SubMarker) {
		prefix, conv = "sub", "sub"
	}
	turns := sc.steps(conv)
	t := 0
	for _, it := range req.Input {
		id, _ := it["call_id"].(string)
		if mm := callIDRe.FindStringSubmatch(id); mm != nil && mm[1] == prefix {
			k, _ := strconv.Atoi(mm[2])
			t = max(t, k+1)
		}
	}
	key := fmt.Sprintf("%s:%d", conv, t)
	m.mu.Lock()
	m.served[key]++
	firstTime := m.served[key] == 1
	m.mu.Unlock()
	turn := Step{Parts: []Part{{Kind: "text", Text: "Nothing more to do."}}}
	if t < len(turns) {
		turn = turns[t]
	}
	drop := turn.DropFirst && firstTime // decided before a tool_search stands in for the turn
	if turn.Delay > 0 {
		time.Sleep(turn.Delay)
	}
	if turn.Status != 0 {
		s.logf("%d POST /v1/responses conv=%s turn=%d -> HTTP %d", n, conv, t, turn.Status)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Status)
		io.WriteString(w, `{"error":{"message":"Invalid value for 'input': the scripted model rejects this request.","type":"invalid_request_error","param":"input","code":"invalid_value"}}`)
		return
	}
	// Tools the request offers, plus those a client-side tool_search
	// exposed earlier in the thread.
	all := append([]map[string]any{}, req.Tools...)
	for _, it := range req.Input {
		if it["type"] == "tool_search_output" {
			ts, _ := it["tools"].([]any)
			for _, x := range ts {
				if tool, ok := x.(map[string]any); ok {
					all = append(all, tool)
				}
			}
		}
	}
	tools := indexTools(all)
	if _, ok := tools["tool_search"]; ok {
		if q := undiscovered(turn, tools); q != "" && !searched(req.Input, fmt.Sprintf("%ss_%d", prefix, t)) {
			turn = Step{Parts: []Part{{Kind: "tool_search", Text: q}}}
			prefix += "s"
		}
	}
	s.logf("%d POST /v1/responses conv=%s turn=%d -> %s", n, conv, t, describeResponses(turn, drop))
	send := events(w, map[string]string{"Cache-Control": "no-cache"})
	event := func(v map[string]any) { send("event: %s\ndata: %s\n\n", v["type"], marshal(v)) }
	respID := fmt.Sprintf("resp_%s_%s_%d", conv, prefix, t)
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "response", "status": "in_progress"}})
	if drop {
		return // the stream ends without response.completed
	}
	for k, it := range turn.Parts {
		out := buildItem(it, tools, req.Input, fmt.Sprintf("call_%s_%d_%d", prefix, t, k), fmt.Sprintf("%s_%d_%d", prefix, t, k))
		if out["type"] == "web_search_call" {
			added := map[string]any{"type": "web_search_call", "id": out["id"], "status": "in_progress"}
			event(map[string]any{"type": "response.output_item.added", "output_index": k, "item": added})
		}
		event(map[string]any{"type": "response.output_item.done", "output_index": k, "item": out})
	}
	in := 1000 + 100*t
	event(map[string]any{"type": "response.completed", "response": map[string]any{
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

func describeResponses(turn Step, drop bool) string {
	var parts []string
	for _, p := range turn.Parts {
		parts = append(parts, p.Kind+":"+p.Name)
	}
	s := strings.Join(parts, "+")
	if drop {
		s += " (stream cut after response.created)"
	}
	return s
}

// undiscovered is the tool_search query for the first tool of the turn
// that the request does not offer yet ("" when all are offered).
// update_plan is always offered when enabled.
func undiscovered(turn Step, tools map[string]toolRef) string {
	for _, p := range turn.Parts {
		known := true
		switch p.Kind {
		case "mcp":
			_, known = tools["bare:"+p.Name]
		case "call":
			_, known = tools[p.Name]
			known = known || p.Name == "update_plan"
		case "wait":
			_, k1 := tools["wait"]
			_, k2 := tools["wait_agent"]
			known = k1 || k2
		}
		switch {
		case known:
		case p.Kind == "mcp":
			return "cairn-memory " + p.Name
		case p.Kind == "wait":
			return "wait agent"
		default:
			return p.Name
		}
	}
	return ""
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
		if bytes.Contains(marshal(it["content"]), []byte(marker)) {
			return true
		}
	}
	return false
}

// toolRef is how the request names a tool: its function name and, when
// Codex groups tools in namespaces, the namespace.
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

func funcCall(ref toolRef, callID, fcID, args string) map[string]any {
	out := map[string]any{"type": "function_call", "id": "fc_" + fcID, "call_id": callID, "name": ref.Name, "arguments": args, "status": "completed"}
	if ref.Namespace != "" {
		out["namespace"] = ref.Namespace
	}
	return out
}

func buildItem(p Part, tools map[string]toolRef, input []map[string]any, callID, id string) map[string]any {
	cmd := string(marshal(p.Text))
	switch p.Kind {
	case "text":
		return map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": p.Text, "annotations": []any{}}}}
	case "tool_search":
		return map[string]any{"type": "tool_search_call", "id": "ts_" + id, "call_id": callID, "status": "completed", "execution": "client",
			"arguments": map[string]any{"query": p.Text, "limit": 8}}
	case "patch":
		// apply_patch is a freeform (custom) tool in every supported release.
		if ref, ok := tools["apply_patch"]; ok && ref.Type == "function" {
			return funcCall(ref, callID, id, string(marshal(map[string]string{"input": p.Text})))
		}
		return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": callID, "name": "apply_patch", "input": p.Text, "status": "completed"}
	case "web_search":
		return map[string]any{"type": "web_search_call", "id": "ws_" + id, "status": "completed",
			"action": map[string]any{"type": "search", "query": p.Text}}
	case "mcp":
		ref, ok := tools["bare:"+p.Name]
		if !ok {
			ref = toolRef{Name: "mcp__cairn-memory__" + p.Name}
		}
		return funcCall(ref, callID, id, string(p.Args))
	case "wait":
		// The collab wait tool: wait {ids} up to 0.16x, wait_agent {targets} later.
		agent := spawnedAgent(input)
		if ref, ok := tools["wait_agent"]; ok {
			return funcCall(ref, callID, id, string(marshal(map[string]any{"targets": []string{agent}, "timeout_ms": 30000})))
		}
		ref, ok := tools["wait"]
		if !ok {
			ref = toolRef{Name: "wait"}
		}
		return funcCall(ref, callID, id, string(marshal(map[string]any{"ids": []string{agent}, "timeout_ms": 30000})))
	case "call":
		ref, ok := tools[p.Name]
		if !ok {
			ref = toolRef{Name: p.Name}
		}
		return funcCall(ref, callID, id, string(p.Args))
	case "shell":
		// Whichever shell tool this Codex offers.
		if ref, ok := tools["shell_command"]; ok {
			return funcCall(ref, callID, id, `{"command":`+cmd+`}`)
		}
		if ref, ok := tools["exec_command"]; ok {
			return funcCall(ref, callID, id, `{"cmd":`+cmd+`}`)
		}
		if ref, ok := tools["shell"]; ok {
			return funcCall(ref, callID, id, `{"command":["bash","-lc",`+cmd+`]}`)
		}
		if _, ok := tools["local_shell"]; ok {
			return map[string]any{"type": "local_shell_call", "id": "lsh_" + id, "call_id": callID, "status": "completed",
				"action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", p.Text}}}
		}
		return funcCall(toolRef{Name: "shell_command"}, callID, id, `{"command":`+cmd+`}`)
	}
	panic("mock: no Responses item for a " + p.Kind + " part")
}

var agentIDRe = regexp.MustCompile(`"agent_id"\s*:\s*"([^"]+)"`)

// spawnedAgent is the agent id of the last spawn_agent output in the input.
func spawnedAgent(input []map[string]any) string {
	id := ""
	for _, it := range input {
		if it["type"] != "function_call_output" {
			continue
		}
		var s string
		b := marshal(it["output"])
		if json.Unmarshal(b, &s) != nil {
			s = string(b)
		}
		if m := agentIDRe.FindStringSubmatch(s); m != nil {
			id = m[1]
		}
	}
	return id
}

//go:build unix

package main

// The scripted Messages API. Each POST /v1/messages is answered from the
// running scenario's script: the conversation is the main agent's, or a
// sub-agent's when its first user message holds the sub-agent marker, and the
// step is the number of assistant messages already in the request (so a
// retried request gets the same answer again, and a second streamed user turn
// goes on where the first stopped).

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// subMarker starts the prompt that the scripted main agent gives a sub-agent.
const subMarker = "SUBTASK-7"

// block is one content block of a scripted response.
type block struct {
	kind  string // "thinking" or "redacted_thinking"; else text or tool_use
	text  string // a text block when name == "" (the thinking, or the redacted data)
	id    string // tool_use id
	name  string // tool_use name
	input any    // tool_use input, marshalled as JSON
	// extra members appended to the tool_use block (as a newer API might send)
	extra obj
	// cut, when > 0, truncates the tool_use's input JSON to this many bytes
	// and ends the message with stop_reason max_tokens.
	cut int
}

// step is one scripted API answer.
type step struct {
	blocks []block
	// status, when non-zero, answers an HTTP error with that status and an
	// Anthropic error body of errType / errMsg.
	status  int
	errType string
	errMsg  string
	// stopSequence, when set, ends the message with stop_reason
	// stop_sequence and this stop_sequence.
	stopSequence string
	// hang, when true, streams the blocks up to the last one's final delta
	// and then stops sending (no content_block_stop for it, no message_delta,
	// no message_stop) and tells the runner to interrupt claude.
	hang bool
	// hangAfterStop moves the stall after the last content_block_stop.
	hangAfterStop bool
}

// discoveryOnly says whether the step only calls ToolSearch.
func (st step) discoveryOnly() bool {
	if len(st.blocks) == 0 {
		return false
	}
	for _, b := range st.blocks {
		if b.name != "ToolSearch" {
			return false
		}
	}
	return true
}

func text(s string) block { return block{text: s} }

func tool(id, name string, input any) block { return block{id: id, name: name, input: input} }

func httpErr(status int, typ, msg string) step {
	return step{status: status, errType: typ, errMsg: msg}
}

type mockAPI struct {
	mu       sync.Mutex
	sc       *scenario
	log      *os.File // one line per request: what it looked like and what it got
	debugDir string   // full request bodies, for the maintainer (never committed)
	nreq     int
	// noToolSearch, per conversation, says that its first request offered
	// no ToolSearch tool.
	noToolSearch map[string]bool
	hangCh       chan struct{}
	srv          *http.Server
	ln           net.Listener
}

func startMockAPI(addr string, sc *scenario, logPath, debugDir string) (*mockAPI, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.Close()
		return nil, err
	}
	m := &mockAPI{noToolSearch: map[string]bool{}, sc: sc, log: f, debugDir: debugDir, hangCh: make(chan struct{}, 1), ln: ln}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *mockAPI) close() {
	m.srv.Close()
	m.log.Close()
}

type apiRequest struct {
	Model     string `json:"model"`
	Stream    bool   `json:"stream"`
	MaxTokens int    `json:"max_tokens"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	System        json.RawMessage `json:"system"`
	StopSequences []string        `json:"stop_sequences"`
	Tools         []struct {
		Name         string `json:"name"`
		Type         string `json:"type"`
		DeferLoading bool   `json:"defer_loading"`
	} `json:"tools"`
}

// contentText joins the text of a message content (a string or blocks).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func (m *mockAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	m.mu.Lock()
	m.nreq++
	n := m.nreq
	m.mu.Unlock()
	if m.debugDir != "" {
		_ = os.WriteFile(fmt.Sprintf("%s/req-%03d.json", m.debugDir, n), body, 0o644)
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		m.logf("%d %s %s -> count_tokens", n, r.Method, r.URL.RequestURI())
		writeJSON(w, 200, map[string]any{"input_tokens": 1000})
		return
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/models"):
		m.logf("%d %s %s -> models", n, r.Method, r.URL.RequestURI())
		writeJSON(w, 200, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
		return
	case r.Method != http.MethodPost || path != "/v1/messages":
		m.logf("%d %s %s -> 404", n, r.Method, r.URL.RequestURI())
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "mock: no such endpoint"}})
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.logf("%d POST /v1/messages -> 400 unparseable", n)
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "mock: bad json"}})
		return
	}
	if strings.Contains(contentText(req.System), "security monitor for autonomous AI coding agents") {
		// The auto-mode permission classifier (2.1.290 runs in auto mode by
		// default): grade every action harmless.
		st := step{blocks: []block{text("<thinking>A local, read-only step of the task.</thinking>\n<severity>1</severity>")}}
		for _, s := range req.StopSequences {
			if s == "</severity>" {
				st = step{blocks: []block{text("<severity>1")}, stopSequence: s}
			}
		}
		m.logf("%d POST %s classifier stream=%v max_tokens=%d -> %q", n, r.URL.RequestURI(), req.Stream, req.MaxTokens, st.blocks[0].text)
		m.answer(w, r.Context().Done(), req, st, fmt.Sprintf("classifier%d", n))
		return
	}
	for _, t := range req.Tools {
		if strings.HasPrefix(t.Type, "web_search") {
			// The WebSearch tool's own request: the API runs the search.
			st := step{blocks: []block{
				{kind: "server_tool_use", id: "srvtoolu_01MockWebSearch", name: "web_search", input: o("query", "release ledger integer cents")},
				{kind: "web_search_tool_result", id: "srvtoolu_01MockWebSearch", input: []any{o("type", "web_search_result", "title", "Ledgers in integer cents", "url", "https://example.invalid/ledger", "encrypted_content", "RW5jcnlwdGVkIG1vY2sgY29udGVudA==", "page_age", nil)}},
				text("Ledgers usually keep amounts in integer cents."),
			}}
			m.logf("%d POST %s web_search tool request stream=%v -> server_tool_use+web_search_tool_result+text", n, r.URL.RequestURI(), req.Stream)
			m.answer(w, r.Context().Done(), req, st, fmt.Sprintf("websearch%d", n))
			return
		}
	}
	if len(req.Tools) == 0 {
		// Some other side request of the CLI (none seen so far).
		m.logf("%d POST %s side request without tools stream=%v max_tokens=%d -> text", n, r.URL.RequestURI(), req.Stream, req.MaxTokens)
		m.answer(w, r.Context().Done(), req, say("ok"), fmt.Sprintf("side%d", n))
		return
	}
	conv, script := "main", m.sc.main
	if len(req.Messages) > 0 && strings.Contains(contentText(req.Messages[0].Content), subMarker) {
		conv, script = "sub", m.sc.sub
	}
	idx := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			idx++
		}
	}
	var names []string
	toolSearch, mcpTools := false, 0
	for _, t := range req.Tools {
		if t.Name == "ToolSearch" {
			toolSearch = true
		}
		if strings.HasPrefix(t.Name, "mcp__") {
			mcpTools++
			if t.DeferLoading {
				names = append(names, t.Name+"(deferred)")
			} else {
				names = append(names, t.Name)
			}
		}
	}
	lastUser := ""
	if k := len(req.Messages); k > 0 {
		lastUser = summarizeContent(req.Messages[k-1].Content)
	}
	// Whether the conversation has tool search is decided by its first
	// request: 2.1.332 retries a 400 without tool search, and that must not
	// shift the script.
	m.mu.Lock()
	if _, ok := m.noToolSearch[conv]; !ok {
		m.noToolSearch[conv] = !toolSearch
	}
	drop := m.noToolSearch[conv]
	m.mu.Unlock()
	if drop {
		// Without tool search (off, or a CLI that does not defer MCP tools)
		// the model loads nothing: drop the scripted ToolSearch-only steps.
		var kept []step
		for _, st := range script {
			if !st.discoveryOnly() {
				kept = append(kept, st)
			}
		}
		script = kept
	}
	desc := fmt.Sprintf("%d POST %s conv=%s step=%d stream=%v max_tokens=%d messages=%d tools=%d toolsearch=%v mcp=%v last=%s",
		n, r.URL.RequestURI(), conv, idx, req.Stream, req.MaxTokens, len(req.Messages), len(req.Tools), toolSearch, names, lastUser)
	if idx >= len(script) {
		m.logf("%s -> unscripted: text", desc)
		st := step{blocks: []block{text("(unscripted request answered by the mock)")}}
		m.answer(w, r.Context().Done(), req, st, fmt.Sprintf("%s%d", conv, idx))
		return
	}
	st := script[idx]
	if st.status != 0 {
		m.logf("%s -> HTTP %d %s", desc, st.status, st.errType)
		w.Header().Set("request-id", fmt.Sprintf("req_mock%03d", n))
		writeJSON(w, st.status, o("type", "error", "error", o("type", st.errType, "message", st.errMsg), "request_id", fmt.Sprintf("req_mock%03d", n)))
		return
	}
	m.logf("%s -> %s", desc, describeStep(st))
	m.answer(w, r.Context().Done(), req, st, fmt.Sprintf("%s%d", conv, idx))
}

func summarizeContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "string"
	}
	var blocks []struct {
		Type    string `json:"type"`
		IsError bool   `json:"is_error"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		p := b.Type
		if b.IsError {
			p += "(error)"
		}
		parts = append(parts, p)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func describeStep(st step) string {
	var parts []string
	for _, b := range st.blocks {
		switch {
		case b.kind != "":
			parts = append(parts, b.kind)
		case b.name == "":
			parts = append(parts, "text")
		case b.cut > 0:
			parts = append(parts, "tool_use:"+b.name+"(cut by max_tokens)")
		default:
			parts = append(parts, "tool_use:"+b.name)
		}
	}
	s := strings.Join(parts, "+")
	if st.hang {
		s += " then hang"
	}
	return s
}

func (m *mockAPI) logf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.log, format+"\n", args...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer streams (or, for a non-streaming request, returns) a scripted step.
func (m *mockAPI) answer(w http.ResponseWriter, ctxDone <-chan struct{}, req apiRequest, st step, key string) {
	model := req.Model
	if model == "" {
		model = "claude-mock"
	}
	msgID := "msg_01Mock" + strings.ToUpper(key[:1]) + key[1:] + m.sc.name[:min(len(m.sc.name), 4)]
	msgID = strings.ReplaceAll(msgID, "-", "")
	stop := "end_turn"
	type built struct {
		start obj
		full  obj
		delta []obj
	}
	var blocks []built
	for _, b := range st.blocks {
		switch b.kind {
		case "thinking":
			sig := "EqQBCkYIBxgCKkBmb2NrLXNpZ25hdHVyZS1mb3ItY2Fpcm4tY2FwdHVyZQ=="
			d := chunks(b.text, 24, func(s string) obj { return o("type", "thinking_delta", "thinking", s) })
			d = append(d, o("type", "signature_delta", "signature", sig))
			blocks = append(blocks, built{
				start: o("type", "thinking", "thinking", "", "signature", ""),
				full:  o("type", "thinking", "thinking", b.text, "signature", sig),
				delta: d,
			})
			continue
		case "server_tool_use":
			raw, _ := json.Marshal(b.input)
			d := []obj{o("type", "input_json_delta", "partial_json", "")}
			d = append(d, chunks(string(raw), 16, func(s string) obj { return o("type", "input_json_delta", "partial_json", s) })...)
			blocks = append(blocks, built{
				start: o("type", "server_tool_use", "id", b.id, "name", b.name, "input", obj{}),
				full:  o("type", "server_tool_use", "id", b.id, "name", b.name, "input", b.input),
				delta: d,
			})
			continue
		case "web_search_tool_result":
			full := o("type", "web_search_tool_result", "tool_use_id", b.id, "content", b.input)
			blocks = append(blocks, built{start: full, full: full})
			continue
		case "redacted_thinking":
			blocks = append(blocks, built{
				start: o("type", "redacted_thinking", "data", b.text),
				full:  o("type", "redacted_thinking", "data", b.text),
			})
			continue
		}
		if b.name == "" {
			blocks = append(blocks, built{
				start: o("type", "text", "text", ""),
				full:  o("type", "text", "text", b.text),
				delta: chunks(b.text, 24, func(s string) obj { return o("type", "text_delta", "text", s) }),
			})
			continue
		}
		stop = "tool_use"
		raw, _ := json.Marshal(b.input)
		js := string(raw)
		if b.cut > 0 && b.cut < len(js) {
			js = js[:b.cut]
			stop = "max_tokens"
		}
		d := []obj{o("type", "input_json_delta", "partial_json", "")}
		d = append(d, chunks(js, 16, func(s string) obj { return o("type", "input_json_delta", "partial_json", s) })...)
		blocks = append(blocks, built{
			start: append(o("type", "tool_use", "id", b.id, "name", b.name, "input", obj{}), b.extra...),
			full:  append(o("type", "tool_use", "id", b.id, "name", b.name, "input", b.input), b.extra...),
			delta: d,
		})
	}
	usage := func(out int) obj {
		return o("input_tokens", 1200, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", out, "service_tier", "standard")
	}
	outTokens := 12 * (len(st.blocks) + 1)
	var stopSeq any
	if st.stopSequence != "" {
		stop, stopSeq = "stop_sequence", st.stopSequence
	}
	if !req.Stream {
		content := []any{}
		for _, b := range blocks {
			content = append(content, b.full)
		}
		writeJSON(w, 200, o("id", msgID, "type", "message", "role", "assistant", "model", model, "content", content,
			"stop_reason", stop, "stop_sequence", stopSeq, "usage", usage(outTokens)))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.Header().Set("request-id", "req_01Mock"+strings.ReplaceAll(key, "-", ""))
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	send("message_start", o("type", "message_start", "message", o(
		"id", msgID, "type", "message", "role", "assistant", "model", model, "content", []any{},
		"stop_reason", nil, "stop_sequence", nil, "usage", usage(1))))
	send("ping", o("type", "ping"))
	for i, b := range blocks {
		send("content_block_start", o("type", "content_block_start", "index", i, "content_block", b.start))
		for _, d := range b.delta {
			send("content_block_delta", o("type", "content_block_delta", "index", i, "delta", d))
		}
		if st.hang && !st.hangAfterStop && i == len(blocks)-1 {
			break // the last block's content_block_stop never comes
		}
		send("content_block_stop", o("type", "content_block_stop", "index", i))
	}
	if st.hang {
		select {
		case m.hangCh <- struct{}{}:
		default:
		}
		// Hold the stream open until claude goes away (or a bound passes).
		select {
		case <-ctxDone:
		case <-time.After(60 * time.Second):
		}
		return
	}
	send("message_delta", o("type", "message_delta", "delta", o("stop_reason", stop, "stop_sequence", stopSeq),
		"usage", o("output_tokens", outTokens)))
	send("message_stop", o("type", "message_stop"))
}

func chunks(s string, n int, mk func(string) obj) []obj {
	var out []obj
	for len(s) > n {
		out = append(out, mk(s[:n]))
		s = s[n:]
	}
	if s != "" {
		out = append(out, mk(s))
	}
	return out
}

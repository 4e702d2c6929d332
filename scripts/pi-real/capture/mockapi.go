//go:build unix

package main

// The scripted OpenAI-compatible chat-completions API. Every
// POST /v1/chat/completions is answered from the running scenario's script;
// the step is the number of assistant messages in the request's
// conversation (every scripted step but the last ends with tool calls, so a
// retried request gets the same answer again). Answers stream as
// OpenAI-compatible providers do: SSE `data:` lines of chat.completion.chunk
// objects whose choices[0].delta carries the role, content pieces and
// tool_calls pieces, a last chunk with finish_reason, a usage chunk with no
// choices, then `data: [DONE]`.

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

// part is one part of a scripted model response: a text, a reasoning text
// (streamed as delta.reasoning_content), or a tool call.
type part struct {
	text      string
	reasoning bool
	call      *fcall
}

type fcall struct {
	id   string // tool_calls[].id
	name string
	args obj
}

// step is one scripted API answer.
type step struct {
	parts []part
	// status, when non-zero, answers an HTTP error with that status and an
	// OpenAI error body (errType, errMsg).
	status  int
	errType string
	errMsg  string
	// finishReason replaces the natural one (tool_calls when the step has
	// calls, else stop), e.g. "length".
	finishReason string
	// hang streams the parts without a finish_reason and then holds the
	// connection open, telling the runner to interrupt pi.
	hang bool
}

func text(s string) part { return part{text: s} }

func reasoning(s string) part { return part{text: s, reasoning: true} }

func call(id, name string, args obj) part { return part{call: &fcall{id: id, name: name, args: args}} }

func say(s string) step { return step{parts: []part{text(s)}} }

func one(p ...part) step { return step{parts: p} }

func httpErr(status int, typ, msg string) step {
	return step{status: status, errType: typ, errMsg: msg}
}

type mockAPI struct {
	mu       sync.Mutex
	sc       *scenario
	log      *os.File // one line per request: what it looked like and what it got
	debugDir string   // full request bodies, for the maintainer (never committed)
	nreq     int
	// lastTools is the declared tool list last logged, so that an unchanged
	// list is written as "same".
	lastTools string
	hangCh    chan struct{}
	srv       *http.Server
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
	m := &mockAPI{sc: sc, log: f, debugDir: debugDir, lastTools: "\x00", hangCh: make(chan struct{}, 1)}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *mockAPI) close() {
	m.srv.Close()
	m.log.Close()
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Name     string `json:"name"` // a custom (grammar) tool
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream              bool `json:"stream"`
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
}

func (r *oaRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		switch {
		case t.Function.Name != "":
			names = append(names, t.Function.Name)
		case t.Name != "":
			names = append(names, t.Type+":"+t.Name)
		default:
			names = append(names, "?"+t.Type)
		}
	}
	return names
}

func (m *mockAPI) logf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.log, format+"\n", args...)
}

// ServeHTTP answers every request; no header is ever logged (the API key
// is one).
func (m *mockAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	m.mu.Lock()
	m.nreq++
	n := m.nreq
	m.mu.Unlock()
	if m.debugDir != "" {
		_ = os.WriteFile(fmt.Sprintf("%s/req-%03d.json", m.debugDir, n), body, 0o644)
	}
	uri := r.URL.Path
	if r.URL.RawQuery != "" {
		uri += "?" + r.URL.RawQuery
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		m.logf("%d %s %s -> 404", n, r.Method, uri)
		writeJSON(w, 404, apiError("mock: no such endpoint", "invalid_request_error", "not_found"))
		return
	}
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.logf("%d POST %s -> 400 unparseable", n, uri)
		writeJSON(w, 400, apiError("mock: bad json", "invalid_request_error", nil))
		return
	}
	idx := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			idx++
		}
	}
	names := req.toolNames()
	toolList := strings.Join(names, ",")
	m.mu.Lock()
	if m.lastTools == toolList {
		toolList = "same"
	} else {
		m.lastTools = toolList
		toolList = "[" + toolList + "]"
	}
	m.mu.Unlock()
	maxTok := "none"
	switch {
	case req.MaxCompletionTokens != nil:
		maxTok = fmt.Sprintf("max_completion_tokens=%d", *req.MaxCompletionTokens)
	case req.MaxTokens != nil:
		maxTok = fmt.Sprintf("max_tokens=%d", *req.MaxTokens)
	}
	desc := fmt.Sprintf("%d POST %s model=%s stream=%v %s step=%d messages=%d roles=%s tools=%d %s last=%s",
		n, uri, req.Model, req.Stream, maxTok, idx, len(req.Messages), roles(req.Messages), len(names), toolList, summarizeLast(req.Messages))
	script := m.sc.steps
	if idx >= len(script) {
		m.logf("%s -> unscripted: text", desc)
		m.answer(w, r.Context().Done(), req, say("(unscripted request answered by the mock)"), n, idx)
		return
	}
	st := script[idx]
	if st.status != 0 {
		m.logf("%s -> HTTP %d %s", desc, st.status, st.errType)
		writeJSON(w, st.status, apiError(st.errMsg, st.errType, nil))
		return
	}
	m.logf("%s -> %s", desc, describeStep(st))
	m.answer(w, r.Context().Done(), req, st, n, idx)
}

func apiError(msg, typ string, code any) obj {
	return o("error", o("message", msg, "type", typ, "param", nil, "code", code))
}

// roles is the conversation's roles, run-length encoded (system,user,assistant,tool*2).
func roles(ms []oaMessage) string {
	var out []string
	for i := 0; i < len(ms); {
		j := i
		for j < len(ms) && ms[j].Role == ms[i].Role {
			j++
		}
		r := ms[i].Role
		if j-i > 1 {
			r += fmt.Sprintf("*%d", j-i)
		}
		out = append(out, r)
		i = j
	}
	return strings.Join(out, ",")
}

// summarizeLast describes the request's messages after its last assistant
// message (the tool results, or the prompt): each tool result's
// tool_call_id and (shortened) content.
func summarizeLast(ms []oaMessage) string {
	start := 0
	for i, msg := range ms {
		if msg.Role == "assistant" {
			start = i + 1
		}
	}
	var parts []string
	for _, msg := range ms[start:] {
		switch msg.Role {
		case "tool":
			parts = append(parts, fmt.Sprintf("tool{id=%s content=%s}", msg.ToolCallID, shorten(contentText(msg.Content), 300)))
		case "system", "developer":
			parts = append(parts, fmt.Sprintf("%s(%d bytes)", msg.Role, len(contentText(msg.Content))))
		default:
			parts = append(parts, fmt.Sprintf("%s(%d bytes)", msg.Role, len(contentText(msg.Content))))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// contentText is a message content as text: the string, or the text parts
// of an array joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			} else {
				b.WriteString("[" + p.Type + "]")
			}
		}
		return b.String()
	}
	return string(raw)
}

func shorten(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
}

func describeStep(st step) string {
	var parts []string
	for _, p := range st.parts {
		switch {
		case p.call != nil:
			parts = append(parts, fmt.Sprintf("tool_call:%s(%s)", p.call.name, p.call.id))
		case p.reasoning:
			parts = append(parts, "reasoning")
		default:
			parts = append(parts, "text")
		}
	}
	s := strings.Join(parts, "+")
	if s == "" {
		s = "no parts"
	}
	switch {
	case st.hang:
		s += " then hang"
	case st.finishReason != "":
		s += " finish_reason=" + st.finishReason
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer streams a scripted step as chat.completion.chunk SSE events (or,
// for a request without stream: true, one chat.completion).
func (m *mockAPI) answer(w http.ResponseWriter, ctxDone <-chan struct{}, req oaRequest, st step, n, idx int) {
	id := fmt.Sprintf("chatcmpl-mock-%s-%d", m.sc.name, idx)
	const created = 1767225600 // 2026-01-01T00:00:00Z
	model := req.Model
	finish := "stop"
	var calls []obj
	content := ""
	for _, p := range st.parts {
		if p.call != nil {
			finish = "tool_calls"
			args, _ := json.Marshal(p.call.args)
			calls = append(calls, o("id", p.call.id, "type", "function", "function", o("name", p.call.name, "arguments", string(args))))
		} else if !p.reasoning {
			content += p.text
		}
	}
	if st.finishReason != "" {
		finish = st.finishReason
	}
	outTokens := 8 + len(content)/4
	for _, c := range calls {
		b, _ := json.Marshal(c)
		outTokens += len(b) / 4
	}
	usage := o("prompt_tokens", 1200, "completion_tokens", outTokens, "total_tokens", 1200+outTokens,
		"prompt_tokens_details", o("cached_tokens", 0), "completion_tokens_details", o("reasoning_tokens", 0))
	if !req.Stream {
		msg := o("role", "assistant", "content", content)
		if len(calls) > 0 {
			msg = append(msg, kv("tool_calls", calls))
		}
		writeJSON(w, 200, o("id", id, "object", "chat.completion", "created", created, "model", model,
			"choices", []any{o("index", 0, "message", msg, "finish_reason", finish)}, "usage", usage))
		return
	}
	chunk := func(delta obj, finishReason any) obj {
		return o("id", id, "object", "chat.completion.chunk", "created", created, "model", model,
			"choices", []any{o("index", 0, "delta", delta, "finish_reason", finishReason)})
	}
	// One chunk for the role, one per 24 bytes of text, per call one chunk
	// with its id and name and two with halves of its arguments.
	chunks := []obj{chunk(o("role", "assistant", "content", ""), nil)}
	for _, p := range st.parts {
		if p.call != nil {
			continue
		}
		field := "content"
		if p.reasoning {
			field = "reasoning_content"
		}
		s := p.text
		for len(s) > 24 {
			chunks = append(chunks, chunk(o(field, s[:24]), nil))
			s = s[24:]
		}
		if s != "" {
			chunks = append(chunks, chunk(o(field, s), nil))
		}
	}
	for i, c := range calls {
		fn := c[2].V.(obj)
		args := fn[1].V.(string)
		half := len(args) / 2
		chunks = append(chunks,
			chunk(o("tool_calls", []any{o("index", i, "id", c[0].V, "type", "function", "function", o("name", fn[0].V, "arguments", ""))}), nil),
			chunk(o("tool_calls", []any{o("index", i, "function", o("arguments", args[:half]))}), nil),
			chunk(o("tool_calls", []any{o("index", i, "function", o("arguments", args[half:]))}), nil))
	}
	if !st.hang {
		chunks = append(chunks, chunk(obj{}, finish),
			o("id", id, "object", "chat.completion.chunk", "created", created, "model", model, "choices", []any{}, "usage", usage))
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
		time.Sleep(15 * time.Millisecond)
	}
	if st.hang {
		select {
		case m.hangCh <- struct{}{}:
		default:
		}
		// Hold the stream open until pi goes away (or a bound passes).
		select {
		case <-ctxDone:
		case <-time.After(60 * time.Second):
		}
		return
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

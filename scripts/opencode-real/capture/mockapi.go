//go:build unix

package main

// The scripted OpenAI chat-completions API. Each POST …/chat/completions is
// answered from the running scenario's script: the conversation is the main
// agent's (its first user message is the prompt), a sub-agent's (its first
// user message is the task prompt the script gave) or a side request of the
// CLI (no tools declared: the session title), and the step is the number of
// assistant messages in the request (every model step but the last ends
// with tool calls, so a retried request gets the same answer again). Answers
// are SSE, one chat.completion.chunk per `data:` line, then `data: [DONE]`.

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

// part is one part of a scripted model answer: a text, or a tool call.
type part struct {
	text string
	call *fcall
}

type fcall struct {
	id   string // the tool call's id
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
	// finishReason, when set, replaces the finish_reason the parts imply
	// (tool_calls when there is a call, else stop).
	finishReason string
	// hang streams the parts (no finish_reason) and then holds the
	// connection open, telling the runner to interrupt the CLI.
	hang bool
}

func text(s string) part { return part{text: s} }

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
	start    time.Time
	// lastTools is the declared tool list last logged per conversation, so
	// that an unchanged list is written as "same".
	lastTools map[string]string
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
	m := &mockAPI{sc: sc, log: f, debugDir: debugDir, start: time.Now(), lastTools: map[string]string{}, hangCh: make(chan struct{}, 1)}
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

// text is the message's content as text: the string, or the text parts of
// an array of content parts joined.
func (msg oaMessage) text() string {
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(msg.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

func (r *oaRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

func (m *mockAPI) logf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.log, format+"\n", args...)
}

// requests is how many requests the mock has seen.
func (m *mockAPI) requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nreq
}

// ServeHTTP answers every request; no header is ever logged (the API key
// is one).
func (m *mockAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	m.mu.Lock()
	m.nreq++
	n := m.nreq
	m.mu.Unlock()
	at := time.Since(m.start).Seconds()
	if m.debugDir != "" {
		_ = os.WriteFile(fmt.Sprintf("%s/req-%03d.json", m.debugDir, n), body, 0o644)
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		m.logf("%d %s %s -> 404", n, r.Method, r.URL.Path)
		writeJSON(w, 404, apiError("not_found_error", "mock: no such endpoint"))
		return
	}
	var req oaRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.logf("%d POST %s -> 400 unparseable", n, r.URL.Path)
		writeJSON(w, 400, apiError("invalid_request_error", "mock: bad json"))
		return
	}
	names := req.toolNames()
	first := ""
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			first = msg.text()
			break
		}
	}
	conv, script := "main", m.sc.main
	switch {
	case len(names) == 0:
		// A side request of the CLI: the session title.
		ans := say(sideTitle)
		m.logf("%d POST %s side request (no tools) messages=%d stream=%v -> %q", n, r.URL.Path, len(req.Messages), req.Stream, sideTitle)
		m.answer(w, r.Context().Done(), req.Stream, req.Model, ans, fmt.Sprintf("side%d", n))
		return
	case m.sc.subPrompt != "" && strings.Contains(first, m.sc.subPrompt):
		conv, script = "sub", m.sc.sub
	case !strings.Contains(first, prompt):
		conv, script = "other", nil
	}
	idx := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			idx++
		}
	}
	toolList := strings.Join(names, ",")
	m.mu.Lock()
	if m.lastTools[conv] == toolList {
		toolList = "same"
	} else {
		m.lastTools[conv] = toolList
		toolList = "[" + toolList + "]"
	}
	m.mu.Unlock()
	desc := fmt.Sprintf("%d t=%.0fs POST %s conv=%s step=%d messages=%d stream=%v tools=%d %s last=%s",
		n, at, r.URL.Path, conv, idx, len(req.Messages), req.Stream, len(names), toolList, summarizeLast(req.Messages))
	if idx >= len(script) {
		m.logf("%s -> unscripted: text", desc)
		m.answer(w, r.Context().Done(), req.Stream, req.Model, say("(unscripted request answered by the mock)"), fmt.Sprintf("%s%d", conv, idx))
		return
	}
	st := script[idx]
	if st.status != 0 {
		m.logf("%s -> HTTP %d %s", desc, st.status, st.errType)
		writeJSON(w, st.status, apiError(st.errType, st.errMsg))
		return
	}
	m.logf("%s -> %s", desc, describeStep(st))
	m.answer(w, r.Context().Done(), req.Stream, req.Model, st, fmt.Sprintf("%s%d", conv, idx))
}

// sideTitle is the mock's answer to a side request (the session title).
const sideTitle = "Release ledger memory"

func apiError(typ, msg string) obj {
	return o("error", o("message", msg, "type", typ, "param", nil, "code", nil))
}

// summarizeLast describes the request's messages after the last assistant
// message (or the last message): each tool result's call id and (shortened)
// content, a user message's length.
func summarizeLast(ms []oaMessage) string {
	if len(ms) == 0 {
		return "none"
	}
	from := len(ms) - 1
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "assistant" {
			from = i + 1
			break
		}
	}
	if from >= len(ms) {
		from = len(ms) - 1
	}
	var parts []string
	for _, msg := range ms[from:] {
		switch msg.Role {
		case "tool":
			parts = append(parts, fmt.Sprintf("tool{id=%q content=%s}", msg.ToolCallID, shorten(msg.text(), 300)))
		default:
			parts = append(parts, fmt.Sprintf("%s(%d bytes)", msg.Role, len(msg.text())))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
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
		if p.call != nil {
			parts = append(parts, fmt.Sprintf("tool_call:%s(%s)", p.call.name, p.call.id))
		} else {
			parts = append(parts, "text")
		}
	}
	s := strings.Join(parts, "+")
	if s == "" {
		s = "no parts"
	}
	if st.hang {
		return s + " then hang"
	}
	return s + " finish_reason=" + st.finish()
}

// finish is the step's finish_reason.
func (st step) finish() string {
	if st.finishReason != "" {
		return st.finishReason
	}
	for _, p := range st.parts {
		if p.call != nil {
			return "tool_calls"
		}
	}
	return "stop"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer streams (or, without stream, returns) a scripted step.
func (m *mockAPI) answer(w http.ResponseWriter, ctxDone <-chan struct{}, stream bool, model string, st step, key string) {
	id := "chatcmpl-mock" + strings.ReplaceAll(key, "-", "") + strings.ReplaceAll(m.sc.name, "-", "")
	created := time.Now().Unix()
	const inTokens = 1200
	outTokens := 10
	for _, p := range st.parts {
		outTokens += 10 + len(p.text)/4
	}
	usage := o("prompt_tokens", inTokens, "completion_tokens", outTokens, "total_tokens", inTokens+outTokens)
	if !stream {
		msg := o("role", "assistant")
		var content strings.Builder
		var calls []any
		for _, p := range st.parts {
			if p.call != nil {
				args, _ := json.Marshal(p.call.args)
				calls = append(calls, o("id", p.call.id, "type", "function", "function", o("name", p.call.name, "arguments", string(args))))
			} else {
				content.WriteString(p.text)
			}
		}
		msg = append(msg, kv("content", content.String()))
		if len(calls) > 0 {
			msg = append(msg, kv("tool_calls", calls))
		}
		writeJSON(w, 200, o("id", id, "object", "chat.completion", "created", created, "model", model,
			"choices", []any{o("index", 0, "message", msg, "finish_reason", st.finish())}, "usage", usage))
		return
	}
	chunk := func(delta obj, finish any, withUsage bool) obj {
		c := o("id", id, "object", "chat.completion.chunk", "created", created, "model", model,
			"choices", []any{o("index", 0, "delta", delta, "finish_reason", finish)})
		if withUsage {
			c = append(c, kv("usage", usage))
		}
		return c
	}
	var chunks []obj
	chunks = append(chunks, chunk(o("role", "assistant", "content", ""), nil, false))
	ncall := 0
	for _, p := range st.parts {
		if p.call != nil {
			args, _ := json.Marshal(p.call.args)
			// The call's head (id, name), then its arguments in two pieces,
			// as the real API streams them.
			a := string(args)
			half := len(a) / 2
			chunks = append(chunks,
				chunk(o("tool_calls", []any{o("index", ncall, "id", p.call.id, "type", "function", "function", o("name", p.call.name, "arguments", ""))}), nil, false),
				chunk(o("tool_calls", []any{o("index", ncall, "function", o("arguments", a[:half]))}), nil, false),
				chunk(o("tool_calls", []any{o("index", ncall, "function", o("arguments", a[half:]))}), nil, false))
			ncall++
			continue
		}
		s := p.text
		for len(s) > 24 {
			chunks = append(chunks, chunk(o("content", s[:24]), nil, false))
			s = s[24:]
		}
		if s != "" {
			chunks = append(chunks, chunk(o("content", s), nil, false))
		}
	}
	if !st.hang {
		chunks = append(chunks, chunk(obj{}, st.finish(), true))
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
		// Hold the stream open until the CLI goes away (or a bound passes).
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

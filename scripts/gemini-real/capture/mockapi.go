//go:build unix

package main

// The scripted Generative Language API. Each
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse is answered from
// the running scenario's script: the conversation is the main agent's, or a
// sub-agent's when the request declares the sub-agent's complete_task tool,
// and the step is the number of user contents holding functionResponse parts
// (every model step but the last ends with function calls, so a retried
// request gets the same answer again). Answers are SSE, one
// GenerateContentResponse per `data:` line.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// part is one part of a scripted model response: a text, or a function call.
type part struct {
	text    string
	thought bool // a thought part (text with thought: true)
	call    *fcall
}

type fcall struct {
	id   string // functionCall.id; "" = none (the CLI makes one)
	name string
	args obj
}

// step is one scripted API answer.
type step struct {
	parts []part
	// status, when non-zero, answers an HTTP error with that status and a
	// Google API error body (errStatus, errMsg).
	status    int
	errStatus string
	errMsg    string
	// noFinish streams the parts but no finishReason (an invalid stream).
	noFinish bool
	// finishReason, when set, replaces STOP (MALFORMED_FUNCTION_CALL, …);
	// a step with no parts then sends one chunk with an empty content.
	finishReason  string
	finishMessage string
	// hang streams the parts (no finishReason) and then holds the
	// connection open, telling the runner to interrupt the CLI.
	hang bool
}

func text(s string) part { return part{text: s} }

func call(id, name string, args obj) part { return part{call: &fcall{id: id, name: name, args: args}} }

func say(s string) step { return step{parts: []part{text(s)}} }

func one(p ...part) step { return step{parts: p} }

func thought(s string) part { return part{text: s, thought: true} }

func httpErr(status int, st, msg string) step {
	return step{status: status, errStatus: st, errMsg: msg}
}

type mockAPI struct {
	mu       sync.Mutex
	sc       *scenario
	log      *os.File // one line per request: what it looked like and what it got
	debugDir string   // full request bodies, for the maintainer (never committed)
	nreq     int
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
	m := &mockAPI{sc: sc, log: f, debugDir: debugDir, lastTools: map[string]string{}, hangCh: make(chan struct{}, 1)}
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *mockAPI) close() {
	m.srv.Close()
	m.log.Close()
}

type gPart struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type gContent struct {
	Role  string  `json:"role"`
	Parts []gPart `json:"parts"`
}

type gRequest struct {
	Contents          []gContent      `json:"contents"`
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (r *gRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

func (m *mockAPI) logf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.log, format+"\n", args...)
}

// ServeHTTP answers every request; the API key (a header) is never logged.
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
	uri := path
	if r.URL.RawQuery != "" {
		uri += "?" + redactQuery(r.URL.Query())
	}
	const prefix = "/v1beta/models/"
	model, method := "", ""
	if strings.HasPrefix(path, prefix) {
		if i := strings.LastIndex(path, ":"); i > len(prefix) {
			model, method = path[len(prefix):i], path[i+1:]
		}
	}
	if r.Method != http.MethodPost || model == "" {
		m.logf("%d %s %s -> 404", n, r.Method, uri)
		writeJSON(w, 404, apiError(404, "NOT_FOUND", "mock: no such endpoint"))
		return
	}
	var req gRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.logf("%d POST %s -> 400 unparseable", n, uri)
		writeJSON(w, 400, apiError(400, "INVALID_ARGUMENT", "mock: bad json"))
		return
	}
	switch method {
	case "countTokens":
		m.logf("%d POST %s -> countTokens 1000", n, uri)
		writeJSON(w, 200, o("totalTokens", 1000))
		return
	case "streamGenerateContent", "generateContent":
	default:
		m.logf("%d POST %s -> 404", n, uri)
		writeJSON(w, 404, apiError(404, "NOT_FOUND", "mock: no such method"))
		return
	}
	stream := method == "streamGenerateContent"
	names := req.toolNames()
	conv, script := "main", m.sc.main
	hasComplete := false
	for _, nm := range names {
		if nm == "complete_task" {
			hasComplete = true
		}
	}
	switch {
	case hasComplete:
		conv, script = "sub", m.sc.sub
	case len(names) == 0:
		// A side request of the CLI (none is expected with these settings).
		ans := say("ok")
		if req.GenerationConfig.ResponseMimeType == "application/json" {
			ans = say(`{}`)
		}
		m.logf("%d POST %s side request (no tools) contents=%d json=%v -> %q", n, uri, len(req.Contents), req.GenerationConfig.ResponseMimeType == "application/json", ans.parts[0].text)
		m.answer(w, r.Context().Done(), stream, model, ans, fmt.Sprintf("side%d", n))
		return
	}
	idx := 0
	for _, c := range req.Contents {
		if c.Role == "user" {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					idx++
					break
				}
			}
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
	desc := fmt.Sprintf("%d POST %s conv=%s step=%d contents=%d tools=%d %s last=%s",
		n, uri, conv, idx, len(req.Contents), len(names), toolList, summarizeLast(req.Contents))
	if idx >= len(script) {
		m.logf("%s -> unscripted: text", desc)
		m.answer(w, r.Context().Done(), stream, model, say("(unscripted request answered by the mock)"), fmt.Sprintf("%s%d", conv, idx))
		return
	}
	st := script[idx]
	if st.status != 0 {
		m.logf("%s -> HTTP %d %s", desc, st.status, st.errStatus)
		writeJSON(w, st.status, apiError(st.status, st.errStatus, st.errMsg))
		return
	}
	m.logf("%s -> %s", desc, describeStep(st))
	m.answer(w, r.Context().Done(), stream, model, st, fmt.Sprintf("%s%d", conv, idx))
}

// redactQuery renders a query string without any key member.
func redactQuery(q map[string][]string) string {
	var keys []string
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		for _, v := range q[k] {
			if strings.EqualFold(k, "key") {
				v = "REDACTED"
			}
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, "&")
}

func apiError(code int, status, msg string) obj {
	return o("error", o("code", code, "message", msg, "status", status))
}

// summarizeLast describes the request's last content: its role and parts,
// with each function response's name, id and (shortened) response.
func summarizeLast(cs []gContent) string {
	if len(cs) == 0 {
		return "none"
	}
	c := cs[len(cs)-1]
	var parts []string
	for _, p := range c.Parts {
		switch {
		case p.FunctionResponse != nil:
			fr := p.FunctionResponse
			parts = append(parts, fmt.Sprintf("functionResponse{name=%s id=%q response=%s}", fr.Name, fr.ID, shorten(string(fr.Response), 400)))
		case p.FunctionCall != nil:
			parts = append(parts, "functionCall")
		case p.Thought:
			parts = append(parts, "thought")
		case p.Text != nil:
			parts = append(parts, fmt.Sprintf("text(%d bytes)", len(*p.Text)))
		default:
			parts = append(parts, "other")
		}
	}
	return c.Role + "[" + strings.Join(parts, ", ") + "]"
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
			id := p.call.id
			if id == "" {
				id = "no id"
			}
			parts = append(parts, fmt.Sprintf("functionCall:%s(%s)", p.call.name, id))
		} else if p.thought {
			parts = append(parts, "thought")
		} else {
			parts = append(parts, "text")
		}
	}
	s := strings.Join(parts, "+")
	if s == "" {
		s = "no parts"
	}
	if st.finishReason != "" {
		s += " finishReason=" + st.finishReason
	}
	switch {
	case st.hang:
		s += " then hang"
	case st.noFinish:
		s += " without finishReason"
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("content-type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// answer streams (or, for generateContent, returns) a scripted step.
func (m *mockAPI) answer(w http.ResponseWriter, ctxDone <-chan struct{}, stream bool, model string, st step, key string) {
	respID := "mockResp" + strings.ReplaceAll(key, "-", "") + strings.ReplaceAll(m.sc.name, "-", "")
	// One chunk per 24 bytes of text, one per function call.
	var chunks [][]obj
	for _, p := range st.parts {
		if p.call != nil {
			fc := obj{}
			if p.call.id != "" {
				fc = append(fc, kv("id", p.call.id))
			}
			fc = append(fc, kv("name", p.call.name), kv("args", p.call.args))
			chunks = append(chunks, []obj{o("functionCall", fc, "thoughtSignature", "Y2Fpcm4tbW9jay10aG91Z2h0LXNpZ25hdHVyZQ==")})
			continue
		}
		if p.thought {
			chunks = append(chunks, []obj{o("text", p.text, "thought", true)})
			continue
		}
		s := p.text
		for len(s) > 24 {
			chunks = append(chunks, []obj{o("text", s[:24])})
			s = s[24:]
		}
		if s != "" {
			chunks = append(chunks, []obj{o("text", s)})
		}
	}
	if len(chunks) == 0 {
		chunks = append(chunks, nil)
	}
	outTokens := 10 * (len(chunks) + 1)
	usage := func(final bool) obj {
		out := outTokens
		if !final {
			out = 0
		}
		return o("promptTokenCount", 1200, "candidatesTokenCount", out, "totalTokenCount", 1200+out,
			"promptTokensDetails", []any{o("modality", "TEXT", "tokenCount", 1200)})
	}
	finish := !st.noFinish && !st.hang
	reason := "STOP"
	if st.finishReason != "" {
		reason = st.finishReason
	}
	response := func(parts []obj, last bool) obj {
		cand := o("content", o("parts", parts, "role", "model"))
		if len(parts) == 0 {
			cand = o("content", obj{})
		}
		if last && finish {
			cand = append(cand, kv("finishReason", reason))
			if st.finishMessage != "" {
				cand = append(cand, kv("finishMessage", st.finishMessage))
			}
		}
		cand = append(cand, kv("index", 0))
		return o("candidates", []any{cand}, "usageMetadata", usage(last), "modelVersion", model, "responseId", respID)
	}
	if !stream {
		var all []obj
		for _, c := range chunks {
			all = append(all, c...)
		}
		writeJSON(w, 200, response(all, true))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	for i, c := range chunks {
		b, _ := json.Marshal(response(c, i == len(chunks)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if fl != nil {
			fl.Flush()
		}
		if len(chunks) > 1 {
			time.Sleep(20 * time.Millisecond)
		}
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
	}
}

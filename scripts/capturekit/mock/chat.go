//go:build unix

package mock

// The OpenAI chat-completions API, as OpenAI-compatible providers serve
// it. POST …/chat/completions is answered from the script: a request that
// declares no tools is a side request (when the CLI makes them: OpenCode's
// session title), the conversation whose first user message holds the
// SubMarker is the sub-agent's, one whose first user message holds the
// prompt the main agent's, any other is not scripted; the step is the
// number of assistant messages in the request. Answers stream as
// chat.completion.chunk SSE events: a chunk with the role, one per 24
// bytes of text (delta.content) or reasoning (delta.reasoning_content), per
// tool call one with its id and name and two with halves of its arguments,
// a last chunk with finish_reason, a usage chunk with no choices, then
// `data: [DONE]`. A request without stream: true gets one chat.completion.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ChatOptions are the quirks of the CLIs that speak chat completions.
type ChatOptions struct {
	// Side is the answer to a request that declares no tools (OpenCode asks
	// for a session title); "" treats such a request like any other.
	Side string
	// LogTime puts the seconds since the mock started into the request log
	// (OpenCode 1.3.2's growing retry delays).
	LogTime bool
}

// Chat is the chat-completions API for sc.
func Chat(sc Script, opts ChatOptions) Handler { return &chat{newConvs(sc), opts} }

type chat struct {
	convs
	opts ChatOptions
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
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

const chatJSON = "application/json"

func chatError(msg, typ string, code any) obj {
	return o("error", o("message", msg, "type", typ, "param", nil, "code", code))
}

func (c *chat) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte, n int) {
	uri := r.URL.Path
	if r.URL.RawQuery != "" {
		uri += "?" + r.URL.RawQuery
	}
	at := ""
	if c.opts.LogTime {
		at = fmt.Sprintf("t=%.0fs ", s.since())
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s.logf("%d %s %s -> 404", n, r.Method, uri)
		writeJSON(w, chatJSON, 404, chatError("mock: no such endpoint", "invalid_request_error", "not_found"))
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.logf("%d POST %s -> 400 unparseable", n, uri)
		writeJSON(w, chatJSON, 400, chatError("mock: bad json", "invalid_request_error", nil))
		return
	}
	var names []string
	for _, t := range req.Tools {
		switch {
		case t.Function.Name != "":
			names = append(names, t.Function.Name)
		case t.Name != "":
			names = append(names, t.Type+":"+t.Name)
		default:
			names = append(names, "?"+t.Type)
		}
	}
	if len(names) == 0 && c.opts.Side != "" {
		s.logf("%d %sPOST %s side request (no tools) messages=%d stream=%v -> %q", n, at, uri, len(req.Messages), req.Stream, c.opts.Side)
		c.answer(s, w, r, req, say(c.opts.Side), fmt.Sprintf("side%d", n))
		return
	}
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = chatText(m.Content)
			break
		}
	}
	conv := "main"
	switch {
	case c.sc.SubMarker != "" && strings.Contains(first, c.sc.SubMarker):
		conv = "sub"
	case c.sc.Prompt != "" && !strings.Contains(first, c.sc.Prompt):
		conv = "other"
	}
	script := c.sc.steps(conv)
	idx := count(req.Messages, func(m chatMessage) bool { return m.Role == "assistant" })
	toolList := c.toolList(conv, names)
	maxTok := "none"
	switch {
	case req.MaxCompletionTokens != nil:
		maxTok = fmt.Sprintf("max_completion_tokens=%d", *req.MaxCompletionTokens)
	case req.MaxTokens != nil:
		maxTok = fmt.Sprintf("max_tokens=%d", *req.MaxTokens)
	}
	desc := fmt.Sprintf("%d %sPOST %s conv=%s model=%s stream=%v %s step=%d messages=%d roles=%s tools=%d %s last=%s",
		n, at, uri, conv, req.Model, req.Stream, maxTok, idx, len(req.Messages), roles(req.Messages), len(names), toolList, sinceAssistant(req.Messages))
	key := fmt.Sprint(idx)
	if conv != "main" {
		key = conv + key
	}
	if idx >= len(script) {
		s.logf("%s -> unscripted: text", desc)
		c.answer(s, w, r, req, unscripted, key)
		return
	}
	st := script[idx]
	if st.Status != 0 {
		s.logf("%s -> HTTP %d %s", desc, st.Status, st.Error)
		writeJSON(w, chatJSON, st.Status, chatError(st.Message, st.Error, nil))
		return
	}
	s.logf("%s -> %s", desc, describeChat(st))
	c.answer(s, w, r, req, st, key)
}

// roles is the conversation's roles, runs counted (system,user,assistant,tool*2).
func roles(ms []chatMessage) string {
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

// sinceAssistant describes the messages after the last assistant message
// (the tool results, or the prompt): each tool result's call id and
// (shortened) content, the others' lengths.
func sinceAssistant(ms []chatMessage) string {
	start := 0
	for i, m := range ms {
		if m.Role == "assistant" {
			start = i + 1
		}
	}
	var parts []string
	for _, m := range ms[start:] {
		if m.Role == "tool" {
			parts = append(parts, fmt.Sprintf("tool{id=%s content=%s}", m.ToolCallID, shorten(chatText(m.Content), 300)))
		} else {
			parts = append(parts, fmt.Sprintf("%s(%d bytes)", m.Role, len(chatText(m.Content))))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// chatText is a message content as text: the string, or the content parts
// joined (a part that is not text as [its type]).
func chatText(raw json.RawMessage) string {
	return joinText(raw, func(typ, text string) string {
		if typ == "text" {
			return text
		}
		return "[" + typ + "]"
	})
}

func describeChat(st Step) string {
	var parts []string
	for _, p := range st.Parts {
		switch p.Kind {
		case "call":
			parts = append(parts, fmt.Sprintf("tool_call:%s(%s)", p.Name, p.ID))
		case "thinking":
			parts = append(parts, "reasoning")
		default:
			parts = append(parts, "text")
		}
	}
	switch {
	case st.Hang:
		return describe(parts, " then hang")
	case st.Finish != "":
		return describe(parts, " finish_reason="+st.Finish)
	}
	return describe(parts)
}

// answer streams a step as chat.completion.chunk events (or, for a
// request without stream: true, returns one chat.completion).
func (c *chat) answer(s *Server, w http.ResponseWriter, r *http.Request, req chatRequest, st Step, key string) {
	id := fmt.Sprintf("chatcmpl-mock-%s-%s", c.sc.Name, key)
	const created = 1767225600 // 2026-01-01T00:00:00Z
	finish := "stop"
	if st.calls() {
		finish = "tool_calls"
	}
	if st.Finish != "" {
		finish = st.Finish
	}
	var calls []obj
	content := ""
	outTokens := 8
	for _, p := range st.Parts {
		switch p.Kind {
		case "call":
			call := o("id", p.ID, "type", "function", "function", o("name", p.Name, "arguments", string(p.Args)))
			calls = append(calls, call)
			outTokens += len(marshal(call)) / 4
		case "text":
			content += p.Text
		}
	}
	outTokens += len(content) / 4
	usage := o("prompt_tokens", 1200, "completion_tokens", outTokens, "total_tokens", 1200+outTokens,
		"prompt_tokens_details", o("cached_tokens", 0), "completion_tokens_details", o("reasoning_tokens", 0))
	if !req.Stream {
		msg := o("role", "assistant", "content", content)
		if len(calls) > 0 {
			msg = append(msg, kv("tool_calls", calls))
		}
		writeJSON(w, chatJSON, 200, o("id", id, "object", "chat.completion", "created", created, "model", req.Model,
			"choices", []any{o("index", 0, "message", msg, "finish_reason", finish)}, "usage", usage))
		return
	}
	chunk := func(delta obj, finishReason any) obj {
		return o("id", id, "object", "chat.completion.chunk", "created", created, "model", req.Model,
			"choices", []any{o("index", 0, "delta", delta, "finish_reason", finishReason)})
	}
	out := []obj{chunk(o("role", "assistant", "content", ""), nil)}
	ncall := 0
	for _, p := range st.Parts {
		if p.Kind == "call" {
			args := string(p.Args)
			half := len(args) / 2
			out = append(out,
				chunk(o("tool_calls", []any{o("index", ncall, "id", p.ID, "type", "function", "function", o("name", p.Name, "arguments", ""))}), nil),
				chunk(o("tool_calls", []any{o("index", ncall, "function", o("arguments", args[:half]))}), nil),
				chunk(o("tool_calls", []any{o("index", ncall, "function", o("arguments", args[half:]))}), nil))
			ncall++
			continue
		}
		field := "content"
		if p.Kind == "thinking" {
			field = "reasoning_content"
		}
		for _, piece := range chunks(p.Text, 24) {
			out = append(out, chunk(o(field, piece), nil))
		}
	}
	if !st.Hang {
		out = append(out, chunk(obj{}, finish),
			o("id", id, "object", "chat.completion.chunk", "created", created, "model", req.Model, "choices", []any{}, "usage", usage))
	}
	send := events(w, map[string]string{"cache-control": "no-cache"})
	for _, ch := range out {
		send("data: %s\n\n", marshal(ch))
		time.Sleep(15 * time.Millisecond)
	}
	if st.Hang {
		s.stall(r)
		return
	}
	send("data: [DONE]\n\n")
}

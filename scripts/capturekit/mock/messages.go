//go:build unix

package mock

// The Anthropic Messages API. POST /v1/messages is answered from the
// script: the conversation is the sub-agent's when its first user message
// holds the SubMarker, else the main agent's, and the step is the number of
// assistant messages in the request. Streaming requests get SSE in the
// real API's member order (the CLI echoes the order of message and of tool
// inputs); non-streaming ones the message as JSON. Claude Code's side
// requests are answered too: its auto-mode permission classifier (every
// action harmless), the WebSearch tool's own request (a server-run
// search), any other request without tools ("ok"), count_tokens and the
// model list.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

type obj = ordered.Obj

var (
	o  = ordered.O
	kv = ordered.Member
)

// Messages is the Messages API for sc. When a conversation's first request
// offers no tool named discovery (Claude Code's ToolSearch: tool search
// off, or a version without it), the steps that only call it are dropped
// for that conversation: the model then loads nothing.
func Messages(sc Script, discovery string) Handler { return &messages{newConvs(sc), discovery} }

type messages struct {
	convs
	discovery string
}

type messagesMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type messagesRequest struct {
	Model         string            `json:"model"`
	Stream        bool              `json:"stream"`
	MaxTokens     int               `json:"max_tokens"`
	Messages      []messagesMessage `json:"messages"`
	System        json.RawMessage   `json:"system"`
	StopSequences []string          `json:"stop_sequences"`
	Tools         []struct {
		Name         string `json:"name"`
		Type         string `json:"type"`
		DeferLoading bool   `json:"defer_loading"`
	} `json:"tools"`
}

const messagesJSON = "application/json"

func messagesError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func (m *messages) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte, n int) {
	uri := r.URL.RequestURI()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		s.logf("%d %s %s -> count_tokens", n, r.Method, uri)
		writeJSON(w, messagesJSON, 200, map[string]any{"input_tokens": 1000})
		return
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/models"):
		s.logf("%d %s %s -> models", n, r.Method, uri)
		writeJSON(w, messagesJSON, 200, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		s.logf("%d %s %s -> 404", n, r.Method, uri)
		writeJSON(w, messagesJSON, 404, messagesError("not_found_error", "mock: no such endpoint"))
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.logf("%d POST /v1/messages -> 400 unparseable", n)
		writeJSON(w, messagesJSON, 400, messagesError("invalid_request_error", "mock: bad json"))
		return
	}
	if strings.Contains(contentText(req.System), "security monitor for autonomous AI coding agents") {
		// The auto-mode permission classifier: every action is harmless.
		st := say("<thinking>A local, read-only step of the task.</thinking>\n<severity>1</severity>")
		for _, seq := range req.StopSequences {
			if seq == "</severity>" {
				st = say("<severity>1")
				st.stopSequence = seq
			}
		}
		s.logf("%d POST %s classifier stream=%v max_tokens=%d -> %q", n, uri, req.Stream, req.MaxTokens, st.Parts[0].Text)
		m.answer(s, w, r, req, st, fmt.Sprintf("classifier%d", n))
		return
	}
	for _, t := range req.Tools {
		if strings.HasPrefix(t.Type, "web_search") {
			// The WebSearch tool's own request: the API runs the search.
			result := marshal([]any{o("type", "web_search_result", "title", "Ledgers in integer cents", "url", "https://example.invalid/ledger", "encrypted_content", "RW5jcnlwdGVkIG1vY2sgY29udGVudA==", "page_age", nil)})
			st := Step{Parts: []Part{
				{Kind: "server_tool_use", ID: "srvtoolu_01MockWebSearch", Name: "web_search", Args: marshal(o("query", "release ledger integer cents"))},
				{Kind: "web_search_tool_result", ID: "srvtoolu_01MockWebSearch", Args: result},
				{Kind: "text", Text: "Ledgers usually keep amounts in integer cents."},
			}}
			s.logf("%d POST %s web_search tool request stream=%v -> server_tool_use+web_search_tool_result+text", n, uri, req.Stream)
			m.answer(s, w, r, req, st, fmt.Sprintf("websearch%d", n))
			return
		}
	}
	if len(req.Tools) == 0 {
		s.logf("%d POST %s side request without tools stream=%v max_tokens=%d -> text", n, uri, req.Stream, req.MaxTokens)
		m.answer(s, w, r, req, say("ok"), fmt.Sprintf("side%d", n))
		return
	}
	conv := "main"
	if len(req.Messages) > 0 && m.sc.SubMarker != "" && strings.Contains(contentText(req.Messages[0].Content), m.sc.SubMarker) {
		conv = "sub"
	}
	script := m.sc.steps(conv)
	idx := count(req.Messages, func(msg messagesMessage) bool { return msg.Role == "assistant" })
	var names []string
	discovery := false
	for _, t := range req.Tools {
		if t.Name == m.discovery {
			discovery = true
		}
		if strings.HasPrefix(t.Name, "mcp__") {
			if t.DeferLoading {
				names = append(names, t.Name+"(deferred)")
			} else {
				names = append(names, t.Name)
			}
		}
	}
	lastUser := ""
	if k := len(req.Messages); k > 0 {
		lastUser = blockList(req.Messages[k-1].Content)
	}
	// Decided by the conversation's first request: Claude Code 2.1.332
	// retries a 400 without tool search, and that must not shift the script.
	if m.once("discovery:"+conv, fmt.Sprint(discovery)) == "false" {
		var kept []Step
		for _, st := range script {
			if !m.discoveryOnly(st) {
				kept = append(kept, st)
			}
		}
		script = kept
	}
	desc := fmt.Sprintf("%d POST %s conv=%s step=%d stream=%v max_tokens=%d messages=%d tools=%d toolsearch=%v mcp=%v last=%s",
		n, uri, conv, idx, req.Stream, req.MaxTokens, len(req.Messages), len(req.Tools), discovery, names, lastUser)
	if idx >= len(script) {
		s.logf("%s -> unscripted: text", desc)
		m.answer(s, w, r, req, unscripted, fmt.Sprintf("%s%d", conv, idx))
		return
	}
	st := script[idx]
	if st.Status != 0 {
		s.logf("%s -> HTTP %d %s", desc, st.Status, st.Error)
		id := fmt.Sprintf("req_mock%03d", n)
		w.Header().Set("request-id", id)
		writeJSON(w, messagesJSON, st.Status, o("type", "error", "error", o("type", st.Error, "message", st.Message), "request_id", id))
		return
	}
	s.logf("%s -> %s", desc, m.describe(st))
	m.answer(s, w, r, req, st, fmt.Sprintf("%s%d", conv, idx))
}

// discoveryOnly says whether the step only calls the discovery tool.
func (m *messages) discoveryOnly(st Step) bool {
	for _, p := range st.Parts {
		if p.Name != m.discovery {
			return false
		}
	}
	return len(st.Parts) > 0
}

// contentText joins the text of a message content (a string or blocks).
func contentText(raw json.RawMessage) string {
	return joinText(raw, func(_, text string) string { return text + "\n" })
}

// blockList is a message content's block types ("string" for a string).
func blockList(raw json.RawMessage) string {
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

func (m *messages) describe(st Step) string {
	var parts []string
	for _, p := range st.Parts {
		switch {
		case p.Kind != "text" && p.Kind != "call":
			parts = append(parts, p.Kind)
		case p.Kind == "text":
			parts = append(parts, "text")
		case p.Cut > 0:
			parts = append(parts, "tool_use:"+p.Name+"(cut by max_tokens)")
		default:
			parts = append(parts, "tool_use:"+p.Name)
		}
	}
	if st.Hang {
		return describe(parts, " then hang")
	}
	return describe(parts)
}

// block is one content block of an answer: as content_block_start
// announces it, as a non-streamed message holds it, and its deltas.
type block struct {
	start, full obj
	delta       []obj
}

func deltas(s string, n int, field, typ string) []obj {
	var out []obj
	for _, c := range chunks(s, n) {
		out = append(out, o("type", typ, field, c))
	}
	return out
}

// answer streams (or, for a non-streaming request, returns) a step.
func (m *messages) answer(s *Server, w http.ResponseWriter, r *http.Request, req messagesRequest, st Step, key string) {
	model := req.Model
	if model == "" {
		model = "claude-mock"
	}
	msgID := strings.ReplaceAll("msg_01Mock"+strings.ToUpper(key[:1])+key[1:]+m.sc.Name[:min(len(m.sc.Name), 4)], "-", "")
	stop := "end_turn"
	var blocks []block
	for _, p := range st.Parts {
		switch p.Kind {
		case "thinking":
			sig := "EqQBCkYIBxgCKkBmb2NrLXNpZ25hdHVyZS1mb3ItY2Fpcm4tY2FwdHVyZQ=="
			blocks = append(blocks, block{
				start: o("type", "thinking", "thinking", "", "signature", ""),
				full:  o("type", "thinking", "thinking", p.Text, "signature", sig),
				delta: append(deltas(p.Text, 24, "thinking", "thinking_delta"), o("type", "signature_delta", "signature", sig)),
			})
		case "server_tool_use":
			blocks = append(blocks, block{
				start: o("type", "server_tool_use", "id", p.ID, "name", p.Name, "input", obj{}),
				full:  o("type", "server_tool_use", "id", p.ID, "name", p.Name, "input", p.Args),
				delta: append([]obj{o("type", "input_json_delta", "partial_json", "")}, deltas(string(p.Args), 16, "partial_json", "input_json_delta")...),
			})
		case "web_search_tool_result":
			full := o("type", "web_search_tool_result", "tool_use_id", p.ID, "content", p.Args)
			blocks = append(blocks, block{start: full, full: full})
		case "redacted_thinking":
			b := o("type", "redacted_thinking", "data", p.Text)
			blocks = append(blocks, block{start: b, full: b})
		case "text":
			blocks = append(blocks, block{
				start: o("type", "text", "text", ""),
				full:  o("type", "text", "text", p.Text),
				delta: deltas(p.Text, 24, "text", "text_delta"),
			})
		default:
			stop = "tool_use"
			js := string(marshal(p.Args))
			if p.Cut > 0 && p.Cut < len(js) {
				js, stop = js[:p.Cut], "max_tokens"
			}
			blocks = append(blocks, block{
				start: append(o("type", "tool_use", "id", p.ID, "name", p.Name, "input", obj{}), p.Extra...),
				full:  append(o("type", "tool_use", "id", p.ID, "name", p.Name, "input", p.Args), p.Extra...),
				delta: append([]obj{o("type", "input_json_delta", "partial_json", "")}, deltas(js, 16, "partial_json", "input_json_delta")...),
			})
		}
	}
	usage := func(out int) obj {
		return o("input_tokens", 1200, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", out, "service_tier", "standard")
	}
	outTokens := 12 * (len(st.Parts) + 1)
	var stopSeq any
	if st.stopSequence != "" {
		stop, stopSeq = "stop_sequence", st.stopSequence
	}
	if !req.Stream {
		content := []any{}
		for _, b := range blocks {
			content = append(content, b.full)
		}
		writeJSON(w, messagesJSON, 200, o("id", msgID, "type", "message", "role", "assistant", "model", model, "content", content,
			"stop_reason", stop, "stop_sequence", stopSeq, "usage", usage(outTokens)))
		return
	}
	send := events(w, map[string]string{"cache-control": "no-cache", "request-id": "req_01Mock" + strings.ReplaceAll(key, "-", "")})
	event := func(name string, data any) { send("event: %s\ndata: %s\n\n", name, marshal(data)) }
	event("message_start", o("type", "message_start", "message", o(
		"id", msgID, "type", "message", "role", "assistant", "model", model, "content", []any{},
		"stop_reason", nil, "stop_sequence", nil, "usage", usage(1))))
	event("ping", o("type", "ping"))
	for i, b := range blocks {
		event("content_block_start", o("type", "content_block_start", "index", i, "content_block", b.start))
		for _, d := range b.delta {
			event("content_block_delta", o("type", "content_block_delta", "index", i, "delta", d))
		}
		if st.Hang && !st.HangAfterStop && i == len(blocks)-1 {
			break // the last block's content_block_stop never comes
		}
		event("content_block_stop", o("type", "content_block_stop", "index", i))
	}
	if st.Hang {
		s.stall(r)
		return
	}
	event("message_delta", o("type", "message_delta", "delta", o("stop_reason", stop, "stop_sequence", stopSeq),
		"usage", o("output_tokens", outTokens)))
	event("message_stop", o("type", "message_stop"))
}

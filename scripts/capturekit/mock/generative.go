//go:build unix

package mock

// The Google Generative Language API. POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse (or
// :generateContent) is answered from the script: the conversation is the
// sub-agent's when the request declares the sub-agent tool, a side request
// when it declares none, else the main agent's; the step is the number of
// user contents holding functionResponse parts (every step but the last
// ends with function calls). Answers are SSE, one GenerateContentResponse
// per `data:` line.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Generative is the Generative Language API for sc; a request that
// declares subTool (Gemini CLI's complete_task) is the sub-agent's.
func Generative(sc Script, subTool string) Handler { return &generative{newConvs(sc), subTool} }

type generative struct {
	convs
	subTool string
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
	Contents []gContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

const generativeJSON = "application/json; charset=UTF-8"

func generativeError(code int, status, msg string) obj {
	return o("error", o("code", code, "message", msg, "status", status))
}

func (g *generative) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte, n int) {
	uri := r.URL.Path
	if r.URL.RawQuery != "" {
		uri += "?" + redactKey(r.URL.Query())
	}
	const prefix = "/v1beta/models/"
	model, method := "", ""
	if strings.HasPrefix(r.URL.Path, prefix) {
		if i := strings.LastIndex(r.URL.Path, ":"); i > len(prefix) {
			model, method = r.URL.Path[len(prefix):i], r.URL.Path[i+1:]
		}
	}
	if r.Method != http.MethodPost || model == "" {
		s.logf("%d %s %s -> 404", n, r.Method, uri)
		writeJSON(w, generativeJSON, 404, generativeError(404, "NOT_FOUND", "mock: no such endpoint"))
		return
	}
	var req gRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.logf("%d POST %s -> 400 unparseable", n, uri)
		writeJSON(w, generativeJSON, 400, generativeError(400, "INVALID_ARGUMENT", "mock: bad json"))
		return
	}
	switch method {
	case "countTokens":
		s.logf("%d POST %s -> countTokens 1000", n, uri)
		writeJSON(w, generativeJSON, 200, o("totalTokens", 1000))
		return
	case "streamGenerateContent", "generateContent":
	default:
		s.logf("%d POST %s -> 404", n, uri)
		writeJSON(w, generativeJSON, 404, generativeError(404, "NOT_FOUND", "mock: no such method"))
		return
	}
	stream := method == "streamGenerateContent"
	var names []string
	conv := "main"
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
			if d.Name == g.subTool {
				conv = "sub"
			}
		}
	}
	if len(names) == 0 {
		// A side request of the CLI (none is expected with these settings).
		ans, asJSON := say("ok"), req.GenerationConfig.ResponseMimeType == "application/json"
		if asJSON {
			ans = say(`{}`)
		}
		s.logf("%d POST %s side request (no tools) contents=%d json=%v -> %q", n, uri, len(req.Contents), asJSON, ans.Parts[0].Text)
		g.answer(s, w, r, stream, model, ans, fmt.Sprintf("side%d", n))
		return
	}
	script := g.sc.steps(conv)
	idx := count(req.Contents, func(c gContent) bool {
		return c.Role == "user" && count(c.Parts, func(p gPart) bool { return p.FunctionResponse != nil }) > 0
	})
	toolList := g.toolList(conv, names)
	desc := fmt.Sprintf("%d POST %s conv=%s step=%d contents=%d tools=%d %s last=%s",
		n, uri, conv, idx, len(req.Contents), len(names), toolList, lastContent(req.Contents))
	if idx >= len(script) {
		s.logf("%s -> unscripted: text", desc)
		g.answer(s, w, r, stream, model, unscripted, fmt.Sprintf("%s%d", conv, idx))
		return
	}
	st := script[idx]
	if st.Status != 0 {
		s.logf("%s -> HTTP %d %s", desc, st.Status, st.Error)
		writeJSON(w, generativeJSON, st.Status, generativeError(st.Status, st.Error, st.Message))
		return
	}
	s.logf("%s -> %s", desc, describeGenerative(st))
	g.answer(s, w, r, stream, model, st, fmt.Sprintf("%s%d", conv, idx))
}

// redactKey renders a query string with the key member's value replaced.
func redactKey(q map[string][]string) string {
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

// lastContent describes the request's last content: its role and parts,
// with each function response's name, id and (shortened) response.
func lastContent(cs []gContent) string {
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

func describeGenerative(st Step) string {
	var parts []string
	for _, p := range st.Parts {
		switch {
		case p.Kind == "call" && p.ID == "":
			parts = append(parts, fmt.Sprintf("functionCall:%s(no id)", p.Name))
		case p.Kind == "call":
			parts = append(parts, fmt.Sprintf("functionCall:%s(%s)", p.Name, p.ID))
		case p.Kind == "thinking":
			parts = append(parts, "thought")
		default:
			parts = append(parts, "text")
		}
	}
	var notes []string
	if st.Finish != "" {
		notes = append(notes, " finishReason="+st.Finish)
	}
	switch {
	case st.Hang:
		notes = append(notes, " then hang")
	case st.NoFinish:
		notes = append(notes, " without finishReason")
	}
	return describe(parts, notes...)
}

// answer streams (or, for generateContent, returns) a step: a chunk per 24
// bytes of text and one per function call or thought.
func (g *generative) answer(s *Server, w http.ResponseWriter, r *http.Request, stream bool, model string, st Step, key string) {
	respID := "mockResp" + strings.ReplaceAll(key, "-", "") + strings.ReplaceAll(g.sc.Name, "-", "")
	var pieces [][]obj
	for _, p := range st.Parts {
		switch p.Kind {
		case "call":
			fc := obj{}
			if p.ID != "" {
				fc = append(fc, kv("id", p.ID))
			}
			fc = append(fc, kv("name", p.Name), kv("args", p.Args))
			pieces = append(pieces, []obj{o("functionCall", fc, "thoughtSignature", "Y2Fpcm4tbW9jay10aG91Z2h0LXNpZ25hdHVyZQ==")})
		case "thinking":
			pieces = append(pieces, []obj{o("text", p.Text, "thought", true)})
		default:
			for _, c := range chunks(p.Text, 24) {
				pieces = append(pieces, []obj{o("text", c)})
			}
		}
	}
	if len(pieces) == 0 {
		pieces = append(pieces, nil)
	}
	outTokens := 10 * (len(pieces) + 1)
	usage := func(final bool) obj {
		out := outTokens
		if !final {
			out = 0
		}
		return o("promptTokenCount", 1200, "candidatesTokenCount", out, "totalTokenCount", 1200+out,
			"promptTokensDetails", []any{o("modality", "TEXT", "tokenCount", 1200)})
	}
	finish := !st.NoFinish && !st.Hang
	reason := "STOP"
	if st.Finish != "" {
		reason = st.Finish
	}
	response := func(parts []obj, last bool) obj {
		cand := o("content", o("parts", parts, "role", "model"))
		if len(parts) == 0 {
			cand = o("content", obj{})
		}
		if last && finish {
			cand = append(cand, kv("finishReason", reason))
			if st.FinishMessage != "" {
				cand = append(cand, kv("finishMessage", st.FinishMessage))
			}
		}
		cand = append(cand, kv("index", 0))
		return o("candidates", []any{cand}, "usageMetadata", usage(last), "modelVersion", model, "responseId", respID)
	}
	if !stream {
		var all []obj
		for _, c := range pieces {
			all = append(all, c...)
		}
		writeJSON(w, generativeJSON, 200, response(all, true))
		return
	}
	send := events(w, nil)
	for i, c := range pieces {
		send("data: %s\r\n\r\n", marshal(response(c, i == len(pieces)-1)))
		if len(pieces) > 1 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if st.Hang {
		s.stall(r)
	}
}

//go:build unix

package mock

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type logBuf struct{ bytes.Buffer }

func (*logBuf) Close() error { return nil }

// serve answers one request of h with body and returns the answer and the
// request log's line.
func serve(t *testing.T, h Handler, path, body string) (string, string) {
	t.Helper()
	log := &logBuf{}
	s := &Server{h: h, log: log, hang: make(chan struct{}, 1)}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
	b, _ := io.ReadAll(w.Result().Body)
	return string(b), strings.TrimSpace(log.String())
}

func steps(t *testing.T, src string) []Step {
	t.Helper()
	var ss []Step
	if err := yaml.Unmarshal([]byte(src), &ss); err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestChat holds the chat-completions answers byte for byte (Pi's and
// OpenCode's captures were made with them) and how a request finds its
// conversation and step.
func TestChat(t *testing.T) {
	sc := Script{Name: "s", Prompt: "the prompt", SubMarker: "SUB", Main: steps(t, `
- - {call: memory_search, id: c1, args: {query: ledger, scope: project}}
- The answer.
`), Sub: steps(t, `
- {status: 500, error: server_error, message: down}
`)}
	h := Chat(sc, ChatOptions{Side: "A title"})
	tools := `"tools":[{"type":"function","function":{"name":"memory_search"}}]`
	first := `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"the prompt"}]}`
	got, log := serve(t, h, "/v1/chat/completions", first)
	want := `data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"memory_search","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":\"ledger\","}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"scope\":\"project\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"chatcmpl-mock-s-0","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":39,"total_tokens":1239,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]

`
	if got != want {
		t.Errorf("first answer:\n%s\nwant\n%s", got, want)
	}
	if want := `1 POST /v1/chat/completions conv=main model=m stream=true none step=0 messages=2 roles=system,user tools=1 [memory_search] last=system(3 bytes), user(10 bytes) -> tool_call:memory_search(c1)`; log != want {
		t.Errorf("log:\n%s\nwant\n%s", log, want)
	}
	for _, tc := range []struct{ name, body, answer, log string }{
		{"the second step", `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"the prompt"},{"role":"assistant","content":""},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			`"message":{"role":"assistant","content":"The answer."},"finish_reason":"stop"`, `step=1 messages=3 roles=user,assistant,tool tools=1 same last=tool{id=c1 content=ok} -> text`},
		{"past the script", `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"the prompt"},{"role":"assistant"},{"role":"assistant"}]}`,
			`(unscripted request answered by the mock)`, `-> unscripted: text`},
		{"a side request", `{"model":"m","messages":[{"role":"user","content":"Title this"}]}`,
			`"content":"A title"`, `side request (no tools) messages=1 stream=false -> "A title"`},
		{"the sub-agent", `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"SUB: search"}]}`,
			`{"error":{"message":"down","type":"server_error","param":null,"code":null}}`, `conv=sub model=m stream=false none step=0`},
		{"another conversation", `{"model":"m",` + tools + `,"messages":[{"role":"user","content":[{"type":"text","text":"other"}]}]}`,
			`(unscripted request answered by the mock)`, `conv=other`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, log := serve(t, h, "/v1/chat/completions", tc.body)
			if !strings.Contains(got, tc.answer) || !strings.Contains(log, tc.log) {
				t.Errorf("got %s\nlog %s\nwant %s and %s", got, log, tc.answer, tc.log)
			}
		})
	}
}

// TestMessagesDropsDiscovery: without the discovery tool in a
// conversation's first request, the steps that only call it are dropped.
func TestMessagesDropsDiscovery(t *testing.T) {
	sc := Script{Name: "scen", Main: steps(t, `
- - {call: ToolSearch, id: t1, args: {query: "select:x"}}
- - {call: mcp__m__memory_search, id: t2, args: {query: q}}
`)}
	h := Messages(sc, "ToolSearch")
	got, log := serve(t, h, "/v1/messages", `{"model":"c","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"mcp__m__memory_search"}]}`)
	if !strings.Contains(got, `"name":"mcp__m__memory_search","input":{"query":"q"}`) || !strings.Contains(log, "toolsearch=false") {
		t.Errorf("got %s\nlog %s", got, log)
	}
}

// TestGenerative: a request that declares the sub-agent tool is the
// sub-agent's; a step's finish replaces STOP.
func TestGenerative(t *testing.T) {
	sc := Script{Name: "g", Main: steps(t, "- The main answer.\n"), Sub: steps(t, "- {finish: MALFORMED_FUNCTION_CALL}\n")}
	h := Generative(sc, "complete_task")
	got, _ := serve(t, h, "/v1beta/models/x:generateContent", `{"contents":[{"role":"user","parts":[{"text":"q"}]}],"tools":[{"functionDeclarations":[{"name":"complete_task"}]}]}`)
	if want := `{"candidates":[{"content":{},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}],"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":20,"totalTokenCount":1220,"promptTokensDetails":[{"modality":"TEXT","tokenCount":1200}]},"modelVersion":"x","responseId":"mockRespsub0g"}`; strings.TrimSpace(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestResponses: the turn is one past the highest turn whose call ids the
// input holds.
func TestResponses(t *testing.T) {
	h := NewResponses(Script{Name: "r", Main: steps(t, "- - {mcp: memory_search, args: {scope: project}}\n- Done.\n")}, "a")
	got, _ := serve(t, h, "/v1/responses", `{"input":[{"type":"function_call_output","call_id":"call_a_0_0"}],"tools":[]}`)
	if !strings.Contains(got, `"text":"Done."`) || h.Asked("main", 1) != 1 {
		t.Errorf("got %s", got)
	}
}

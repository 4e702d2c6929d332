// Command genpi writes a synthetic but realistic Pi JSON-mode stream
// (`pi --mode json`) for benchmarks, in the shapes the real pi 1.6.0
// prints (testdata/pi/real): the session header, agent_start, the system
// message (copied from a real capture, with its declared tools), the
// prompt, then turns of streamed text and tool-call deltas, the
// assistant's message_end with its toolCall blocks, tool_execution_start
// and _end (memory searches, bash with outputs of a few hundred bytes to
// a few KB, read), the toolResult messages and turn_end; then the final
// answer, agent_end repeating every message of the run, as Pi does, and
// agent_settled. Never above 16 MiB or 50,000 records.
//
//	go run ./scripts/genpi > big.jsonl
//	go run ./scripts/genpi -size 1048576 > 1mib.jsonl
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/cairn-audit/cairn/scripts/genkit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

func main() {
	from := flag.String("system", "testdata/pi/real/1.6.0/memory-first-direct.jsonl",
		"a real capture whose system message the stream declares")
	genkit.Main(func(out *genkit.Out) {
		system, err := systemMessage(*from)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genpi:", err)
			os.Exit(2)
		}
		(&gen{Out: out, ms: 1796168516206}).stream(system)
	})
}

// systemMessage is the message of the first system message_start in the
// capture at path.
func systemMessage(path string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for line := range bytes.Lines(b) {
		var rec struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Type == "message_start" &&
			bytes.HasPrefix(rec.Message, []byte(`{"role":"system"`)) {
			return rec.Message, nil
		}
	}
	return nil, fmt.Errorf("%s has no system message", path)
}

type gen struct {
	*genkit.Out
	ms       int64 // the clock, in Unix milliseconds
	calls    int
	turns    int
	messages []json.RawMessage // what agent_end repeats
	repeat   int               // their bytes
}

var o = ordered.O

// line writes one record: type, then the members given, as Pi orders them.
func (g *gen) line(typ string, pairs ...any) {
	g.JSON(o(append([]any{"type", typ}, pairs...)...))
}

func (g *gen) tick() int64 {
	g.ms += int64(5 + g.R.IntN(400))
	return g.ms
}

// message writes message_start and message_end of m and keeps it for
// agent_end.
func (g *gen) message(start, m json.RawMessage) {
	g.line("message_start", "message", start)
	g.line("message_end", "message", m)
	g.messages = append(g.messages, m)
	g.repeat += len(m) + 1
}

// fits reports whether about n more bytes and k more records leave room
// for the closing answer, agent_end's repeat of the run and agent_settled.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+g.repeat+3*n+4096 <= g.Limit && g.Records+k+12 <= genkit.MaxRecords
}

func usage(in, out int) any {
	return o("input", in, "output", out, "cacheRead", 0, "cacheWrite", 0, "reasoning", 0, "totalTokens", in+out,
		"cost", o("input", 0, "output", 0, "cacheRead", 0, "cacheWrite", 0, "total", 0, "totalFromProvider", false))
}

var pending = o("input", 0, "output", 0, "cacheRead", 0, "cacheWrite", 0, "totalTokens", 0,
	"cost", o("input", 0, "output", 0, "cacheRead", 0, "cacheWrite", 0, "total", 0))

func (g *gen) update(event any) {
	g.line("message_update", "usage", pending, "assistantMessageEvent", event)
}

// assistant streams one assistant message of text and the calls given
// ([name, arguments] pairs) and returns it.
func (g *gen) assistant(text string, calls [][2]any) json.RawMessage {
	g.turns++
	t := g.tick()
	head := []any{"role", "assistant"}
	tail := []any{"api", "openai-completions", "provider", "cairn-mock", "model", "mock-model"}
	g.line("message_start", "message", o(append(append(head, "content", []any{}), append(tail,
		"usage", pending, "stopReason", "pending", "timestamp", t)...)...))
	g.update(o("type", "text_start", "contentIndex", 0))
	for rest := text; rest != ""; {
		n := min(len(rest), 24)
		g.update(o("type", "text_delta", "contentIndex", 0, "delta", rest[:n]))
		rest = rest[n:]
	}
	content := []any{o("type", "text", "text", text)}
	for i, c := range calls {
		g.calls++
		id := fmt.Sprintf("call_%06d", g.calls)
		args := string(genkit.Marshal(c[1]))
		g.update(o("type", "toolcall_start", "contentIndex", i+1, "id", id, "toolName", c[0]))
		g.update(o("type", "toolcall_delta", "contentIndex", i+1, "delta", args[:len(args)/2]))
		g.update(o("type", "toolcall_delta", "contentIndex", i+1, "delta", args[len(args)/2:]))
		content = append(content, o("type", "toolCall", "id", id, "name", c[0], "arguments", c[1]))
	}
	g.line("message_update", "usage", usage(1200, 56), "assistantMessageEvent",
		o("type", "text_end", "contentIndex", 0, "content", text))
	stop, raw := "stop", "stop"
	if len(calls) > 0 {
		stop, raw = "toolUse", "tool_calls"
	}
	m := genkit.Marshal(o(append(append(head, "content", content), append(tail, "usage", usage(1200, 56),
		"stopReason", stop, "timestamp", t, "responseId", fmt.Sprintf("chatcmpl-mock-%d", g.turns),
		"rawStopReason", raw, "durationMs", 300+g.R.IntN(500), "thinkingLevel", "off")...)...))
	g.line("message_end", "message", m)
	g.messages = append(g.messages, m)
	g.repeat += len(m) + 1
	return m
}

// tool runs one call: tool_execution_start, _end and the toolResult
// message; it returns the toolResult for turn_end.
func (g *gen) tool(id, name string, args any, output string, mcp bool) json.RawMessage {
	g.line("tool_execution_start", "toolCallId", id, "toolName", name, "args", args)
	content := []any{o("type", "text", "text", output)}
	ms := 3 + g.R.IntN(200)
	var result, details any = o("content", content, "structuredContent", output), nil
	if mcp {
		details = o("server", "cairn-memory", "tool", strings.TrimPrefix(name, "mcp__cairn_memory__"))
		var sc any
		json.Unmarshal([]byte(output), &sc)
		result = o("content", content, "details", details,
			"structuredContent", o("content", []any{o("text", output, "type", "text")}, "structuredContent", sc))
	}
	g.line("tool_execution_end", "toolCallId", id, "toolName", name, "result", result, "isError", false, "durationMs", ms)
	rec := []any{"role", "toolResult", "toolCallId", id, "toolName", name, "content", content}
	if details != nil {
		rec = append(rec, "details", details)
	}
	m := genkit.Marshal(o(append(rec, "isError", false, "durationMs", ms, "timestamp", g.tick())...))
	g.message(m, m)
	return m
}

func (g *gen) stream(system json.RawMessage) {
	g.line("session", "version", 3, "id", "01a233fc-7f3c-73b9-b387-571f5504059c",
		"timestamp", "2026-12-01T23:41:55.389Z", "cwd", "/tmp/cairn-pi-work")
	g.line("agent_start")
	g.line("turn_start")
	g.message(system, system)
	user := genkit.Marshal(o("role", "user", "content",
		[]any{o("type", "text", "text", "What does the project memory say about the release ledger?")}, "timestamp", g.tick()))
	g.message(user, user)
	for g.fits(12<<10, 40) {
		var calls [][2]any
		var outputs []string
		var mcp []bool
		for range 1 + g.R.IntN(2) {
			switch k := g.CallKind(g.calls == 0); {
			case k < 3:
				calls = append(calls, [2]any{"mcp__cairn_memory__memory_search", o("query", g.Text(20), "scope", "project")})
				outputs = append(outputs, string(genkit.Marshal(genkit.Hit(g.Text(200+g.R.IntN(600))))))
				mcp = append(mcp, true)
			case k < 8:
				calls = append(calls, [2]any{"bash", o("command", "go test ./...")})
				outputs = append(outputs, g.Text(300+g.R.IntN(4000)))
				mcp = append(mcp, false)
			default:
				calls = append(calls, [2]any{"read", o("path", "README.md")})
				outputs = append(outputs, "# demo project\n\nA tiny release ledger.\n")
				mcp = append(mcp, false)
			}
		}
		first := g.calls + 1
		m := g.assistant(g.Text(20+g.R.IntN(80)), calls)
		var results []json.RawMessage
		for i, c := range calls {
			results = append(results, g.tool(fmt.Sprintf("call_%06d", first+i), c[0].(string), c[1], outputs[i], mcp[i]))
		}
		g.line("turn_end", "message", m, "toolResults", results)
		g.line("turn_start")
	}
	m := g.assistant("Done: the release ledger keeps amounts in integer cents.", nil)
	g.line("turn_end", "message", m, "toolResults", []any{})
	g.line("agent_end", "messages", g.messages, "willRetry", false)
	g.line("agent_settled", "aborted", false)
}

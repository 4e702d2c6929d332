// Command gencopilot writes a synthetic but realistic GitHub Copilot CLI
// --output-format json stream for benchmarks, in the shapes the real
// copilot 1.0.102 prints (testdata/copilot/real): the MCP and tool set-up
// records and the prompt, then model turns (turn and model-call records,
// streamed text deltas, the assistant.message with its toolRequests) whose
// calls are memory searches (structured content, contents and the display
// strings), bash with shell output of a few hundred bytes to a few KB and
// view, each with its tool.execution_start and tool.execution_complete,
// and a final result; never above 16 MiB or 50,000 records.
//
//	go run ./scripts/gencopilot > big.jsonl
//	go run ./scripts/gencopilot -size 1048576 > 1mib.jsonl
package main

import (
	"fmt"
	"time"

	"github.com/cairn-audit/cairn/scripts/genkit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

func main() {
	genkit.Main(func(out *genkit.Out) { (&gen{Out: out, t: time.Date(2026, 12, 6, 8, 34, 8, 0, time.UTC)}).stream() })
}

type gen struct {
	*genkit.Out
	t           time.Time
	n, calls    int
	turn        int
	interaction string
}

var o = ordered.O

// id is the n-th event's id, as the CLI's uuids look.
func id(n int) string { return fmt.Sprintf("0ea88f5d-729d-481f-9279-%012x", n) }

// line writes one event: type, data, id, timestamp, parentId (and
// ephemeral), as the CLI orders them.
func (g *gen) line(typ string, ephemeral bool, data ordered.Obj) {
	g.n++
	g.t = g.t.Add(time.Duration(1+g.R.IntN(40)) * time.Millisecond)
	rec := o("type", typ, "data", data, "id", id(g.n), "timestamp", g.t.Format("2006-01-02T15:04:05.000Z"), "parentId", id(g.n-1))
	if ephemeral {
		rec = append(rec, ordered.Member("ephemeral", true))
	}
	g.JSON(rec)
}

// fits reports whether about n more bytes and k more records leave room
// for the closing records.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+4096 <= g.Limit && g.Records+k+8 <= genkit.MaxRecords
}

// call is one requested call: its tool, arguments, and what it returns.
type call struct {
	id, name string
	args     ordered.Obj
	result   ordered.Obj
	shell    string
}

func (g *gen) newCall() call {
	g.calls++
	c := call{id: fmt.Sprintf("call_%06d", g.calls)}
	switch k := g.CallKind(g.calls == 1); {
	case k < 3:
		hit := genkit.Hit(g.Text(200 + g.R.IntN(600)))
		j := genkit.Marshal(hit)
		c.name, c.args = "cairn-memory-memory_search", o("query", g.Text(20), "scope", "project")
		c.result = o("content", string(j), "detailedContent", string(j), "contents", []any{o("type", "text", "text", string(j))}, "structuredContent", hit)
	case k < 8:
		c.shell = g.Text(300 + g.R.IntN(4000))
		c.name, c.args = "bash", o("command", "go test ./...", "description", "Run the tests")
		out := c.shell + "\n<shellId: 0 completed with exit code 0>"
		c.result = o("content", out, "detailedContent", out)
	default:
		c.name, c.args = "view", o("path", "README.md")
		text := g.Text(200 + g.R.IntN(800))
		c.result = o("content", text, "detailedContent", text)
	}
	return c
}

// turn writes one model turn: text, then the calls it asked for, each run.
func (g *gen) modelTurn(calls []call, text string) {
	turn := fmt.Sprint(g.turn)
	g.turn++
	g.line("assistant.turn_start", false, o("turnId", turn, "interactionId", g.interaction))
	g.line("model.call_start", true, o("turnId", turn, "model", "mock-model"))
	msg := fmt.Sprintf("msg-%06d", g.turn)
	if text != "" {
		g.line("assistant.message_start", true, o("messageId", msg))
		for range 1 + g.R.IntN(3) {
			g.line("assistant.message_delta", true, o("messageId", msg, "deltaContent", g.Text(20+g.R.IntN(60))))
		}
	}
	var reqs []any
	for _, c := range calls {
		g.line("assistant.tool_call_delta", true, o("toolCallId", c.id, "toolName", c.name, "toolType", "function", "inputDelta", "{}"))
		reqs = append(reqs, o("toolCallId", c.id, "name", c.name, "arguments", c.args, "type", "function", "intentionSummary", "run"))
	}
	g.line("model.call_finished", true, o("turnId", turn, "dispatchDurationMs", 9, "outcome", "success", "editClassifierVersion", 1,
		"interactionId", g.interaction, "containsBuiltInFileEditRequest", false))
	if reqs == nil {
		reqs = []any{}
	}
	g.line("assistant.message", false, o("messageId", msg, "originatingMessageId", "aac5a89b", "model", "mock-model", "content", text,
		"toolRequests", reqs, "interactionId", g.interaction, "turnId", turn, "rte", false, "apiCallId", "chatcmpl-1"))
	g.line("model.call_final_result", true, o("model", "mock-model", "isByok", true, "result", "success"))
	for _, c := range calls {
		start := o("toolCallId", c.id, "toolName", c.name, "arguments", c.args, "turnId", turn, "model", "mock-model")
		if c.name == "cairn-memory-memory_search" {
			start = append(start, o("toolTitle", "Memory Search", "mcpServerName", "cairn-memory", "mcpConfigServerName", "cairn-memory",
				"mcpTransport", "stdio", "mcpConfigSource", "user", "mcpToolName", "memory_search")...)
		}
		g.line("tool.execution_start", false, start)
		done := o("toolCallId", c.id, "model", "mock-model", "interactionId", g.interaction, "turnId", turn, "rte", false)
		if c.shell != "" {
			g.line("session.background_tasks_changed", true, o())
			g.line("tool.shell_output", true, o("toolCallId", c.id, "stream", "stdout", "text", c.shell, "sequence", 0))
			done = append(done, ordered.Member("shellExecution", o("exitCode", 0)))
		}
		done = append(done, o("success", true, "result", c.result, "toolTelemetry", o("metrics", o("result_token_count", 45)))...)
		g.line("tool.execution_complete", false, done)
	}
	g.line("assistant.turn_end", false, o("turnId", turn))
}

func (g *gen) stream() {
	g.interaction = "0ea88f5d-729d-481f-9279-e1fbf08a1784"
	g.line("session.mcp_server_status_changed", true, o("serverName", "cairn-memory", "status", "pending"))
	g.line("session.mcp_server_status_changed", true, o("serverName", "cairn-memory", "status", "connected", "configSource", "user"))
	g.line("session.mcp_server_tools_loaded", true, o("serverName", "cairn-memory", "toolCount", 3))
	g.line("session.mcp_servers_loaded", true, o("servers", []any{o("name", "cairn-memory", "status", "connected", "serverMetadata", o("instructions", nil))}))
	g.line("session.tools_updated", true, o("model", "mock-model"))
	g.line("user.message", false, o("content", "What does the project memory say about the release ledger?", "messageId", "aac5a89b",
		"interactionId", g.interaction, "turnId", "0"))
	for g.fits(12<<10, 24) {
		calls := []call{g.newCall()}
		if g.R.IntN(4) == 0 {
			calls = append(calls, g.newCall()) // parallel calls in one message
		}
		text := ""
		if g.R.IntN(2) == 0 {
			text = g.Text(40 + g.R.IntN(200))
		}
		g.modelTurn(calls, text)
	}
	g.modelTurn(nil, "Done.")
	g.line("assistant.idle", true, o())
	g.t = g.t.Add(time.Second)
	g.JSON(o("type", "result", "timestamp", g.t.Format("2006-01-02T15:04:05.000Z"), "sessionId", "729a64cc-4f59-4efa-806c-648ce9456127",
		"exitCode", 0, "usage", o("premiumRequests", 0, "totalApiDurationMs", 548, "sessionDurationMs", 5397,
			"codeChanges", o("linesAdded", 0, "linesRemoved", 0, "filesModified", []any{}))))
}

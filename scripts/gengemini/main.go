// Command gengemini writes a synthetic but realistic Gemini CLI
// stream-json stream for benchmarks, in the shapes the real gemini 0.61.0
// prints (testdata/gemini/real): init and the prompt, then update_topic and
// rounds of streamed text deltas and tool calls (memory searches,
// run_shell_command with outputs of a few hundred bytes to a few KB,
// read_file), each with its tool_result, and a final result; never above
// 16 MiB or 50,000 records.
//
//	go run ./scripts/gengemini > big.jsonl
//	go run ./scripts/gengemini -size 1048576 > 1mib.jsonl
package main

import (
	"fmt"
	"time"

	"github.com/cairn-audit/cairn/scripts/genkit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

func main() {
	genkit.Main(func(out *genkit.Out) { (&gen{Out: out, t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}).stream() })
}

type gen struct {
	*genkit.Out
	t     time.Time
	calls int
}

var o = ordered.O

// line writes one record: type, then timestamp, then the members given,
// as the CLI orders them.
func (g *gen) line(typ string, pairs ...any) {
	g.t = g.t.Add(time.Duration(5+g.R.IntN(80)) * time.Millisecond)
	g.JSON(o(append([]any{"type", typ, "timestamp", g.t.Format("2006-01-02T15:04:05.000Z")}, pairs...)...))
}

// fits reports whether about n more bytes and k more records leave room
// for the closing result.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+2048 <= g.Limit && g.Records+k+1 <= genkit.MaxRecords
}

// call writes a tool_use and its tool_result with output.
func (g *gen) call(name string, params any, output string) {
	g.calls++
	id := fmt.Sprintf("%s__call_%06d", name, g.calls)
	g.line("tool_use", "tool_name", name, "tool_id", id, "parameters", params)
	g.line("tool_result", "tool_id", id, "status", "success", "output", output)
}

func (g *gen) stream() {
	g.line("init", "session_id", "910fc91f-b7a8-4e8c-8303-532ea82ebf80", "model", "gemini-2.5-pro")
	g.line("message", "role", "user", "content", "What does the project memory say about the release ledger?")
	g.call("update_topic", o("title", "Release ledger", "strategic_intent", g.Text(60)), "## Topic: **Release ledger**")
	for g.fits(8<<10, 10) {
		for range 1 + g.R.IntN(4) {
			g.line("message", "role", "assistant", "content", g.Text(20+g.R.IntN(60)), "delta", true)
		}
		switch k := g.CallKind(g.calls == 1); {
		case k < 3:
			res := genkit.Marshal(genkit.Hit(g.Text(200 + g.R.IntN(600))))
			g.call("mcp_cairn-memory_memory_search", o("query", g.Text(20), "scope", "project"), string(res))
		case k < 8:
			g.call("run_shell_command", o("command", "go test ./...", "description", "run the tests"), g.Text(300+g.R.IntN(4000)))
		default:
			g.call("read_file", o("file_path", "README.md"), "")
		}
	}
	g.line("message", "role", "assistant", "content", "Done.", "delta", true)
	g.line("result", "status", "success", "stats", o("total_tokens", 6140, "input_tokens", 6000, "output_tokens", 140,
		"cached", 0, "input", 6000, "duration_ms", 560, "tool_calls", g.calls, "models", o()))
}

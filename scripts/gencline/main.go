// Command gencline writes a synthetic but realistic Cline CLI --json
// stream for benchmarks, in the shapes the real cline 3.0.65 prints
// (testdata/cline/real): the main agent's agent_start, then iterations of
// streamed text and tool calls, each call between its tool_call and
// tool_result hooks: memory searches with their MCP result, run_commands
// with its output in content_update chunks and again whole in content_end,
// read_files with a file's content, now and then a spawn_agent whose
// sub-agent reads a file; then agent_end, done and run_result; never above
// 16 MiB or 50,000 records.
//
// Text streams as the CLI prints a provider's token deltas: one
// content_start per delta of a few characters, with the text so far in
// accumulated, then usage and content_end with the whole text. Most texts
// are a sentence or two before a call, some a longer explanation. -delta
// sets the largest delta (the capture kit's mock streams 24 bytes at a
// time); -dense writes short texts in few deltas and small outputs, the
// most records per MiB the CLI's shapes give.
//
//	go run ./scripts/gencline > big.jsonl
//	go run ./scripts/gencline -size 1048576 > 1mib.jsonl
//	go run ./scripts/gencline -dense > dense.jsonl
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/cairn-audit/cairn/scripts/genkit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

func main() {
	delta := flag.Int("delta", 10, "the longest text delta, in bytes")
	dense := flag.Bool("dense", false, "short texts in few deltas, small outputs: the most records per MiB")
	genkit.Main(func(out *genkit.Out) {
		(&gen{Out: out, t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), delta: max(*delta, 1), dense: *dense}).stream()
	})
}

type gen struct {
	*genkit.Out
	t          time.Time
	calls      int
	iterations int
	delta      int
	dense      bool
}

// size is n bytes, or a tenth of them in a dense stream.
func (g *gen) size(n int) int {
	if g.dense {
		return max(n/10, 10)
	}
	return n
}

var o = ordered.O

const (
	mainAgent = "agent_1796545735596_3zbyvb"
	mainTask  = "conv_1796545735976_00m73n3"
)

// line writes one record: ts, then type, then the members given, as the
// CLI orders them.
func (g *gen) line(typ string, pairs ...any) {
	g.t = g.t.Add(time.Duration(1+g.R.IntN(80)) * time.Millisecond)
	g.JSON(o(append([]any{"ts", g.t.Format("2006-01-02T15:04:05.000Z"), "type", typ}, pairs...)...))
}

func (g *gen) event(pairs ...any) { g.line("agent_event", "event", o(pairs...)) }

func (g *gen) hook(name, agent, task string, parent any) {
	g.line("hook_event", "hookEventName", name, "agentId", agent, "taskId", task, "parentAgentId", parent)
}

// fits reports whether about n more bytes and k more records leave room
// for the closing records.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+2048 <= g.Limit && g.Records+k+4 <= genkit.MaxRecords
}

// text streams a text as the CLI does: a content_start per delta, with
// the text so far, then usage and content_end. Most texts are a sentence
// or two; one in eight is a longer explanation.
func (g *gen) text() {
	n := 40 + g.R.IntN(260)
	if g.R.IntN(8) == 0 {
		n = 600 + g.R.IntN(1900)
	}
	if g.dense {
		n = 10 + g.R.IntN(60)
	}
	all := g.Text(n)
	step := g.delta
	if g.dense {
		step = 24
	}
	for at := 0; at < len(all); {
		d := min(len(all)-at, 1+g.R.IntN(step))
		g.event("type", "content_start", "contentType", "text", "text", all[at:at+d], "accumulated", all[:at+d])
		at += d
	}
	g.usage()
	g.event("type", "content_end", "contentType", "text", "text", all)
}

func (g *gen) usage() {
	g.event("type", "usage", "inputTokens", 1200, "outputTokens", 40, "totalInputTokens", 1200*g.iterations,
		"totalOutputTokens", 40*g.iterations, "totalCost", 0)
}

// call writes a tool call of the agent (hooks, content_start, updates,
// content_end).
func (g *gen) call(agent, task string, parent any, name string, input any, updates []string, output any) {
	g.calls++
	id := fmt.Sprintf("call_%06d", g.calls)
	g.hook("tool_call", agent, task, parent)
	g.event("type", "content_start", "contentType", "tool", "toolName", name, "toolCallId", id, "input", input)
	for i, u := range updates {
		g.event("type", "content_update", "contentType", "tool", "toolName", name, "toolCallId", id,
			"update", o("stream", "stdout", "chunk", u, "executionId", "910c146b-06de-4509-806c-c7e576ada357", "detachable", false, "commandIndex", i, "query", "go test ./..."))
	}
	g.hook("tool_result", agent, task, parent)
	g.event("type", "content_end", "contentType", "tool", "toolName", name, "toolCallId", id, "output", output, "durationMs", 20+g.R.IntN(400))
}

func (g *gen) search(agent, task string, parent any) {
	res := genkit.Hit(g.Text(g.size(200 + g.R.IntN(600))))
	text := genkit.Marshal(res)
	g.call(agent, task, parent, "cairn-memory__memory_search", o("query", g.Text(20), "scope", "project"),
		nil, o("content", []any{o("text", string(text), "type", "text")}, "structuredContent", res))
}

func (g *gen) read(agent, task string, parent any) {
	g.call(agent, task, parent, "read_files", o("paths", []string{"README.md"}),
		nil, []any{o("query", "README.md", "result", "1 | "+g.Text(g.size(500+g.R.IntN(5500))), "success", true)})
}

func (g *gen) command() {
	var chunks []string
	all := ""
	for range 1 + g.R.IntN(6) {
		c := g.Text(g.size(80 + g.R.IntN(1400)))
		chunks = append(chunks, c)
		all += c
	}
	g.call(mainAgent, mainTask, nil, "run_commands", o("commands", []string{"go test ./..."}),
		chunks, []any{o("query", "go test ./...", "result", all, "success", true)})
}

// spawn runs a sub-agent that reads a file and answers.
func (g *gen) spawn() {
	g.calls++
	id := fmt.Sprintf("call_%06d", g.calls)
	sub, subTask := fmt.Sprintf("agent_%d_sub", g.calls), fmt.Sprintf("conv_%d_sub", g.calls)
	g.hook("tool_call", mainAgent, mainTask, nil)
	g.event("type", "content_start", "contentType", "tool", "toolName", "spawn_agent", "toolCallId", id,
		"input", o("systemPrompt", g.Text(40), "task", g.Text(60)))
	g.hook("agent_start", sub, subTask, mainAgent)
	g.event("type", "iteration_start", "iteration", 1)
	g.usage()
	g.read(sub, subTask, mainAgent)
	g.event("type", "iteration_end", "iteration", 1, "hadToolCalls", true, "toolCallCount", 1)
	g.event("type", "iteration_start", "iteration", 2)
	g.text()
	g.event("type", "iteration_end", "iteration", 2, "hadToolCalls", false, "toolCallCount", 0)
	g.hook("agent_end", sub, subTask, mainAgent)
	answer := g.Text(80)
	g.event("type", "done", "reason", "completed", "text", answer, "iterations", 2, "usage", o("inputTokens", 2400, "outputTokens", 80, "totalCost", 0))
	g.hook("tool_result", mainAgent, mainTask, nil)
	g.event("type", "content_end", "contentType", "tool", "toolName", "spawn_agent", "toolCallId", id,
		"output", o("text", answer, "iterations", 2, "finishReason", "completed", "usage", o("inputTokens", 2400, "outputTokens", 80)), "durationMs", 2619)
}

func (g *gen) stream() {
	g.hook("agent_start", mainAgent, mainTask, nil)
	for g.fits(64<<10, 600) {
		g.iterations++
		g.event("type", "iteration_start", "iteration", g.iterations)
		g.text()
		switch k := g.CallKind(g.calls == 0); {
		case k < 3:
			g.search(mainAgent, mainTask, nil)
		case k < 7:
			g.command()
		case k < 9:
			g.read(mainAgent, mainTask, nil)
		default:
			g.spawn()
		}
		g.event("type", "iteration_end", "iteration", g.iterations, "hadToolCalls", true, "toolCallCount", 1)
	}
	g.iterations++
	g.event("type", "iteration_start", "iteration", g.iterations)
	g.text()
	g.event("type", "iteration_end", "iteration", g.iterations, "hadToolCalls", false, "toolCallCount", 0)
	g.hook("agent_end", mainAgent, mainTask, nil)
	usage := o("inputTokens", 1200*g.iterations, "outputTokens", 40*g.iterations, "totalCost", 0)
	g.event("type", "done", "reason", "completed", "text", "Done.", "iterations", g.iterations, "usage", usage)
	total := o("inputTokens", 1200*g.iterations, "outputTokens", 40*g.iterations, "cacheReadTokens", 0, "cacheWriteTokens", 0, "totalCost", 0)
	g.line("run_result", "finishReason", "completed", "iterations", g.iterations, "usage", total, "aggregateUsage", total,
		"durationMs", 560000, "text", "Done.", "model", o("id", "mock-model", "provider", "openai-compatible"))
}

// Command genopencode writes a synthetic but realistic OpenCode run for
// benchmarks, in the shapes the real opencode 1.18.33 prints
// (testdata/opencode/real): by default the stdout of `opencode run
// --format json` (step_start, text, tool_use and step_finish records),
// with -export the document `opencode export` prints for the same run
// (the session's info, then each message's info and parts, indented by
// two spaces). Steps hold memory searches, bash calls with outputs of a
// few hundred bytes to a few KB and read calls, one or two a step; never
// above 16 MiB or 50,000 records.
//
//	go run ./scripts/genopencode > big.jsonl
//	go run ./scripts/genopencode -export > big.export.json
//	go run ./scripts/genopencode -size 1048576 > 1mib.jsonl
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/cairn-audit/cairn/scripts/genkit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

const session = "ses_dcbf765dcffeU9QLleLPxT4B1t"

func main() {
	export := flag.Bool("export", false, "write the export document instead of the run's JSONL")
	genkit.Main(func(out *genkit.Out) { (&gen{Out: out, export: *export, ms: 1796169308707}).run() })
}

type gen struct {
	*genkit.Out
	export bool
	ms     int64 // the clock, in Unix milliseconds
	ids    int
	calls  int
	first  bool // a message was written to the export's array
}

var o = ordered.O

func (g *gen) tick() int64 {
	g.ms += int64(3 + g.R.IntN(300))
	return g.ms
}

// id is an OpenCode identifier with prefix: a hex time part and a
// random tail, as prt_23408a0ce001QZDw0lt7KRWMRp.
func (g *gen) id(prefix string) string {
	g.ids++
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	fmt.Fprintf(&b, "%s_%09x%03d", prefix, 0x23408a0ce+g.ids, 1)
	for range 14 {
		b.WriteByte(letters[g.R.IntN(len(letters))])
	}
	return b.String()
}

// indented is v as the export indents it, its lines after the first
// starting with prefix.
func indented(v any, prefix string) []byte {
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// part is one part of a message: its record type in the run's JSONL and
// its members in the export's order.
type part struct {
	record string
	export ordered.Obj
	run    ordered.Obj
}

// message writes one message: in the JSONL each part as its record, in
// the export the message's info and parts.
func (g *gen) message(info ordered.Obj, parts []part) {
	if !g.export {
		for _, p := range parts {
			g.JSON(o("type", p.record, "timestamp", g.tick(), "sessionID", session, "part", p.run))
		}
		return
	}
	var ps []any
	for _, p := range parts {
		ps = append(ps, p.export)
	}
	if g.first {
		g.Write([]byte(",\n    "))
	}
	g.first = true
	g.Write(indented(o("info", info, "parts", ps), "    "))
	g.Records++
}

func tokens(in, out int) ordered.Obj {
	return o("total", in+out, "input", in, "output", out, "reasoning", 0, "cache", o("write", 0, "read", 0))
}

func (g *gen) tail(p ordered.Obj, msg string) ordered.Obj {
	return append(p, ordered.Member("sessionID", session), ordered.Member("messageID", msg))
}

// step writes one assistant message of one step: step-start, the text,
// the calls given ([name, input, output] triples) and step-finish.
func (g *gen) step(parent, text string, calls [][3]any) {
	msg := g.id("msg")
	created := g.tick()
	start := g.id("prt")
	parts := []part{{"step_start", g.tail(o("type", "step-start", "id", start), msg),
		o("id", start, "messageID", msg, "sessionID", session, "type", "step-start")}}
	if text != "" {
		id := g.id("prt")
		t := o("start", g.tick(), "end", g.tick())
		parts = append(parts, part{"text", g.tail(o("type", "text", "text", text, "time", t, "id", id), msg),
			o("id", id, "messageID", msg, "sessionID", session, "type", "text", "text", text, "time", t)})
	}
	for _, c := range calls {
		g.calls++
		name, output := c[0].(string), c[2].(string)
		meta := o("truncated", false)
		title := ""
		if name == "bash" {
			meta = o("output", output, "exit", 0, "truncated", false)
			title = "go test ./..."
		}
		state := o("status", "completed", "input", c[1], "output", output, "metadata", meta, "title", title,
			"time", o("start", g.tick(), "end", g.tick()))
		id := g.id("prt")
		tool := g.tail(o("type", "tool", "tool", name, "callID", fmt.Sprintf("call_%06d", g.calls), "state", state, "id", id), msg)
		parts = append(parts, part{"tool_use", tool, tool})
	}
	reason, tok := "stop", tokens(1200, 47)
	if len(calls) > 0 {
		reason, tok = "tool-calls", tokens(1200, 20)
	}
	fin := g.id("prt")
	parts = append(parts, part{"step_finish",
		g.tail(o("reason", reason, "type", "step-finish", "tokens", tok, "cost", 0, "id", fin), msg),
		o("id", fin, "reason", reason, "messageID", msg, "sessionID", session, "type", "step-finish", "tokens", tok, "cost", 0)})
	info := o("parentID", parent, "role", "assistant", "mode", "build", "agent", "build",
		"path", o("cwd", "/tmp/cairn-opencode-work", "root", "/"), "cost", 0, "tokens", tok,
		"modelID", "mock-model", "providerID", "mock", "time", o("created", created, "completed", g.tick()),
		"finish", reason, "id", msg, "sessionID", session)
	g.message(info, parts)
}

// fits reports whether about n more bytes and k more records leave room
// for the last step and the document's close.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+4096 <= g.Limit && g.Records+k+8 <= genkit.MaxRecords
}

func (g *gen) run() {
	user := g.id("msg")
	if g.export {
		info := o("id", session, "slug", "shiny-tiger", "projectID", "global", "directory", "/tmp/cairn-opencode-work",
			"path", "tmp/cairn-opencode-work", "title", "Release ledger memory", "agent", "build",
			"model", o("id", "mock-model", "providerID", "mock", "variant", "default"), "version", "1.18.33",
			"summary", o("additions", 0, "deletions", 0, "files", 0), "cost", 0, "tokens", tokens(3600, 87),
			"permission", []any{o("permission", "question", "pattern", "*", "action", "deny")},
			"time", o("created", g.ms, "updated", g.ms+1000))
		g.Write([]byte("{\n  \"info\": "))
		g.Write(indented(info, "  "))
		g.Write([]byte(",\n  \"messages\": [\n    "))
		id := g.id("prt")
		g.message(o("role", "user", "time", o("created", g.tick()), "agent", "build",
			"model", o("providerID", "mock", "modelID", "mock-model"), "summary", o("diffs", []any{}), "id", user, "sessionID", session),
			[]part{{export: g.tail(o("type", "text", "text", "What does the project memory say about the release ledger?", "id", id), user)}})
	}
	for g.fits(12<<10, 8) {
		var calls [][3]any
		for range 1 + g.R.IntN(2) {
			switch k := g.CallKind(g.calls == 0); {
			case k < 3:
				res := genkit.Marshal(genkit.Hit(g.Text(200 + g.R.IntN(600))))
				calls = append(calls, [3]any{"cairn-memory_memory_search", o("query", g.Text(20), "scope", "project"), string(res)})
			case k < 8:
				calls = append(calls, [3]any{"bash", o("command", "go test ./...", "description", "Run the tests"), g.Text(300 + g.R.IntN(4000))})
			default:
				calls = append(calls, [3]any{"read", o("filePath", "/tmp/cairn-opencode-work/README.md"),
					"<file>\n00001| # demo project\n</file>"})
			}
		}
		text := ""
		if g.R.IntN(2) == 0 {
			text = g.Text(20 + g.R.IntN(80))
		}
		g.step(user, text, calls)
	}
	g.step(user, "Done: the release ledger keeps amounts in integer cents.", nil)
	if g.export {
		g.Write([]byte("\n  ]\n}\n"))
	}
}

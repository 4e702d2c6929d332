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
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

const (
	maxBytes   = 16 << 20
	maxRecords = 50_000
	session    = "ses_dcbf765dcffeU9QLleLPxT4B1t"
)

func main() {
	size := flag.Int("size", maxBytes-1024, "stop before the output reaches this many bytes")
	seed := flag.Uint64("seed", 1, "random seed")
	export := flag.Bool("export", false, "write the export document instead of the run's JSONL")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	g := &gen{w: w, r: rand.New(rand.NewPCG(*seed, *seed)), limit: min(*size, maxBytes-256),
		export: *export, ms: 1796169308707}
	g.run()
}

type gen struct {
	w       *bufio.Writer
	r       *rand.Rand
	export  bool
	ms      int64 // the clock, in Unix milliseconds
	ids     int
	limit   int
	bytes   int
	records int
	calls   int
	first   bool // a message was written to the export's array
}

var o = ordered.O

func (g *gen) tick() int64 {
	g.ms += int64(3 + g.r.IntN(300))
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
		b.WriteByte(letters[g.r.IntN(len(letters))])
	}
	return b.String()
}

func (g *gen) text(n int) string {
	words := []string{"release", "ledger", "amounts", "integer", "cents", "the", "project", "memory", "test", "build"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[g.r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func (g *gen) write(b []byte) {
	g.w.Write(b)
	g.bytes += len(b)
}

func marshal(v any, indent string) []byte {
	var b []byte
	var err error
	if indent == "" {
		b, err = json.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, indent, "  ")
	}
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
			g.write(marshal(o("type", p.record, "timestamp", g.tick(), "sessionID", session, "part", p.run), ""))
			g.write([]byte{'\n'})
			g.records++
		}
		return
	}
	var ps []any
	for _, p := range parts {
		ps = append(ps, p.export)
	}
	if g.first {
		g.write([]byte(",\n    "))
	}
	g.first = true
	g.write(marshal(o("info", info, "parts", ps), "    "))
	g.records++
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
	return g.bytes+n+4096 <= g.limit && g.records+k+8 <= maxRecords
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
		g.write([]byte("{\n  \"info\": "))
		g.write(marshal(info, "  "))
		g.write([]byte(",\n  \"messages\": [\n    "))
		id := g.id("prt")
		g.message(o("role", "user", "time", o("created", g.tick()), "agent", "build",
			"model", o("providerID", "mock", "modelID", "mock-model"), "summary", o("diffs", []any{}), "id", user, "sessionID", session),
			[]part{{export: g.tail(o("type", "text", "text", "What does the project memory say about the release ledger?", "id", id), user)}})
	}
	for g.fits(12<<10, 8) {
		var calls [][3]any
		for range 1 + g.r.IntN(2) {
			k := g.r.IntN(10)
			if g.calls == 0 {
				k = 0 // the memory search comes first
			}
			switch {
			case k < 3:
				res := marshal(o("mode", "semantic", "count", 1, "results",
					[]any{o("id", "mem_1", "text", g.text(200+g.r.IntN(600)), "score", 0.91)}), "")
				calls = append(calls, [3]any{"cairn-memory_memory_search", o("query", g.text(20), "scope", "project"), string(res)})
			case k < 8:
				calls = append(calls, [3]any{"bash", o("command", "go test ./...", "description", "Run the tests"), g.text(300 + g.r.IntN(4000))})
			default:
				calls = append(calls, [3]any{"read", o("filePath", "/tmp/cairn-opencode-work/README.md"),
					"<file>\n00001| # demo project\n</file>"})
			}
		}
		text := ""
		if g.r.IntN(2) == 0 {
			text = g.text(20 + g.r.IntN(80))
		}
		g.step(user, text, calls)
	}
	g.step(user, "Done: the release ledger keeps amounts in integer cents.", nil)
	if g.export {
		g.write([]byte("\n  ]\n}\n"))
	}
}

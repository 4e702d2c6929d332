// Command gencodex writes a synthetic but realistic codex exec --json
// export for benchmarks: one turn with the item mix of a coding session
// (memory searches, some run in parallel, shell commands with outputs of a
// few hundred bytes to a few KB, file changes, reasoning, messages, a todo
// list), never above 16 MiB or 50,000 records.
//
//	go run ./scripts/gencodex -size 16777000 > big.jsonl
//	go run ./scripts/gencodex -short > short.jsonl   # 50,000 short records
//	go run ./scripts/gencodex -short -records 1000 > 1k.jsonl
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/cairn-audit/cairn/scripts/genkit"
)

func main() {
	short := flag.Bool("short", false, "write 50,000 short records (the record bound is hit first)")
	records := flag.Int("records", genkit.MaxRecords, "with -short, write this many records")
	genkit.Main(func(out *genkit.Out) {
		g := &gen{Out: out}
		if *short {
			g.shortExport(min(max(*records, 6), genkit.MaxRecords))
		} else {
			g.export()
		}
	})
}

type gen struct {
	*genkit.Out
	items int
}

func (g *gen) line(s string) { g.Line([]byte(s)) }

// fits reports whether n more bytes and k more records leave room for the
// closing records.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+400 <= g.Limit && g.Records+k+2 <= genkit.MaxRecords
}

func (g *gen) id() string {
	s := fmt.Sprintf("item_%d", g.items)
	g.items++
	return s
}

const words = "the cache retry policy handler cursor ledger release token refresh billing webhook migration deploy config flag endpoint test build error request response"

func (g *gen) text(n int) string {
	ws := strings.Fields(words)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(ws[g.R.IntN(len(ws))])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

// output is shell output: lines with tabs, escaped as codex escapes them.
func (g *gen) output(n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, `internal/httpapi/list.go:%d:\t%s\n`, g.R.IntN(400), g.text(40+g.R.IntN(60)))
	}
	return b.String()
}

// search returns the started and completed records of one memory search.
func (g *gen) search(id string) (started, completed string) {
	q := g.text(12 + g.R.IntN(20))
	head := fmt.Sprintf(`{"id":"%s","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"%s","mode":"substring","limit":10},`, id, q)
	started = `{"type":"item.started","item":` + head + `"result":null,"error":null,"status":"in_progress"}}`
	snippet := g.text(60 + g.R.IntN(120))
	res := fmt.Sprintf(`{"mode":"substring","count":1,"results":[{"id":"mem_%06x","title":"%s","snippet":"%s"}]}`, g.R.IntN(1<<24), g.text(20), snippet)
	quoted := strings.ReplaceAll(res, `"`, `\"`)
	completed = `{"type":"item.completed","item":` + head + `"result":{"content":[{"type":"text","text":"` + quoted + `"}],"structured_content":` + res + `},"error":null,"status":"completed"}}`
	return started, completed
}

// command returns the started and completed records of a shell command.
func (g *gen) command(id string) (started, completed string) {
	cmd := fmt.Sprintf(`/bin/bash -lc 'rg -n \"%s\" internal'`, g.text(10))
	started = fmt.Sprintf(`{"type":"item.started","item":{"id":"%s","type":"command_execution","command":"%s","aggregated_output":"","exit_code":null,"status":"in_progress"}}`, id, cmd)
	out := g.output(200 + g.R.IntN(3800))
	completed = fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"command_execution","command":"%s","aggregated_output":"%s","exit_code":0,"status":"completed"}}`, id, cmd, out)
	return started, completed
}

func (g *gen) fileChange(id, status string) string {
	return fmt.Sprintf(`{"type":"item.%s","item":{"id":"%s","type":"file_change","changes":[{"path":"/home/dev/acme-api/internal/httpapi/list.go","kind":"update"}],"status":"%s"}}`,
		map[string]string{"in_progress": "started", "completed": "completed"}[status], id, status)
}

func (g *gen) export() {
	g.line(`{"type":"thread.started","thread_id":"019e6a31-1f4a-7b86-a5e3-28c9d6f07b41"}`)
	g.line(`{"type":"turn.started"}`)
	todo := g.id()
	g.line(fmt.Sprintf(`{"type":"item.started","item":{"id":"%s","type":"todo_list","items":[{"text":"search project memory","completed":false},{"text":"fix the handler","completed":false}]}}`, todo))
	for {
		var lines []string
		switch k := g.R.IntN(100); {
		case k < 15: // a memory search
			s, c := g.search(g.id())
			lines = []string{s, c}
		case k < 20: // two searches in parallel, completing out of order
			s1, c1 := g.search(g.id())
			s2, c2 := g.search(g.id())
			lines = []string{s1, s2, c2, c1}
		case k < 55:
			s, c := g.command(g.id())
			lines = []string{s, c}
		case k < 65:
			id := g.id()
			lines = []string{g.fileChange(id, "in_progress"), g.fileChange(id, "completed")}
		case k < 85:
			lines = []string{fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"reasoning","text":"**%s**\n\n%s"}}`, g.id(), g.text(30), g.text(100+g.R.IntN(400)))}
		case k < 95:
			lines = []string{fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"agent_message","text":"%s"}}`, g.id(), g.text(80+g.R.IntN(600)))}
		default:
			lines = []string{fmt.Sprintf(`{"type":"item.updated","item":{"id":"%s","type":"todo_list","items":[{"text":"search project memory","completed":true},{"text":"fix the handler","completed":false}]}}`, todo)}
		}
		n := 0
		for _, l := range lines {
			n += len(l) + 1
		}
		if !g.fits(n, len(lines)) {
			break
		}
		for _, l := range lines {
			g.line(l)
		}
	}
	g.line(fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"todo_list","items":[{"text":"search project memory","completed":true},{"text":"fix the handler","completed":true}]}}`, todo))
	g.line(`{"type":"turn.completed","usage":{"input_tokens":86412,"cached_input_tokens":71680,"output_tokens":2187,"reasoning_output_tokens":1344}}`)
}

// shortExport writes n records of a few dozen bytes (n = 50,000: the
// record bound, not the byte bound, is reached first).
func (g *gen) shortExport(n int) {
	g.line(`{"type":"thread.started","thread_id":"t"}`)
	g.line(`{"type":"turn.started"}`)
	s, c := g.search(g.id())
	g.line(s)
	g.line(c)
	for g.Records < n-1 {
		switch g.R.IntN(3) {
		case 0:
			g.line(fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"reasoning","text":"r"}}`, g.id()))
		case 1:
			g.line(fmt.Sprintf(`{"type":"item.completed","item":{"id":"%s","type":"agent_message","text":"m"}}`, g.id()))
		default:
			g.line(`{"type":"error","message":"Reconnecting... 2/5"}`)
		}
	}
	g.line(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}`)
}

// Command genclaude writes a synthetic but realistic Claude Code
// stream-json stream for benchmarks, in the shapes the real claude 2.1.332
// prints (testdata/claude/real): one init, then rounds of a text block,
// tool calls (memory searches, Bash with outputs of a few hundred bytes to
// a few KB, Read) each with its tool_result record, and a final result;
// never above 16 MiB or 50,000 records.
//
//	go run ./scripts/genclaude > big.jsonl
//	go run ./scripts/genclaude -size 1048576 > 1mib.jsonl
package main

import (
	"fmt"

	"github.com/cairn-audit/cairn/scripts/genkit"
)

func main() { genkit.Main(func(out *genkit.Out) { (&gen{Out: out}).stream() }) }

type gen struct{ *genkit.Out }

type obj = map[string]any

const session = "15b963dc-f998-4c5b-955d-db5adff08b7d"

func (g *gen) assistant(msg int, block obj) {
	g.JSON(obj{"type": "assistant", "message": obj{"id": fmt.Sprintf("msg_01Mock%06d", msg), "type": "message",
		"role": "assistant", "model": "claude-opus-5-5", "content": []any{block}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1,
			"service_tier": "standard"}, "context_management": nil},
		"parent_tool_use_id": nil, "session_id": session, "uuid": g.UUID(), "timestamp": "2026-12-01T08:15:40.199Z",
		"request_id": fmt.Sprintf("req_01Mock%06d", msg)})
}

func (g *gen) result(id string, content any, toolUseResult any) {
	rec := obj{"type": "user", "message": obj{"role": "user", "content": []any{obj{"tool_use_id": id, "type": "tool_result", "content": content}}},
		"parent_tool_use_id": nil, "session_id": session, "uuid": g.UUID(), "timestamp": "2026-12-01T08:15:40.228Z"}
	if toolUseResult != nil {
		rec["tool_use_result"] = toolUseResult
	}
	rec["tool_result_meta"] = []any{obj{"id": id, "permission_decision": obj{"decision": "accept", "source": "config", "reason_type": "rule"}}}
	g.JSON(rec)
}

// fits reports whether about n more bytes and k more records leave room
// for the closing result.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+2048 <= g.Limit && g.Records+k+1 <= genkit.MaxRecords
}

func (g *gen) stream() {
	g.JSON(obj{"type": "system", "subtype": "init", "cwd": "/tmp/cairn-claude-work", "session_id": session,
		"tools":       []string{"Task", "Bash", "Read", "ToolSearch", "mcp__cairn-memory__memory_search"},
		"mcp_servers": []any{obj{"name": "cairn-memory", "status": "connected", "source": "dynamic"}},
		"model":       "claude-opus-5-5", "permissionMode": "default", "claude_code_version": "2.1.332", "uuid": g.UUID()})
	msg := 0
	for g.fits(8<<10, 8) {
		msg++
		g.assistant(msg, obj{"type": "text", "text": g.Text(40 + g.R.IntN(200))})
		id := fmt.Sprintf("toolu_01Call%06d", msg) // a call a turn
		switch k := g.R.IntN(10); {
		case k < 3:
			g.assistant(msg, obj{"type": "tool_use", "id": id, "name": "mcp__cairn-memory__memory_search",
				"input": obj{"query": g.Text(20), "scope": "project"}})
			res := obj{"mode": "semantic", "count": 1, "results": []any{obj{"id": "mem_1", "text": g.Text(200 + g.R.IntN(600)), "score": 0.91}}}
			b := genkit.Marshal(res)
			g.result(id, string(b), obj{"content": string(b), "structuredContent": res})
		case k < 8:
			g.assistant(msg, obj{"type": "tool_use", "id": id, "name": "Bash", "input": obj{"command": "go test ./...", "description": "run the tests"}})
			out := g.Text(300 + g.R.IntN(4000))
			g.result(id, out, obj{"stdout": out, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
		default:
			g.assistant(msg, obj{"type": "tool_use", "id": id, "name": "Read", "input": obj{"file_path": "/tmp/cairn-claude-work/README.md"}})
			body := g.Text(500 + g.R.IntN(3000))
			g.result(id, body, obj{"type": "text", "file": obj{"filePath": "/tmp/cairn-claude-work/README.md", "content": body, "numLines": 40, "startLine": 1, "totalLines": 40}})
		}
	}
	msg++
	g.assistant(msg, obj{"type": "text", "text": "Done."})
	g.JSON(obj{"duration_api_ms": 139, "stop_reason": "end_turn", "session_id": session, "is_error": false, "num_turns": msg,
		"subtype": "success", "result": "Done.", "type": "result", "terminal_reason": "completed", "uuid": g.UUID()})
}

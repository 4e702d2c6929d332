// Command genqwen writes a synthetic but realistic Qwen Code stream-json
// stream for benchmarks, in the shapes the real qwen 0.24.4 prints
// (testdata/qwen/real): one init and its goal_state stream_event, then
// rounds of a text record and a tool call record (memory searches, direct
// or through the tool_call bridge, run_shell_command with outputs of a few
// hundred bytes to a few KB, read_file) each with its tool_result record,
// and a final result; never above 16 MiB or 50,000 records.
//
//	go run ./scripts/genqwen > big.jsonl
//	go run ./scripts/genqwen -size 1048576 > 1mib.jsonl
package main

import (
	"fmt"

	"github.com/cairn-audit/cairn/scripts/genkit"
)

func main() { genkit.Main(func(out *genkit.Out) { (&gen{Out: out}).stream() }) }

type gen struct{ *genkit.Out }

type obj = map[string]any

const session = "bfb3ed7d-267d-4fa2-a109-ede63e8d2fe2"

// assistant is one assistant record holding one block, as qwen prints
// every block.
func (g *gen) assistant(block obj, stop any) {
	id := g.UUID()
	g.JSON(obj{"type": "assistant", "uuid": id, "session_id": session, "parent_tool_use_id": nil,
		"message": obj{"id": id, "type": "message", "role": "assistant", "model": "mock-model", "content": []any{block},
			"stop_reason": stop, "usage": obj{"input_tokens": 1200, "output_tokens": 48, "cache_read_input_tokens": 0, "total_tokens": 1248}}})
}

func (g *gen) result(id, content string) {
	g.JSON(obj{"type": "user", "uuid": g.UUID(), "session_id": session, "parent_tool_use_id": nil,
		"message": obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "is_error": false, "content": content}}}})
}

// fits reports whether about n more bytes and k more records leave room
// for the closing result.
func (g *gen) fits(n, k int) bool {
	return g.Bytes+n+2048 <= g.Limit && g.Records+k+1 <= genkit.MaxRecords
}

func (g *gen) stream() {
	g.JSON(obj{"type": "system", "subtype": "init", "uuid": session, "session_id": session, "cwd": "/tmp/cairn-qwen-work",
		"tools":       []string{"tool_call", "tool_search", "agent", "read_file", "run_shell_command", "mcp__cairn-memory__memory_search"},
		"mcp_servers": []any{obj{"name": "cairn-memory", "status": "connected"}},
		"model":       "mock-model", "permission_mode": "yolo", "slash_commands": []string{"init", "memory"},
		"qwen_code_version": "0.24.4", "agents": []string{"general-purpose"}})
	g.JSON(obj{"type": "stream_event", "uuid": g.UUID(), "session_id": session, "parent_tool_use_id": nil,
		"event": obj{"type": "goal_state", "goal_state": obj{"v": 2, "goal": nil, "activity": "idle"}}})
	turns := 0
	for g.fits(8<<10, 4) {
		turns++
		g.assistant(obj{"type": "text", "text": g.Text(40 + g.R.IntN(200))}, nil)
		id := fmt.Sprintf("call_%06d", turns) // a call a turn
		switch k := g.R.IntN(10); {
		case k < 3:
			args := obj{"query": g.Text(20), "scope": "project"}
			if k == 0 {
				g.assistant(obj{"type": "tool_use", "id": id, "name": "tool_call",
					"input": obj{"name": "mcp__cairn-memory__memory_search", "arguments": args}}, "tool_use")
			} else {
				g.assistant(obj{"type": "tool_use", "id": id, "name": "mcp__cairn-memory__memory_search", "input": args}, "tool_use")
			}
			res := obj{"mode": "semantic", "count": 1, "results": []any{obj{"id": "mem_1", "text": g.Text(200 + g.R.IntN(600)), "score": 0.91}}}
			b := genkit.Marshal(res)
			g.result(id, string(b)+"\n"+g.Text(100))
		case k < 8:
			g.assistant(obj{"type": "tool_use", "id": id, "name": "run_shell_command", "input": obj{"command": "go test ./...", "description": "run the tests"}}, "tool_use")
			g.result(id, g.Text(300+g.R.IntN(4000)))
		default:
			g.assistant(obj{"type": "tool_use", "id": id, "name": "read_file", "input": obj{"file_path": "/tmp/cairn-qwen-work/README.md"}}, "tool_use")
			g.result(id, g.Text(500+g.R.IntN(3000)))
		}
	}
	g.assistant(obj{"type": "text", "text": "Done."}, nil)
	g.JSON(obj{"type": "result", "subtype": "success", "uuid": g.UUID(), "session_id": session, "is_error": false,
		"duration_ms": 7894, "duration_api_ms": 4966, "num_turns": turns, "result": "Done.",
		"usage": obj{"input_tokens": 2400, "output_tokens": 83, "cache_read_input_tokens": 0, "total_tokens": 2483}, "permission_denials": []any{}})
}

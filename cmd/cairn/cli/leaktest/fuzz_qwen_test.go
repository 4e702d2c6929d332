//go:build !wasip1

package leaktest

import (
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// FuzzAuditQwen is FuzzAuditGemini for --qwen-jsonl (SPEC §18), seeded
// from the real Qwen Code captures and qwen_stream.txtar, with Qwen Code's
// own turns: a bridged call whose target becomes a delete, a tool_search
// that becomes a call, a background task naming another call, an
// [API Error: …] text, and a record of two block types.
func FuzzAuditQwen(f *testing.F) {
	rowFuzz{flag: "--qwen-jsonl", format: audit.FormatQwen, seeds: fzRowSeeds(f, "qwen", "0.24.4"),
		again: firstAgain, // init twice
		swaps: []string{
			`"mcp__cairn-memory__memory_search"`, `"mcp__cairn-memory__memory_delete"`,
			`"tool_search"`, `"tool_call"`,
			`"subtype":"init"`, `"subtype":"task_started"`,
			`"text":"`, `"text":"[API Error: `,
			`"content":[{"type":"tool_use"`, `"content":[{"type":"text","text":"x"},{"type":"tool_use"`,
		}}.run(f)
}

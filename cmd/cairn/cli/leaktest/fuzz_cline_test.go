//go:build !wasip1

package leaktest

import (
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// FuzzAuditCline is FuzzAuditGemini for --cline-jsonl (SPEC §19), seeded
// from the real Cline CLI captures of the newest version and
// cline_stream.txtar, with variants that nest agents, turn a search into a
// delete, end a run early and rename record and event types: no panic, the
// exit code agrees with the report, every where is one of the format's
// places, and no piece of the input reaches stdout or stderr.
func FuzzAuditCline(f *testing.F) {
	rowFuzz{flag: "--cline-jsonl", format: audit.FormatCline,
		seeds: append(fzRowSeeds(f, "cline", "3.0.65"), fzSeeds(f, "", "cline_subagents.txtar", ".jsonl")...),
		again: firstAgain, // the main agent twice
		swaps: []string{
			`"parentAgentId":null`, `"parentAgentId":"MARKERparent1"`,
			`"read_files"`, `"spawn_agent"`,
			`"cairn-memory__memory_search"`, `"cairn-memory__memory_delete"`,
			`"contentType":"text"`, `"contentType":"tool"`,
			`"content_end"`, `"MARKERevent1"`,
			`"completed"`, `"MARKERreason1"`,
		}}.run(f)
}

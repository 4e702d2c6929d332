//go:build !wasip1

package leaktest

import (
	"bytes"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// FuzzAuditQwen is FuzzAuditGemini for --qwen-jsonl (SPEC §18), seeded
// from the real Qwen Code captures and qwen_stream.txtar, with Qwen Code's
// own turns: a bridged call whose target becomes a delete, a tool_search
// that becomes a call, a background task naming another call, an
// [API Error: …] text, and a record of two block types.
func FuzzAuditQwen(f *testing.F) {
	seeds := fzRowSeeds(f, "qwen", "0.24.4")
	vocab := fzRowVocabulary(audit.FormatQwen, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                 // cut short
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // init twice
		f.Add(bytes.ReplaceAll(b, []byte(`"mcp__cairn-memory__memory_search"`), []byte(`"mcp__cairn-memory__memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"tool_search"`), []byte(`"tool_call"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"subtype":"init"`), []byte(`"subtype":"task_started"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"text":"`), []byte(`"text":"[API Error: `)))
		f.Add(bytes.ReplaceAll(b, []byte(`"content":[{"type":"tool_use"`), []byte(`"content":[{"type":"text","text":"x"},{"type":"tool_use"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--qwen-jsonl", audit.FormatQwen, in) })
}

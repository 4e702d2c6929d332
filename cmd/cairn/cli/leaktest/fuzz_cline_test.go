//go:build !wasip1

package leaktest

import (
	"bytes"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// FuzzAuditCline is FuzzAuditGemini for --cline-jsonl (SPEC §19), seeded
// from the real Cline CLI captures of the newest version and
// cline_stream.txtar, with variants that nest agents, turn a search into a
// delete, end a run early and rename record and event types: no panic, the
// exit code agrees with the report, every where is one of the format's
// places, and no piece of the input reaches stdout or stderr.
func FuzzAuditCline(f *testing.F) {
	seeds := append(fzRowSeeds(f, "cline", "3.0.65"), fzSeeds(f, "", "cline_subagents.txtar", ".jsonl")...)
	vocab := fzRowVocabulary(audit.FormatCline, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                 // cut short
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // the main agent twice
		f.Add(bytes.ReplaceAll(b, []byte(`"parentAgentId":null`), []byte(`"parentAgentId":"MARKERparent1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"read_files"`), []byte(`"spawn_agent"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"cairn-memory__memory_search"`), []byte(`"cairn-memory__memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"contentType":"text"`), []byte(`"contentType":"tool"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"content_end"`), []byte(`"MARKERevent1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"completed"`), []byte(`"MARKERreason1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--cline-jsonl", audit.FormatCline, in) })
}

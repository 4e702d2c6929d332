//go:build !wasip1

package leaktest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// FuzzAuditGemini is FuzzAuditClaude for --gemini-jsonl (SPEC §11), seeded
// from the real Gemini CLI captures and gemini_stream.txtar: no panic, the
// exit code agrees with the report, every where is one of the format's
// places, and no piece of the input reaches stdout or stderr.
func FuzzAuditGemini(f *testing.F) {
	seeds := fzRowSeeds(f, "gemini", "0.61.0")
	vocab := fzRowVocabulary(audit.FormatGemini, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                 // cut short
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // init twice
		f.Add(bytes.ReplaceAll(b, []byte(`"update_topic"`), []byte(`"mcp_cairn-memory_memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"success"`), []byte(`"MARKERstatus1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"tool_result"`), []byte(`"MARKERrecord1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--gemini-jsonl", audit.FormatGemini, in) })
}

// FuzzAuditPi is FuzzAuditGemini for --pi-jsonl (SPEC §12).
func FuzzAuditPi(f *testing.F) {
	seeds := fzRowSeeds(f, "pi", "1.6.0")
	vocab := fzRowVocabulary(audit.FormatPi, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                 // cut short
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // session twice
		f.Add(bytes.ReplaceAll(b, []byte(`"codemode"`), []byte(`"mcp__cairn_memory__memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"toolCall"`), []byte(`"MARKERblock1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"parentToolCallId"`), []byte(`"MARKERmember1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--pi-jsonl", audit.FormatPi, in) })
}

// FuzzAuditCopilot is FuzzAuditGemini for --copilot-jsonl (SPEC §17),
// seeded from the real 1.0.102 captures and copilot_stream.txtar.
func FuzzAuditCopilot(f *testing.F) {
	seeds := fzRowSeeds(f, "copilot", "1.0.102")
	vocab := fzRowVocabulary(audit.FormatCopilot, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                            // cut short
		f.Add(bytes.Join(append(lines[:len(lines):len(lines)], lines...), nil)) // run twice
		f.Add(bytes.ReplaceAll(b, []byte(`"task"`), []byte(`"cairn-memory-memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"success":true`), []byte(`"success":false`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"abort"`), []byte(`"MARKERrecord1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"parentToolCallId"`), []byte(`"MARKERmember1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--copilot-jsonl", audit.FormatCopilot, in) })
}

// fzRowSeeds are the real captures of one version of a harness's folder
// (testdata/NAME/real/VERSION: the newest, since the seed run is part of
// every go test; a fuzzing run finds the others' shapes from them) and the
// streams of testdata/script/NAME_stream.txtar.
func fzRowSeeds(tb testing.TB, name, version string) [][]byte {
	tb.Helper()
	return fzSeeds(tb, "../../../../testdata/"+name+"/real/"+version+"/*.jsonl", name+"_stream.txtar", ".jsonl")
}

// fzSeeds are the files matching pattern and the files of
// testdata/script/SCRIPT whose names end in ext.
func fzSeeds(tb testing.TB, pattern, script, ext string) [][]byte {
	tb.Helper()
	paths, _ := filepath.Glob(pattern)
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	a, err := txtar.ParseFile("../../../../testdata/script/" + script)
	if err != nil {
		tb.Fatal(err)
	}
	for _, file := range a.Files {
		if strings.HasSuffix(file.Name, ext) {
			out = append(out, file.Data)
		}
	}
	return out
}

// FuzzAuditOpenCode is FuzzAuditGemini for --opencode-jsonl (SPEC §13).
func FuzzAuditOpenCode(f *testing.F) {
	seeds := fzRowSeeds(f, "opencode", "1.18.33")
	vocab := fzRowVocabulary(audit.FormatOpenCode, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil)) // cut short
		f.Add(bytes.ReplaceAll(b, []byte(`"stop"`), []byte(`"MARKERreason1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"completed"`), []byte(`"running"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"bash"`), []byte(`"invalid"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--opencode-jsonl", audit.FormatOpenCode, in) })
}

// FuzzAuditOpenCodeExport is FuzzAuditGemini for --opencode-export (SPEC
// §13): one JSON document, read one message at a time, seeded from the
// real 1.18.33 exports and opencode_export.txtar.
func FuzzAuditOpenCodeExport(f *testing.F) {
	seeds := fzSeeds(f, "../../../../testdata/opencode/real/1.18.33/*.export.json", "opencode_export.txtar", ".json")
	vocab := fzRowVocabulary(audit.FormatOpenCodeEx, seeds)
	for _, b := range seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		f.Add(b[:len(b)/2]) // cut short
		var compact bytes.Buffer
		if json.Compact(&compact, b) == nil {
			f.Add(compact.Bytes()) // one line, as a script might keep it
		}
		f.Add(bytes.ReplaceAll(b, []byte(`"stop"`), []byte(`"MARKERfinish1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"completed"`), []byte(`"running"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"bash"`), []byte(`"invalid"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"parts"`), []byte(`"MARKERmember1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`": "`), []byte(`": "MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzAuditInput(t, vocab, "--opencode-export", audit.FormatOpenCodeEx, in)
	})
}

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
	rowFuzz{flag: "--gemini-jsonl", format: audit.FormatGemini, seeds: fzRowSeeds(f, "gemini", "0.61.0"),
		again: firstAgain, // init twice
		swaps: []string{
			`"update_topic"`, `"mcp_cairn-memory_memory_delete"`,
			`"success"`, `"MARKERstatus1"`,
			`"tool_result"`, `"MARKERrecord1"`,
		}}.run(f)
}

// FuzzAuditPi is FuzzAuditGemini for --pi-jsonl (SPEC §12).
func FuzzAuditPi(f *testing.F) {
	rowFuzz{flag: "--pi-jsonl", format: audit.FormatPi, seeds: fzRowSeeds(f, "pi", "1.6.0"),
		again: firstAgain, // session twice
		swaps: []string{
			`"codemode"`, `"mcp__cairn_memory__memory_delete"`,
			`"toolCall"`, `"MARKERblock1"`,
			`"parentToolCallId"`, `"MARKERmember1"`,
		}}.run(f)
}

// FuzzAuditCopilot is FuzzAuditGemini for --copilot-jsonl (SPEC §17),
// seeded from the real 1.0.102 captures and copilot_stream.txtar.
func FuzzAuditCopilot(f *testing.F) {
	rowFuzz{flag: "--copilot-jsonl", format: audit.FormatCopilot, seeds: fzRowSeeds(f, "copilot", "1.0.102"),
		again: allAgain, // run twice
		swaps: []string{
			`"task"`, `"cairn-memory-memory_delete"`,
			`"success":true`, `"success":false`,
			`"abort"`, `"MARKERrecord1"`,
			`"parentToolCallId"`, `"MARKERmember1"`,
		}}.run(f)
}

// rowFuzz is a CLI-level fuzz target of a JSONL format, with
// FuzzAuditClaude's properties (fuzzAuditInput): its flag and format, its
// seeds, and the inputs made from each: cut short, with lines again (again,
// when set), with each of swaps' replacements (pairs: old, new), and with
// a marker in every string; then extra.
type rowFuzz struct {
	flag, format string
	seeds        [][]byte
	again        func(lines [][]byte) [][]byte
	swaps        []string
	extra        [][]byte
}

// firstAgain is a stream's lines with its first line twice: its init,
// session or main agent twice.
func firstAgain(lines [][]byte) [][]byte { return append([][]byte{lines[0]}, lines...) }

// allAgain is a stream's lines twice over: the whole run twice.
func allAgain(lines [][]byte) [][]byte { return append(lines[:len(lines):len(lines)], lines...) }

func (r rowFuzz) run(f *testing.F) {
	vocab := fzRowVocabulary(r.format, r.seeds)
	for _, b := range r.seeds {
		f.Add(b)
		if clitest.Race {
			continue // the seed run under the race detector: the seeds alone
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil)) // cut short
		if r.again != nil {
			f.Add(bytes.Join(r.again(lines), nil))
		}
		for i := 0; i+1 < len(r.swaps); i += 2 {
			f.Add(bytes.ReplaceAll(b, []byte(r.swaps[i]), []byte(r.swaps[i+1])))
		}
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	for _, b := range r.extra {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, r.flag, r.format, in) })
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
	rowFuzz{flag: "--opencode-jsonl", format: audit.FormatOpenCode, seeds: fzRowSeeds(f, "opencode", "1.18.33"),
		swaps: []string{
			`"stop"`, `"MARKERreason1"`,
			`"completed"`, `"running"`,
			`"bash"`, `"invalid"`,
		}}.run(f)
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

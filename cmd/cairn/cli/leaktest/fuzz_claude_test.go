//go:build !wasip1

package leaktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

// FuzzAuditClaude is FuzzAudit for --claude-jsonl (SPEC §9): arbitrary
// bytes, as a Claude Code stream-json stream on standard input, through
// run() with and without --json. Properties: no panic; the exit code is 0–3
// and agrees with the report's status; the JSON report is one object on one
// line with every member, harness claude-code, the input's size and digest
// when it was read whole; an invalid status carries an invalid code of SPEC
// §8; every where of the findings and of the error is one of
// normalize.ClaudePlaces(); the human report agrees; and no piece of the
// input made of 8 or more letters and digits reaches stdout or stderr,
// unless the report's own vocabulary holds it.
func FuzzAuditClaude(f *testing.F) {
	// The newest captures only: the seed run is part of every go test.
	rowFuzz{flag: "--claude-jsonl", format: audit.FormatClaude, seeds: fzClaudeSeeds(f, "2.1.332"),
		again: firstAgain, // init twice
		swaps: []string{
			`"result"`, `"MARKERrecord1"`,
			`"ToolSearch"`, `"mcp__cairn-memory__memory_delete"`,
			`"cairn-memory"`, `"MARKERserver9"`,
		},
		extra: [][]byte{[]byte("\xef\xbb\xbf{}")}}.run(f)
}

// fzClaudeSeeds are the real Claude Code captures of version ("*": every
// version) and the streams of testdata/script/claude_stream.txtar.
func fzClaudeSeeds(tb testing.TB, version string) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob("../../../../testdata/claude/real/" + version + "/*.jsonl")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no real Claude captures (%v)", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	for _, c := range claudeScriptCases(tb) {
		out = append(out, c.data)
	}
	return out
}

// claudeCase is one stream of claude_stream.txtar.
type claudeCase struct {
	name string
	data []byte
}

func claudeScriptCases(tb testing.TB) []claudeCase {
	tb.Helper()
	a, err := txtar.ParseFile("../../../../testdata/script/claude_stream.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	var out []claudeCase
	for _, file := range a.Files {
		if strings.HasSuffix(file.Name, ".jsonl") {
			out = append(out, claudeCase{file.Name, file.Data})
		}
	}
	if len(out) == 0 {
		tb.Fatal("no streams in claude_stream.txtar")
	}
	return out
}

// fzRowVocabulary is fzVocabulary for a JSONL format of the table: its
// harness, its places, the code texts and what cairn prints on seeds.
func fzRowVocabulary(format string, seeds [][]byte) string {
	row, _ := protocol.FormatNamed(format)
	var b strings.Builder
	b.WriteString(row.Harness + "\n")
	b.WriteString(strings.Join(row.Places(), "\n") + "\n")
	for _, c := range audit.Codes() {
		b.WriteString(c.String() + "\n" + c.Meaning() + "\n" + c.Next() + "\n")
	}
	for _, in := range append(seeds, nil) {
		for _, args := range [][]string{
			{"eval", "protocol", "--" + format, "-", "--json"},
			{"eval", "protocol", "--" + format, "-", "--capture-authorized"},
		} {
			_, stdout, stderr := privRun(args, in)
			b.Write(stdout)
			b.Write(stderr)
		}
	}
	return b.String()
}

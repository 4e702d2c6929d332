package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBashCompletionInBash sources the generated script in a real bash
// (skipped where there is none) and asks its completion function what it
// offers: paths one per name (a name with spaces whole), eval batch's
// formats and paths, commands and flags from the grammar.
func TestBashCompletionInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	dir := t.TempDir()
	_, script, _ := runCapture([]string{"completion", "bash"}, nil)
	if err := os.WriteFile(filepath.Join(dir, "c.bash"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "w")
	for _, d := range []string{"dir with space", "testdata"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "a file.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		words string // the command line, the word completed last
		want  []string
	}{
		{`cairn eval protocol --codex-jsonl ""`, []string{"a file.jsonl", "dir with space", "testdata"}},
		{`cairn eval protocol --claude-jsonl "a"`, []string{"a file.jsonl"}},
		{`cairn eval batch --format c`, []string{"claude-jsonl", "codex-jsonl"}},
		{`cairn eval batch --format codex-jsonl "t"`, []string{"testdata"}},
		{`cairn eval batch --js`, []string{"--json"}},
		{`cairn eval pro`, []string{"protocol"}},
		{`cairn explain turn_f`, []string{"turn_failed"}},
		{`cairn completion z`, []string{"zsh"}},
	} {
		n := len(strings.Fields(strings.ReplaceAll(tc.words, `""`, "x"))) - 1
		prog := `source ../c.bash; COMP_WORDS=(` + tc.words + `); COMP_CWORD=` + strconv.Itoa(n) +
			`; _cairn 2>/dev/null; printf '%s\n' "${COMPREPLY[@]}" | sort`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = work
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: bash: %v", tc.words, err)
		}
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: bash offers %q, want %q", tc.words, got, tc.want)
		}
	}
}

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
// offers: eval batch's formats, commands and flags from the grammar, and,
// where a path goes, no word at all, which complete -o default turns into
// readline's own file names (TestCompletionInteractiveBash and
// ...OddNames type them).
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
		{`cairn eval protocol --codex-jsonl ""`, nil},
		{`cairn eval protocol --claude-jsonl "a"`, nil},
		{`cairn eval batch --format c`, []string{"claude-jsonl", "cline-jsonl", "codex-jsonl", "copilot-jsonl"}},
		{`cairn eval batch --format codex-jsonl "t"`, nil},
		{`cairn eval batch --json ""`, nil},
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
		got := strings.Fields(string(out))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: bash offers %q, want %q", tc.words, got, tc.want)
		}
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "source ../c.bash; complete -p cairn")
	cmd.Dir = work
	out, err := cmd.Output()
	if want := "complete -o default -F _cairn cairn\n"; err != nil || string(out) != want {
		t.Errorf("complete -p cairn: %v, %q; want %q: readline completes the paths", err, out, want)
	}
}

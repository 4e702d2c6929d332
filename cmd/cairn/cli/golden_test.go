//go:build !wasip1

package cli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// reportsGolden holds the SHA-256 of the JSON report, and the exit code, of
// every real capture, control and fixture, so that a change made for speed
// or memory shows when it changes a single byte of any report.
// CAIRN_TEST_UPDATE=1 go test ./cmd/cairn/cli -run TestReportsGolden
// rewrites it (after a capture is added, or a report is meant to change).
const reportsGolden = "../../../testdata/reports.sha256"

// TestReportsGolden audits every input under testdata/*/real,
// testdata/controls and testdata/codex with its format's flag and compares
// each report's digest with reportsGolden, both ways: an input missing from
// the golden, or a golden line without its input, fails too.
func TestReportsGolden(t *testing.T) {
	root := "../../../testdata"
	type input struct{ path, flag string }
	var inputs []input
	for _, format := range []string{"codex", "claude", "gemini", "pi", "opencode", "copilot", "qwen", "cline"} {
		err := filepath.WalkDir(filepath.Join(root, format, "real"), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch name := d.Name(); {
			case name == "want.json":
			case strings.HasSuffix(name, ".export.json"):
				inputs = append(inputs, input{p, "--opencode-export"})
			case format == "cline" && strings.HasSuffix(name, ".json"):
				inputs = append(inputs, input{p, "--cline-jsonl"}) // the session's messages file
			case strings.HasSuffix(name, ".jsonl"):
				inputs = append(inputs, input{p, "--" + format + "-jsonl"})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	controls, _ := filepath.Glob(filepath.Join(root, "controls", "*"))
	fixtures, _ := filepath.Glob(filepath.Join(root, "codex", "*.jsonl"))
	for _, p := range append(controls, fixtures...) {
		flag := "--codex-jsonl"
		switch name := filepath.Base(p); {
		case strings.HasSuffix(name, ".json"):
			flag = "--trajectory"
		case strings.HasPrefix(name, "protocol-claude"):
			flag = "--claude-jsonl"
		case strings.HasPrefix(name, "protocol-gemini"):
			flag = "--gemini-jsonl"
		case strings.HasPrefix(name, "protocol-pi"):
			flag = "--pi-jsonl"
		case strings.HasPrefix(name, "protocol-opencode"):
			flag = "--opencode-jsonl"
		case strings.HasPrefix(name, "protocol-copilot"):
			flag = "--copilot-jsonl"
		case strings.HasPrefix(name, "protocol-qwen"):
			flag = "--qwen-jsonl"
		case strings.HasPrefix(name, "protocol-cline"):
			flag = "--cline-jsonl"
		}
		inputs = append(inputs, input{p, flag})
	}
	if len(inputs) < 300 {
		t.Fatalf("found %d inputs; the captures are missing", len(inputs))
	}
	var got []string
	for _, in := range inputs {
		code, stdout, _ := runCapture([]string{"eval", "protocol", in.flag, mustAbs(t, in.path), "--json"}, map[string]string{"CAIRN_EVAL": "1"})
		rel, err := filepath.Rel(root, in.path)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%x %d %s %s", sha256.Sum256([]byte(stdout)), code, in.flag, filepath.ToSlash(rel)))
	}
	slices.SortFunc(got, func(a, b string) int { return strings.Compare(a[67:], b[67:]) })
	text := strings.Join(got, "\n") + "\n"
	if os.Getenv("CAIRN_TEST_UPDATE") == "1" {
		if err := os.WriteFile(reportsGolden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(reportsGolden)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if len(line) > 67 {
			want[line[67:]] = line
		}
	}
	for _, line := range got {
		w, ok := want[line[67:]]
		switch {
		case !ok:
			t.Errorf("%s: not in %s (run CAIRN_TEST_UPDATE=1 go test ./cmd/cairn/cli -run TestReportsGolden)", line[67:], reportsGolden)
		case w != line:
			t.Errorf("%s: report changed: got %s, want %s", line[67:], line[:66], w[:66])
		}
		delete(want, line[67:])
	}
	for k := range want {
		t.Errorf("%s: in %s, but no such input", k, reportsGolden)
	}
}

//go:build !wasip1

package cli

import (
	"crypto/sha256"
	"encoding/json"
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
// testdata/controls and testdata/codex with its format's flag (a capture
// under testdata/catalog/real also under its catalog) and compares
// each report's digest with reportsGolden, both ways: an input missing from
// the golden, or a golden line without its input, fails too.
func TestReportsGolden(t *testing.T) {
	root := "../../../testdata"
	type input struct {
		path, flag string
		args       []string // more flags: a catalog
	}
	var inputs []input
	for _, format := range []string{"codex", "claude", "gemini", "pi", "opencode", "copilot", "qwen", "cline"} {
		err := filepath.WalkDir(filepath.Join(root, format, "real"), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch name := d.Name(); {
			case name == "want.json":
			case strings.HasSuffix(name, ".export.json"):
				inputs = append(inputs, input{p, "--opencode-export", nil})
			case format == "cline" && strings.HasSuffix(name, ".json"):
				inputs = append(inputs, input{p, "--cline-jsonl", nil}) // the session's messages file
			case strings.HasSuffix(name, ".jsonl"):
				inputs = append(inputs, input{p, "--" + format + "-jsonl", nil})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Captures with real memory servers: under cairn-memory/1 and under the
	// catalog their want.json names.
	catalogWants, _ := filepath.Glob(filepath.Join(root, "catalog", "real", "*", "*", "want.json"))
	for _, w := range catalogWants {
		dir := filepath.Dir(w)
		flag := catalogRealFormats[filepath.Base(filepath.Dir(dir))]
		want := map[string]catalogVerdict{}
		b, err := os.ReadFile(w)
		if err == nil {
			err = json.Unmarshal(b, &want)
		}
		if err != nil || flag == "" {
			t.Fatalf("%s: %v (flag %q)", w, err, flag)
		}
		for _, name := range sortedNames(want) {
			args := []string{"--catalog", want[name].Catalog}
			for _, s := range want[name].MemoryServers {
				args = append(args, "--memory-server", s)
			}
			p := filepath.Join(dir, name)
			inputs = append(inputs, input{p, flag, nil}, input{p, flag, args})
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
		inputs = append(inputs, input{p, flag, nil})
	}
	if len(inputs) < 300 {
		t.Fatalf("found %d inputs; the captures are missing", len(inputs))
	}
	var got []string
	for _, in := range inputs {
		argv := append([]string{"eval", "protocol", in.flag, mustAbs(t, in.path), "--json"}, in.args...)
		code, stdout, _ := runCapture(argv, map[string]string{"CAIRN_EVAL": "1"})
		rel, err := filepath.Rel(root, in.path)
		if err != nil {
			t.Fatal(err)
		}
		flags := strings.Join(append([]string{in.flag}, in.args...), " ")
		got = append(got, fmt.Sprintf("%x %d %s %s", sha256.Sum256([]byte(stdout)), code, flags, filepath.ToSlash(rel)))
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

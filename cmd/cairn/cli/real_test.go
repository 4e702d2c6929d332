//go:build !wasip1

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realVerdict is what want.json says a capture of a real CLI must give.
// Error is set only for an invalid verdict (a capture that is not the
// format, such as Gemini CLI's --output-format json or its session file);
// its Checks are then null.
type realVerdict struct {
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	Checks   map[string]struct {
		State string   `json:"state"`
		Codes []string `json:"codes"`
	} `json:"checks"`
	Error *realError `json:"error"`
}

// realError is an invalid report's error: code, record (null for the input
// as a whole) and where (null when none).
type realError struct {
	Code   string  `json:"code"`
	Record *int    `json:"record"`
	Where  *string `json:"where"`
}

func (e *realError) String() string {
	if e == nil {
		return "null"
	}
	b, _ := json.Marshal(e)
	return string(b)
}

func (e *realError) equal(f *realError) bool {
	if e == nil || f == nil {
		return e == f
	}
	return e.Code == f.Code && equalPtr(e.Record, f.Record) && equalPtr(e.Where, f.Where)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// TestRealCodexCaptures audits every stream printed by a real codex binary
// (testdata/codex/real/VERSION, made by scripts/capturekit/run.sh codex) and
// checks the verdict its want.json gives: status, exit code and every
// check's state and codes, exactly (for an invalid verdict, null checks and
// its error's code, record and where, exactly); every report must also
// match docs/report.schema.json. A capture without a verdict, or a verdict
// without its capture, fails.
func TestRealCodexCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/codex/real", "--codex-jsonl", []string{"0.125.0", "0.171.0"})
}

// runRealCaptures is TestRealCodexCaptures for the captures under root,
// audited with flag (an OpenCode export, NAME.export.json, with
// --opencode-export); each version of need must be there.
func runRealCaptures(t *testing.T, root, flag string, need []string) {
	schema := reportSchema(t)
	dirs, err := filepath.Glob(filepath.Join(root, "*", "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, w := range dirs {
		versions = append(versions, filepath.Base(filepath.Dir(w)))
	}
	for _, v := range need {
		if !slices.Contains(versions, v) {
			t.Errorf("no captures of %s under %s", v, root)
		}
	}
	for _, w := range dirs {
		dir := filepath.Dir(w)
		version := filepath.Base(dir)
		want := readVerdicts(t, w)
		streams, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		exports, _ := filepath.Glob(filepath.Join(dir, "*.export.json"))
		for _, s := range append(streams, exports...) {
			if _, ok := want[filepath.Base(s)]; !ok {
				t.Errorf("%s/%s: a capture with no verdict in want.json", version, filepath.Base(s))
			}
		}
		for name, wv := range want {
			t.Run(version+"/"+strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
				path := filepath.Join(dir, name)
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("want.json names %s, which is not there", name)
				}
				flag := flag
				if strings.HasSuffix(name, ".export.json") {
					flag = "--opencode-export"
				}
				code, stdout, stderr := runCapture([]string{"eval", "protocol", flag, mustAbs(t, path), "--json"}, map[string]string{"CAIRN_EVAL": "1"})
				var got realVerdict
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatalf("exit %d, stdout is not a report: %v\n%s%s", code, err, stdout, stderr)
				}
				validate(t, schema, version+"/"+name, []byte(stdout))
				if code != wv.ExitCode || got.Status != wv.Status || got.ExitCode != wv.ExitCode {
					t.Errorf("got %s (exit %d, report %d), want %s (exit %d)\n%s", got.Status, code, got.ExitCode, wv.Status, wv.ExitCode, stdout)
				}
				if wv.Error != nil {
					// An invalid verdict: its error exactly, and no checks.
					if wv.Status != "invalid" || wv.ExitCode != 2 || wv.Checks != nil {
						t.Fatalf("want.json: %s has an error, so it must be status invalid, exit_code 2, checks null", name)
					}
					if !got.Error.equal(wv.Error) {
						t.Errorf("error: got %v, want %v", got.Error, wv.Error)
					}
					if got.Checks != nil {
						t.Errorf("checks: got %v, want null", got.Checks)
					}
					return
				}
				for _, check := range []string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"} {
					g, w := got.Checks[check], wv.Checks[check]
					if g.State != w.State || !slices.Equal(g.Codes, w.Codes) {
						t.Errorf("%s: got %s %v, want %s %v", check, g.State, g.Codes, w.State, w.Codes)
					}
				}
			})
		}
	}
}

// readVerdicts reads a want.json: the verdict of each capture, by name.
func readVerdicts(t testing.TB, path string) map[string]realVerdict {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]realVerdict
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return want
}

// TestRealClaudeCaptures is TestRealCodexCaptures for the streams printed
// by real claude binaries (testdata/claude/real/VERSION, made by
// scripts/capturekit/run.sh claude).
func TestRealClaudeCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/claude/real", "--claude-jsonl", []string{"2.1.290", "2.1.332"})
}

// TestRealGeminiCaptures is TestRealCodexCaptures for the streams printed
// by real gemini binaries (testdata/gemini/real/VERSION, made by
// scripts/capturekit/run.sh gemini).
func TestRealGeminiCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/gemini/real", "--gemini-jsonl", []string{"0.56.0", "0.61.0"})
}

// TestRealPiCaptures is TestRealCodexCaptures for the streams printed by
// real pi binaries (testdata/pi/real/VERSION, made by
// scripts/capturekit/run.sh pi): 1.6.0 and 1.3.0 with built-in MCP, 0.86.1 with
// pi-mcp-adapter.
func TestRealPiCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/pi/real", "--pi-jsonl", []string{"1.3.0", "1.6.0", "0.86.1"})
}

// TestRealOpenCodeCaptures is TestRealCodexCaptures for what real opencode
// binaries printed (testdata/opencode/real/VERSION, made by
// scripts/capturekit/run.sh opencode): each run's stdout (--opencode-jsonl) and
// its session's export (--opencode-export).
func TestRealOpenCodeCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/opencode/real", "--opencode-jsonl", []string{"1.3.2", "1.18.33"})
}

// TestRealCopilotCaptures is TestRealCodexCaptures for the streams printed
// by real copilot binaries (testdata/copilot/real/VERSION, made by
// scripts/capturekit/run.sh copilot).
func TestRealCopilotCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/copilot/real", "--copilot-jsonl", []string{"1.0.80", "1.0.102"})
}

// TestRealQwenCaptures is TestRealCodexCaptures for the streams printed by
// real qwen binaries (testdata/qwen/real/VERSION, made by
// scripts/capturekit/run.sh qwen).
func TestRealQwenCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/qwen/real", "--qwen-jsonl", []string{"0.21.10", "0.24.4"})
}

// TestRealQwenIsNotClaude audits every real Qwen Code capture as a Claude
// Code stream (SPEC §18): none is a pass, none is reported as harness
// claude-code (the harness is unknown: null), and each one's hint names
// --qwen-jsonl.
func TestRealQwenIsNotClaude(t *testing.T) {
	paths, _ := filepath.Glob("../../../testdata/qwen/real/*/*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no real Qwen Code captures")
	}
	for _, p := range paths {
		code, stdout, stderr := runCapture([]string{"eval", "protocol", "--claude-jsonl", mustAbs(t, p), "--json"}, map[string]string{"CAIRN_EVAL": "1"})
		var got struct {
			Status string
			Input  struct{ Harness *string }
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%s: exit %d, stdout is not a report: %v", p, code, err)
		}
		if got.Status == "pass" || code == 0 || got.Input.Harness != nil {
			t.Errorf("%s as --claude-jsonl: %s, exit %d, harness %v", p, got.Status, code, got.Input.Harness)
		}
		if !strings.HasSuffix(stderr, "cairn: this looks like a Qwen Code stream-json; try --qwen-jsonl\n") {
			t.Errorf("%s as --claude-jsonl: stderr %q names no --qwen-jsonl", p, stderr)
		}
	}
}

// TestRealClineCaptures is TestRealCodexCaptures for the streams printed
// by the real Cline CLI's native binary (testdata/cline/real/VERSION, made
// by scripts/capturekit/run.sh cline), and its session's messages file
// (NAME.json, which want.json names).
func TestRealClineCaptures(t *testing.T) {
	runRealCaptures(t, "../../../testdata/cline/real", "--cline-jsonl", []string{"3.0.57", "3.0.65"})
}

//go:build !wasip1

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A batch stopped early (SPEC §14.1: a bad --paths-from entry, a write
// that failed, a signal) never leaves a document that reads as a complete
// run: SARIF's invocation is unsuccessful with the process's exit code and
// a notification naming the code, JUnit gains an error test case naming
// it, the github format an ::error and a row of the step summary, and
// every totals line says the exit the process returns.

// stopWant is what each document of a run that stopped with code says.
func checkStopped(t *testing.T, what, output, stdout, summary, code string, inputs int) {
	t.Helper()
	switch output {
	case "sarif":
		var log struct {
			Runs []struct {
				Results     []json.RawMessage
				Invocations []struct {
					ExecutionSuccessful        *bool `json:"executionSuccessful"`
					ExitCode                   *int  `json:"exitCode"`
					ToolExecutionNotifications []struct {
						Level      string
						Message    struct{ Text string }
						Descriptor struct{ ID string }
					} `json:"toolExecutionNotifications"`
				}
				Properties struct {
					Inputs   int `json:"inputs"`
					ExitCode int `json:"exit_code"`
				}
			}
		}
		if err := json.Unmarshal([]byte(stdout), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
			t.Fatalf("%s: not one SARIF run with one invocation (%v):\n%s", what, err, stdout)
		}
		run := log.Runs[0]
		inv := run.Invocations[0]
		if inv.ExecutionSuccessful == nil || *inv.ExecutionSuccessful || inv.ExitCode == nil || *inv.ExitCode != 2 || run.Properties.ExitCode != 2 || run.Properties.Inputs != inputs {
			t.Errorf("%s: invocation %+v, properties %+v; want an unsuccessful execution, exitCode 2, exit_code 2, %d inputs", what, inv, run.Properties, inputs)
		}
		if n := inv.ToolExecutionNotifications; len(n) != 1 || n[0].Level != "error" || n[0].Descriptor.ID != code || !strings.Contains(n[0].Message.Text, code) {
			t.Errorf("%s: notifications %+v, want one error naming %s", what, n, code)
		}
	case "junit":
		suites := regexp.MustCompile(`(?m)^  <testsuite name="input [0-9]+ `).FindAllString(stdout, -1)
		want := `<testcase name="the run" classname="cairn">
      <error message="stopped early: ` + code + `" type="stopped">the run did not complete: ` + code + ": "
		if len(suites) != inputs || !strings.Contains(stdout, want) || !strings.HasSuffix(stdout, "</testsuite>\n</testsuites>\n") {
			t.Errorf("%s: %d input suites (want %d) and no error test case %q:\n%s", what, len(suites), inputs, want, stdout)
		}
	case "github":
		if !regexp.MustCompile(`(?m)^::error title=cairn%3A stopped early%3A `+code+`::the run did not complete: `+code+`: `).MatchString(stdout) ||
			!regexp.MustCompile(`(?m)^cairn: [0-9]+ inputs?: .*\(exit 2; stopped early: `+code+`\)\n\z`).MatchString(stdout) {
			t.Errorf("%s: no ::error naming %s, or totals that do not say exit 2 and the stop:\n%s", what, code, stdout)
		}
		if summary != "" && (!strings.Contains(summary, "| stopped |  | stopped early: `"+code+"`: ") || !strings.Contains(summary, "(exit 2; stopped early: "+code+")")) {
			t.Errorf("%s: the summary has no row naming %s, or totals that do not say exit 2:\n%s", what, code, summary)
		}
	case "text":
		if !regexp.MustCompile(`(?m)^total [0-9]+: .*\(exit 2; stopped early: ` + code + `\)\n\z`).MatchString(stdout) {
			t.Errorf("%s: the totals line does not say exit 2 and the stop:\n%s", what, stdout)
		}
	}
}

// TestBatchStoppedByList: the list's bad entry after a good one, in every
// document format.
func TestBatchStoppedByList(t *testing.T) {
	dir := t.TempDir()
	pass := mustAbs(t, "../../../testdata/controls/protocol-codex.jsonl")
	fail := mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl")
	for _, tc := range []struct {
		name, list, null, code string
	}{
		{"an empty line", pass + "\n\n" + fail + "\n", "", "list_entry_empty"},
		{"a NUL byte without --null", pass + "\n" + fail + "\x00\n", "", "list_entry_nul"},
		{"two NULs in a row", pass + "\x00\x00" + fail + "\x00", "--null", "list_entry_empty"},
		{"an entry past 64 KiB", pass + "\n" + strings.Repeat("x", 70<<10) + "\n" + fail + "\n", "", "list_entry_too_long"},
	} {
		list := filepath.Join(dir, "list")
		if err := os.WriteFile(list, []byte(tc.list), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, output := range []string{"text", "sarif", "junit", "github"} {
			summary := filepath.Join(dir, output+".md")
			args := []string{"eval", "batch", "--format", "codex-jsonl", "--output", output, "--paths-from", list, fail}
			if tc.null != "" {
				args = append(args, tc.null)
			}
			code, stdout, stderr := runCapture(args, map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": summary})
			what := tc.name + ", --output " + output
			if code != 2 || !strings.HasPrefix(stderr, "cairn: invalid list of paths: entry ") {
				t.Errorf("%s: exit %d, stderr %q; want 2 and the list's line", what, code, stderr)
			}
			written, _ := os.ReadFile(summary)
			checkStopped(t, what, output, stdout, string(written), tc.code, 2)
			os.Remove(summary)
		}
	}
}

// TestBatchStoppedByWrites: when standard output fails, the batch stops
// at that input (the step summary says so); when the step summary fails,
// standard output's document says so.
func TestBatchStoppedByWrites(t *testing.T) {
	dir := t.TempDir()
	fail := mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl")
	paths := []string{fail, fail, fail, fail}
	t.Run("stdout", func(t *testing.T) {
		summary := filepath.Join(dir, "summary.md")
		var stderr bytes.Buffer
		code := run(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github", "--jobs", "1"}, paths...),
			strings.NewReader(""), &failingWriter{}, &stderr, func(k string) string {
				return map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": summary}[k]
			})
		written, _ := os.ReadFile(summary)
		rows := regexp.MustCompile(`(?m)^\| [0-9]+ \|`).FindAllString(string(written), -1)
		if code != 2 || !strings.HasSuffix(stderr.String(), writeFailedText+"\n") || len(rows) != 1 ||
			!strings.Contains(string(written), "| stopped |  | stopped early: `output_unwritable`: ") || !strings.Contains(string(written), "1 input: pass 0, fail 1, inconclusive 0, invalid 0 (exit 2; stopped early: output_unwritable)") {
			t.Errorf("exit %d, stderr %q, summary\n%s\nwant exit 2, the write's line, and a summary of the one input audited that names output_unwritable", code, stderr.String(), written)
		}
	})
	t.Run("summary", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		for _, output := range []string{"github"} {
			code, stdout, stderr := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", output, "--jobs", "1"}, paths...),
				map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": "/dev/full"})
			if code != 2 || stderr != summaryFailedText+"\n" || !strings.Contains(stdout, "cairn: 1 input: ") {
				t.Errorf("exit %d, stderr %q; want 2, the summary's line and a batch stopped after its first input:\n%s", code, stderr, stdout)
			}
			checkStopped(t, "a summary on /dev/full", output, stdout, "", "summary_unwritable", 1)
		}
	})
}

// TestBatchStoppedBySignal runs the cairn binary (the test binary, as
// testscript.Main installs it) on a list it reads from a pipe, and sends
// it SIGTERM, then SIGINT, once the first input's report is out: the
// document is closed as a run that stopped early, exit 2.
func TestBatchStoppedBySignal(t *testing.T) {
	bin, err := exec.LookPath("cairn")
	if err != nil {
		t.Skipf("cairn is not on PATH: %v", err)
	}
	pass := mustAbs(t, "../../../testdata/controls/protocol-codex.jsonl")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, output := range []string{"junit", "sarif", "github", "text"} {
			what := sig.String() + ", --output " + output
			summary := filepath.Join(t.TempDir(), "summary.md")
			cmd := exec.Command(bin, "eval", "batch", "--format", "codex-jsonl", "--output", output, "--paths-from", "-")
			cmd.Env = append(os.Environ(), "CAIRN_EVAL=1", "GITHUB_STEP_SUMMARY="+summary)
			list, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(list, pass+"\n")
			// The first input's report is out when its line (or, for
			// SARIF, which has no result for a pass, the run's start) is.
			first := map[string]string{"junit": "  </testsuite>", "sarif": `      "tool": {`, "github": "", "text": "1      pass         exit 0"}[output]
			r := bufio.NewReader(out)
			var got strings.Builder
			if output == "github" {
				// A pass prints no annotation: wait for its summary row.
				for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
					if b, _ := os.ReadFile(summary); bytes.Contains(b, []byte("| 1 | codex-jsonl |")) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: no summary row after a minute", what)
					}
				}
			} else {
				for {
					line, err := r.ReadString('\n')
					got.WriteString(line)
					if strings.TrimSuffix(line, "\n") == first {
						break
					}
					if err != nil {
						t.Fatalf("%s: %v before the first report:\n%s", what, err, got.String())
					}
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(r)
			got.Write(rest)
			err = cmd.Wait()
			list.Close()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || stderr.String() != "cairn: interrupted: the batch stopped before its last input (exit 2); the inputs it did not reach were not audited\n" {
				t.Errorf("%s: %v, stderr %q; want exit 2 and the interrupted line", what, err, stderr.String())
			}
			written, _ := os.ReadFile(summary)
			checkStopped(t, what, output, got.String(), string(written), "interrupted", 1)
		}
	}
}

// TestGitHubAnnotationCap: GitHub shows 10 annotations of each level a
// step and drops the rest unseen (SPEC §14.1 v4). A batch of 30 inputs
// (which printed 60 commands before) prints at most 10 ::error and 10
// ::warning lines, then one ::notice that counts the others; informational
// notices stop at 9; the step summary still lists every input, past the
// 1,000 rows it once stopped at.
func TestGitHubAnnotationCap(t *testing.T) {
	fail := mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl")      // an ::error and a ::warning
	inconclusive := mustAbs(t, "../../../testdata/codex/real/0.171.0/http-400.jsonl") // three ::warning
	store := mustAbs(t, "../../../testdata/codex/real/0.171.0/memory-store.jsonl")    // an ::error, or a ::notice with --capture-authorized
	pass := mustAbs(t, "../../../testdata/controls/protocol-codex.jsonl")
	count := func(out, prefix string) int {
		return len(regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(prefix)).FindAllString(out, -1))
	}
	var paths []string
	for range 10 {
		paths = append(paths, fail, inconclusive, store)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": summary}
	code, out, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github"}, paths...), env)
	written, _ := os.ReadFile(summary)
	if code != 1 || count(out, "::error ") != 10 || count(out, "::warning ") != 10 || count(out, "::notice ") != 1 ||
		!strings.Contains(out, "::notice title=cairn%3A 40 more findings not annotated::GitHub shows 10 annotations of each level a step: 10 more errors, 30 more warnings and 0 more notices are not annotated here; the step summary lists every input") ||
		count(string(written), "| ") != 32 {
		t.Errorf("30 inputs: exit %d, %d errors, %d warnings, %d notices, %d summary rows; want 1, 10, 10, the one notice of 40 more, 30 rows and the head:\n%s",
			code, count(out, "::error "), count(out, "::warning "), count(out, "::notice "), count(string(written), "| ")-2, out)
	}

	// Informational notices: 9, and the one that counts the 6 others.
	var stores []string
	for range 15 {
		stores = append(stores, store)
	}
	_, out, _ = runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github", "--capture-authorized"}, stores...), map[string]string{"CAIRN_EVAL": "1"})
	if count(out, "::notice ") != 10 || !strings.Contains(out, "::notice title=cairn%3A 6 more findings not annotated::GitHub shows 10 annotations of each level a step: 0 more errors, 0 more warnings and 6 more notices are not annotated here; the report (--output json or sarif) lists them all") {
		t.Errorf("15 informational notices: want 9 and the one of 6 more:\n%s", out)
	}

	// A stop when the errors are full: the counting notice names it.
	list := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(list, []byte(strings.Repeat(fail+"\n", 10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCapture([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github", "--paths-from", list}, map[string]string{"CAIRN_EVAL": "1"})
	if count(out, "::error ") != 10 || !strings.Contains(out, "::notice title=cairn%3A 0 more findings not annotated; stopped early%3A list_entry_empty::") {
		t.Errorf("a stop after 10 errors: want 10 errors and a notice naming the stop:\n%s", out)
	}

	// Every input in the summary: 1,001 passing inputs.
	many := make([]string, 1001)
	for i := range many {
		many[i] = pass
	}
	os.Remove(summary)
	_, _, _ = runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github"}, many...), env)
	written, _ = os.ReadFile(summary)
	if rows := count(string(written), "| ") - 2; rows != 1001 || !strings.Contains(string(written), "| 1001 | codex-jsonl | pass (exit 0) |") {
		t.Errorf("1,001 inputs: the summary lists %d", rows)
	}
}

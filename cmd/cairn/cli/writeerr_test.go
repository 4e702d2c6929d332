package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// Inputs for each exit path of eval protocol, read from standard input.
const (
	writeErrFail = `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"I searched project memory."}}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}
`
	writeErrInconclusive = `{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q","mode":"substring","limit":10},"result":null,"error":null,"status":"in_progress"}}
{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}
`
	writeErrInvalid = "{\n"
)

// writeErrCase is a command that writes to stdout, and the exit status it
// gives when stdout works.
type writeErrCase struct {
	name  string
	args  []string
	gate  string
	stdin string
	exit  int
}

func writeErrCases(t *testing.T) []writeErrCase {
	control, err := filepath.Abs("../../../testdata/controls/protocol-codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := func(args ...string) []string { return append([]string{"eval", "protocol"}, args...) }
	cases := []writeErrCase{
		{"version", []string{"version"}, "", "", 0},
		{"version flag", []string{"--version"}, "", "", 0},
		{"explain", []string{"explain", "project_search_absent"}, "", "", 0},
		{"completion bash", []string{"completion", "bash"}, "", "", 0},
		{"completion zsh", []string{"completion", "zsh"}, "", "", 0},
		{"completion fish", []string{"completion", "fish"}, "", "", 0},
		{"disabled json", p("--codex-jsonl", "-", "--json"), "", "", 0},
		{"disabled human", p("--trajectory", "-"), "0", "", 0},
		{"pass json", p("--codex-jsonl", control, "--json"), "1", "", 0},
		{"pass human", p("--codex-jsonl", control), "1", "", 0},
		{"fail json", p("--codex-jsonl", "-", "--json"), "1", writeErrFail, 1},
		{"fail human", p("--codex-jsonl", "-"), "1", writeErrFail, 1},
		{"inconclusive json", p("--codex-jsonl", "-", "--json"), "1", writeErrInconclusive, 3},
		{"inconclusive human", p("--codex-jsonl", "-"), "1", writeErrInconclusive, 3},
		{"invalid json", p("--codex-jsonl", "-", "--json"), "1", writeErrInvalid, 2},
		{"invalid human", p("--codex-jsonl", "-"), "1", writeErrInvalid, 2},
	}
	return append(cases, helpCases(t)...)
}

// helpCases are every way of asking for help: cairn alone, and for each
// command of the grammar (the root included) --help, -h and cairn help
// before it.
func helpCases(t *testing.T) []writeErrCase {
	parser, err := kong.New(newCLI(), kong.Name("cairn"), grammarVars())
	if err != nil {
		t.Fatal(err)
	}
	cases := []writeErrCase{{name: "no arguments", args: nil}}
	for _, n := range grammar(parser.Model.Node) {
		words := strings.Fields(n.path)
		for _, how := range []struct{ name, before, after string }{
			{"--help", "", "--help"}, {"-h", "", "-h"}, {"help", "help", ""},
		} {
			args := append([]string{}, words...)
			if how.before != "" {
				args = append([]string{how.before}, args...)
			}
			if how.after != "" {
				args = append(args, how.after)
			}
			cases = append(cases, writeErrCase{name: strings.Join(append([]string{"cairn"}, args...), " "), args: args})
		}
	}
	return cases
}

// failingWriter accepts ok bytes, then fails every write.
type failingWriter struct{ ok int }

func (w *failingWriter) Write(p []byte) (int, error) {
	n := min(w.ok, len(p))
	w.ok -= n
	if n < len(p) {
		return n, errors.New("no space left on device")
	}
	return n, nil
}

// shortWriter writes half of what it is given and reports no error, which
// io.Writer forbids; it must count as a failure.
type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func runWith(stdout interface{ Write([]byte) (int, error) }, tc writeErrCase) (int, string) {
	var stderr bytes.Buffer
	code := run(tc.args, strings.NewReader(tc.stdin), stdout, &stderr, func(k string) string {
		if k == "CAIRN_EVAL" {
			return tc.gate
		}
		return ""
	})
	return code, stderr.String()
}

// TestWriteErrorExit2 checks every command and exit path with a stdout
// that fails at once, one that fails halfway, and one that writes short:
// each is exit 2 with the one fixed line last on stderr, never the verdict.
func TestWriteErrorExit2(t *testing.T) {
	for _, tc := range writeErrCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			var ok bytes.Buffer
			code, okStderr := runWith(&ok, tc)
			if code != tc.exit || ok.Len() == 0 {
				t.Fatalf("cairn %q with a working stdout: got exit %d and %d bytes, want exit %d and a report", tc.args, code, ok.Len(), tc.exit)
			}
			for _, w := range []struct {
				name string
				w    interface{ Write([]byte) (int, error) }
			}{
				{"failing at once", &failingWriter{}},
				{"failing halfway", &failingWriter{ok: ok.Len() / 2}},
				{"failing at the last byte", &failingWriter{ok: ok.Len() - 1}},
				{"writing short", shortWriter{}},
			} {
				code, stderr := runWith(w.w, tc)
				if want := okStderr + writeFailedText + "\n"; code != 2 || stderr != want {
					t.Errorf("cairn %q, stdout %s: got exit %d, stderr %q; want exit 2 and stderr %q: what a working stdout gives, then the one line",
						tc.args, w.name, code, stderr, want)
				}
			}
		})
	}
}

// TestWriteErrorNotClaimedWithoutWrite checks that a command that writes
// nothing on stdout (a usage error, an unknown code) keeps its own exit
// and does not claim a write failure.
func TestWriteErrorNotClaimedWithoutWrite(t *testing.T) {
	for _, tc := range []writeErrCase{
		{"usage error", []string{"eval", "protocol", "--json"}, "1", "", 2},
		{"unknown code", []string{"explain", "no_such_code"}, "", "", 2},
	} {
		code, stderr := runWith(&failingWriter{}, tc)
		if code != tc.exit || strings.Contains(stderr, writeFailedText) {
			t.Errorf("cairn %q: got exit %d, stderr %q; want exit %d without %q", tc.args, code, stderr, tc.exit, writeFailedText)
		}
	}
}

// TestWriteErrorDevFull runs the cairn binary (the test binary, as
// testscript.Main installs it on PATH) with stdout on /dev/full, where
// every write fails with ENOSPC.
func TestWriteErrorDevFull(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	bin, err := exec.LookPath("cairn")
	if err != nil {
		t.Skipf("cairn is not on PATH: %v", err)
	}
	runTo := func(tc writeErrCase, stdout io.Writer) (int, string) {
		cmd := exec.Command(bin, tc.args...)
		cmd.Stdin = strings.NewReader(tc.stdin)
		cmd.Stdout = stdout
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Env = append(os.Environ(), "CAIRN_EVAL="+tc.gate, "NO_COLOR=")
		code := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("cairn %q: %v", tc.args, err)
			}
			code = ee.ExitCode()
		}
		return code, stderr.String()
	}
	for _, tc := range writeErrCases(t) {
		_, okStderr := runTo(tc, io.Discard)
		code, stderr := runTo(tc, full)
		if want := okStderr + writeFailedText + "\n"; code != 2 || stderr != want {
			t.Errorf("cairn %q >/dev/full: got exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, want)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

type inputReport struct {
	Status string `json:"status"`
	Input  struct {
		Bytes   int64 `json:"bytes"`
		Records int   `json:"records"`
	} `json:"input"`
	Error *struct {
		Code   string `json:"code"`
		Record *int   `json:"record"`
	} `json:"error"`
}

func readInputReport(t *testing.T, stdout string) inputReport {
	t.Helper()
	var r inputReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("stdout is not a report: %v\n%s", err, stdout)
	}
	return r
}

// TestStdinDrainedAfterEarlyVerdict checks SPEC §3: after an invalid
// record, and past 16 MiB, the rest of stdin is read to its end, so a
// producer upstream is never cut off, and input.bytes is the whole input.
func TestStdinDrainedAfterEarlyVerdict(t *testing.T) {
	notice := []byte(`{"type":"error","message":"` + strings.Repeat("y", 1000) + `"}` + "\n")
	tests := []struct {
		name, code string
		in         []byte
	}{
		{"malformed line 3", "malformed_json", clitest.BadThird(3 << 20)},
		{"over 16 MiB", "input_too_large", bytes.Repeat(notice, 20<<10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			wrote := make(chan error, 1)
			go func() {
				_, err := pw.Write(tc.in) // blocks until every byte is read
				pw.Close()
				wrote <- err
			}()
			var stdout, stderr bytes.Buffer
			code := run([]string{"eval", "protocol", "--codex-jsonl", "-", "--json"}, pr, &stdout, &stderr, func(k string) string {
				if k == "CAIRN_EVAL" {
					return "1"
				}
				return ""
			})
			pr.Close() // unblocks the writer if cairn stopped reading
			if err := <-wrote; err != nil {
				t.Fatalf("the producer was cut off: %v", err)
			}
			r := readInputReport(t, stdout.String())
			if code != 2 || r.Error == nil || r.Error.Code != tc.code {
				t.Fatalf("exit %d, error %+v; want 2, %s", code, r.Error, tc.code)
			}
			if r.Input.Bytes != int64(len(tc.in)) {
				t.Errorf("input.bytes %d, want the whole input, %d", r.Input.Bytes, len(tc.in))
			}
		})
	}
}

// TestFileBytesAreItsSize checks that input.bytes of an invalid file is
// its size, never the offset of the problem (which would tell how long a
// recorded value was).
func TestFileBytesAreItsSize(t *testing.T) {
	in := clitest.BadThird(100 << 10)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, in, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", path, "--json"}, map[string]string{"CAIRN_EVAL": "1"})
	r := readInputReport(t, stdout)
	if r.Error == nil || r.Error.Code != "malformed_json" || r.Input.Bytes != int64(len(in)) {
		t.Fatalf("error %+v, bytes %d; want malformed_json and %d", r.Error, r.Input.Bytes, len(in))
	}
}

// TestColorAllowed is SPEC §7.3's colour rule.
func TestColorAllowed(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		env      map[string]string
		want     bool
	}{
		{true, nil, true},
		{true, map[string]string{"TERM": "xterm-256color"}, true},
		{true, map[string]string{"NO_COLOR": ""}, true},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
		{false, nil, false},
	} {
		if got := colorAllowed(tc.terminal, func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("colorAllowed(%v, %v) = %v, want %v", tc.terminal, tc.env, got, tc.want)
		}
	}
}

// TestMemoryLimit checks the soft memory limit of SPEC §1's bound: 40 MiB
// an input audited at once, only when cairn owns the process, never over a
// GOMEMLIMIT the user exported.
func TestMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer func() { debug.SetMemoryLimit(before); ownsProcess = false }()
	e := &env{getenv: func(string) string { return "" }}
	memoryLimit(e, 1)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("Run in another program set the limit to %d", got)
	}
	ownsProcess = true
	memoryLimit(e, 3)
	if got := debug.SetMemoryLimit(-1); got != 3*40<<20 {
		t.Errorf("limit %d, want %d for three inputs at once", got, 3*40<<20)
	}
	debug.SetMemoryLimit(before)
	user := &env{getenv: func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	}}
	memoryLimit(user, 1)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("the limit overrode the user's GOMEMLIMIT: %d", got)
	}
}

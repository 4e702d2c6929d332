//go:build !wasip1

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

// TestLibraryMatchesCLI checks that the library's report, encoded with
// encoding/json, is byte for byte what eval protocol --json prints, for
// every fixture, control and real capture, from a file and from stdin,
// with and without --capture-authorized.
func TestLibraryMatchesCLI(t *testing.T) {
	t.Parallel()
	sets := []struct {
		glob, flag, format string
	}{
		{"../../../testdata/codex/*.jsonl", "--codex-jsonl", audit.FormatCodex},
		{"../../../testdata/codex/real/0.171.0/*.jsonl", "--codex-jsonl", audit.FormatCodex},
		{"../../../testdata/controls/*.jsonl", "--codex-jsonl", audit.FormatCodex},
		{"../../../testdata/controls/*.json", "--trajectory", audit.FormatTrajectory},
		{"../../../testdata/controls/protocol-claude*.jsonl", "--claude-jsonl", audit.FormatClaude},
		{"../../../testdata/claude/real/2.1.332/*.jsonl", "--claude-jsonl", audit.FormatClaude},
		{"../../../testdata/cline/real/3.0.65/*.jsonl", "--cline-jsonl", audit.FormatCline},
	}
	n := 0
	for _, set := range sets {
		paths, _ := filepath.Glob(set.glob)
		for _, p := range paths {
			in, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			abs := mustAbs(t, p)
			for _, capture := range []bool{false, true} {
				args := []string{"eval", "protocol", set.flag, abs, "--json"}
				if capture {
					args = append(args, "--capture-authorized")
				}
				opts := protocol.Options{Format: set.format, CaptureAuthorized: capture}
				_, cli, _ := runCapture(args, map[string]string{"CAIRN_EVAL": "1"})
				rep, err := protocol.AuditFile(abs, opts)
				if err != nil {
					t.Fatal(err)
				}
				if lib := marshalLine(t, rep); lib != cli {
					t.Errorf("%s (file, capture %v): library\n%s\nCLI\n%s", p, capture, lib, cli)
				}
				args[3] = "-"
				var out, errOut bytes.Buffer
				run(args, bytes.NewReader(in), &out, &errOut, func(k string) string {
					if k == "CAIRN_EVAL" {
						return "1"
					}
					return ""
				})
				rep, _ = protocol.AuditStream(bytes.NewReader(in), opts)
				if lib := marshalLine(t, rep); lib != out.String() {
					t.Errorf("%s (stdin, capture %v): library\n%s\nCLI\n%s", p, capture, lib, out.String())
				}
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("compared %d inputs; the fixtures are missing", n)
	}
}

func marshalLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

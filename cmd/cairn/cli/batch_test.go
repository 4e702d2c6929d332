//go:build !wasip1

package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBatchMatchesProtocol checks SPEC §10: eval batch --json prints, for
// the i-th path, exactly the line eval protocol --json prints for it, in
// the order of the paths whatever --jobs, and exits with the worst status.
func TestBatchMatchesProtocol(t *testing.T) {
	var paths []string
	for _, g := range []string{"../../../testdata/codex/*.jsonl", "../../../testdata/codex/real/0.171.0/*.jsonl", "../../../testdata/controls/*.jsonl"} {
		ps, _ := filepath.Glob(g)
		paths = append(paths, ps...)
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	paths = append(paths, missing, paths[0]) // an unreadable one, a repeated one
	for i, p := range paths {
		paths[i] = mustAbs(t, p)
	}
	env := map[string]string{"CAIRN_EVAL": "1"}
	var want strings.Builder
	worst := 0
	rank := map[int]int{0: 0, 3: 1, 1: 2, 2: 3}
	for _, p := range paths {
		code, out, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", p, "--json"}, env)
		want.WriteString(out)
		if rank[code] > rank[worst] {
			worst = code
		}
	}
	for _, jobs := range []int{1, 2, 7} {
		args := append([]string{"eval", "batch", "--format", "codex-jsonl", "--json", fmt.Sprint("--jobs=", jobs)}, paths...)
		code, out, errOut := runCapture(args, env)
		if out != want.String() {
			t.Errorf("--jobs %d: batch output differs from eval protocol's lines\n got %s\nwant %s", jobs, out, want.String())
		}
		if code != worst || worst != 2 {
			t.Errorf("--jobs %d: exit %d, want the worst, %d (2)", jobs, code, worst)
		}
		for _, p := range paths {
			if strings.Contains(out+errOut, filepath.Base(p)) {
				t.Errorf("--jobs %d: a path reached the output", jobs)
			}
		}
	}
}

// TestBatchManyInputs checks the human batch report over many inputs: a
// line per input in the order of the paths, the totals, the worst exit.
func TestBatchManyInputs(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../../testdata/controls/protocol-codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf("run-%03d.jsonl", i))
		b := src
		if i%7 == 3 {
			b = bytes.Replace(src, []byte(`"scope":"project"`), []byte(`"scope":"global"`), -1)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, out, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--jobs", "3"}, paths...), map[string]string{"CAIRN_EVAL": "1"})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 301 || code != 1 {
		t.Fatalf("exit %d, %d lines; want 1 and 301", code, len(lines))
	}
	for i, l := range lines[:300] {
		want := "pass "
		if i%7 == 3 {
			want = "fail "
		}
		if !strings.HasPrefix(l, fmt.Sprintf("%-6d %s", i+1, want)) {
			t.Fatalf("line %d: %q, want position %d %s", i+1, l, i+1, want)
		}
	}
	if want := "total 300: pass 257, fail 43, inconclusive 0, invalid 0 (exit 1)"; lines[300] != want {
		t.Errorf("totals %q, want %q", lines[300], want)
	}
}

// TestBatchJobs checks how many audits run at once: --jobs, or one per
// CPU, never more than there are inputs, so that no channel or memory
// limit is sized by a number larger than the batch.
func TestBatchJobs(t *testing.T) {
	cpus := min(runtime.NumCPU(), 5)
	for _, tc := range []struct {
		jobs, paths, want int
	}{
		{0, 5, cpus},
		{0, 1, 1},
		{1, 5, 1},
		{3, 5, 3},
		{maxJobs, 5, 5},
		{maxJobs, 2000, maxJobs},
	} {
		c := evalBatchCmd{Jobs: jobsFlag(tc.jobs), Paths: make([]string, tc.paths)}
		if got := c.jobs(); got != tc.want {
			t.Errorf("--jobs %d with %d paths: got %d at a time, want %d", tc.jobs, tc.paths, got, tc.want)
		}
	}
}

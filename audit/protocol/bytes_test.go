package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// realInput is one capture of a real CLI and its format.
type realInput struct {
	path, format string
}

// realInputs are every real capture under testdata/*/real, with their
// formats: the directory names the CLI, and an OpenCode export ends in
// .export.json.
func realInputs(t testing.TB) []realInput {
	t.Helper()
	dirs := map[string]string{
		"codex":   audit.FormatCodex,
		"claude":  audit.FormatClaude,
		"gemini":  audit.FormatGemini,
		"pi":      audit.FormatPi,
		"copilot": audit.FormatCopilot,
	}
	var ins []realInput
	for dir, format := range dirs {
		paths, _ := filepath.Glob(filepath.Join("../../testdata", dir, "real/*/*.jsonl"))
		for _, p := range paths {
			ins = append(ins, realInput{p, format})
		}
	}
	paths, _ := filepath.Glob("../../testdata/opencode/real/*/*.jsonl")
	for _, p := range paths {
		ins = append(ins, realInput{p, audit.FormatOpenCode})
	}
	paths, _ = filepath.Glob("../../testdata/opencode/real/*/*.export.json")
	for _, p := range paths {
		ins = append(ins, realInput{p, audit.FormatOpenCodeEx})
	}
	if len(ins) < 300 {
		t.Fatalf("found %d real captures; testdata/*/real is missing", len(ins))
	}
	return ins
}

// TestAuditBytesMatches checks that AuditBytes gives AuditStream's report
// on the same bytes, byte for byte, and AuditFile's but for input.source,
// on every real capture, with and without the capture assertion.
func TestAuditBytesMatches(t *testing.T) {
	for _, in := range realInputs(t) {
		b, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, capture := range []bool{false, true} {
			opts := Options{Format: in.format, CaptureAuthorized: capture}
			got := audited(t)(AuditBytes(b, opts))
			if want := audited(t)(AuditStream(bytes.NewReader(b), opts)); got != want {
				t.Errorf("%s (%s, capture %v): AuditBytes\n%s\nAuditStream\n%s", in.path, in.format, capture, got, want)
			}
			file, err := AuditFile(in.path, opts)
			if err != nil {
				t.Fatal(err)
			}
			file.Input.Source = "stdin"
			if want := marshal(file, nil); got != want {
				t.Errorf("%s (%s, capture %v): AuditBytes\n%s\nAuditFile, source stdin\n%s", in.path, in.format, capture, got, want)
			}
		}
	}
}

// TestAuditBytesEdges checks AuditBytes against AuditStream where the
// input is refused or large: nothing, a byte-order mark, UTF-16, a
// malformed record, 16 MiB and one byte more, and a large valid input,
// read on other goroutines as a large file is.
func TestAuditBytesEdges(t *testing.T) {
	control, err := os.ReadFile("../../testdata/controls/protocol-codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// A valid export of more than 256 KiB: the control's middle records
	// repeated (an item completed again is still a Codex stream's shape
	// for this purpose: the reports only have to agree).
	lines := bytes.SplitAfter(control, []byte("\n"))
	large := bytes.Join([][]byte{lines[0], bytes.Repeat(bytes.Join(lines[1:len(lines)-2], nil), 2000), bytes.Join(lines[len(lines)-2:], nil)}, nil)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"bom", append([]byte("\ufeff"), control...)},
		{"utf16", []byte("{\x00\"\x00")},
		{"malformed", []byte("{\"type\":\n")},
		{"too large", append(bytes.Repeat([]byte(" "), 16<<20), control...)},
		{"large", large},
	} {
		for _, format := range []string{audit.FormatCodex, audit.FormatTrajectory} {
			opts := Options{Format: format}
			got := audited(t)(AuditBytes(tc.in, opts))
			if want := audited(t)(AuditStream(bytes.NewReader(tc.in), opts)); got != want {
				t.Errorf("%s (%s): AuditBytes\n%s\nAuditStream\n%s", tc.name, format, got, want)
			}
		}
	}
	if _, err := AuditBytes(nil, Options{Format: "codex"}); err != ErrFormat {
		t.Errorf("AuditBytes with format codex: %v, want ErrFormat", err)
	}
}

// TestAuditBytesConcurrent runs many audits at once, of every real
// capture, each compared with the same audit run alone: under -race this
// is the proof that AuditBytes is safe for concurrent use.
func TestAuditBytesConcurrent(t *testing.T) {
	ins := realInputs(t)
	type job struct {
		name string
		in   []byte
		opts Options
		want string
	}
	var jobs []job
	for _, in := range ins {
		b, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Format: in.format}
		jobs = append(jobs, job{in.path, b, opts, audited(t)(AuditBytes(b, opts))})
	}
	// Each input is audited by every worker, at different times: 2,800
	// audits, a few seconds under -race.
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range jobs {
				j := jobs[(i+w*len(jobs)/workers)%len(jobs)]
				rep, err := AuditBytes(j.in, j.opts)
				if got := marshal(rep, err); got != j.want {
					select {
					case errs <- fmt.Sprintf("%s: concurrent\n%s\nalone\n%s", j.name, got, j.want):
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// audited is the JSON of an audit's report; an error fails the test.
func audited(t testing.TB) func(*audit.Report, error) string {
	return func(rep *audit.Report, err error) string {
		t.Helper()
		s := marshal(rep, err)
		if strings.HasPrefix(s, "error: ") {
			t.Fatal(s)
		}
		return s
	}
}

func marshal(rep *audit.Report, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// benchInputs are the inputs of BenchmarkAuditMany: the files that
// CAIRN_BENCH_INPUTS lists one a line (scripts/library-bench.sh writes
// them), else the real Codex captures, in order, repeated to 10,000.
func benchInputs(b *testing.B) []string {
	b.Helper()
	if list := os.Getenv("CAIRN_BENCH_INPUTS"); list != "" {
		text, err := os.ReadFile(list)
		if err != nil {
			b.Fatal(err)
		}
		return strings.Fields(string(text))
	}
	real, _ := filepath.Glob("../../testdata/codex/real/*/*.jsonl")
	if len(real) == 0 {
		b.Fatal("no real Codex captures")
	}
	paths := make([]string, 10000)
	for i := range paths {
		paths[i] = real[i%len(real)]
	}
	return paths
}

// BenchmarkAuditMany audits 10,000 small Codex exports in one process, one
// op being all of them: from memory with AuditBytes, on one goroutine and
// on GOMAXPROCS, and from their files with AuditFile on GOMAXPROCS, as
// eval batch --jobs GOMAXPROCS does (scripts/library-bench.sh compares
// them with eval batch over the same files).
func BenchmarkAuditMany(b *testing.B) {
	paths := benchInputs(b)
	ins := make([][]byte, len(paths))
	var size int64
	for i, p := range paths {
		var err error
		if ins[i], err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
		size += int64(len(ins[i]))
	}
	opts := Options{Format: audit.FormatCodex}
	each := func(b *testing.B, workers int, audit func(i int) (*audit.Report, error)) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < len(ins); i += workers {
						if rep, err := audit(i); err != nil || rep.Status == "invalid" {
							b.Errorf("%s: %v %v", paths[i], err, rep.Error)
							return
						}
					}
				})
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ins)), "µs/audit")
	}
	fromBytes := func(i int) (*audit.Report, error) { return AuditBytes(ins[i], opts) }
	fromFile := func(i int) (*audit.Report, error) { return AuditFile(paths[i], opts) }
	b.Run("bytes/serial", func(b *testing.B) { each(b, 1, fromBytes) })
	b.Run("bytes/parallel", func(b *testing.B) { each(b, runtime.GOMAXPROCS(0), fromBytes) })
	b.Run("file/parallel", func(b *testing.B) { each(b, runtime.GOMAXPROCS(0), fromFile) })
}

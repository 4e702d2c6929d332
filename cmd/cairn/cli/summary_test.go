//go:build !wasip1

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// realReports is the batch output (--json) of every real capture, format
// by format: one report a line.
func realReports(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, set := range realSets(t) {
		_, stdout, _ := runCapture(append([]string{"eval", "batch", "--format", set.format, "--json"}, set.paths...), map[string]string{"CAIRN_EVAL": "1"})
		out.WriteString(stdout)
	}
	return out.Bytes()
}

// repeatReader reads lines, n times over, without holding more than them.
type repeatReader struct {
	lines []byte
	n     int
	off   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	c := copy(p, r.lines[r.off:])
	r.off += c
	if r.off == len(r.lines) {
		r.off, r.n = 0, r.n-1
	}
	return c, nil
}

// TestSummarizeMatchesWantJSON summarizes the batch output of every real
// capture, written by three shards into three files, and checks each
// total against a count made from the captures' want.json verdicts: the
// reports by status, each check by state, the reports each code is in,
// and the worst exit code.
func TestSummarizeMatchesWantJSON(t *testing.T) {
	env := map[string]string{"CAIRN_EVAL": "1"}
	dir := t.TempDir()
	var files []string
	want := map[string]any{}
	statuses := map[string]int{"pass": 0, "fail": 0, "inconclusive": 0, "invalid": 0, "disabled": 0}
	checks := map[string]map[string]int{}
	for _, name := range checkNames() {
		checks[name] = map[string]int{"pass": 0, "fail": 0, "inconclusive": 0}
	}
	codes := map[string]int{}
	reports, worst := 0, 0
	rank := map[int]int{0: 0, 3: 1, 1: 2, 2: 3}
	for k, set := range realSets(t) {
		list := writeList(t, set.paths, false)
		for i := range 3 {
			f := filepath.Join(dir, fmt.Sprintf("set-%d-shard-%d.jsonl", k, i))
			_, out, _ := runCapture([]string{"eval", "batch", "--format", set.format, "--json", "--paths-from", list, "--shard", fmt.Sprintf("%d/3", i)}, env)
			if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		for _, v := range set.want {
			reports++
			statuses[v.Status]++
			if rank[v.ExitCode] > rank[worst] {
				worst = v.ExitCode
			}
			seen := map[string]bool{}
			if v.Error != nil {
				seen[v.Error.Code] = true
			}
			for name, c := range v.Checks {
				checks[name][c.State]++
				for _, code := range c.Codes {
					seen[code] = true
				}
			}
			for code := range seen {
				codes[code]++
			}
		}
	}
	status := map[int]string{0: "pass", 1: "fail", 2: "invalid", 3: "inconclusive"}[worst]
	want = map[string]any{"schema": SummarySchema, "reports": reports, "status": status, "exit_code": worst,
		"statuses": statuses, "checks": checks, "codes": codes}
	code, out, errOut := runCapture(append([]string{"eval", "summarize", "--json"}, files...), nil)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("exit %d, stdout is not JSON: %v\n%s%s", code, err, out, errOut)
	}
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if string(gb) != string(wb) {
		t.Errorf("summarize of the real captures' batch output:\n got %s\nwant %s", gb, wb)
	}
	if code != worst {
		t.Errorf("exit %d, want the worst verdict's, %d", code, worst)
	}
	if reports < 300 {
		t.Errorf("counted %d real captures; want all of them", reports)
	}
	validateSummary(t, "real captures", []byte(out))
}

// TestSummarizeMemory summarizes 300,000 report lines (30,000 with
// -short; some 300 MB) streamed from a reader, and 3,000. What the summary
// keeps, measured after a collection, must be the same for both, and the
// largest live heap seen while the command runs must stay far below what
// holding the input would take (a margin of 32 MiB, for what the
// collector marks live while the lines keep coming). Sizes, not times.
func TestSummarizeMemory(t *testing.T) {
	if clitest.Race {
		t.Skip("heap figures are not meaningful under the race detector")
	}
	lines := realReports(t)
	perCopy := bytes.Count(lines, []byte("\n"))
	large := 300_000
	if testing.Short() {
		large = 30_000
	}
	// What the summary retains.
	kept := func(n int) (uint64, *summary) {
		s := newSummary()
		if err := s.read(&repeatReader{lines: lines, n: n / perCopy}, "-"); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, s
	}
	smallKept, s := kept(3_000)
	runtime.KeepAlive(s)
	largeKept, s := kept(large)
	if s.reports != large/perCopy*perCopy {
		t.Fatalf("summarized %d reports, want %d", s.reports, large/perCopy*perCopy)
	}
	runtime.KeepAlive(s)
	// The command as a whole.
	peak := func(n int) uint64 {
		stop := make(chan struct{})
		peaks := make(chan uint64)
		go func() { peaks <- samplePeakHeap(stop) }()
		status := run([]string{"eval", "summarize"}, &repeatReader{lines: lines, n: n / perCopy}, io.Discard, io.Discard, func(string) string { return "" })
		close(stop)
		if status != 2 {
			t.Fatalf("%d lines: exit %d, want 2 (the worst real capture is invalid)", n, status)
		}
		return <-peaks
	}
	smallPeak, largePeak := peak(3_000), peak(large)
	t.Logf("%d lines: heap %d after a collection, live peak %d; %d lines: %d, %d", 3_000/perCopy*perCopy, smallKept, smallPeak, large/perCopy*perCopy, largeKept, largePeak)
	if largeKept > smallKept+(256<<10) {
		t.Errorf("the summary of %d lines keeps %d bytes of heap against %d for 3,000: it holds what it reads", large, largeKept, smallKept)
	}
	if largePeak > smallPeak+(32<<20) {
		t.Errorf("live heap peak %d for %d lines against %d for 3,000: memory grows with the input", largePeak, large, smallPeak)
	}
}

// BenchmarkSummarize summarizes the real captures' batch output, 30 times
// over (some 10,000 lines, so that starting the command does not count),
// bytes to totals; ns/line is the time per report line.
func BenchmarkSummarize(b *testing.B) {
	lines := bytes.Repeat(realReports(b), 30)
	n := bytes.Count(lines, []byte("\n"))
	b.SetBytes(int64(len(lines)))
	b.ReportAllocs()
	for b.Loop() {
		if status := run([]string{"eval", "summarize"}, bytes.NewReader(lines), io.Discard, io.Discard, func(string) string { return "" }); status != 2 {
			b.Fatalf("exit %d", status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
}

// TestSummarizeRefuses edits a real report in the ways a line stops being
// one, each at line 2 of file 2: every edit is refused with the fixed
// line, nothing on stdout, exit 2.
func TestSummarizeRefuses(t *testing.T) {
	reports := strings.SplitAfter(string(realReports(t)), "\n")
	var good string
	for _, r := range reports {
		if strings.Contains(r, `"status":"fail"`) && strings.Contains(r, `"findings":[{`) {
			good = strings.TrimSuffix(r, "\n")
			break
		}
	}
	if good == "" {
		t.Fatal("no failing report with findings among the real captures")
	}
	notReport := "cairn: invalid reports: line 2 of file 2 is not a cairn.eval.protocol/v1 report; give summarize the lines eval batch --json prints, unchanged\n"
	otherSchema := "cairn: invalid reports: line 2 of file 2 is a report of another schema; this cairn reads cairn.eval.protocol/v1: summarize with the cairn that wrote it\n"
	edits := []struct {
		name, line, stderr string
	}{
		{"blank", "", notReport},
		{"spaces", "   ", notReport},
		{"not JSON", "cnry" + good, notReport},
		{"cut short", good[:len(good)/2], notReport},
		{"a JSON array", "[" + good + "]", notReport},
		{"empty object", "{}", notReport},
		{"pretty-printed", strings.Replace(good, `,"input":`, `, "input":`, 1), notReport},
		{"trailing space", good + " ", notReport},
		{"member missing", strings.Replace(good, `"enabled":true,`, ``, 1), notReport},
		{"member added", strings.Replace(good, `"enabled":true,`, `"enabled":true,"path":"cnry",`, 1), notReport},
		{"member repeated", strings.Replace(good, `"enabled":true,`, `"enabled":true,"enabled":true,`, 1), notReport},
		{"member renamed in case", strings.Replace(good, `"status":`, `"Status":`, 1), notReport},
		{"members swapped", strings.Replace(good, `"enabled":true,"status":"fail"`, `"status":"fail","enabled":true`, 1), notReport},
		{"a count of another type", strings.Replace(good, `"calls":`, `"calls":"1",`+`"x":`, 1), notReport},
		{"exit code of another status", strings.Replace(good, `"exit_code":1`, `"exit_code":3`, 1), notReport},
		{"status not the checks'", strings.Replace(good, `"status":"fail","exit_code":1`, `"status":"pass","exit_code":0`, 1), notReport},
		{"unknown status", strings.Replace(good, `"status":"fail","exit_code":1`, `"status":"cnry","exit_code":1`, 1), notReport},
		{"unknown state", strings.Replace(good, `{"state":"fail"`, `{"state":"failed"`, 1), notReport},
		{"unknown code", strings.Replace(good, `"codes":["`, `"codes":["cnry_code","`, 1), notReport},
		{"a limitation only", strings.Replace(good, `,"input_not_authenticated"]`, `]`, 1), notReport},
		{"checks null", strings.Replace(good, `"checks":{`, `"checks":null,"x":{`, 1), notReport},
		{"enabled false", strings.Replace(good, `"enabled":true`, `"enabled":false`, 1), notReport},
		{"disabled with a member", `{"schema":"cairn.eval.protocol/v1","enabled":false,"status":"disabled","x":1}`, notReport},
		{"far too long", good + strings.Repeat(" ", maxReportLine), notReport},
		{"another schema", strings.Replace(good, `protocol/v1`, `protocol/v2`, 1), otherSchema},
		{"another schema's object", `{"schema":"cnry.schema/v1"}`, otherSchema},
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.jsonl")
	if err := os.WriteFile(first, []byte(good+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range edits {
		if tc.line == good {
			t.Fatalf("%s: the edit did not apply", tc.name)
		}
		f := filepath.Join(dir, "cnry.jsonl")
		if err := os.WriteFile(f, []byte(good+"\n"+tc.line+"\n"+good+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"eval", "summarize", first, f}, {"eval", "summarize", "--json", first, f}} {
			code, out, errOut := runCapture(args, nil)
			if code != 2 || out != "" || errOut != tc.stderr {
				t.Errorf("%s: got exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", tc.name, code, out, errOut, tc.stderr)
			}
		}
	}
	// The unedited line, with CRLF, and without a final newline: a report.
	for _, in := range []string{good + "\r\n", good} {
		f := filepath.Join(dir, "good.jsonl")
		if err := os.WriteFile(f, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCapture([]string{"eval", "summarize", first, f}, nil); code != 1 || !strings.HasPrefix(out, "cairn eval summarize: 2 reports, worst fail (exit 1)\n") {
			t.Errorf("%q: got exit %d, %q%q; want 2 reports, exit 1", in[len(in)-5:], code, out, errOut)
		}
	}
}

// FuzzSummarize feeds summarize arbitrary lines after a real report: it
// never panics; it either totals them (exit 0 to 3, a report's exit) or
// refuses one line with a fixed line on stderr and nothing on stdout; and
// stderr never holds a byte of the input beyond the fixed words.
func FuzzSummarize(f *testing.F) {
	for _, line := range strings.Split(string(realReports(f)), "\n") {
		f.Add(line)
	}
	f.Add(`{"schema":"cairn.eval.protocol/v2"}`)
	f.Add(string(disabledLine))
	f.Fuzz(func(t *testing.T, in string) {
		var stdout, stderr bytes.Buffer
		code := run([]string{"eval", "summarize"}, strings.NewReader(in), &stdout, &stderr, func(string) string { return "" })
		if code < 0 || code > 3 {
			t.Fatalf("exit %d", code)
		}
		if stderr.Len() == 0 {
			return
		}
		if code != 2 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "cairn: invalid reports: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Fatalf("got exit %d, stdout %q, stderr %q; want exit 2 and one fixed line", code, stdout.String(), stderr.String())
		}
		for _, c := range stderr.String() {
			if c != '\n' && (c < ' ' || c > '~') {
				t.Fatalf("stderr %q is not printable ASCII", stderr.String())
			}
		}
	})
}

//go:build !wasip1

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// TestPathListEntries reads lists of paths entry by entry: LF or CRLF
// lines or NUL-separated entries, the last separator optional, and each
// problem at its entry's number.
func TestPathListEntries(t *testing.T) {
	long := strings.Repeat("p", maxListEntry)
	tests := []struct {
		name    string
		in      string
		null    bool
		want    []string
		problem listProblem // after want, when err
		entry   int
		err     bool
	}{
		{name: "lines", in: "a\nb/c.jsonl\n", want: []string{"a", "b/c.jsonl"}},
		{name: "no final newline", in: "a\nb", want: []string{"a", "b"}},
		{name: "crlf", in: "a\r\nb\r\n", want: []string{"a", "b"}},
		{name: "cr at the end", in: "a\r", want: []string{"a"}},
		{name: "cr inside", in: "a\rb\n", want: []string{"a\rb"}},
		{name: "spaces kept", in: " a \n\tb\n", want: []string{" a ", "\tb"}},
		{name: "dash and duplicates", in: "-\na\na\n", want: []string{"-", "a", "a"}},
		{name: "nothing", in: "", want: nil},
		{name: "longest entry", in: long + "\r\n", want: []string{long}},
		{name: "empty line", in: "a\n\nb\n", want: []string{"a"}, err: true, problem: listEmptyEntry, entry: 2},
		{name: "empty first", in: "\n", err: true, problem: listEmptyEntry, entry: 1},
		{name: "empty crlf line", in: "a\r\n\r\n", want: []string{"a"}, err: true, problem: listEmptyEntry, entry: 2},
		{name: "entry too long", in: "a\n" + long + "p\n", want: []string{"a"}, err: true, problem: listLongEntry, entry: 2},
		{name: "entry far too long", in: "a\n" + long + long, want: []string{"a"}, err: true, problem: listLongEntry, entry: 2},
		{name: "NUL in a line", in: "a\nb\x00c\n", want: []string{"a"}, err: true, problem: listNULEntry, entry: 2},
		{name: "nul", in: "a\x00b\nc\x00", null: true, want: []string{"a", "b\nc"}},
		{name: "nul without the last", in: "a\x00b", null: true, want: []string{"a", "b"}},
		{name: "nul keeps cr", in: "a\r\x00", null: true, want: []string{"a\r"}},
		{name: "nul empty", in: "a\x00\x00b\x00", null: true, want: []string{"a"}, err: true, problem: listEmptyEntry, entry: 2},
		{name: "nul too long", in: long + "p\x00", null: true, err: true, problem: listLongEntry, entry: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				l := newPathList(r, tc.null)
				var got []string
				var err error
				for {
					var b []byte
					if b, err = l.next(); err != nil {
						break
					}
					got = append(got, string(b))
				}
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Fatalf("got entries %q, want %q", got, tc.want)
				}
				var le *listError
				switch {
				case !tc.err && err != io.EOF:
					t.Fatalf("got %v after the entries, want io.EOF", err)
				case tc.err && (!errors.As(err, &le) || le.problem != tc.problem || le.entry != tc.entry):
					t.Fatalf("got %v, want problem %d at entry %d", err, tc.problem, tc.entry)
				}
			}
		})
	}
	// A read that fails is the list's: unreadable.
	l := newPathList(io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(errors.New("Secret"))), false)
	if b, err := l.next(); string(b) != "a" || err != nil {
		t.Fatalf("first entry: got %q, %v", b, err)
	}
	var le *listError
	if _, err := l.next(); !errors.As(err, &le) || le.problem != listUnreadable {
		t.Fatalf("a failing read: got %v, want the list unreadable", err)
	}
	if strings.Contains(le.text(), "Secret") {
		t.Fatalf("the line repeats the cause: %q", le.text())
	}
}

// realSet is the real captures of one format in one directory, with the
// verdicts their want.json gives, in the order of the paths.
type realSet struct {
	format string
	paths  []string
	want   []realVerdict
}

// realSets gathers every real capture under testdata/*/real, by format.
func realSets(t testing.TB) []realSet {
	t.Helper()
	flags := map[string]string{"codex": "codex-jsonl", "claude": "claude-jsonl", "gemini": "gemini-jsonl", "pi": "pi-jsonl", "opencode": "opencode-jsonl", "copilot": "copilot-jsonl", "qwen": "qwen-jsonl", "cline": "cline-jsonl"}
	wants, err := filepath.Glob("../../../testdata/*/real/*/want.json")
	if err != nil || len(wants) < 10 {
		t.Fatalf("found %d want.json files under testdata/*/real (%v)", len(wants), err)
	}
	var sets []realSet
	for _, w := range wants {
		dir := filepath.Dir(w)
		format, ok := flags[filepath.Base(filepath.Dir(filepath.Dir(dir)))]
		if !ok {
			t.Fatalf("%s: no format for its directory", w)
		}
		want := readVerdicts(t, w)
		names := make([]string, 0, len(want))
		for name := range want {
			names = append(names, name)
		}
		sort.Strings(names)
		byFormat := map[string]*realSet{}
		for _, name := range names {
			f := format
			if strings.HasSuffix(name, ".export.json") {
				f = "opencode-export"
			}
			s := byFormat[f]
			if s == nil {
				s = &realSet{format: f}
				byFormat[f] = s
			}
			s.paths = append(s.paths, mustAbs(t, filepath.Join(dir, name)))
			s.want = append(s.want, want[name])
		}
		for _, f := range []string{format, "opencode-export"} {
			if s := byFormat[f]; s != nil {
				sets = append(sets, *s)
			}
		}
	}
	return sets
}

// writeList writes paths one a line (NUL-separated when null) and returns
// the file.
func writeList(t *testing.T, paths []string, null bool) string {
	t.Helper()
	sep := "\n"
	if null {
		sep = "\x00"
	}
	f := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(f, []byte(strings.Join(paths, sep)+sep), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestShardsReassemble checks SPEC §15 on every real capture: the report
// lines of the N shards of a batch, put back by position (shard I's j-th
// line is the batch's line I + j·N), are exactly the unsharded batch's,
// whether the paths are arguments, a list, or both; and the worst of the
// shards' exits is the batch's.
func TestShardsReassemble(t *testing.T) {
	env := map[string]string{"CAIRN_EVAL": "1"}
	rank := map[int]int{0: 0, 3: 1, 1: 2, 2: 3}
	for _, set := range realSets(t) {
		half := len(set.paths) / 2
		args, listed := set.paths[:half], set.paths[half:]
		list := writeList(t, listed, true)
		batch := func(extra ...string) (int, []string) {
			cmd := append([]string{"eval", "batch", "--format", set.format, "--json", "--jobs", "3", "--paths-from", list, "--null"}, extra...)
			code, out, errOut := runCapture(append(cmd, args...), env)
			if strings.Contains(errOut, "invalid list") {
				t.Fatalf("%s: %s", set.format, errOut)
			}
			return code, strings.SplitAfter(out, "\n")[:strings.Count(out, "\n")]
		}
		wantCode, want := batch()
		if len(want) != len(set.paths) {
			t.Fatalf("%s: %d report lines for %d inputs", set.format, len(want), len(set.paths))
		}
		for _, n := range []int{1, 2, 3, 7, len(set.paths) + 1} {
			got := make([]string, len(want))
			worst := 0
			for i := range n {
				code, lines := batch("--shard", fmt.Sprintf("%d/%d", i, n))
				for j, l := range lines {
					if pos := i + j*n; pos < len(got) {
						got[pos] = l
					} else {
						t.Fatalf("%s shard %d/%d: line %d is past the batch", set.format, i, n, j+1)
					}
				}
				if rank[code] > rank[worst] {
					worst = code
				}
			}
			if strings.Join(got, "") != strings.Join(want, "") {
				t.Errorf("%s, %d shards: the reassembled lines differ from the batch's\n got %s\nwant %s", set.format, n, got, want)
			}
			if worst != wantCode {
				t.Errorf("%s, %d shards: worst exit %d, batch exit %d", set.format, n, worst, wantCode)
			}
		}
	}
}

// repeatList is a list of n paths generated as it is read: path i is
// dir/run-i.jsonl (none exists). It holds one line at a time.
type repeatList struct {
	dir  string
	n, i int
	buf  []byte // the line being read
	off  int    // how much of it was
}

func (r *repeatList) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if r.off == len(r.buf) {
			if r.i == r.n {
				break
			}
			// strconv, not fmt, and one buffer: the generator allocates
			// nothing per line.
			r.buf = append(append(r.buf[:0], r.dir...), "/run-"...)
			r.buf = strconv.AppendInt(r.buf, int64(r.i), 10)
			r.buf = append(r.buf, ".jsonl\n"...)
			r.off = 0
			r.i++
		}
		c := copy(p, r.buf[r.off:])
		p, r.off, total = p[c:], r.off+c, total+c
	}
	if total == 0 {
		return 0, io.EOF
	}
	return total, nil
}

// TestBatchListMemory streams a list of 1,000,000 paths from stdin
// through --shard 0/1000, and a list of 1,000 through --shard 0/1: both
// audit the same 1,000 inputs, and the long list must cost no more
// memory: no more bytes allocated (held whole, the list would be some
// 70 MB of strings), and a live heap no larger but for a margin of 16 MiB
// for what the collector marks live as the reading goes on. Sizes, not
// times.
func TestBatchListMemory(t *testing.T) {
	if clitest.Race {
		t.Skip("allocation figures are not meaningful under the race detector")
	}
	dir := filepath.Join(t.TempDir(), "none")
	getenv := func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	}
	measure := func(entries int, shard string) (allocated, peak uint64, out string) {
		var stdout bytes.Buffer
		args := []string{"eval", "batch", "--format", "codex-jsonl", "--paths-from", "-", "--jobs", "2", "--shard", shard}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := make(chan struct{})
		peaks := make(chan uint64)
		go func() { peaks <- samplePeakHeap(stop) }()
		status := run(args, &repeatList{dir: dir, n: entries}, &stdout, io.Discard, getenv)
		close(stop)
		peak = <-peaks
		runtime.ReadMemStats(&after)
		if status != 2 {
			t.Fatalf("%d entries: exit %d, want 2 (every input is missing)", entries, status)
		}
		return after.TotalAlloc - before.TotalAlloc, peak, stdout.String()
	}
	smallAlloc, smallPeak, smallOut := measure(1_000, "0/1")
	largeAlloc, largePeak, largeOut := measure(1_000_000, "0/1000")
	t.Logf("1,000 entries: %d bytes allocated, heap peak %d; 1,000,000 entries: %d allocated, heap peak %d",
		smallAlloc, smallPeak, largeAlloc, largePeak)
	if !strings.HasSuffix(largeOut, "total 1000: pass 0, fail 0, inconclusive 0, invalid 1000 (exit 2)\n") ||
		!strings.HasPrefix(largeOut, "1      invalid") || !strings.Contains(largeOut, "\n999001 invalid") {
		t.Fatalf("the long list's shard is not positions 1, 1001, … 999001:\n%s", largeOut[max(0, len(largeOut)-300):])
	}
	if strings.Count(smallOut, "\n") != 1001 {
		t.Fatalf("the short list: %d lines, want 1001", strings.Count(smallOut, "\n"))
	}
	// The long list's only extra cost is reading it through one buffer.
	if largeAlloc > smallAlloc+(1<<20) {
		t.Errorf("1,000,000 entries allocated %d bytes against %d for 1,000: the list costs memory per entry", largeAlloc, smallAlloc)
	}
	if largePeak > smallPeak+(16<<20) {
		t.Errorf("heap peak %d for 1,000,000 entries against %d for 1,000: memory grows with the list", largePeak, smallPeak)
	}
}

// samplePeakHeap returns the largest live heap seen until stop is
// closed: the heap marked live by each collection (the runtime's
// /gc/heap/live:bytes), sampled every millisecond, so that garbage not yet
// collected, which depends on when the collector ran, does not count.
func samplePeakHeap(stop chan struct{}) uint64 {
	var peak uint64
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
		select {
		case <-stop:
			return peak
		default:
		}
		time.Sleep(time.Millisecond)
	}
}

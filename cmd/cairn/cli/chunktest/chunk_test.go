//go:build !wasip1

package chunktest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/cmd/cairn/cli"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
	"github.com/cairn-audit/cairn/stream/streamtest"
)

// SPEC §3, standard input: the report depends only on the input's bytes,
// never on how reads deliver them. TestStdinChunkingIsInvisible audits
// every shipped input and a set of edge inputs with both formats, from a
// regular file and from stdin delivered all at once, one byte per Read,
// half a buffer per Read, with the last bytes and EOF together, in seeded
// random sizes, and cut at chosen offsets; every stdin report must be the
// file's byte for byte, input.source aside.

// chunkInput is one input of the property test; cuts, when set, are
// offsets where a reader must end a Read (the edge cases that hinge on
// one boundary).
type chunkInput struct {
	name string
	data []byte
	cuts [][]int
}

// chunkReader delivers b in some way.
type chunkReader struct {
	name string
	open func(b []byte) io.Reader
}

func chunkReaders(seed uint64) []chunkReader {
	return []chunkReader{
		{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
		{"one-byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
		{"data-err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
		{"random-2", func(b []byte) io.Reader {
			return streamtest.RandReader(b, seed, 1, 2)
		}},
		{"random-7", func(b []byte) io.Reader {
			return streamtest.RandReader(b, seed, 2, 7)
		}},
		{"random-4k", func(b []byte) io.Reader {
			return iotest.HalfReader(streamtest.RandReader(b, seed, 3, 4096))
		}},
	}
}

// chunkInputs gathers the shipped inputs: the fixtures and every file of
// the testscript archives.
func chunkInputs(t *testing.T) []chunkInput {
	t.Helper()
	var ins []chunkInput
	for _, pattern := range []string{"codex/*.jsonl", "controls/*", "lab/*.jsonl"} {
		paths, err := filepath.Glob(filepath.Join("../../../../testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, chunkInput{name: pattern[:strings.IndexByte(pattern, '/')] + "/" + filepath.Base(p), data: b})
		}
	}
	archives, err := filepath.Glob("../../../../testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range archives {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			ins = append(ins, chunkInput{name: filepath.Base(f) + ":" + file.Name, data: file.Data})
		}
	}
	if len(ins) < 50 {
		t.Fatalf("found %d inputs, want the fixtures and the archives' files", len(ins))
	}
	return ins
}

// chunkEdgeInputs are the inputs whose result hinges on where a Read ends:
// byte-order marks, NUL bytes, invalid or split UTF-8, line endings, the
// empty input, deep nesting after an encoding problem.
func chunkEdgeInputs(t *testing.T) []chunkInput {
	t.Helper()
	codex, err := os.ReadFile("../../../../testdata/controls/protocol-codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	traj, err := os.ReadFile("../../../../testdata/controls/protocol-project-search.json")
	if err != nil {
		t.Fatal(err)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	utf16 := func(src []byte, bigEndian bool) []byte {
		var b []byte
		for _, r := range string(src) {
			if bigEndian {
				b = append(b, byte(r>>8), byte(r))
			} else {
				b = append(b, byte(r), byte(r>>8))
			}
		}
		return b
	}
	every := func(from, to int) [][]int {
		var cuts [][]int
		for i := from; i <= to; i++ {
			cuts = append(cuts, []int{i})
		}
		return cuts
	}
	var ins []chunkInput
	add := func(name string, b []byte, cuts ...[]int) {
		ins = append(ins, chunkInput{name: name, data: b, cuts: cuts})
	}
	for _, base := range []struct {
		name string
		b    []byte
	}{{"codex", codex}, {"trajectory", traj}} {
		b := base.b
		n := base.name
		add(n+" utf-8 BOM", cat([]byte("\xEF\xBB\xBF"), b), every(1, 3)...)
		add(n+" utf-16le BOM", cat([]byte("\xFF\xFE"), utf16(b, false)), every(1, 3)...)
		add(n+" utf-16be BOM", cat([]byte("\xFE\xFF"), utf16(b, true)), every(1, 3)...)
		add(n+" utf-16le", utf16(b, false), every(1, 3)...)
		add(n+" utf-16be", utf16(b, true), every(1, 3)...)
		add(n+" BOM after a space", cat([]byte(" \xEF\xBB\xBF"), b), every(1, 4)...)
		for i := 0; i <= 8; i++ {
			rep := bytes.Clone(b)
			rep[i] = 0
			add(fmt.Sprintf("%s NUL at %d", n, i), rep, every(max(i-1, 0), i+1)...)
			add(fmt.Sprintf("%s NUL inserted at %d", n, i), cat(b[:i], []byte{0}, b[i:]), every(max(i-1, 0), i+1)...)
		}
		for _, bad := range []string{"\xFF", "\xFE", "\xC0", "\x80", "\xE2\x82", "\xF0\x9F\x98", "\xED\xA0\x80"} {
			add(fmt.Sprintf("%s %q first", n, bad), cat([]byte(bad), b), every(1, len(bad)+1)...)
			add(fmt.Sprintf("%s %q then NUL first", n, bad), cat([]byte(bad), []byte{0}, b), every(1, len(bad)+1)...)
			add(fmt.Sprintf("%s %q last", n, bad), cat(b, []byte(bad)), every(len(b)-1, len(b)+len(bad))...)
			// Inside the first string value, and split across Reads there.
			q := bytes.IndexByte(b, '"') + 1
			add(fmt.Sprintf("%s %q in a string", n, bad), cat(b[:q], []byte(bad), b[q:]), every(q-1, q+len(bad)+1)...)
		}
		// A 4-byte character in a string, cut at every position; then the
		// same character missing its last byte.
		q := bytes.IndexByte(b, '"') + 1
		add(n+" 4-byte character split", cat(b[:q], []byte("\xF0\x9F\x98\x80"), b[q:]), every(q, q+4)...)
		add(n+" 3 of 4 bytes split", cat(b[:q], []byte("\xF0\x9F\x98"), b[q:]), every(q, q+4)...)
		add(n+" CRLF", bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
		add(n+" no final newline", bytes.TrimSuffix(b, []byte("\n")))
		add(n+" two final newlines", cat(b, []byte("\n")))
		add(n+" cut in half", b[:len(b)/2])
	}
	for _, s := range []string{"", "\n", "\r\n", " ", "\n\n", "\xEF", "\xEF\xBB", "\xEF\xBB\xBF", "\xEF\xBB\xBF\n",
		"\xFF", "\xFE", "\xFF\xFE", "\xFE\xFF", "\xFF\xFE\n", "\x00", "\x00\n", "{", "{}", "{}\n", "[]", "x\x00", "x\xFF"} {
		add(fmt.Sprintf("%q", s), []byte(s), every(0, len(s))...)
	}
	// Deep nesting after invalid UTF-8, in one value and in one line.
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	for _, bad := range []string{"\xFF", "\xE2\x82", "\x00"} {
		in := []byte(`{"schema_version":1,"events":[{"sequence":0,"kind":"x","payload":{"a":"` + bad + `","b":` + deep + `}}]}`)
		q := bytes.Index(in, []byte(bad))
		add(fmt.Sprintf("deep nesting after %q in an event", bad), in, every(q-1, q+len(bad)+3)...)
		in = []byte(`{"events":[],"x":["` + bad + `",` + deep + `]}`)
		q = bytes.Index(in, []byte(bad))
		add(fmt.Sprintf("deep nesting after %q in a member", bad), in, every(q-1, q+len(bad)+3)...)
		in = []byte(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"x","a":"` + bad + `","b":` + deep + "}\n")
		q = bytes.Index(in, []byte(bad))
		add(fmt.Sprintf("deep nesting after %q in a line", bad), in, every(q-1, q+len(bad)+3)...)
	}
	return ins
}

// chunkRun runs one audit and returns its exit code, its report with
// input.source made "file", and stderr.
func chunkRun(t *testing.T, args []string, stdin io.Reader) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(args, stdin, &stdout, &stderr, func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	})
	out := stdout.String()
	if stdin != nil {
		if strings.Count(out, `"source":"stdin"`) != 1 {
			t.Fatalf("%v: the report does not say source stdin once:\n%s", args, out)
		}
		out = strings.Replace(out, `"source":"stdin"`, `"source":"file"`, 1)
	}
	return code, out, stderr.String()
}

func TestStdinChunkingIsInvisible(t *testing.T) {
	t.Parallel()
	ins := append(chunkInputs(t), chunkEdgeInputs(t)...)
	dir := t.TempDir()
	readers := chunkReaders(0x5eed)
	// Every input is read whole, one byte at a time and half a buffer at a
	// time; the other readers take turns, and the edge inputs are also cut
	// at their chosen offsets.
	// With -short or the race detector, the shipped inputs are read only
	// one byte at a time and in the rotating way.
	const fixed = 3
	light := testing.Short() || clitest.Race
	var mu sync.Mutex
	failed := map[string]int{}
	runs := 0
	// Two workers: a run is mostly the CLI's fixed cost.
	work := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				in := ins[k]
				path := filepath.Join(dir, fmt.Sprintf("in-%d", k))
				if err := os.WriteFile(path, in.data, 0o600); err != nil {
					t.Error(err)
					continue
				}
				for f, flag := range []string{"--codex-jsonl", "--trajectory"} {
					wantCode, want, wantErr := chunkRun(t, []string{"eval", "protocol", flag, path, "--json"}, nil)
					if !strings.HasPrefix(want, `{"schema":"cairn.eval.protocol/v1"`) {
						t.Errorf("%s %s: no report from the file: %s", in.name, flag, wantErr)
						continue
					}
					check := func(how string, r io.Reader) {
						code, got, gotErr := chunkRun(t, []string{"eval", "protocol", flag, "-", "--json"}, r)
						mu.Lock()
						defer mu.Unlock()
						runs++
						if code != wantCode || got != want || gotErr != wantErr {
							failed[how]++
							t.Errorf("%s %s, stdin %s: exit %d, want %d as from the file\n got %s\nwant %s\n got stderr %q\nwant stderr %q",
								in.name, flag, how, code, wantCode, got, want, gotErr, wantErr)
						}
					}
					for j, cr := range readers[:fixed] {
						if j == 1 || !light || in.cuts != nil {
							check(cr.name, cr.open(in.data))
						}
					}
					cr := readers[fixed+(2*k+f)%(len(readers)-fixed)]
					check(cr.name, cr.open(in.data))
					for _, cuts := range in.cuts {
						check(fmt.Sprintf("cut at %v", cuts), streamtest.CutReader(in.data, cuts))
					}
				}
			}
		}()
	}
	for k := range ins {
		work <- k
	}
	close(work)
	wg.Wait()
	t.Logf("%d inputs, %d stdin runs", len(ins), runs)
	if len(failed) > 0 {
		t.Logf("mismatches by delivery: %v", failed)
	}
}

// TestStdinLargePastTheLimit is the property past the 16 MiB limit: every
// delivery of stdin gives one report, whose code is the first problem in
// reading order. (A file that large is refused by its size before it is
// read, with no records or counts; stdin matches it only when the verdict
// is input_too_large, which needs runAudit to make it so once the drained
// total is known — see the report of the change that added this test.)
func TestStdinLargePastTheLimit(t *testing.T) {
	if testing.Short() || clitest.Race {
		t.Skip("16 MiB inputs, millions of Reads")
	}
	t.Parallel()
	over := clitest.Size(16<<20 + 1)
	late := bytes.Clone(over)
	late[len(late)-100] = 0xFF // in the last line, which crosses the limit
	text := strings.Repeat("x", 16<<20)
	traj := []byte(`{"schema_version":1,"session_id":"s","harness":"pi","project_root":"/p",` +
		`"started_at":"2026-10-07T00:00:00Z","ended_at":"2026-10-07T00:01:00Z",` +
		`"capture":{"captured_at":"2026-10-07T00:01:00Z","omitted_reasoning_blocks":0,"omitted_unknown_records":0,"truncated":false},` +
		`"events":[{"sequence":0,"kind":"user_input","payload":{"text":"` + text + `"}}]}`)
	trajLate := bytes.Clone(traj)
	trajLate[16<<20-10] = 0xFF
	trajDeep := bytes.Clone(traj)
	copy(trajDeep[16<<20-1000:], "\\u00e9\xFF\",\"b\":"+strings.Repeat("[", 300))
	tests := []struct {
		name, flag, code string
		in               []byte
	}{
		{"codex one byte over", "--codex-jsonl", "input_too_large", over},
		{"codex invalid UTF-8 before the limit", "--codex-jsonl", "input_not_utf8", late},
		{"codex malformed line 3", "--codex-jsonl", "malformed_json", clitest.BadThird(17 << 20)},
		{"trajectory over", "--trajectory", "input_too_large", traj},
		{"trajectory invalid UTF-8 before the limit", "--trajectory", "input_not_utf8", trajLate},
		{"trajectory invalid UTF-8 then deep nesting before the limit", "--trajectory", "input_not_utf8", trajDeep},
	}
	for _, tc := range tests {
		var first string
		for _, cr := range chunkReaders(7) {
			if cr.name == "random-2" || cr.name == "random-7" {
				continue // millions of Reads: one-byte covers the small ones
			}
			code, got, _ := chunkRun(t, []string{"eval", "protocol", tc.flag, "-", "--json"}, cr.open(tc.in))
			if want := `"error":{"code":"` + tc.code + `"`; code != 2 || !strings.Contains(got, want) {
				t.Errorf("%s, stdin %s: exit %d, want 2 and %s\n%s", tc.name, cr.name, code, want, got)
			}
			if first == "" {
				first = got
			} else if got != first {
				t.Errorf("%s, stdin %s: the report differs from the whole read's\n got %s\nwant %s", tc.name, cr.name, got, first)
			}
		}
	}
}

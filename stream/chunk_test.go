package stream

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"

	"github.com/cairn-audit/cairn/stream/streamtest"
)

// SPEC §3: what Lines and Document return — records, parts, record
// numbers, byte counts, the error and the digest — depends only on the
// input's bytes, never on how Reads deliver them. The guard, which both
// share, is also compared with a reading of the whole input at once.

type ckReader struct {
	name string
	open func(b []byte) io.Reader
}

// ckReaders are the deliveries compared with one Read of everything.
func ckReaders(seed uint64) []ckReader {
	return []ckReader{
		{"one-byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
		{"data-err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
		{"random-3", func(b []byte) io.Reader { return streamtest.RandReader(b, seed, 1, 3) }},
		{"random-100", func(b []byte) io.Reader { return streamtest.RandReader(b, seed, 2, 100) }},
		{"random-64k", func(b []byte) io.Reader { return streamtest.RandReader(b, seed, 3, 70000) }},
	}
}

// ckLines is everything a Lines says about an input, in order.
func ckLines(r io.Reader) string { return ckFramed(NewLines(r)) }

// ckPrefetch is ckLines read through a Prefetch of small batches, which
// frames the records in the buffers it reads into: whatever the Reads, it
// must say what Lines says.
func ckPrefetch(r io.Reader) string {
	p := newPrefetch(NewLines(r), nil, 64, 3)
	defer p.Close()
	return ckFramed(p)
}

// ckFramed is everything a framer says about its input, in order.
func ckFramed(l framer) string {
	var b strings.Builder
	for {
		line, err := l.Next()
		if err != nil {
			fmt.Fprintf(&b, "end %s record %d bytes %d sum %x", ckErr(err), l.Record(), l.Bytes(), l.Sum())
			return b.String()
		}
		fmt.Fprintf(&b, "%d %d %q\n", l.Record(), l.Bytes(), line)
	}
}

// ckDocument is everything a Document says about an input, in order,
// with what it locates in each event (ckLocate): a value the read buffer
// holds whole is checked there, one it cuts is read first, and the two
// must not differ.
func ckDocument(r io.Reader) string {
	d := NewDocumentLocating(r, "events", ckLocate)
	var b strings.Builder
	for {
		p, err := d.Next()
		if err != nil || p.Kind == End {
			fmt.Fprintf(&b, "end %s events %d bytes %d sum %x has-events %v", ckErr(err), d.Events(), d.Bytes(), d.Sum(), d.HasEvents())
			return b.String()
		}
		fmt.Fprintf(&b, "%d %q %d %q events %d bytes %d located %v\n", p.Kind, p.Name, p.Index, p.Value, d.Events(), d.Bytes(), d.Located())
	}
}

// ckLocate is what ckDocument locates in each event.
var ckLocate = Locate{Child: "payload", Grandchild: "input", Elements: "items", Reads: func([]byte) bool { return true }}

func ckErr(err error) string {
	var ie *audit.InputError
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return "ok"
	case errors.As(err, &ie):
		return fmt.Sprintf("%s at %d", ie.Code, ie.Record)
	}
	return "error " + err.Error()
}

// ckShipped is every fixture and every file of the testscript archives.
func ckShipped(t testing.TB) [][]byte {
	t.Helper()
	var ins [][]byte
	for _, pattern := range []string{"codex/*.jsonl", "controls/*", "lab/*.jsonl"} {
		paths, _ := filepath.Glob(filepath.Join("../testdata", pattern))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, b)
		}
	}
	archives, _ := filepath.Glob("../testdata/script/*.txtar")
	for _, f := range archives {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			ins = append(ins, file.Data)
		}
	}
	if len(ins) < 50 {
		t.Fatalf("found %d inputs, want the fixtures and the archives' files", len(ins))
	}
	return ins
}

// ckEdge are inputs whose result hinges on one Read boundary, each with
// the offsets worth cutting at.
type ckEdgeInput struct {
	in   []byte
	cuts []int
}

func ckEdges() []ckEdgeInput {
	codex := []byte(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	traj := []byte(`{"schema_version":1,"harness":"pi","events":[{"sequence":0,"kind":"user_input","payload":{"text":"u"}}]}` + "\n")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	span := func(from, to int) []int {
		var c []int
		for i := max(from, 1); i <= to; i++ {
			c = append(c, i)
		}
		return c
	}
	var out []ckEdgeInput
	add := func(b []byte, cuts []int) { out = append(out, ckEdgeInput{b, cuts}) }
	for _, b := range [][]byte{codex, traj} {
		var le, be []byte
		for _, r := range string(b) {
			le, be = append(le, byte(r), byte(r>>8)), append(be, byte(r>>8), byte(r))
		}
		add(cat([]byte("\xEF\xBB\xBF"), b), span(1, 3))
		add(cat([]byte("\xFF\xFE"), le), span(1, 3))
		add(cat([]byte("\xFE\xFF"), be), span(1, 3))
		add(le, span(1, 3))
		add(be, span(1, 3))
		add(cat([]byte(" \xEF\xBB\xBF"), b), span(1, 4))
		for i := 0; i <= 8; i++ {
			rep := bytes.Clone(b)
			rep[i] = 0
			add(rep, span(i-1, i+1))
			add(cat(b[:i], []byte{0}, b[i:]), span(i-1, i+1))
		}
		q := bytes.IndexByte(b, '"') + 1
		for _, bad := range []string{"\xFF", "\xFE", "\xC0", "\x80", "\xE2\x82", "\xF0\x9F\x98", "\xED\xA0\x80", "\xF4\x90\x80\x80"} {
			add(cat([]byte(bad), b), span(1, len(bad)+1))
			add(cat([]byte(bad), []byte{0}, b), span(1, len(bad)+1))
			add(cat(b, []byte(bad)), span(len(b)-1, len(b)+len(bad)))
			add(cat(b[:q], []byte(bad), b[q:]), span(q-1, q+len(bad)+1))
			add(cat(b[:q], []byte(bad), []byte{0}, b[q:]), span(q-1, q+len(bad)+1))
		}
		add(cat(b[:q], []byte("\xF0\x9F\x98\x80"), b[q:]), span(q, q+4))
		add(cat(b[:q], []byte("\xF0\x9F\x98"), b[q:]), span(q, q+4))
		add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), nil)
		add(bytes.TrimSuffix(b, []byte("\n")), nil)
		add(cat(b, []byte("\n")), nil)
	}
	for _, s := range []string{"", "\n", "\r\n", " ", "\n\n", "\xEF", "\xEF\xBB", "\xEF\xBB\xBF", "\xEF\xBB\xBF\n",
		"\xFF", "\xFE", "\xFF\xFE", "\xFE\xFF", "\xFF\xFE\n", "\xFFx", "\x00", "\x00\n", "{", "{}", "{}\n", "[]", "x\x00", "x\xFF", "x\xE2\x82"} {
		add([]byte(s), span(0, len(s)))
	}
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	for _, bad := range []string{"\xFF", "\xE2\x82", "\x00"} {
		for _, s := range []string{
			`{"events":[{"sequence":0,"kind":"x","payload":{"a":"` + bad + `","b":` + deep + `}}]}`,
			`{"events":[],"x":["` + bad + `",` + deep + `]}`,
			`{"x":` + deep[:130] + `"` + bad + `"` + deep[200:330] + `}`,
			`{"type":"x","a":"` + bad + `","b":` + deep + "}\n",
		} {
			q := strings.Index(s, bad)
			add([]byte(s), span(q-1, q+len(bad)+3))
		}
	}
	return out
}

// TestChunkingInvisible reads every shipped and edge input with Lines,
// with Prefetch and with Document, delivered whole and in every other way,
// and requires the same records, parts, counts, error and digest.
func TestChunkingInvisible(t *testing.T) {
	t.Parallel()
	ins := ckShipped(t)
	edges := ckEdges()
	for _, e := range edges {
		ins = append(ins, e.in)
	}
	readers := ckReaders(0xc4a1)
	fails := 0
	for k, in := range ins {
		wantLines, wantDoc := ckLines(bytes.NewReader(in)), ckDocument(bytes.NewReader(in))
		try := func(how string, open func() io.Reader) {
			if got := ckLines(open()); got != wantLines {
				fails++
				t.Errorf("Lines(%s), %s:\n got %s\nwant %s", quoteLong(string(in)), how, shorten(got), shorten(wantLines))
			}
			if got := ckPrefetch(open()); got != wantLines {
				fails++
				t.Errorf("Prefetch(%s), %s:\n got %s\nwant %s", quoteLong(string(in)), how, shorten(got), shorten(wantLines))
			}
			if got := ckDocument(open()); got != wantDoc {
				fails++
				t.Errorf("Document(%s), %s:\n got %s\nwant %s", quoteLong(string(in)), how, shorten(got), shorten(wantDoc))
			}
		}
		// The shipped inputs are read one byte at a time and one other way
		// in turn; the edge inputs every way, and cut where it matters.
		edge := k >= len(ins)-len(edges)
		for j, r := range readers {
			if j == 0 || edge || j == 1+k%(len(readers)-1) {
				try(r.name, func() io.Reader { return r.open(in) })
			}
		}
		if edge {
			for _, c := range edges[k-(len(ins)-len(edges))].cuts {
				try(fmt.Sprintf("cut at %d", c), func() io.Reader { return streamtest.CutReader(in, []int{c}) })
			}
		}
		if fails > 20 {
			t.Fatal("too many failures")
		}
	}
}

// TestChunkingEdgeCodes pins what the edge inputs give, whatever the
// delivery: the guard's codes for both formats.
func TestChunkingEdgeCodes(t *testing.T) {
	bom := "\xEF\xBB\xBF{}\n"
	tests := []struct {
		in          string
		lines, doc  audit.Code // 0: no error
		bytesOnFail int64      // Bytes() after the error, both readers
	}{
		{bom, audit.InputBOM, audit.InputBOM, 3},
		{"\xFF\xFE{\x00}\x00", audit.InputUTF16, audit.InputUTF16, 2},
		{"\xFE\xFF\x00{\x00}", audit.InputUTF16, audit.InputUTF16, 2},
		{"\xFF", audit.InputNotUTF8, audit.InputNotUTF8, 1},
		{"\xFFx", audit.InputNotUTF8, audit.InputNotUTF8, 1},
		{"\xEF\xBB", audit.InputNotUTF8, audit.InputNotUTF8, 2},
		{"\xE2\x82{}", audit.InputNotUTF8, audit.InputNotUTF8, 3},
		{"x\x00", audit.InputUTF16, audit.InputUTF16, 2},
		{"x\xFF", audit.InputNotUTF8, audit.InputNotUTF8, 2},
		{"", audit.EmptyInput, audit.EmptyInput, 0},
		{"\n", audit.BlankRecord, audit.MalformedJSON, 1},
		{`{"a":"` + "\xF0\x9F\x98" + `"}`, audit.InputNotUTF8, audit.InputNotUTF8, 10},
		{`{"a":"` + "\xE2\x82\x00", audit.InputUTF16, audit.InputUTF16, 9},
		{`{"x":["` + "\xFF" + `",` + strings.Repeat("[", 200), audit.InputNotUTF8, audit.InputNotUTF8, 8},
	}
	for _, tc := range tests {
		for _, r := range append(ckReaders(1), ckReader{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }}) {
			in := []byte(tc.in)
			l := NewLines(r.open(in))
			var err error
			for err == nil {
				_, err = l.Next()
			}
			if code := codeOrZero(err); code != tc.lines || code != 0 && code != audit.BlankRecord && l.Bytes() != tc.bytesOnFail {
				t.Errorf("Lines(%q), %s: %v after %d bytes, want %v after %d", tc.in, r.name, code, l.Bytes(), tc.lines, tc.bytesOnFail)
			}
			d := NewDocument(r.open(in))
			for err = nil; err == nil; {
				var p Part
				if p, err = d.Next(); p.Kind == End {
					break
				}
			}
			if code := codeOrZero(err); code != tc.doc || code != 0 && code != audit.MalformedJSON && d.Bytes() != tc.bytesOnFail {
				t.Errorf("Document(%q), %s: %v after %d bytes, want %v after %d", tc.in, r.name, code, d.Bytes(), tc.doc, tc.bytesOnFail)
			}
		}
	}
}

func codeOrZero(err error) audit.Code {
	var ie *audit.InputError
	if errors.As(err, &ie) {
		return ie.Code
	}
	return 0
}

// ckGuardWhole is the guard's verdict read off the whole input at once, a
// second reading of SPEC §3 to compare the chunked guard with: the code
// (0 for a clean input) and where it became certain.
func ckGuardWhole(in []byte) (audit.Code, int64) {
	switch {
	case len(in) == 0:
		return audit.EmptyInput, 0
	case bytes.HasPrefix(in, utf8BOM):
		return audit.InputBOM, 3
	case bytes.HasPrefix(in, []byte{0xFE, 0xFF}), bytes.HasPrefix(in, []byte{0xFF, 0xFE}):
		return audit.InputUTF16, 2
	}
	seen := in[:min(len(in), MaxBytes)]
	for i := 0; i < len(seen); {
		if seen[i] == 0 {
			return audit.InputUTF16, int64(i + 1)
		}
		r, size := utf8.DecodeRune(seen[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		if !utf8.FullRune(seen[i:]) {
			break // cut by the end, or by the limit
		}
		// The shortest prefix no valid sequence starts with; a NUL that
		// ends it is UTF-16 evidence.
		m := 1
		for !utf8.FullRune(seen[i : i+m]) {
			m++
		}
		if seen[i+m-1] == 0 {
			return audit.InputUTF16, int64(i + m)
		}
		return audit.InputNotUTF8, int64(i + m)
	}
	switch {
	case len(in) > MaxBytes:
		return audit.InputTooLarge, MaxBytes + 1
	case !utf8.Valid(in):
		return audit.InputNotUTF8, int64(len(in))
	}
	return 0, int64(len(in))
}

// ckGuardChunks runs the guard over in cut at cuts, then its end.
func ckGuardChunks(in []byte, cuts []int) (audit.Code, int64, []byte) {
	g := newGuard()
	prev := 0
	for _, c := range append(cuts, len(in)) {
		if code := g.consume(in[prev:c]); code != 0 {
			return code, g.n, nil
		}
		prev = c
	}
	if code := g.finish(); code != 0 {
		return code, g.n, nil
	}
	return 0, g.n, g.h.sum()
}

// ckRandomCuts cuts n bytes at random offsets, mostly close together.
func ckRandomCuts(r *rand.Rand, n int) []int {
	var cuts []int
	for at := 0; ; {
		step := 1 + r.IntN(4)
		if r.IntN(8) == 0 {
			step = 1 + r.IntN(max(n/2, 1))
		}
		at += step
		if at >= n {
			return cuts
		}
		cuts = append(cuts, at)
	}
}

func TestGuardChunked(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var ins [][]byte
	for _, e := range ckEdges() {
		ins = append(ins, e.in)
	}
	for _, s := range []string{"\x00", "a\x00", "\xE2\x00", "\xE2\x82\x00", "\xF0\x9F\x98\x00", "\xC0\x00", "\xED\xA0\x00",
		"\xF4\x8F\xBF\xBF", "\xF4\x90", "\xEF\xBF\xBD", "\xEF\xBB\xBFx", "\xEF\xBBx", "\xFE", "\xFE\xFE", "\xFF\xFF"} {
		ins = append(ins, []byte(s))
	}
	for _, in := range ins {
		wantCode, wantN := ckGuardWhole(in)
		check := func(cuts []int) {
			code, n, sum := ckGuardChunks(in, cuts)
			if code != wantCode || n != wantN {
				t.Fatalf("guard(%q) cut at %v: %v at %d, want %v at %d", in, cuts, code, n, wantCode, wantN)
			}
			if want := sha256.Sum256(in); code == 0 && !bytes.Equal(sum, want[:]) {
				t.Fatalf("guard(%q) cut at %v: wrong digest", in, cuts)
			}
		}
		check(nil)
		for i := 1; i < len(in) && i < 16; i++ {
			check([]int{i})
		}
		var every []int
		for i := 1; i < len(in); i++ {
			every = append(every, i)
		}
		check(every)
		for range 20 {
			check(ckRandomCuts(rnd, len(in)))
		}
	}
}

// TestGuardLimit checks the 16 MiB boundary: a problem before it wins, one
// at or after it is not looked at, whatever chunk crosses it.
func TestGuardLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MiB inputs")
	}
	t.Parallel()
	big := bytes.Repeat([]byte("a"), MaxBytes+8)
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		at  int
		bad string
	}{{-1, ""}, {MaxBytes - 5, "\xFF"}, {MaxBytes - 1, "\x00"}, {MaxBytes - 1, "\xE2\x82"}, {MaxBytes, "\xFF"}} {
		in := big
		if tc.at >= 0 {
			in = bytes.Clone(big)
			copy(in[tc.at:], tc.bad)
		}
		wantCode, wantN := ckGuardWhole(in)
		for _, cuts := range [][]int{{MaxBytes - 3, MaxBytes - 2, MaxBytes - 1, MaxBytes, MaxBytes + 1}} {
			if code, n, _ := ckGuardChunks(in, cuts); code != wantCode || n != wantN {
				t.Errorf("%q at %d, cut at %v: %v at %d, want %v at %d", tc.bad, tc.at, cuts, code, n, wantCode, wantN)
			}
		}
		var cuts []int
		for at := rnd.IntN(1 << 16); at < len(in); at += 1 + rnd.IntN(1<<16) {
			cuts = append(cuts, at)
		}
		if code, n, _ := ckGuardChunks(in, cuts); code != wantCode || n != wantN {
			t.Errorf("%q at %d, random cuts: %v at %d, want %v at %d", tc.bad, tc.at, code, n, wantCode, wantN)
		}
	}
}

// TestDocumentLimitOnEveryByte puts the 16 MiB limit on each byte of a
// small document in turn (white space before it fills the rest): each is
// input_too_large, never a panic, and the count stops at the limit. (The
// opening brace as the byte past the limit once went unchecked.)
func TestDocumentLimitOnEveryByte(t *testing.T) {
	doc := `{"capture":{"a":[1,"x"]},"events":[{"kind":"x"},{}]}`
	in := bytes.Repeat([]byte(" "), MaxBytes+len(doc))
	for i := range len(doc) {
		if testing.Short() && i > 3 {
			break
		}
		pad := MaxBytes - i
		copy(in[pad:], doc)
		d := NewDocument(bytes.NewReader(in[:pad+len(doc)]))
		var err error
		for err == nil {
			var p Part
			if p, err = d.Next(); p.Kind == End {
				break
			}
		}
		if code := codeOrZero(err); code != audit.InputTooLarge || d.Bytes() != MaxBytes+1 {
			t.Errorf("limit on byte %d (%q): %v after %d bytes, want input_too_large after %d", i, doc[i], code, d.Bytes(), MaxBytes+1)
		}
		copy(in[pad:], bytes.Repeat([]byte(" "), len(doc)))
	}
}

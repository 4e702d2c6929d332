package stream_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// fzFixtures returns the real codex exports the fuzz corpora start from.

// codexLocate is what a codex decoder has the checker locate.
var codexLocate = stream.Locate{Child: "item", Grandchild: "result", TwiceInChild: "id"}

func fzFixtures(f *testing.F) [][]byte {
	f.Helper()
	paths, err := filepath.Glob("../testdata/codex/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	paths = append(paths, "../testdata/controls/protocol-codex.jsonl")
	// What the newest real codex printed (testdata/codex/real).
	real, _ := filepath.Glob("../testdata/codex/real/0.171.0/*.jsonl")
	paths = append(paths, real...)
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) < 2 {
		f.Fatalf("got %d fixtures, want the codex samples", len(out))
	}
	return out
}

// FuzzLines feeds arbitrary bytes to the JSONL framer and compares what it
// does with a direct reading of SPEC §3 and §4.1: the first problem in
// reading order is reported, every error is an invalid-input code, the
// limits hold, and a clean input comes back line for line with its digest.
func FuzzLines(f *testing.F) {
	for _, b := range fzFixtures(f) {
		f.Add(b)
		f.Add(bytes.TrimSuffix(b, []byte("\n")))                 // no final newline
		f.Add(append(bytes.Clone(b), '\n'))                      // a second terminal newline
		f.Add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))) // CRLF
		f.Add(append([]byte("\xEF\xBB\xBF"), b...))              // BOM
		f.Add(append(bytes.Clone(b[:len(b)/2]), 0xE2, 0x82))     // cut in a UTF-8 sequence
		f.Add(bytes.Replace(b, []byte("\n"), []byte("\n \n"), 1))
	}
	f.Add([]byte{})
	f.Add([]byte("\n"))
	f.Add([]byte("\xFF\xFE{\x00"))
	f.Add([]byte("{}\n\xff\x00\n"))
	f.Add([]byte("{\"a\":\"\xe2\x82\xac\"}\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := stream.NewLines(bytes.NewReader(in))
		var got [][]byte
		var err error
		for {
			var line []byte
			line, err = lines.Next()
			if err != nil {
				break
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("record %d holds a newline", lines.Record())
			}
			got = append(got, bytes.Clone(line))
			if len(got) > stream.MaxRecords {
				t.Fatalf("got %d records, more than %d", len(got), stream.MaxRecords)
			}
		}
		if lines.Record() > stream.MaxRecords+1 {
			t.Fatalf("counted %d records", lines.Record())
		}
		if n := lines.Bytes(); n < 0 || n > int64(len(in)) {
			t.Fatalf("consumed %d bytes of %d", n, len(in))
		}
		if _, again := lines.Next(); !errors.Is(again, err) {
			t.Fatalf("after %v, Next returned %v", err, again)
		}
		want, wantRecord := fzFrame(in)
		if errors.Is(err, io.EOF) {
			if want != 0 {
				t.Fatalf("got EOF, want %v at record %d", want, wantRecord)
			}
			if lines.Bytes() != int64(len(in)) {
				t.Fatalf("consumed %d bytes of %d at EOF", lines.Bytes(), len(in))
			}
			if sum := sha256.Sum256(in); !bytes.Equal(lines.Sum(), sum[:]) {
				t.Fatal("digest differs from the SHA-256 of the input")
			}
			joined := bytes.Join(got, []byte("\n"))
			if bytes.HasSuffix(in, []byte("\n")) {
				joined = append(joined, '\n')
			}
			if !bytes.Equal(joined, in) {
				t.Fatal("the records do not rebuild the input")
			}
			return
		}
		var ie *audit.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("got error %T %v, want *audit.InputError", err, err)
		}
		if ie.Code.Kind() != audit.KindInvalid {
			t.Fatalf("got code %v of kind %d, want an invalid code", ie.Code, ie.Code.Kind())
		}
		if lines.Sum() != nil {
			t.Fatal("a digest after an error")
		}
		if ie.Code != want || ie.Record != wantRecord {
			t.Fatalf("got %v at record %d, want %v at record %d", ie.Code, ie.Record, want, wantRecord)
		}
	})
}

// fzFrame is the reference reading of an input for FuzzLines: the first
// problem in reading order and its record (-1 for the input as a whole), or
// 0 for a clean input. It holds the whole input, as the real reader must not.
func fzFrame(in []byte) (audit.Code, int) {
	switch {
	case len(in) == 0:
		return audit.EmptyInput, -1
	case len(in) > stream.MaxBytes:
		return audit.InputTooLarge, -1
	case bytes.HasPrefix(in, []byte("\xEF\xBB\xBF")):
		return audit.InputBOM, -1
	case bytes.HasPrefix(in, []byte("\xFE\xFF")), bytes.HasPrefix(in, []byte("\xFF\xFE")):
		return audit.InputUTF16, -1
	}
	record := 0
	for len(in) > 0 {
		line := in
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			line = in[:i+1]
		}
		in = in[len(line):]
		// Encoding first: the reader checks each line's bytes as it takes
		// them. An invalid sequence before a NUL is reported as such; a NUL
		// that interrupts a sequence is UTF-16 evidence.
		if i := bytes.IndexByte(line, 0); i >= 0 {
			if fzBrokenBefore(line[:i]) {
				return audit.InputNotUTF8, -1
			}
			return audit.InputUTF16, -1
		}
		if !utf8.Valid(line) {
			return audit.InputNotUTF8, -1
		}
		record++
		body := bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case record > stream.MaxRecords:
			return audit.TooManyRecords, record
		case len(bytes.Trim(body, " \t\r\n")) == 0:
			return audit.BlankRecord, record
		}
	}
	return 0, 0
}

// fzBrokenBefore reports whether p holds an invalid UTF-8 sequence other
// than an incomplete one at its very end.
func fzBrokenBefore(p []byte) bool {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			return utf8.FullRune(p)
		}
		p = p[size:]
	}
	return false
}

// FuzzChecker compares stream.Checker with encoding/json plus the three
// rules encoding/json does not enforce (duplicate names, depth, lone
// surrogates), and checks that the canonical form of an accepted value is
// accepted, means the same and is a fixed point.
func FuzzChecker(f *testing.F) {
	for _, b := range fzFixtures(f) {
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	}
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":2}}`,
		`{"a":"\ud83d\ude00"}`, `{"a":"\ud83d"}`, `{"a":"\ude00\ud83d"}`, `{"\\ud800":1}`,
		`{"a":1e400,"b":-0.0e-7,"c":10E+2,"d":0.00100}`, `{"a":01}`, `{"a":1.}`, `[]`, `"x"`,
		`{"item":{"id":"a","type":"web_search","id":"b"}}`, `{"a":[1,2,]}`, `{"a":tru}`,
		`{"item":{"result":{"a":1,"b":{"result":{"c":2}}}},"result":{"x":1}}`, `{"item":{"result":[{"a":1}]}}`,
		`{"x":{"item":{"result":{"a":1}}}}`, `{"item":{"result":{"a":1,"a":2}}}`,
		`{"items":[1, {"items":[2]}, [3], "x"],"item":{"items":[4]}}`, `{"items":{"a":[1]}}`,
		`{"item":{"items":[{"a":1,"b":{"c":2}},{},3,{"d":"\u0065"}]},"items":[{"x":[1]},{"\u0079":2}]}`,
		`{"items":[` + strings.Repeat(`{"a":1},`, 256) + `{"b":2}]}`, `{"items":[` + strings.Repeat(`{},`, 255) + `{}]}`,
		strings.Repeat(`{"a":`, 127) + `1` + strings.Repeat(`}`, 127),
		strings.Repeat(`[`, 127) + strings.Repeat(`]`, 127),
		`{"a":` + strings.Repeat(`[`, 128) + strings.Repeat(`]`, 128) + `}`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":18}`,
		`{"item":{"id":"a","k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"ab":0,"k18":18,"result":{}}}`,
		"{\"a\":\"\xff\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\t\"}", `{"a":1e99999999999,"b":1e-99999999999}`,
		`{"a":1e107374182399}`, `{"a":-12.5e-107374182399}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Strict (no name may come twice), locating what a codex decoder reads.
		c := stream.Checker{Locate: stream.Locate{Child: "item", Grandchild: "result", Elements: "items"}}
		code := c.Check(in)
		switch code {
		case 0, audit.MalformedJSON, audit.DuplicateKey, audit.NestingTooDeep:
		default:
			t.Fatalf("got code %v, not one the checker may return", code)
		}
		validJSON := json.Valid(in)
		object := validJSON && bytes.TrimLeft(in, " \t\r\n")[0] == '{'
		if code == 0 && !object {
			t.Fatalf("accepted what encoding/json does not read as one object (valid %v)", validJSON)
		}
		quirk := stream.Checker{Locate: codexLocate}
		if code == 0 && quirk.Check(in) != 0 {
			t.Fatal("accepted by the strict checker but not with TwiceInChild")
		}
		if qc := quirk.Check(in); qc == 0 && !object {
			t.Fatal("TwiceInChild accepted what is not one JSON object")
		}
		if object {
			depth := fzDepth(in)
			lone := fzLoneSurrogate(in)
			switch {
			case depth > stream.MaxDepth && code != audit.NestingTooDeep:
				t.Fatalf("depth %d: got %v, want nesting_too_deep", depth, code)
			case depth <= stream.MaxDepth && code == audit.NestingTooDeep:
				t.Fatalf("depth %d: got nesting_too_deep", depth)
			case lone && code == 0:
				t.Fatal("accepted a lone surrogate escape")
			}
			if utf8.Valid(in) && depth <= stream.MaxDepth && !lone {
				dup := fzDuplicate(t, in)
				switch {
				case dup && code != audit.DuplicateKey:
					t.Fatalf("duplicate names: got %v, want duplicate_key", code)
				case !dup && code != 0:
					t.Fatalf("a well-formed object: got %v, want acceptance", code)
				}
			}
		}
		if code != 0 {
			return
		}
		// The members the checker locates are those a second, plain walk
		// of the record (and of its "item" object) finds.
		root := fzFields(in, c.Root)
		if want := stream.AppendMembers(nil, in); !stream.SameFields(root, want) {
			t.Fatalf("recorded members %q, want %q", root, want)
		}
		item := fzMembersOf(root, "item")
		if got := fzFields(in, c.Child); !stream.SameFields(got, item) {
			t.Fatalf("recorded item members %q, want %q", got, item)
		}
		result := fzMembersOf(item, "result")
		if got := fzFields(in, c.Grandchild); !stream.SameFields(got, result) {
			t.Fatalf("recorded result members %q, want %q", got, result)
		}
		fzElements(t, in, &c.Located, stream.ElementsOf(root, "items"))
		// The same of the item's items, with Locate.ChildElements.
		ce := stream.Checker{Locate: stream.Locate{Child: "item", ChildElements: "items"}}
		if got := ce.Check(in); got != 0 {
			t.Fatalf("with ChildElements: got %v, want acceptance", got)
		}
		fzElements(t, in, &ce.Located, stream.ElementsOf(item, "items"))
		// A located member's Text is its value unquoted, and PlainString
		// says exactly whether the value is a string with no escape.
		for _, spans := range [][]stream.Span{c.Root, c.Child, c.Grandchild} {
			for i := range spans {
				_, v := spans[i].In(in)
				plain := stream.TypeOf(v) == stream.String && bytes.IndexByte(v, '\\') < 0
				if spans[i].PlainString != plain {
					t.Fatalf("value %q: PlainString %v, want %v", v, spans[i].PlainString, plain)
				}
				if got, want := spans[i].Text(in), stream.Unquote(v); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("value %q: Text %q, want %q", v, got, want)
				}
			}
		}
		// With Locate.Reads, the same but that past an object's first
		// LocateAll members, only the names Reads accepts are located, and
		// the first it refuses.
		reads := stream.Checker{Locate: stream.Locate{Child: "item", Grandchild: "result", Reads: fzReads}}
		if got := reads.Check(in); got != 0 {
			t.Fatalf("with Reads: got %v, want acceptance", got)
		}
		for _, o := range []struct {
			name  string
			spans []stream.Span
			all   []stream.Field
		}{{"record", reads.Root, root}, {"item", reads.Child, item}, {"result", reads.Grandchild, result}} {
			if got, want := fzFields(in, o.spans), fzRead(o.all); !stream.SameFields(got, want) {
				t.Fatalf("with Reads, located %s members %q, want %q", o.name, got, want)
			}
		}
		canon := stream.AppendCanonical(nil, in)
		if got := c.Check(canon); got != 0 {
			t.Fatalf("the canonical form %q is rejected: %v", canon, got)
		}
		if again := stream.AppendCanonical(nil, canon); !bytes.Equal(again, canon) {
			t.Fatalf("canonical form is not a fixed point:\n%q\n%q", canon, again)
		}
		// encoding/json reads invalid UTF-8 as U+FFFD, which can merge two
		// names; the checker leaves UTF-8 to the reader (Check's contract).
		if utf8.Valid(in) && !fzSameValue(t, in, canon) {
			t.Fatalf("canonical form %q does not mean what %q means", canon, in)
		}
	})
}

// fzMembersOf is the members of the object value of the member called
// name among fs, by a plain walk; none when there is no such object.
func fzMembersOf(fs []stream.Field, name string) []stream.Field {
	var members []stream.Field
	for _, f := range fs {
		if string(f.Name) == name && stream.TypeOf(f.Value) == stream.Object {
			members = stream.AppendMembers(members, f.Value)
		}
	}
	return members
}

// fzReads is the Locate.Reads of the fuzz test: names of even length.
func fzReads(name []byte) bool { return len(name)%2 == 0 }

// fzRead is what a Checker with Reads fzReads locates of an object whose
// members are fs: the first LocateAll, then those fzReads accepts and
// the first it refuses.
func fzRead(fs []stream.Field) []stream.Field {
	var out []stream.Field
	refused := false
	for k, f := range fs {
		switch {
		case k < stream.LocateAll || fzReads(f.Name):
		case !refused:
			refused = true
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// fzFields is the members spans locate in the record b.
func fzFields(b []byte, spans []stream.Span) []stream.Field {
	var fs []stream.Field
	for _, sp := range spans {
		name, value := sp.In(b)
		fs = append(fs, stream.Field{Name: name, Value: value})
	}
	return fs
}

// fzElements fails t unless loc locates exactly the elements want (a
// plain walk's) and, of each that is an object, its members as a plain
// walk finds them; or, for more than MaxElements, none and ElementsCut.
func fzElements(t *testing.T, in []byte, loc *stream.Located, want [][]byte) {
	t.Helper()
	if len(want) > stream.MaxElements {
		if !loc.ElementsCut || len(loc.Elements) != 0 || len(loc.ElementMembers) != 0 {
			t.Fatalf("%d elements: cut %v, %d located, want none", len(want), loc.ElementsCut, len(loc.Elements))
		}
		return
	}
	if loc.ElementsCut {
		t.Fatalf("%d elements: cut", len(want))
	}
	if got := stream.SpanValues(in, loc.Elements); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("located elements %q, want %q", got, want)
	}
	total := 0
	for k := range loc.Elements {
		got := fzFields(in, loc.MembersOf(k))
		total += len(got)
		if all := stream.AppendMembers(nil, want[k]); !stream.SameFields(got, all) {
			t.Fatalf("element %d: located members %q, want %q", k, got, all)
		}
	}
	if total != len(loc.ElementMembers) {
		t.Fatalf("%d element members located, %d belong to elements", len(loc.ElementMembers), total)
	}
}

// fzDepth is the deepest nesting of the valid JSON text b.
func fzDepth(b []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

// fzLoneSurrogate reports whether a string of the valid JSON text b has a
// \u escape of a surrogate that is not a high one followed by a low one.
func fzLoneSurrogate(b []byte) bool {
	hex := func(p []byte) int {
		n := 0
		for _, h := range p {
			n <<= 4
			switch {
			case h <= '9':
				n |= int(h - '0')
			case h >= 'a':
				n |= int(h-'a') + 10
			default:
				n |= int(h-'A') + 10
			}
		}
		return n
	}
	inString := false
	for i := 0; i < len(b); i++ {
		switch {
		case !inString:
			inString = b[i] == '"'
		case b[i] == '"':
			inString = false
		case b[i] == '\\' && b[i+1] == 'u':
			r := hex(b[i+2 : i+6])
			i += 5
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return true
			case r >= 0xD800 && r <= 0xDBFF:
				if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
					return true
				}
				if r2 := hex(b[i+3 : i+7]); r2 < 0xDC00 || r2 > 0xDFFF {
					return true
				}
				i += 6
			}
		case b[i] == '\\':
			i++
		}
	}
	return false
}

// fzDuplicate reports whether an object of the valid JSON text b names a
// member twice, reading names with encoding/json's tokenizer.
func fzDuplicate(t *testing.T, b []byte) bool {
	type frame struct {
		object, wantName bool
		names            map[string]bool
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantName = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			t.Fatalf("encoding/json tokenizer: %v", err)
		}
		top := (*frame)(nil)
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.object && top.wantName {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return true
			}
			top.names[name] = true
			top.wantName = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantName: true, names: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// fzSameValue reports whether the JSON texts a and b hold equal values:
// same names, strings and structure, and numbers equal as rationals (when
// their exponents are small enough to compare exactly).
func fzSameValue(t *testing.T, a, b []byte) bool {
	decode := func(p []byte) any {
		dec := json.NewDecoder(bytes.NewReader(p))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		return v
	}
	return fzEqual(decode(a), decode(b))
}

func fzEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !fzEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !fzEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, xok := fzRat(string(a))
		y, yok := fzRat(string(bn))
		if !xok || !yok {
			return true // too large to compare exactly here
		}
		return x.Cmp(y) == 0
	default:
		return reflect.DeepEqual(a, b)
	}
}

// fzRat parses a JSON number exactly when its exponent is modest.
func fzRat(s string) (*big.Rat, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := strings.TrimLeft(s[i+1:], "+-")
		if len(e) > 4 {
			return nil, false
		}
	}
	if len(s) > 2000 {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// TestCanonicalHugeExponent pins the exact exponent arithmetic of the
// canonical form, found by FuzzChecker: numbers that differ far out in a
// huge exponent are different values, and equal ones agree.
func TestCanonicalHugeExponent(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{"1e10737418240", "1e1073741824", false},
		{"1e107374182399", "1e107374182390", false},
		{"1e9999999999999999", "10e9999999999999998", true},
		{"0.01e10000000000000000", "1e9999999999999998", true},
		{"100e-10000000000000002", "1e-10000000000000000", true},
		{"0.001e-9999999999999999", "1e-10000000000000002", true},
		{"-12.5e0000000000000000000000003", "-1250e1", true},
		{"1e99999999999999999999", "1e100000000000000000000", false},
		{"1000e99999999999999999997", "1e100000000000000000000", true},
	}
	for _, tc := range tests {
		a := string(stream.AppendCanonical(nil, []byte(tc.a)))
		b := string(stream.AppendCanonical(nil, []byte(tc.b)))
		if (a == b) != tc.equal {
			t.Errorf("%s and %s: got canonical %s and %s, want equal %v", tc.a, tc.b, a, b, tc.equal)
		}
		if again := string(stream.AppendCanonical(nil, []byte(a))); again != a {
			t.Errorf("%s: canonical %s is not a fixed point (%s)", tc.a, a, again)
		}
	}
}

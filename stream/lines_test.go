package stream

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cairn-audit/cairn/audit"
)

// framed is what reading a whole input with Lines gave.
type framed struct {
	records []string
	code    audit.Code // 0: io.EOF
	record  int        // the error's record, -1 for the input as a whole
	err     error
}

func (f framed) String() string {
	if f.code == 0 {
		return fmt.Sprintf("%d records, EOF", len(f.records))
	}
	return fmt.Sprintf("%d records, then %s at record %d", len(f.records), f.code, f.record)
}

// frameAll reads r to the end or the first error.
func frameAll(t *testing.T, r io.Reader) (framed, *Lines) {
	t.Helper()
	l := NewLines(r)
	var f framed
	for {
		line, err := l.Next()
		if err == io.EOF {
			return f, l
		}
		if err != nil {
			var ie *audit.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Next: error %v is not an *audit.InputError", err)
			}
			f.code, f.record, f.err = ie.Code, ie.Record, err
			return f, l
		}
		f.records = append(f.records, string(line))
	}
}

func quoteLong(s string) string { return shorten(fmt.Sprintf("%q", s)) }

func TestLinesFraming(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		records []string   // accepted records before the end or the error
		code    audit.Code // 0: the input is accepted
		record  int        // the error's record; -1 for none
	}{
		{"one record, terminal newline", "{}\n", []string{"{}"}, 0, 0},
		{"one record, no final newline", "{}", []string{"{}"}, 0, 0},
		{"two records", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, 0, 0},
		{"two records, no final newline", "{}\n[]", []string{"{}", "[]"}, 0, 0},
		{"CRLF", "{}\r\n{}\r\n", []string{"{}\r", "{}\r"}, 0, 0},
		{"CRLF, no final newline", "{}\r\n{}", []string{"{}\r", "{}"}, 0, 0},
		{"spaces around records", " {} \n\t{}\t\n", []string{" {} ", "\t{}\t"}, 0, 0},
		{"second terminal newline", "{}\n\n", []string{"{}"}, audit.BlankRecord, 2},
		{"third terminal newline", "{}\n{}\n\n\n", []string{"{}", "{}"}, audit.BlankRecord, 3},
		{"newline only", "\n", nil, audit.BlankRecord, 1},
		{"leading blank line", "\n{}\n", nil, audit.BlankRecord, 1},
		{"blank line between", "{}\n\n{}\n", []string{"{}"}, audit.BlankRecord, 2},
		{"spaces-only line", "{}\n   \n{}\n", []string{"{}"}, audit.BlankRecord, 2},
		{"tab-only line", "{}\n\t\n", []string{"{}"}, audit.BlankRecord, 2},
		{"CR-only line", "{}\r\n\r\n", []string{"{}\r"}, audit.BlankRecord, 2},
		{"whitespace at the end, no newline", "{}\n  ", []string{"{}"}, audit.BlankRecord, 2},
		{"CR at the end, no newline", "{}\n\r", []string{"{}"}, audit.BlankRecord, 2},
		{"empty input", "", nil, audit.EmptyInput, -1},
		{"UTF-8 BOM", "\xEF\xBB\xBF{}\n", nil, audit.InputBOM, -1},
		{"UTF-8 BOM alone", "\xEF\xBB\xBF", nil, audit.InputBOM, -1},
		{"BOM character later is not a BOM", "{}\n\xEF\xBB\xBF{}\n", []string{"{}", "\uFEFF{}"}, 0, 0},
		{"UTF-16LE BOM", "\xFF\xFE{\x00}\x00\n\x00", nil, audit.InputUTF16, -1},
		{"UTF-16BE BOM", "\xFE\xFF\x00{\x00}\x00\n", nil, audit.InputUTF16, -1},
		{"UTF-16LE without BOM", "{\x00}\x00\n\x00", nil, audit.InputUTF16, -1},
		{"UTF-16BE without BOM", "\x00{\x00}\x00\n", nil, audit.InputUTF16, -1},
		{"NUL in a later record", "{}\n{\"a\":\"\x00\"}\n", []string{"{}"}, audit.InputUTF16, -1},
		{"NUL at the end", "{}\n\x00", []string{"{}"}, audit.InputUTF16, -1},
		{"invalid byte", "{\"a\":\"\xff\"}\n", nil, audit.InputNotUTF8, -1},
		{"invalid byte in a later record", "{}\n{}\n{\"a\":\"\xfe\"}\n", []string{"{}", "{}"}, audit.InputNotUTF8, -1},
		{"lone continuation byte", "{\"a\":\"\x80\"}\n", nil, audit.InputNotUTF8, -1},
		{"overlong encoding", "{\"a\":\"\xc0\xaf\"}\n", nil, audit.InputNotUTF8, -1},
		{"encoded surrogate", "{\"a\":\"\xed\xa0\x80\"}\n", nil, audit.InputNotUTF8, -1},
		{"beyond U+10FFFF", "{\"a\":\"\xf4\x90\x80\x80\"}\n", nil, audit.InputNotUTF8, -1},
		{"truncated sequence inside a record", "{\"a\":\"\xe2\x82\"}\n", nil, audit.InputNotUTF8, -1},
		{"truncated sequence before newline", "{}\xe2\x82\n{}\n", nil, audit.InputNotUTF8, -1},
		{"truncated sequence at EOF", "{}\n\xe2\x82", []string{"{}"}, audit.InputNotUTF8, -1},
		{"truncated 4-byte sequence at EOF", "{}\n{}\xf0\x9f\x98", []string{"{}"}, audit.InputNotUTF8, -1},
		{"truncated BOM", "\xEF\xBB", nil, audit.InputNotUTF8, -1},
		{"valid multibyte", "{\"a\":\"é€😀\"}\n", []string{"{\"a\":\"é€😀\"}"}, 0, 0},
		// The first problem in reading order decides (stream/lines.go); a
		// sequence cut short by the NUL is not a problem before it.
		{"invalid before NUL", "{\"a\":\"\xff\x00\"}\n", nil, audit.InputNotUTF8, -1},
		{"truncated sequence then NUL", "{\"a\":\"\xe2\x00\"}\n", nil, audit.InputUTF16, -1},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	for _, tc := range tests {
		for _, rd := range readers {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				got, l := frameAll(t, rd.wrap(strings.NewReader(tc.in)))
				want := framed{records: tc.records, code: tc.code, record: tc.record}
				if got.code != want.code || got.code != 0 && got.record != want.record ||
					fmt.Sprintf("%q", got.records) != fmt.Sprintf("%q", want.records) {
					t.Errorf("Lines(%q): got %s %q, want %s %q", tc.in, got, got.records, want, want.records)
				}
				if got.code == 0 {
					if l.Record() != len(tc.records) {
						t.Errorf("Lines(%q): Record() = %d at EOF, want %d", tc.in, l.Record(), len(tc.records))
					}
					if l.Bytes() != int64(len(tc.in)) {
						t.Errorf("Lines(%q): Bytes() = %d at EOF, want %d", tc.in, l.Bytes(), len(tc.in))
					}
				}
			})
		}
	}
}

// TestLinesCRLFRecordsAreJSON checks that what the framer leaves of a CRLF
// line is accepted by the JSON check (SPEC §4.1: a trailing \r is
// tolerated).
func TestLinesCRLFRecordsAreJSON(t *testing.T) {
	in := "{\"type\":\"turn.started\"}\r\n{\"a\":[1,2]} \r\n"
	got, _ := frameAll(t, strings.NewReader(in))
	if got.code != 0 || len(got.records) != 2 {
		t.Fatalf("Lines(%q): got %s, want 2 records, EOF", in, got)
	}
	var c Checker
	for i, r := range got.records {
		if code := c.Check([]byte(r)); code != 0 {
			t.Errorf("Lines(%q) record %d: Check(%q) = %s, want ok", in, i+1, r, code)
		}
	}
}

// longLine returns a record of exactly n bytes (n ≥ 8), without newline,
// whose string value holds mid at byte offset at (or plain padding when mid
// is empty).
func longLine(n, at int, mid string) string {
	const head, tail = `{"a":"`, `"}`
	if mid == "" {
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	pre := at - len(head)
	post := n - len(head) - pre - len(mid) - len(tail)
	return head + strings.Repeat("x", pre) + mid + strings.Repeat("y", post) + tail
}

func TestLinesLongerThanBuffer(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
	}{
		{"one byte under the buffer with newline", []string{longLine(readSize-1, 0, "")}},
		{"buffer-sized line", []string{longLine(readSize, 0, "")}},
		{"one byte over the buffer", []string{longLine(readSize+1, 0, "")}},
		{"three buffers", []string{longLine(3*readSize+17, 0, ""), "{}"}},
		{"long line after a short one", []string{"{}", longLine(200_000, 0, ""), "{}"}},
		{"two long lines", []string{longLine(100_000, 0, ""), longLine(150_000, 0, "")}},
	}
	for _, tc := range tests {
		for _, final := range []string{"\n", ""} {
			in := strings.Join(tc.lines, "\n") + final
			t.Run(fmt.Sprintf("%s/final newline %v", tc.name, final != ""), func(t *testing.T) {
				got, l := frameAll(t, strings.NewReader(in))
				if got.code != 0 {
					t.Fatalf("Lines(%s): got %s, want %d records, EOF", quoteLong(in), got, len(tc.lines))
				}
				if len(got.records) != len(tc.lines) {
					t.Fatalf("Lines(%s): got %d records, want %d", quoteLong(in), len(got.records), len(tc.lines))
				}
				for i := range tc.lines {
					if got.records[i] != tc.lines[i] {
						t.Errorf("Lines(%s): record %d = %s, want %s", quoteLong(in), i+1, quoteLong(got.records[i]), quoteLong(tc.lines[i]))
					}
				}
				if sum := sha256.Sum256([]byte(in)); !bytes.Equal(l.Sum(), sum[:]) {
					t.Errorf("Lines(%s): Sum() = %x, want %x", quoteLong(in), l.Sum(), sum)
				}
			})
		}
	}
}

// TestLinesUTF8AcrossBuffer puts a character across the end of the first
// 64 KiB read buffer, at every split: a valid character is valid wherever
// the buffer ends; an invalid or truncated one is not.
func TestLinesUTF8AcrossBuffer(t *testing.T) {
	type tcase struct {
		name string
		in   string
		want audit.Code
	}
	var tests []tcase
	for _, ch := range []string{"é", "€", "😀", "\uFFFD"} {
		for k := 1; k < len(ch); k++ {
			at := readSize - k // the character's first byte; k bytes before the boundary
			tests = append(tests, tcase{
				fmt.Sprintf("%q split %d|%d", ch, k, len(ch)-k),
				longLine(readSize+100, at, ch) + "\n{}\n", 0,
			})
		}
	}
	tests = append(tests,
		tcase{"lead byte then ASCII across the boundary", longLine(readSize+100, readSize-1, "\xe2(") + "\n", audit.InputNotUTF8},
		tcase{"two of four bytes then ASCII", longLine(readSize+100, readSize-2, "\xf0\x9f(") + "\n", audit.InputNotUTF8},
		tcase{"three of four bytes then quote", longLine(readSize+100, readSize-3, "\xf0\x9f\x98") + "\n", audit.InputNotUTF8},
		tcase{"stray continuation after the boundary", longLine(readSize+100, readSize, "\x80") + "\n", audit.InputNotUTF8},
		// The same code as in one chunk ("truncated sequence then NUL").
		tcase{"lead byte then NUL across the boundary", longLine(readSize+100, readSize-1, "\xe2\x00") + "\n", audit.InputUTF16},
		tcase{"invalid byte then NUL across the boundary", longLine(readSize+100, readSize-1, "\xff\x00") + "\n", audit.InputNotUTF8},
		tcase{"truncated at EOF after a long line", longLine(readSize+100, 0, "") + "\n{}\xe2\x82", audit.InputNotUTF8},
		tcase{"truncated at EOF at the boundary", longLine(readSize-2, 0, "") + "\xe2\x82", audit.InputNotUTF8},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frameAll(t, strings.NewReader(tc.in))
			if got.code != tc.want {
				t.Errorf("Lines(%s): got %s, want code %s", quoteLong(tc.in), got, codeName(tc.want))
			}
			if tc.want == 0 && (len(got.records) == 0 || got.records[0]+"\n{}\n" != tc.in) {
				t.Errorf("Lines(%s): first record not returned intact", quoteLong(tc.in))
			}
		})
	}
}

// mib returns n lines of exactly 1 MiB each, newline included.
func mib(n int) []byte {
	line := longLine(1<<20-1, 0, "") + "\n"
	return []byte(strings.Repeat(line, n))
}

func TestLinesSizeLimit(t *testing.T) {
	exact := mib(16)
	if len(exact) != MaxBytes {
		t.Fatalf("test input is %d bytes, want %d", len(exact), MaxBytes)
	}
	over := append(exact[:len(exact)-1:len(exact)-1], "x\n"...) // one byte more, in the last record
	oneLine := bytes.Repeat([]byte("x"), MaxBytes+1)
	tests := []struct {
		name    string
		in      []byte
		records int
		want    audit.Code
	}{
		{"exactly 16 MiB", exact, 16, 0},
		{"16 MiB + 1 byte", over, 15, audit.InputTooLarge},
		{"16 MiB + 1 byte in one line", oneLine, 0, audit.InputTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, l := frameAll(t, bytes.NewReader(tc.in))
			if got.code != tc.want || len(got.records) != tc.records {
				t.Fatalf("Lines(%d bytes): got %s, want %d records then %s", len(tc.in), got, tc.records, codeName(tc.want))
			}
			if tc.want != 0 {
				if got.record != -1 {
					t.Errorf("Lines(%d bytes): %s at record %d, want -1 (the input as a whole)", len(tc.in), got.code, got.record)
				}
				if l.Sum() != nil {
					t.Errorf("Lines(%d bytes): Sum() = %x after an error, want nil", len(tc.in), l.Sum())
				}
				return
			}
			if sum := sha256.Sum256(tc.in); !bytes.Equal(l.Sum(), sum[:]) {
				t.Errorf("Lines(%d bytes): Sum() = %x, want %x", len(tc.in), l.Sum(), sum)
			}
		})
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endless is an endless stream of one byte, like a runaway stdin.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestLinesEndlessInput checks that an endless input stops at 16 MiB and
// one read buffer, not at the end of memory.
func TestLinesEndlessInput(t *testing.T) {
	tests := []struct {
		name string
		r    io.Reader
	}{
		{"one endless line", endless('x')},
		{"endless records", io.MultiReader(strings.NewReader(`{"a":"`), endless(' '))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr := &countingReader{r: tc.r}
			got, _ := frameAll(t, cr)
			if got.code != audit.InputTooLarge {
				t.Errorf("Lines(%s): got %s, want %s", tc.name, got, audit.InputTooLarge)
			}
			if cr.n > MaxBytes+readSize {
				t.Errorf("Lines(%s): read %d bytes, want at most %d", tc.name, cr.n, MaxBytes+readSize)
			}
		})
	}
}

func TestLinesRecordLimit(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		records int
		want    audit.Code
		record  int
	}{
		{"50,000 records", strings.Repeat("{}\n", MaxRecords), MaxRecords, 0, 0},
		{"50,000 records, no final newline", strings.Repeat("{}\n", MaxRecords-1) + "{}", MaxRecords, 0, 0},
		{"50,001 records", strings.Repeat("{}\n", MaxRecords+1), MaxRecords, audit.TooManyRecords, MaxRecords + 1},
		{"50,001 records, no final newline", strings.Repeat("{}\n", MaxRecords) + "{}", MaxRecords, audit.TooManyRecords, MaxRecords + 1},
		{"60,000 records", strings.Repeat("{}\n", 60_000), MaxRecords, audit.TooManyRecords, MaxRecords + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frameAll(t, strings.NewReader(tc.in))
			if got.code != tc.want || len(got.records) != tc.records || got.code != 0 && got.record != tc.record {
				t.Errorf("Lines(%s): got %s, want %d records then %s at record %d", tc.name, got, tc.records, codeName(tc.want), tc.record)
			}
		})
	}
}

func TestLinesSum(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"one record", "{}\n"},
		{"no final newline", "{}\n{\"a\":1}"},
		{"CRLF", "{}\r\n{}\r\n"},
		{"multibyte", "{\"a\":\"é€😀\"}\n"},
		{"long lines", longLine(3*readSize, 0, "") + "\n" + longLine(readSize+5, 0, "") + "\n{}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLines(strings.NewReader(tc.in))
			for {
				if l.Sum() != nil {
					t.Fatalf("Lines(%s): Sum() = %x before EOF, want nil", quoteLong(tc.in), l.Sum())
				}
				_, err := l.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Lines(%s): Next() = %v, want records then EOF", quoteLong(tc.in), err)
				}
			}
			if want := sha256.Sum256([]byte(tc.in)); !bytes.Equal(l.Sum(), want[:]) {
				t.Errorf("Lines(%s): Sum() = %x, want %x", quoteLong(tc.in), l.Sum(), want)
			}
			if _, err := l.Next(); err != io.EOF {
				t.Errorf("Lines(%s): Next() after EOF = %v, want EOF", quoteLong(tc.in), err)
			}
		})
	}
}

// TestLinesStopsAtFirstError checks that reading stops at the first
// problem: no more than one read buffer past it is consumed, and further
// calls return the same error without reading.
func TestLinesStopsAtFirstError(t *testing.T) {
	rest := strings.Repeat(`{"more":"records"}`+"\n", 100_000) // about 1.9 MB after the problem
	tests := []struct {
		name string
		head string // the input up to and including the problem
		want audit.Code
	}{
		{"blank record", "{}\n\n", audit.BlankRecord},
		{"BOM", "\xEF\xBB\xBF{}\n", audit.InputBOM},
		{"UTF-16 BOM", "\xFF\xFE{\x00", audit.InputUTF16},
		{"NUL", "{}\n{\x00}\n", audit.InputUTF16},
		{"invalid UTF-8", "{}\n{\"a\":\"\xff\"}\n", audit.InputNotUTF8},
		{"invalid UTF-8 after 1 MB", strings.Repeat(longLine(50_000, 0, "")+"\n", 20) + "\xff\n", audit.InputNotUTF8},
		{"blank record after 120 KB", strings.Repeat("{}\n", 40_000) + "\n", audit.BlankRecord},
		{"too many records", strings.Repeat("{}\n", MaxRecords+1), audit.TooManyRecords},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr := &countingReader{r: strings.NewReader(tc.head + rest)}
			l := NewLines(cr)
			var first error
			for first == nil {
				if _, err := l.Next(); err != nil {
					first = err
				}
			}
			var ie *audit.InputError
			if !errors.As(first, &ie) || ie.Code != tc.want {
				t.Fatalf("Lines(%s): first error %v, want %s", tc.name, first, tc.want)
			}
			read := cr.n
			if limit := int64(len(tc.head) + readSize); read > limit {
				t.Errorf("Lines(%s): read %d bytes by the first error, want at most %d", tc.name, read, limit)
			}
			for range 3 {
				if _, err := l.Next(); err != first {
					t.Errorf("Lines(%s): Next() after the error = %v, want the same error %v", tc.name, err, first)
				}
			}
			if cr.n != read {
				t.Errorf("Lines(%s): read %d more bytes after the error, want 0", tc.name, cr.n-read)
			}
		})
	}
}

func TestLinesReadError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		r       io.Reader
		records int
	}{
		{"error at once", iotest.ErrReader(boom), 0},
		{"error after two records", io.MultiReader(strings.NewReader("{}\n{}\n"), iotest.ErrReader(boom)), 2},
		{"error inside a record", io.MultiReader(strings.NewReader("{}\n{\"a\":"), iotest.ErrReader(boom)), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := frameAll(t, tc.r)
			if got.code != audit.InputUnreadable || got.record != -1 || len(got.records) != tc.records {
				t.Errorf("Lines(%s): got %s, want %d records then %s at record -1", tc.name, got, tc.records, audit.InputUnreadable)
			}
			if !errors.Is(got.err, boom) {
				t.Errorf("Lines(%s): error %v does not wrap the read error", tc.name, got.err)
			}
		})
	}
}

// TestGuardByteAtEveryOffset puts a NUL, invalid UTF-8 and valid
// multi-byte characters at every offset of a line several words long,
// alone and after a non-ASCII character or a control byte: the code, and
// the offset where the problem became certain, are those of the byte,
// wherever the eight-byte words of a fast path would fall.
func TestGuardByteAtEveryOffset(t *testing.T) {
	const n = 53
	for _, tc := range []struct {
		insert string
		code   audit.Code
		past   int // Bytes() is the insert's offset plus this
	}{
		{"\x00", audit.InputUTF16, 1},
		{"\xff", audit.InputNotUTF8, 1},
		{"\x80", audit.InputNotUTF8, 1},
		{"\xe2(", audit.InputNotUTF8, 2}, // the "(" makes it invalid
		{"é", 0, 0},
		{"😀", 0, 0},
		{"\x7f", 0, 0},
	} {
		for _, before := range []string{"", "é", "\x01"} {
			for at := 0; at <= n; at++ {
				line := strings.Repeat("a", at) + tc.insert + strings.Repeat("b", n-at)
				if before != "" {
					line = before + line
				}
				in := `{"k":"` + line + `"}` + "\n"
				got, l := frameAll(t, strings.NewReader(in))
				if got.code != tc.code {
					t.Fatalf("%q at %d after %q: got %s, want %s", tc.insert, at, before, got, codeName(tc.code))
				}
				want := int64(len(in))
				if tc.code != 0 {
					want = int64(len(`{"k":"`)+len(before)+at) + int64(tc.past)
				}
				if l.Bytes() != want {
					t.Fatalf("%q at %d after %q: Bytes %d, want %d", tc.insert, at, before, l.Bytes(), want)
				}
			}
		}
	}
}

// TestTextOnly checks the one-pass test of a chunk (textOnly, vector code
// where there is some) and the word-at-a-time one every architecture has
// against a byte loop: a NUL, a control character, DEL and bytes at and
// above 0x80 at every place of every length up to 160 (past the wide and
// the narrow steps and the bytes after them), from three places in an
// array.
func TestTextOnly(t *testing.T) {
	slow := func(b []byte) bool {
		for _, c := range b {
			if c == 0 || c >= 0x80 {
				return false
			}
		}
		return true
	}
	buf := make([]byte, 164)
	for n := range 161 {
		for off := range 3 {
			b := buf[off : off+n]
			for k := range b {
				b[k] = 'a'
			}
			check := func() {
				t.Helper()
				want := slow(b)
				if got := textOnly(b); got != want {
					t.Fatalf("textOnly(% x) = %v, want %v", b, got, want)
				}
				if got := textWords(b); got != want {
					t.Fatalf("textWords(% x) = %v, want %v", b, got, want)
				}
			}
			check()
			for p := range n {
				for _, v := range []byte{0, 1, 0x7f, 0x80, 0xc3, 0xff} {
					b[p] = v
					check()
				}
				b[p] = 'a'
			}
		}
	}
}

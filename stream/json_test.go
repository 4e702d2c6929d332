package stream

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// codeName renders a code for failure messages; 0 is "ok".
func codeName(c audit.Code) string {
	if c == 0 {
		return "ok"
	}
	return c.String()
}

// shorten keeps failure messages readable for the long generated inputs.
func shorten(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%s…(%d bytes)…%s", s[:60], len(s), s[len(s)-40:])
	}
	return s
}

func TestCheckerWellFormed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want audit.Code
	}{
		{"empty object", `{}`, 0},
		{"spaces around", " \t{ } \t", 0},
		{"trailing CR", "{}\r", 0},
		{"all value kinds", `{"s":"x","n":-1.5e+3,"t":true,"f":false,"z":null,"a":[1,[],{}],"o":{"k":[]}}`, 0},
		{"whitespace everywhere", "{ \"a\" :\t[ 1 ,\r\n 2 ] , \"b\" : { } }", 0},
		{"valid escapes", `{"a":"\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \uFFFF"}`, 0},
		{"surrogate pair", `{"a":"\ud83d\ude00"}`, 0},
		{"surrogate pair in name", `{"\uD83D\uDE00":1}`, 0},
		{"raw UTF-8", `{"é":"日本語 😀"}`, 0},
		{"raw DEL", "{\"a\":\"\x7f\"}", 0},
		{"number zero", `{"a":0}`, 0},
		{"number negative zero", `{"a":-0}`, 0},
		{"number fraction", `{"a":0.5}`, 0},
		{"number exponent forms", `{"a":[1e5,1E5,1e+5,1e-5,-0.0e-0]}`, 0},

		{"empty record", ``, audit.MalformedJSON},
		{"only spaces", `   `, audit.MalformedJSON},
		{"array record", `[]`, audit.MalformedJSON},
		{"string record", `"x"`, audit.MalformedJSON},
		{"number record", `1`, audit.MalformedJSON},
		{"null record", `null`, audit.MalformedJSON},
		{"true record", `true`, audit.MalformedJSON},
		{"two objects", `{}{}`, audit.MalformedJSON},
		{"two objects spaced", `{} {}`, audit.MalformedJSON},
		{"trailing word", `{} x`, audit.MalformedJSON},
		{"trailing comma after object", `{},`, audit.MalformedJSON},
		{"trailing bracket", `{}]`, audit.MalformedJSON},
		{"trailing brace", `{}}`, audit.MalformedJSON},
		{"unclosed", `{`, audit.MalformedJSON},
		{"unclosed after name", `{"a"`, audit.MalformedJSON},
		{"unclosed after colon", `{"a":`, audit.MalformedJSON},
		{"unclosed after value", `{"a":1`, audit.MalformedJSON},
		{"unclosed string", `{"a":"x}`, audit.MalformedJSON},
		{"unclosed array", `{"a":[1}`, audit.MalformedJSON},
		{"trailing comma in object", `{"a":1,}`, audit.MalformedJSON},
		{"trailing comma in array", `{"a":[1,]}`, audit.MalformedJSON},
		{"leading comma in array", `{"a":[,1]}`, audit.MalformedJSON},
		{"leading comma in object", `{,"a":1}`, audit.MalformedJSON},
		{"missing colon", `{"a" 1}`, audit.MalformedJSON},
		{"missing comma", `{"a":1 "b":2}`, audit.MalformedJSON},
		{"missing value", `{"a":}`, audit.MalformedJSON},
		{"number name", `{1:2}`, audit.MalformedJSON},
		{"bare name", `{a:1}`, audit.MalformedJSON},
		{"single quotes", `{'a':1}`, audit.MalformedJSON},
		{"comment", `{"a":1 /* c */}`, audit.MalformedJSON},
		{"truncated literal", `{"a":tru}`, audit.MalformedJSON},
		{"literal with tail", `{"a":truex}`, audit.MalformedJSON},
		{"capital literal", `{"a":True}`, audit.MalformedJSON},
		{"nul literal", `{"a":nul}`, audit.MalformedJSON},
		{"NaN", `{"a":NaN}`, audit.MalformedJSON},
		{"Infinity", `{"a":Infinity}`, audit.MalformedJSON},
		{"minus Infinity", `{"a":-Infinity}`, audit.MalformedJSON},
		{"leading zero", `{"a":01}`, audit.MalformedJSON},
		{"negative leading zero", `{"a":-01}`, audit.MalformedJSON},
		{"leading plus", `{"a":+1}`, audit.MalformedJSON},
		{"bare minus", `{"a":-}`, audit.MalformedJSON},
		{"leading dot", `{"a":.5}`, audit.MalformedJSON},
		{"trailing dot", `{"a":1.}`, audit.MalformedJSON},
		{"dot before exponent", `{"a":1.e5}`, audit.MalformedJSON},
		{"empty exponent", `{"a":1e}`, audit.MalformedJSON},
		{"signed empty exponent", `{"a":1e+}`, audit.MalformedJSON},
		{"hex number", `{"a":0x10}`, audit.MalformedJSON},
		{"two signs", `{"a":--1}`, audit.MalformedJSON},
		{"bad escape", `{"a":"\x"}`, audit.MalformedJSON},
		{"single quote escape", `{"a":"\'"}`, audit.MalformedJSON},
		{"short unicode escape", `{"a":"\u12"}`, audit.MalformedJSON},
		{"non-hex unicode escape", `{"a":"\u12G4"}`, audit.MalformedJSON},
		{"backslash at end of input", `{"a":"\`, audit.MalformedJSON},
		{"bad escape in name", `{"\q":1}`, audit.MalformedJSON},
		{"lone high surrogate", `{"a":"\ud800"}`, audit.MalformedJSON},
		{"lone low surrogate", `{"a":"\udc00"}`, audit.MalformedJSON},
		{"high surrogate then letter", `{"a":"\ud800x"}`, audit.MalformedJSON},
		{"high surrogate then BMP escape", `{"a":"\ud800\u0041"}`, audit.MalformedJSON},
		{"two high surrogates", `{"a":"\ud800\ud800"}`, audit.MalformedJSON},
		{"reversed pair", `{"a":"\udc00\ud800"}`, audit.MalformedJSON},
		{"high surrogate at end of string", `{"a":"x\uD83D"}`, audit.MalformedJSON},
		{"lone surrogate in name", `{"\ud800":1}`, audit.MalformedJSON},
		{"lone surrogate deep", `{"a":[{"b":["\udfff"]}]}`, audit.MalformedJSON},
		{"raw NUL in string", "{\"a\":\"\x00\"}", audit.MalformedJSON},
		{"raw tab in string", "{\"a\":\"\t\"}", audit.MalformedJSON},
		{"raw newline in string", "{\"a\":\"\n\"}", audit.MalformedJSON},
		{"raw unit separator in string", "{\"a\":\"\x1f\"}", audit.MalformedJSON},
		{"raw control in name", "{\"\x01\":1}", audit.MalformedJSON},
		{"form feed as space", "{\f}", audit.MalformedJSON},
		{"BOM character before the object", "\uFEFF{}", audit.MalformedJSON},
		{"no-break space before the object", "\u00a0{}", audit.MalformedJSON},
		{"vertical tab as space", "{\"a\":\v1}", audit.MalformedJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			if got := c.Check([]byte(tc.in)); got != tc.want {
				t.Errorf("Check(%q) = %s, want %s", tc.in, codeName(got), codeName(tc.want))
			}
		})
	}
}

// manyMembers returns n members "k0":0 … joined by commas.
func manyMembers(n int) string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	return strings.Join(ms, ",")
}

func TestCheckerDuplicateKeys(t *testing.T) {
	big := manyMembers(30)
	tests := []struct {
		name string
		in   string
		want audit.Code
	}{
		{"root duplicate", `{"a":1,"a":2}`, audit.DuplicateKey},
		{"root duplicate same value", `{"a":1,"a":1}`, audit.DuplicateKey},
		{"duplicate not adjacent", `{"a":1,"b":2,"a":3}`, audit.DuplicateKey},
		{"nested duplicate", `{"x":{"a":1,"a":2}}`, audit.DuplicateKey},
		{"duplicate in array element", `{"x":[1,{"a":1,"a":1}]}`, audit.DuplicateKey},
		{"duplicate deep", `{"x":[[{"y":{"z":[{"a":1,"b":[],"a":null}]}}]]}`, audit.DuplicateKey},
		{"escaped letter", `{"a":1,"\u0061":2}`, audit.DuplicateKey},
		{"escaped letter first", `{"\u0061":1,"a":2}`, audit.DuplicateKey},
		{"escaped solidus", `{"/":1,"\/":2}`, audit.DuplicateKey},
		{"escaped non-ASCII", `{"é":1,"\u00e9":2}`, audit.DuplicateKey},
		{"escaped pair vs raw", `{"😀":1,"\ud83d\ude00":2}`, audit.DuplicateKey},
		{"uppercase hex escape", `{"\u00E9":1,"\u00e9":2}`, audit.DuplicateKey},
		{"escaped newline", `{"a\nb":1,"a\u000ab":2}`, audit.DuplicateKey},
		{"empty names", `{"":1,"":2}`, audit.DuplicateKey},
		{"large object, duplicate at 17th member", `{` + manyMembers(16) + `,"k3":0}`, audit.DuplicateKey},
		{"large object, duplicate of first at the end", `{` + big + `,"k0":0}`, audit.DuplicateKey},
		{"large object, duplicate of last", `{` + big + `,"k29":0}`, audit.DuplicateKey},
		{"large object, escaped duplicate", `{` + big + `,"\u006b17":0}`, audit.DuplicateKey},
		{"large nested object, duplicate", `{"x":{` + big + `,"k5":0}}`, audit.DuplicateKey},
		{"large object then duplicate in a small sibling", `{"x":{` + big + `},"y":{"a":1,"a":2}}`, audit.DuplicateKey},
		{"root id twice without the exception", `{"id":"a","id":"b"}`, audit.DuplicateKey},
		{"item id twice without the exception", `{"type":"item.started","item":{"id":"a","type":"web_search","id":"b"}}`, audit.DuplicateKey},

		{"same name in sibling objects", `{"x":{"a":1},"y":{"a":1}}`, 0},
		{"same name in parent and child", `{"a":{"a":{"a":1}}}`, 0},
		{"same name in array elements", `{"x":[{"a":1},{"a":2}]}`, 0},
		{"names differing in case", `{"a":1,"A":2}`, 0},
		{"name is a prefix", `{"a":1,"ab":2}`, 0},
		{"string values equal to names", `{"a":"a","b":"a"}`, 0},
		{"large object no duplicate", `{` + big + `}`, 0},
		{"large sibling objects", `{"x":{` + big + `},"y":{` + big + `}}`, 0},
		{"large objects in array", `{"x":[{` + big + `},{` + big + `},{` + big + `}]}`, 0},
		{"large object nested in large object", `{` + big + `,"n":{` + big + `}}`, 0},
		{"exactly 16 members", `{` + manyMembers(16) + `}`, 0},
		{"exactly 17 members", `{` + manyMembers(17) + `}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			if got := c.Check([]byte(tc.in)); got != tc.want {
				t.Errorf("Check(%s) = %s, want %s", shorten(tc.in), codeName(got), codeName(tc.want))
			}
		})
	}
}

// TestCheckerReuse checks that a Checker's scratch space carries nothing
// from one record (or one object) to the next.
func TestCheckerReuse(t *testing.T) {
	big := manyMembers(20)
	seq := []struct {
		in   string
		want audit.Code
	}{
		{`{` + big + `}`, 0},
		{`{` + big + `}`, 0},
		{`{` + big + `,"k1":1}`, audit.DuplicateKey},
		{`{` + big + `}`, 0},
		{`{"x":{` + big + `},"y":[{` + big + `}]}`, 0},
		{`{"a":1,"a":2}`, audit.DuplicateKey},
		{`{"a":1}`, 0},
		{`{"a":"\ud800"}`, audit.MalformedJSON},
		{`{"k0":{"k0":{` + big + `}},"k1":{` + big + `}}`, 0},
		{`{"type":"x","item":{` + big + `}}`, 0},
	}
	var c Checker
	for i, s := range seq {
		if got := c.Check([]byte(s.in)); got != s.want {
			t.Errorf("record %d: Check(%s) = %s, want %s", i+1, shorten(s.in), codeName(got), codeName(s.want))
		}
	}
}

// nest returns a record whose deepest container is at depth levels, the
// root object being level 1. Below the root, containers are arrays
// (kinds "a"), objects ("o") or alternate, arrays at even levels ("m").
func nest(levels int, kinds string) string {
	var open, close strings.Builder
	open.WriteString(`{"v":`)
	for d := 2; d <= levels; d++ {
		if kinds == "a" || kinds == "m" && d%2 == 0 {
			open.WriteString("[")
		} else {
			open.WriteString(`{"v":`)
		}
	}
	open.WriteString("1")
	for d := levels; d >= 2; d-- {
		if kinds == "a" || kinds == "m" && d%2 == 0 {
			close.WriteString("]")
		} else {
			close.WriteString("}")
		}
	}
	close.WriteString("}")
	return open.String() + close.String()
}

func TestCheckerNesting(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want audit.Code
	}{
		{"root only", nest(1, "o"), 0},
		{"128 objects", nest(128, "o"), 0},
		{"129 objects", nest(129, "o"), audit.NestingTooDeep},
		{"object and 127 arrays", nest(128, "a"), 0},
		{"object and 128 arrays", nest(129, "a"), audit.NestingTooDeep},
		{"128 mixed", nest(128, "m"), 0},
		{"129 mixed", nest(129, "m"), audit.NestingTooDeep},
		{"129 mixed, empty innermost array", `{"v":` + strings.Repeat(`[{"v":`, 63) + `[[]]` + strings.Repeat(`}]`, 63) + `}`, audit.NestingTooDeep},
		{"128 mixed, empty innermost array", `{"v":` + strings.Repeat(`[{"v":`, 63) + `[]` + strings.Repeat(`}]`, 63) + `}`, 0},
		{"128 through item", `{"item":` + nest(127, "m") + `}`, 0},
		{"129 through item", `{"item":` + nest(128, "m") + `}`, audit.NestingTooDeep},
		{"deep but unclosed", `{"v":` + strings.Repeat("[", 1_000_000), audit.NestingTooDeep},
		{"deep objects unclosed", strings.Repeat(`{"v":`, 200_000), audit.NestingTooDeep},
		{"shallow unclosed", `{"v":` + strings.Repeat("[", 100), audit.MalformedJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			c.Locate = codexLocate
			if got := c.Check([]byte(tc.in)); got != tc.want {
				t.Errorf("Check(%s) = %s, want %s", shorten(tc.in), codeName(got), codeName(tc.want))
			}
		})
	}
}

// codexLocate is what a codex decoder has the checker locate (lifecycle's
// Locate): an item, its MCP result, and the web_search item's second id.
var codexLocate = Locate{Child: "item", Grandchild: "result", TwiceInChild: "id"}

func TestCheckerTwiceInChild(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want audit.Code // with the twice-named id allowed
	}{
		{"web_search quirk", `{"type":"item.started","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}`, 0},
		{"id twice, not adjacent", `{"type":"item.completed","item":{"id":"a","type":"x","query":"q","id":"b"}}`, 0},
		{"id twice, escaped second", `{"type":"item.completed","item":{"id":"a","type":"x","\u0069d":"b"}}`, 0},
		{"id twice in a large item", `{"item":{"id":"a",` + manyMembers(20) + `,"id":"b"}}`, 0},
		{"id three times", `{"item":{"id":"a","id":"b","id":"c"}}`, audit.DuplicateKey},
		{"id three times in a large item", `{"item":{"id":"a",` + manyMembers(20) + `,"id":"b","id":"c"}}`, audit.DuplicateKey},
		{"other member twice in item", `{"item":{"id":"a","type":"web_search","type":"x"}}`, audit.DuplicateKey},
		{"id twice at the root", `{"id":"a","id":"b","item":{}}`, audit.DuplicateKey},
		{"id twice under another member", `{"other":{"id":"a","id":"b"}}`, audit.DuplicateKey},
		{"id twice inside the item's action", `{"item":{"id":"a","action":{"id":"b","id":"c"}}}`, audit.DuplicateKey},
		{"id twice in an item nested deeper", `{"x":{"item":{"id":"a","id":"b"}}}`, audit.DuplicateKey},
		{"id twice in an item inside an array", `{"item":[{"id":"a","id":"b"}]}`, audit.DuplicateKey},
		{"item inside item", `{"item":{"item":{"id":"a","id":"b"}}}`, audit.DuplicateKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Checker{Locate: codexLocate}
			if got := c.Check([]byte(tc.in)); got != tc.want {
				t.Errorf("with TwiceInChild id: Check(%s) = %s, want %s", shorten(tc.in), codeName(got), codeName(tc.want))
			}
			var strict Checker
			if got := strict.Check([]byte(tc.in)); got != audit.DuplicateKey {
				t.Errorf("without TwiceInChild: Check(%s) = %s, want %s", shorten(tc.in), codeName(got), codeName(audit.DuplicateKey))
			}
		})
	}
}

// TestCheckerCauseNeverPrinted checks that a failed check keeps its cause
// for tests and that the cause, when there is one, quotes nothing of the
// input.
func TestCheckerCause(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"trailing data", `{"secret":1} secret`},
		{"not an object", `"secret"`},
		{"syntax", `{"secret":secret}`},
		{"lone surrogate name", `{"secret\ud800":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			if got := c.Check([]byte(tc.in)); got != audit.MalformedJSON {
				t.Fatalf("Check(%q) = %s, want %s", tc.in, codeName(got), codeName(audit.MalformedJSON))
			}
			if c.Cause() == nil {
				t.Fatalf("Check(%q): Cause() = nil, want a cause", tc.in)
			}
			if strings.Contains(c.Cause().Error(), "secret") {
				t.Errorf("Check(%q): Cause() = %q quotes the input", tc.in, c.Cause())
			}
			if got := c.Check([]byte(`{}`)); got != 0 || c.Cause() != nil {
				t.Errorf("Check({}) after %q = %s, cause %v; want ok, nil", tc.in, codeName(got), c.Cause())
			}
		})
	}
}

// TestScanString checks the word-at-a-time string scan against a
// byte-at-a-time one: every byte value, then one near a threshold (control
// characters, the quote, the backslash, 0x7f–0x81, 0xff), at every pair of
// places in a word and across into the next, on fillers next to the
// thresholds, from a start at and inside the word, and with the string
// closed after them or not.
func TestScanString(t *testing.T) {
	// slow is scanString a byte at a time; escapes are checked as
	// encoding/json reads them, lone surrogates refused.
	slow := func(b []byte, i int) (int, bool, bool) {
		escaped := false
		for i++; i < len(b); i++ {
			switch ch := b[i]; {
			case ch == '"':
				return i + 1, escaped, true
			case ch < 0x20:
				return 0, false, false
			case ch == '\\':
				escaped = true
				n := 2
				if i+1 < len(b) && b[i+1] == 'u' {
					n = 6
				}
				if i+n > len(b) || !json.Valid(append(append([]byte{'"'}, b[i:i+n]...), '"')) {
					return 0, false, false
				}
				r := rune(-1)
				if n == 6 {
					r = hex4(b[i+2:])
				}
				if r >= 0xD800 && r <= 0xDFFF {
					if r >= 0xDC00 || i+12 > len(b) || b[i+6] != '\\' || b[i+7] != 'u' ||
						!json.Valid(append(append([]byte{'"'}, b[i+6:i+12]...), '"')) {
						return 0, false, false
					}
					if r2 := hex4(b[i+8:]); r2 < 0xDC00 || r2 > 0xDFFF {
						return 0, false, false
					}
					n = 12
				}
				i += n - 1
			}
		}
		return 0, false, false
	}
	var near []byte
	for v := range 256 {
		if v <= 0x23 || (v >= 0x5b && v <= 0x5d) || (v >= 0x7f && v <= 0x81) || v == 0xff ||
			v == 'u' || v == 'n' || v == '0' || v == 'x' {
			near = append(near, byte(v))
		}
	}
	b := make([]byte, 20)
	for _, filler := range []byte{'a', ' ', '!', '#', '[', ']', 0x7f, 0x80, 0xff} {
		for p1 := 1; p1 < 11; p1++ {
			for p2 := p1 + 1; p2 < 12; p2++ {
				for v1 := range 256 {
					for _, v2 := range near {
						for k := range b {
							b[k] = filler
						}
						b[p1], b[p2] = byte(v1), byte(v2)
						for _, start := range []int{0, 3} {
							if start >= p1 {
								continue
							}
							b[start] = '"'
							for _, closed := range []bool{false, true} {
								in := b[:len(b)-1]
								if closed {
									b[len(b)-1] = '"'
									in = b
								}
								e1, x1, ok1 := scanString(in, start)
								e2, x2, ok2 := slow(in, start)
								if e1 != e2 || x1 != x2 || ok1 != ok2 {
									t.Fatalf("scanString(%q, %d) = %d, %v, %v; want %d, %v, %v", in, start, e1, x1, ok1, e2, x2, ok2)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestPlainRun checks the scan of a string's plain bytes and two-byte
// escapes (plainRun, vector code where there is some) against the
// word-at-a-time one every architecture has (plainWords8) and a byte
// loop: every byte value at every place of every length up to 48 (past
// two vector steps and the overlapping last one), each followed by every
// byte that may follow a backslash and a few that may not, on fillers
// next to the thresholds, a second special byte after the first, and
// slices that start at three places in their array.
func TestPlainRun(t *testing.T) {
	slow := func(b []byte) (int, bool) {
		escaped := false
		for i := 0; i < len(b); i++ {
			switch ch := b[i]; {
			case ch == '"' || ch < 0x20:
				return i, escaped
			case ch == '\\':
				if i+1 >= len(b) || !strings.ContainsRune(`"\\/bfnrt`, rune(b[i+1])) {
					return i, escaped
				}
				escaped = true
				i++
			}
		}
		return len(b), escaped
	}
	buf := make([]byte, 64)
	for _, filler := range []byte{'!', ']', 0x80} {
		for n := range 49 {
			for off := range 3 {
				b := buf[off : off+n]
				for k := range b {
					b[k] = filler
				}
				check := func() {
					t.Helper()
					want, wantEsc := slow(b)
					if got, esc := plainRun(b); got != want || esc != wantEsc {
						t.Fatalf("plainRun(% x) = %d, %v; want %d, %v", b, got, esc, want, wantEsc)
					}
					if got, esc := plainWords8(b); got != want || esc != wantEsc {
						t.Fatalf("plainWords8(% x) = %d, %v; want %d, %v", b, got, esc, want, wantEsc)
					}
				}
				check()
				for p := range n {
					for v := range 256 {
						b[p] = byte(v)
						check()
						if p+3 < n {
							b[p+3] = '"'
							check()
							b[p+3] = filler
						}
						if v == '\\' && p+1 < n {
							for _, next := range []byte("\"\\/bfnrtu0x\x01") {
								b[p+1] = next
								check()
								if p+2 < n {
									b[p+2] = '\\'
									check()
									b[p+2] = filler
								}
							}
							b[p+1] = filler
						}
					}
					b[p] = filler
				}
			}
		}
	}
}

// TestCheckerStringValues checks the string values the checker scans in
// place, by words (the first three, or those left before the record's
// end, and its last bytes shifted), against encoding/json: a string of
// every length to 40 with a quote, a backslash escape, a control
// character or a bad escape at every place, the record ending right after
// it or later, and whether the located span says it has no escape.
func TestCheckerStringValues(t *testing.T) {
	c := Checker{}
	for n := range 41 {
		for p := -1; p < n; p++ {
			for _, v := range []string{`"`, `\n`, "\x01", `\x`, `\u00e9`, `é`} {
				text := []byte(strings.Repeat("a", n))
				if p >= 0 {
					text = append(text[:p], append([]byte(v), text[p:]...)...)
				}
				for _, tail := range []string{`}`, `,"z":1}`, `,"z":"0123456789abcdef0123"}`, ` } `} {
					in := `{"k":"` + string(text) + `"` + tail
					code := c.Check([]byte(in))
					valid := json.Valid([]byte(in))
					if (code == 0) != valid {
						t.Fatalf("Check(%q) = %s, but encoding/json says valid %v", in, codeName(code), valid)
					}
					if code != 0 {
						continue
					}
					sp := c.Root[0]
					value := string(sp.Value([]byte(in)))
					if want := `"` + string(text) + `"`; value != want {
						t.Fatalf("Check(%q): value %q, want %q", in, value, want)
					}
					if plain := !strings.Contains(string(text), `\`); sp.PlainString != plain {
						t.Fatalf("Check(%q): PlainString %v, want %v", in, sp.PlainString, plain)
					}
				}
			}
		}
	}
}

// TestCheckerLargeObjects checks the duplicate test of objects past
// smallObject names, whose names are noted as offsets and compared once
// the object is read: names with escapes (one of them a quote, one a
// backslash) on either side of a comparison, duplicates of names met
// before and after the switch, across chunks and in several classes, in
// nested large objects, and with the checker reused.
func TestCheckerLargeObjects(t *testing.T) {
	// the same names written two ways; a quote and a backslash have no
	// way without an escape
	escaped := []string{`\"`, `\\`, `\u0041b`, `a\/`, `\u00e9t\u00e9`, `\ud83d\ude00`}
	other := []string{`\u0022`, `\u005C`, `Ab`, `a/`, `été`, `😀`}
	members := func(n int, name func(k int) string) string {
		ms := make([]string, n)
		for k := range ms {
			ms[k] = fmt.Sprintf(`"%s":%d`, name(k), k)
		}
		return strings.Join(ms, ",")
	}
	// names k0…, with escaped names at some places, written escaped or not
	named := func(esc bool) func(k int) string {
		return func(k int) string {
			if k%7 == 3 {
				if esc {
					return escaped[k%len(escaped)] + fmt.Sprint(k)
				}
				return other[k%len(other)] + fmt.Sprint(k)
			}
			return fmt.Sprintf("k%d", k)
		}
	}
	var c Checker
	for _, n := range []int{smallObject + 1, firstChunk - smallObject, firstChunk + 1, 200, 5000, 2*classSize + 1} {
		for _, esc := range []bool{false, true} {
			body := members(n, named(esc))
			check := func(name, in string, want audit.Code) {
				t.Helper()
				if got := c.Check([]byte(in)); got != want {
					t.Errorf("%d members, escaped %v, %s: Check(%s) = %s, want %s", n, esc, name, shorten(in), codeName(got), codeName(want))
				}
			}
			check("no duplicate", `{`+body+`}`, 0)
			check("nested, no duplicate", `{"x":{`+body+`},"y":[{`+body+`}],`+body+`}`, 0)
			for _, k := range []int{0, 3, 10, smallObject - 1, smallObject, n / 2, n - 4, n - 1} {
				if k < 0 || k >= n {
					continue
				}
				// the duplicate is written the other way (escaped or not)
				dup := named(!esc)(k)
				check(fmt.Sprintf("duplicate of name %d", k), `{`+body+`,"`+dup+`":0}`, audit.DuplicateKey)
				check(fmt.Sprintf("duplicate of name %d, nested", k), `{"x":[{`+body+`,"`+dup+`":0}]}`, audit.DuplicateKey)
				check(fmt.Sprintf("duplicate of name %d after a large child", k), `{`+body+`,"child":{`+body+`},"`+dup+`":0}`, audit.DuplicateKey)
				check("after a duplicate", `{`+body+`}`, 0)
			}
			// names that differ from every earlier one only after unescaping
			check("near names, then an escaped duplicate", `{`+body+`,"\\k1":0,"k\"1":0,"k1\u0000":0,"\u006b1":0}`, audit.DuplicateKey)
			check("near names, none equal", `{`+body+`,"\\k1":0,"k\"1":0,"k1\u0000":0}`, 0)
		}
	}
}

// TestCheckerLargeInputMap checks the map the checker falls back to for an
// input longer than the offsets of its large objects' names reach.
func TestCheckerLargeInputMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 16 MiB inputs")
	}
	pad := `"pad":"` + strings.Repeat("x", maxLargeInput) + `"`
	var c Checker
	for _, tc := range []struct {
		name, in string
		want     audit.Code
	}{
		{"large object", `{` + pad + `,` + manyMembers(40) + `}`, 0},
		{"large object, duplicate", `{` + pad + `,` + manyMembers(40) + `,"k33":0}`, audit.DuplicateKey},
		{"large object, escaped duplicate", `{` + pad + `,` + manyMembers(40) + `,"\u006b3":0}`, audit.DuplicateKey},
		{"again, no duplicate", `{` + pad + `,"x":{` + manyMembers(40) + `},"y":{` + manyMembers(40) + `}}`, 0},
	} {
		if got := c.Check([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, codeName(got), codeName(tc.want))
		}
	}
}

// TestCheckerLocateIsTheCallers checks that the checker locates exactly
// what its Locate names, whatever the names: nothing beyond the record's
// own members without one, and another format's names with its own.
func TestCheckerLocateIsTheCallers(t *testing.T) {
	rec := []byte(`{"type":"x","item":{"id":"a","result":{"k":1}},"message":{"content":[1],"meta":{"m":2}}}`)
	var plain Checker
	if code := plain.Check(rec); code != 0 || len(plain.Root) != 3 || len(plain.Child) != 0 || len(plain.Grandchild) != 0 {
		t.Errorf("no Locate: code %s, located %d/%d/%d; want the 3 root members only", codeName(code), len(plain.Root), len(plain.Child), len(plain.Grandchild))
	}
	other := Checker{Locate: Locate{Child: "message", Grandchild: "meta"}}
	if code := other.Check(rec); code != 0 || len(other.Child) != 2 || len(other.Grandchild) != 1 {
		t.Errorf("Locate message/meta: code %s, located %d/%d; want 2 and 1", codeName(code), len(other.Child), len(other.Grandchild))
	}
	twice := []byte(`{"message":{"uuid":"a","uuid":"b"}}`)
	if code := other.Check(twice); code != audit.DuplicateKey {
		t.Errorf("a twice-named member not allowed by Locate: %s, want duplicate_key", codeName(code))
	}
	other.Locate.TwiceInChild = "uuid"
	if code := other.Check(twice); code != 0 {
		t.Errorf("a twice-named member allowed by Locate: %s, want accepted", codeName(code))
	}
}

// TestElementsBounded: an array Locate names with more elements than are
// located costs no span per element: none is located, ElementsCut says
// so, and the spans' storage stays that of maxElements, whatever the
// array's length; the next record starts afresh.
func TestElementsBounded(t *testing.T) {
	c := Checker{Locate: Locate{Child: "message", ChildElements: "content"}}
	for _, el := range []string{`1`, `{"type":"text","text":"x"}`} {
		rec := []byte(`{"message":{"content":[` + strings.Repeat(el+",", 200_000) + el + `]}}`)
		if code := c.Check(rec); code != 0 {
			t.Fatalf("%s: code %v", el, code)
		}
		if !c.ElementsCut || len(c.Elements) != 0 || len(c.ElementMembers) != 0 {
			t.Fatalf("%s: cut %v, %d elements and %d members located", el, c.ElementsCut, len(c.Elements), len(c.ElementMembers))
		}
		if cap(c.Elements) > 2*maxElements || cap(c.ElementMembers) > 8*maxElements {
			t.Fatalf("%s: spans' storage %d and %d for %d located at most", el, cap(c.Elements), cap(c.ElementMembers), maxElements)
		}
		if code := c.Check([]byte(`{"message":{"content":[` + el + `]}}`)); code != 0 || c.ElementsCut || len(c.Elements) != 1 {
			t.Fatalf("%s: the next record: code %v, cut %v, %d elements", el, code, c.ElementsCut, len(c.Elements))
		}
	}
}

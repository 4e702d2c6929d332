package stream

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// canon returns the canonical form of the value v, taken the way the
// decoder takes values: checked inside a record, then read with Members.
func canon(t *testing.T, v string) string {
	t.Helper()
	rec := []byte(`{"v":` + v + `}`)
	var c Checker
	if code := c.Check(rec); code != 0 {
		t.Fatalf("value %s is not valid JSON: %s", v, code)
	}
	var out string
	Members(rec, func(_, value []byte) bool {
		out = string(AppendCanonical(nil, value))
		return false
	})
	return out
}

func TestAppendCanonicalEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{"nested key order", `{"x":{"a":[{"c":1,"d":2}],"b":null}}`, `{"x":{"b":null,"a":[{"d":2,"c":1}]}}`},
		{"whitespace", `{"a":[1,2],"b":{}}`, " { \"a\" : [ 1 ,\t2 ] ,\r\n \"b\" : { } } "},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[ ],"b":{ }}`},
		{"one and one point zero", `1`, `1.0`},
		{"one and exponent", `1`, `1e0`},
		{"one and 10e-1", `1`, `10e-1`},
		{"one and 0.1e1", `1`, `0.1e1`},
		{"ten", `10`, `1e1`},
		{"ten with plus exponent", `10`, `1E+1`},
		{"hundred", `100`, `1.00e2`},
		{"fraction", `0.5`, `5e-1`},
		{"small fraction", `0.001`, `1e-3`},
		{"trailing fraction zeros", `2.50`, `2.5`},
		{"negative", `-1.5`, `-15e-1`},
		{"zero forms", `0`, `0.0`},
		{"zero exponent", `0`, `0e10`},
		{"negative zero", `0`, `-0`},
		{"large integer", `12345678901234567890`, `1.234567890123456789e19`},
		{"escaped letter", `"a"`, `"\u0061"`},
		{"escaped solidus", `"/"`, `"\/"`},
		{"escaped non-ASCII", `"é"`, `"\u00e9"`},
		{"escaped pair", `"😀"`, `"\ud83d\ude00"`},
		{"control escapes", `"\n\t"`, `"\u000a\u0009"`},
		{"quote escapes", `"\""`, `"\u0022"`},
		{"escaped names", `{"a":1}`, `{"\u0061":1}`},
		{"numbers in arrays", `[1,2.0,3e0]`, `[1.0,2,0.3e1]`},
		{"arguments shape", `{"scope":"project","query":"x","limit":5}`, `{"limit":5.0,"query":"x","scope":"project"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := canon(t, tc.a), canon(t, tc.b)
			if a != b {
				t.Errorf("AppendCanonical(%s) = %s and AppendCanonical(%s) = %s, want equal", tc.a, a, tc.b, b)
			}
		})
	}
}

func TestAppendCanonicalDiffer(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"value changed", `{"a":1}`, `{"a":2}`},
		{"name changed", `{"a":1}`, `{"b":1}`},
		{"member added", `{"a":1}`, `{"a":1,"b":null}`},
		{"null member vs absent", `{}`, `{"a":null}`},
		{"array order", `[1,2]`, `[2,1]`},
		{"array length", `[1]`, `[1,1]`},
		{"nested array vs flat", `[[1,2]]`, `[1,2]`},
		{"number vs string", `1`, `"1"`},
		{"bool vs string", `true`, `"true"`},
		{"null vs string", `null`, `"null"`},
		{"null vs empty object", `null`, `{}`},
		{"empty object vs empty array", `{}`, `[]`},
		{"true vs false", `true`, `false`},
		{"string case", `"a"`, `"A"`},
		{"string space", `"a"`, `"a "`},
		{"one vs ten", `1`, `10`},
		{"fraction digits", `1.5`, `1.05`},
		{"sign", `1`, `-1`},
		{"exponent sign", `1e2`, `1e-2`},
		{"integer vs fraction", `1`, `1.0000000001`},
		{"scope changed", `{"scope":"project","query":"x"}`, `{"scope":"global","query":"x"}`},
		{"nested value changed", `{"a":{"b":[1,{"c":"x"}]}}`, `{"a":{"b":[1,{"c":"y"}]}}`},
		{"name vs value swap", `{"a":"b"}`, `{"b":"a"}`},
		{"empty string vs null", `""`, `null`},
		{"string with escaped quote", `"a\"b"`, `"a\\b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := canon(t, tc.a), canon(t, tc.b)
			if a == b {
				t.Errorf("AppendCanonical(%s) = AppendCanonical(%s) = %s, want different", tc.a, tc.b, a)
			}
		})
	}
}

// TestAppendCanonicalIsJSON checks that the canonical form is itself one
// valid JSON value, without insignificant whitespace, and a fixed point.
func TestAppendCanonicalIsJSON(t *testing.T) {
	tests := []string{
		`{"b":[1,2.50,{"d":"\u0041","c":null}],"a":"x y"}`,
		`"line\nbreak \u0001 \"q\" \\"`,
		`-12.5e-3`,
		`[true,false,null,{}]`,
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			once := canon(t, in)
			if strings.ContainsAny(once, "\t\r\n") {
				t.Errorf("AppendCanonical(%s) = %s, want no whitespace", in, once)
			}
			if twice := canon(t, once); twice != once {
				t.Errorf("AppendCanonical(AppendCanonical(%s)) = %s, want %s", in, twice, once)
			}
		})
	}
}

func TestAppendCanonicalAppends(t *testing.T) {
	got := string(AppendCanonical([]byte("prefix:"), []byte(`{"b":1,"a":2}`)))
	want := `prefix:{"a":` + string(AppendCanonical(nil, []byte("2"))) + `,"b":` + string(AppendCanonical(nil, []byte("1"))) + `}`
	if got != want {
		t.Errorf(`AppendCanonical("prefix:", {"b":1,"a":2}) = %s, want %s`, got, want)
	}
}

func TestTypeOf(t *testing.T) {
	tests := []struct {
		in   string
		want Type
	}{
		{`null`, Null},
		{`true`, Bool},
		{`false`, Bool},
		{`"x"`, String},
		{`""`, String},
		{`[]`, Array},
		{`{}`, Object},
		{`0`, Number},
		{`-1`, Number},
		{`9.5e3`, Number},
		{``, Invalid},
		{`x`, Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := TypeOf([]byte(tc.in)); got != tc.want {
				t.Errorf("TypeOf(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestIsInteger(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`0`, true},
		{`-0`, true},
		{`42`, true},
		{`-7`, true},
		{`12345678901234567890`, true},
		{`1.0`, false},
		{`1e3`, false},
		{`1E3`, false},
		{`"1"`, false},
		{`null`, false},
		{`true`, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := IsInteger([]byte(tc.in)); got != tc.want {
				t.Errorf("IsInteger(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestMembers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // name=value
	}{
		{"empty", `{}`, nil},
		{"spaced empty", ` { } `, nil},
		{"in order", `{"b":1,"a":"x"}`, []string{`b=1`, `a="x"`}},
		{"escaped names unescaped", `{"\u0061\n":true,"\/":null}`, []string{"a\n=true", `/=null`}},
		{"values raw", `{"o":{"x":[1, 2]} , "a":[ "}" ,{}],"s":"a\"b"}`, []string{`o={"x":[1, 2]}`, `a=[ "}" ,{}]`, `s="a\"b"`}},
		{"numbers", `{"n":-1.5e3,"m":0}`, []string{`n=-1.5e3`, `m=0`}},
		{"long name", `{"` + strings.Repeat("n", 100) + `":1}`, []string{strings.Repeat("n", 100) + `=1`}},
		{"not an object", `[1,2]`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			Members([]byte(tc.in), func(name, value []byte) bool {
				got = append(got, string(name)+"="+string(value))
				return true
			})
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Members(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMembersStops(t *testing.T) {
	in := `{"a":1,"b":2,"c":3}`
	var got []string
	Members([]byte(in), func(name, _ []byte) bool {
		got = append(got, string(name))
		return string(name) != "b"
	})
	if want := []string{"a", "b"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Members(%s) stopping at b visited %q, want %q", in, got, want)
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", `[]`, nil},
		{"spaced empty", ` [ ] `, nil},
		{"scalars", `[1,"a",true,null,-2.5]`, []string{`1`, `"a"`, `true`, `null`, `-2.5`}},
		{"containers", `[ {"a":[1,2]} , [[]] ,"]"]`, []string{`{"a":[1,2]}`, `[[]]`, `"]"`}},
		{"not an array", `{"a":1}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			Elements([]byte(tc.in), func(v []byte) bool {
				got = append(got, string(v))
				return true
			})
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Elements(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestElementsStops(t *testing.T) {
	in := `[1,2,3]`
	n := 0
	Elements([]byte(in), func([]byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("Elements(%s) returning false at once visited %d elements, want 1", in, n)
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`"plain"`, "plain"},
		{`""`, ""},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\u0063airn\u002dmemory"`, "cairn-memory"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`1`, ""},
		{`null`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Text([]byte(tc.in)); got != tc.want {
				t.Errorf("Text(%s) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTextIs(t *testing.T) {
	tests := []struct {
		in   string
		s    string
		want bool
	}{
		{`"project"`, "project", true},
		{`"\u0070roject"`, "project", true},
		{`"project "`, "project", false},
		{`"Project"`, "project", false},
		{`"proj"`, "project", false},
		{`""`, "", true},
		{`null`, "null", false},
		{`1`, "1", false},
		{`["project"]`, "project", false},
	}
	for _, tc := range tests {
		t.Run(tc.in+" "+tc.s, func(t *testing.T) {
			if got := TextIs([]byte(tc.in), tc.s); got != tc.want {
				t.Errorf("TextIs(%s, %q) = %v, want %v", tc.in, tc.s, got, tc.want)
			}
		})
	}
}

// The canonical form as it was written before AppendCanonical read its
// value in one pass (through Members and Elements, which skip each value
// again at every level): the reference the one-pass writer must match byte
// for byte, since identities are digests of it.
func refCanonical(dst, v []byte) []byte {
	switch TypeOf(v) {
	case Object:
		var buf [16]Field
		fs := appendMembers(buf[:0], v)
		if !slices.IsSortedFunc(fs, refCompareNames) {
			slices.SortFunc(fs, refCompareNames)
		}
		dst = append(dst, '{')
		for k, f := range fs {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = refQuoted(dst, f.Name)
			dst = append(dst, ':')
			dst = refCanonical(dst, f.Value)
		}
		return append(dst, '}')
	case Array:
		dst = append(dst, '[')
		n := 0
		Elements(v, func(e []byte) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = refCanonical(dst, e)
			return true
		})
		return append(dst, ']')
	case String:
		if bytes.IndexByte(v, '\\') < 0 {
			return append(dst, v...) // no escapes: already the one form
		}
		return refQuoted(dst, Unquote(v))
	case Number:
		return refNumber(dst, v)
	default:
		return append(dst, v...)
	}
}

func refCompareNames(a, b Field) int { return bytes.Compare(a.Name, b.Name) }

// refQuoted writes s as a JSON string, escaping only what JSON requires.
func refQuoted(dst []byte, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' || ch == '\\':
			dst = append(dst, '\\', ch)
		case ch < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xF])
		default:
			dst = append(dst, ch)
		}
	}
	return append(dst, '"')
}

// refNumber writes the checked number v as [-]0 or [-]0.DDDeN with no
// leading or trailing zeros in the digits, so 1, 1.0 and 10e-1 agree. The
// exponent is exact however long it is written: two numbers that differ
// only far out in a huge exponent must not compare equal.
func refNumber(dst, v []byte) []byte {
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	var digits []byte
	i := 0
	for i < len(v) && isDigit(v[i]) {
		digits = append(digits, v[i])
		i++
	}
	intLen := len(digits)
	if i < len(v) && v[i] == '.' {
		i++
		for i < len(v) && isDigit(v[i]) {
			digits = append(digits, v[i])
			i++
		}
	}
	expNeg := false
	var exp []byte // the exponent's magnitude, decimal, no leading zeros
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			expNeg = v[i] == '-'
			i++
		}
		exp = bytes.TrimLeft(v[i:], "0")
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	if lead == len(digits) {
		return append(dst, '0')
	}
	digits = bytes.TrimRight(digits[lead:], "0")
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, '0', '.')
	dst = append(dst, digits...)
	dst = append(dst, 'e')
	// value = 0.digits × 10^(exp + intLen - lead)
	return appendExponent(dst, expNeg, exp, intLen-lead)
}

// canonCorpus is values the one-pass canonical writer is compared with
// the reference on: every shape of the tests above, objects out of order
// at several levels, escapes everywhere, and every value of the shipped
// exports' records.
func canonCorpus(t testing.TB) [][]byte {
	vs := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `null`, `true`, `false`, `{"a":{}}`, `[[],[[]],{}]`,
		`{"b":2,"a":1}`, `{"b":{"d":1,"c":[{"f":1,"e":2}]},"a":[{"z":1,"y":2},{"x":[3,{"w":1,"v":0}]}]}`,
		` { "b" : [ 1 , 2 ] , "a" : { } } `, `{"scope":"project","query":"x","limit":5,"mode":"semantic"}`,
		`{"\u0062":1,"a":2,"\"":3,"\\":4,"\u0000":5,"\n":6,"é":7,"\u00e9t\u00e9":8,"😀":9,"\ud83d\ude00x":10}`,
		`{"a\"b":1,"a":2,"a\\":3,"a\u0001":4,"a ":5}`, `"a\"b\\c\/d\b\f\n\r\t\u0000\u001f\u0020\u007f\u0080\u2028\uffff\ud83d\ude00"`,
		`[1,1.0,10e-1,0.1e1,-1.5,-15e-1,0.001,1e-3,2.50,0e10,12345678901234567890,1e107374182399,-12.5e-107374182399,1E+1]`,
		`{"k":[1e99999999999,-1e-99999999999,0.000e5,100e-2,1230000]}`,
		`[` + strings.Repeat(`{"b":[`, 60) + `{"z":0,"a":1}` + strings.Repeat(`],"a":0}`, 60) + `]`,
		strings.Repeat(`[`, 126) + `{"b":1,"a":2}` + strings.Repeat(`]`, 126),
		`{` + manyMembers(100) + `,"a":{` + manyMembers(40) + `}}`,
	}
	var out [][]byte
	for _, v := range vs {
		out = append(out, []byte(v))
	}
	files, err := filepath.Glob("../testdata/codex/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped exports: %v", err)
	}
	var c Checker
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if c.Check(line) != 0 {
				continue
			}
			out = append(out, line)
			var walk func(v []byte)
			walk = func(v []byte) {
				switch TypeOf(v) {
				case Object:
					Members(v, func(_, m []byte) bool { out = append(out, m); walk(m); return true })
				case Array:
					Elements(v, func(e []byte) bool { walk(e); return true })
				}
			}
			walk(line)
		}
	}
	return out
}

func TestAppendCanonicalMatchesReference(t *testing.T) {
	var c Checker
	for _, v := range canonCorpus(t) {
		if code := c.checkValue(v, 0, false); code != 0 {
			t.Fatalf("corpus value %s: %s", shorten(string(v)), codeName(code))
		}
		got, want := AppendCanonical([]byte("p"), v), refCanonical([]byte("p"), v)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendCanonical(%s) = %s, want %s (the reference)", shorten(string(v)), shorten(string(got)), shorten(string(want)))
		}
	}
}

// FuzzCanonical compares the one-pass canonical writer and the streamed
// one (WriteCanonical) with the reference on checked values, and requires
// AppendCanonical not to panic on any other input.
func FuzzCanonical(f *testing.F) {
	for _, v := range canonCorpus(f) {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		var c Checker
		if c.checkValue(v, 0, false) != 0 {
			AppendCanonical(nil, v) // undefined, but it must return
			return
		}
		got, want := AppendCanonical(nil, v), refCanonical(nil, v)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendCanonical(%q) = %q, want %q (the reference)", v, got, want)
		}
		// The streamed form is the same bytes.
		var w bytes.Buffer
		if n := WriteCanonical(&w, v); !bytes.Equal(w.Bytes(), want) || n != int64(len(want)) {
			t.Fatalf("WriteCanonical(%q) = %q (counted %d), want %q", v, w.Bytes(), n, want)
		}
	})
}

// TestAppendCanonicalAllocations: an arguments object, in order or not,
// with escapes and numbers, is written without allocating once dst has
// room: a decoder canonicalizes every new call's arguments.
func TestAppendCanonicalAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	v := []byte(`{"scope":"project","query":"a \"quoted\" \u00e9 query","limit":10,"mode":"semantic","filters":{"tags":["x","y"],"since":1.50e3,"b":null,"a":true}}`)
	dst := make([]byte, 0, 4*len(v))
	if n := testing.AllocsPerRun(100, func() { dst = AppendCanonical(dst[:0], v) }); n != 0 {
		t.Errorf("AppendCanonical of an arguments object: %.0f allocations, want 0", n)
	}
}

// TestSkipString holds skipString to a byte loop over strings of every
// length up to past its two inline words, with a special byte (a quote
// escaped, a backslash escaped, a \u escape, a control character) at
// every place, and any tail after the string: its inline words must not
// read past the buffer or stop at a byte that does not end the string.
func TestSkipString(t *testing.T) {
	slow := func(b []byte, i int) int {
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	}
	for n := range 40 {
		for _, special := range []string{"", `\"`, `\\`, `\u00e9`, "\x01", `\n`} {
			for at := 0; at <= n; at++ {
				body := strings.Repeat("a", at) + special + strings.Repeat("b", n-at)
				for _, tail := range []string{"", ",", `,"x":"` + strings.Repeat("c", 20) + `"}`} {
					b := []byte(`"` + body + `"` + tail)
					if got, want := skipString(b, 0), slow(b, 0); got != want {
						t.Fatalf("skipString(%q) = %d, want %d", b, got, want)
					}
					if end, plain := skipQuoted(b, 0); plain && bytes.IndexByte(b[:end], '\\') >= 0 {
						t.Fatalf("skipQuoted(%q) says plain", b)
					}
					// Cut before its closing quote: never past the end.
					cut := b[:1+len(body)]
					if got, want := skipString(cut, 0), slow(cut, 0); got != want {
						t.Fatalf("skipString(%q) = %d, want %d", cut, got, want)
					}
				}
				if special == "" {
					break
				}
			}
		}
	}
}

package stream

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// The helpers below read JSON that a Checker has already accepted; on other
// input their results are undefined (but they never panic or loop).

// Type is the JSON type of a value, told by its first byte.
type Type uint8

const (
	Invalid Type = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// TypeOf returns the JSON type of the checked value v.
func TypeOf(v []byte) Type {
	if len(v) == 0 {
		return Invalid
	}
	switch v[0] {
	case 'n':
		return Null
	case 't', 'f':
		return Bool
	case '"':
		return String
	case '[':
		return Array
	case '{':
		return Object
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// IsInteger reports whether the checked value v is a number written without
// a fraction or an exponent.
func IsInteger(v []byte) bool {
	return TypeOf(v) == Number && bytes.IndexAny(v, ".eE") < 0
}

// Field is one member of an object: its unescaped name and its value.
type Field struct{ Name, Value []byte }

// appendMembers appends the members of the checked object obj to dst, in
// order, names unescaped (slices of obj when they have no escapes).
func appendMembers(dst []Field, obj []byte) []Field {
	Members(obj, func(name, value []byte) bool {
		dst = append(dst, Field{name, value})
		return true
	})
	return dst
}

// Members calls fn with each member of the checked object obj, in order,
// with the member name unescaped and the value's bytes, until fn returns
// false. A name is reused storage: fn must copy it to keep it.
func Members(obj []byte, fn func(name, value []byte) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		end, plain := skipQuoted(obj, i)
		name := obj[i+1 : end-1]
		if !plain {
			name = Unquote(obj[i:end])
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		vend := skipValue(obj, i)
		if !fn(name, obj[i:vend]) {
			return
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i = skipSpace(obj, i+1)
	}
}

// Elements calls fn with each element of the checked array arr, in order,
// until fn returns false.
func Elements(arr []byte, fn func(value []byte) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipSpace(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		end := skipValue(arr, i)
		if end == i || !fn(arr[i:end]) {
			return
		}
		i = skipSpace(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i = skipSpace(arr, i+1)
	}
}

// Unquote returns the unescaped contents of the checked string value v:
// a slice of v itself when it has no escapes, so that the common case does
// not allocate; nil when v is not a string.
func Unquote(v []byte) []byte {
	if TypeOf(v) != String || len(v) < 2 {
		return nil
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, err := appendUnquoted(nil, v)
	if err != nil {
		return nil
	}
	return s
}

// AppendUnquote appends the unescaped contents of the checked string value
// v to dst; false when v is not a string.
func AppendUnquote(dst, v []byte) ([]byte, bool) {
	if TypeOf(v) != String || len(v) < 2 {
		return dst, false
	}
	out, err := appendUnquoted(dst, v)
	if err != nil {
		return dst, false
	}
	return out, true
}

// Text returns the unescaped contents of the checked string value v.
func Text(v []byte) string { return string(Unquote(v)) }

// TextIs reports whether the checked string value v holds exactly s,
// without allocating when v has no escapes.
func TextIs(v []byte, s string) bool {
	u := Unquote(v)
	return u != nil && string(u) == s
}

// skipString returns the index just past the checked string at b[i]: the
// first quote not escaped by an odd run of backslashes.
func skipString(b []byte, i int) int {
	end, _ := skipQuoted(b, i)
	return end
}

// skipQuoted is skipString, and says whether the string was found plain:
// no escape in it. Most strings a decoder steps over are short (names,
// types, ids): their end is found in their first two words here, without
// a call; the rest of a longer one, from its first special byte, by
// closingQuote (plain is then false, whatever the string holds).
func skipQuoted(b []byte, i int) (end int, plain bool) {
	end = i + 1
	if end >= 0 && end < len(b)-16 {
		if s := specialBytes(binary.LittleEndian.Uint64(b[end:])); s != 0 {
			end += bits.TrailingZeros64(s) / 8
		} else if s := specialBytes(binary.LittleEndian.Uint64(b[end+8:])); s != 0 {
			end += 8 + bits.TrailingZeros64(s)/8
		} else {
			end += 16
		}
		if b[end] == '"' {
			return end + 1, true
		}
	}
	q, _ := closingQuote(b, end)
	if q < 0 {
		return len(b), false
	}
	return q + 1, false
}

// skipValue returns the index just past the checked value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			if !structural[b[i]] {
				i++ // white space, a number, true, false, null, a colon or comma
				continue
			}
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// AppendCanonical appends a canonical form of the checked value v to dst:
// members sorted by name, no insignificant whitespace, strings re-escaped
// one way, numbers reduced to one decimal form. Two values that are equal as
// JSON values have the same canonical form; it is used to compare them.
//
// It reads v once, whatever its nesting: members are written in their
// order, and an object whose names are out of order has its members'
// output moved into order after it (in place for up to smallObject
// members, else through a buffer of its size), and costs 8 bytes per
// member while it is open. Beyond dst's growth it does not allocate, once warm,
// for values of up to canonSpans members in open objects at once.
func AppendCanonical(dst, v []byte) []byte {
	switch TypeOf(v) {
	case Object, Array:
		c := canonicals.Get().(*canonical)
		dst, _ = c.value(dst, v, 0)
		if cap(c.spans) > canonSpans {
			c.spans = nil // a huge object's: not kept
		}
		canonicals.Put(c)
		return dst
	case String:
		return appendCanonicalString(dst, v)
	case Number:
		return appendNumber(dst, v)
	default:
		return append(dst, v...)
	}
}

// canonSpans is how many members of the open objects a pooled canonical
// writer keeps room for between calls.
const canonSpans = 1024

// canonical writes a canonical form; spans locates the output of the
// members of the open objects, innermost last.
type canonical struct {
	spans   []memberOut
	scratch []byte // at most canonScratch bytes: see sort
}

var canonicals = sync.Pool{New: func() any { return new(canonical) }}

// memberOut locates a member's output ("name":value) from its object's
// opening brace at dst[base]: dst[base+start : base+end].
type memberOut struct{ start, end uint32 }

// value writes the value at b[i] and returns the index just past it.
func (c *canonical) value(dst, b []byte, i int) ([]byte, int) {
	if i >= len(b) {
		return dst, len(b)
	}
	switch b[i] {
	case '{':
		return c.object(dst, b, i)
	case '[':
		return c.array(dst, b, i)
	case '"':
		end := skipString(b, i)
		return appendCanonicalString(dst, b[i:end]), end
	}
	end := skipValue(b, i) // a number or a literal
	if v := b[i:end]; TypeOf(v) == Number {
		return appendNumber(dst, v), end
	} else {
		return append(dst, v...), end
	}
}

func (c *canonical) array(dst, b []byte, i int) ([]byte, int) {
	dst = append(dst, '[')
	i = skipSpace(b, i+1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		start := i
		if dst, i = c.value(dst, b, i); i == start {
			break // not checked JSON: stop rather than loop
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			break
		}
		i = skipSpace(b, i+1)
	}
	if i < len(b) && b[i] == ']' {
		i++
	}
	return append(dst, ']'), i
}

func (c *canonical) object(dst, b []byte, i int) ([]byte, int) {
	base := len(dst)
	dst = append(dst, '{')
	first := len(c.spans)
	sorted := true
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		nameEnd := skipString(b, i)
		if len(c.spans) > first {
			dst = append(dst, ',')
		}
		start := len(dst)
		dst = appendCanonicalString(dst, b[i:nameEnd])
		if n := len(c.spans); sorted && n > first &&
			compareQuoted(dst[base+int(c.spans[n-1].start):], dst[start:]) > 0 {
			sorted = false
		}
		dst = append(dst, ':')
		if i = skipSpace(b, nameEnd); i >= len(b) || b[i] != ':' {
			break
		}
		dst, i = c.value(dst, b, skipSpace(b, i+1))
		c.spans = append(c.spans, memberOut{uint32(start - base), uint32(len(dst) - base)})
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			break
		}
		i = skipSpace(b, i+1)
	}
	if i < len(b) && b[i] == '}' {
		i++
	}
	if !sorted {
		dst = c.sort(dst, base, c.spans[first:])
	}
	c.spans = c.spans[:first]
	return append(dst, '}'), i
}

// sort puts the members ms of the object written from dst[base] in order
// of their names. An object of up to canonScratch bytes (an MCP call's
// arguments, nearly always) is rewritten through the writer's scratch
// buffer: two copies of a few hundred bytes. A larger one with a few
// members is sorted in place by rotations of dst, so that an arguments
// object with one huge member costs no copy of it elsewhere; one with more
// goes through a buffer of the object's size, freed after.
func (c *canonical) sort(dst []byte, base int, ms []memberOut) []byte {
	end := len(dst)
	small := end-base <= canonScratch
	if len(ms) <= smallObject && !small {
		sortByRotation(dst, base, ms)
		return dst
	}
	less := func(x, y memberOut) int {
		return compareQuoted(dst[base+int(x.start):], dst[base+int(y.start):])
	}
	if len(ms) <= smallObject {
		for k := 1; k < len(ms); k++ {
			for j := k; j > 0 && less(ms[j-1], ms[j]) > 0; j-- {
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
	} else {
		slices.SortFunc(ms, less)
	}
	var tmp []byte
	if small {
		if cap(c.scratch) < end-base {
			c.scratch = make([]byte, 0, canonScratch)
		}
		tmp = c.scratch[:0]
	} else {
		tmp = make([]byte, 0, end-base-1)
	}
	for k, m := range ms {
		if k > 0 {
			tmp = append(tmp, ',')
		}
		tmp = append(tmp, dst[base+int(m.start):base+int(m.end)]...)
	}
	copy(dst[base+1:end], tmp)
	if small {
		c.scratch = tmp
	}
	return dst
}

// canonScratch is the largest object, in output bytes, that a canonical
// writer sorts through its scratch buffer.
const canonScratch = 16 << 10

// sortByRotation is a selection sort of the members ms (in their order in
// dst, one comma apart) that moves each into place by rotating dst.
func sortByRotation(dst []byte, base int, ms []memberOut) {
	for p := 0; p < len(ms)-1; p++ {
		m := p
		for q := p + 1; q < len(ms); q++ {
			if compareQuoted(dst[base+int(ms[q].start):], dst[base+int(ms[m].start):]) < 0 {
				m = q
			}
		}
		if m == p {
			continue
		}
		// dst[sp:em] is "Mp,…,Mm-1,Mm": make it "Mm,Mp,…,Mm-1".
		sp, sm, em := base+int(ms[p].start), base+int(ms[m].start), base+int(ms[m].end)
		region := dst[sp:em]
		n := em - sm
		rotateLeft(region, sm-sp)               // "Mm" "Mp,…,Mm-1,"
		rotateLeft(region[n:], len(region)-n-1) // "Mm" "," "Mp,…,Mm-1"
		shift := uint32(n + 1)
		for q := m; q > p; q-- {
			ms[q] = memberOut{ms[q-1].start + shift, ms[q-1].end + shift}
		}
		ms[p] = memberOut{uint32(sp - base), uint32(sp - base + n)}
	}
}

// rotateLeft moves b[:k] to the end of b.
func rotateLeft(b []byte, k int) {
	slices.Reverse(b[:k])
	slices.Reverse(b[k:])
	slices.Reverse(b)
}

// compareQuoted compares the texts of two strings written as
// appendCanonicalString writes them (only \", \\ and \u00XX escapes),
// each at the start of a and b, by their unescaped bytes.
func compareQuoted(a, b []byte) int {
	// Up to the first difference or escape, both advance together.
	i := 1
	for i < len(a) && i < len(b) && a[i] == b[i] && a[i] != '"' && a[i] != '\\' {
		i++
	}
	j := i
	for {
		x, nx := quotedByte(a, i)
		y, ny := quotedByte(b, j)
		switch {
		case nx == 0 && ny == 0:
			return 0
		case nx == 0:
			return -1
		case ny == 0:
			return 1
		case x != y:
			return int(x) - int(y)
		}
		i, j = i+nx, j+ny
	}
}

// quotedByte is the unescaped byte at s[i] of a canonical string and how
// many bytes of s it takes; 0 at the closing quote (or the end of s).
func quotedByte(s []byte, i int) (byte, int) {
	if i >= len(s) || s[i] == '"' {
		return 0, 0
	}
	if s[i] != '\\' || i+1 >= len(s) {
		return s[i], 1
	}
	if s[i+1] == 'u' && i+6 <= len(s) {
		return byte(hex4(s[i+2:])), 6
	}
	return s[i+1], 2
}

// appendCanonicalString writes the checked string literal q as
// appendQuoted writes its unescaped text, without unescaping it first: raw
// bytes as they are, only a quote, a backslash and control characters
// escaped (\", \\, \u00XX). A lone surrogate (never in checked input)
// writes "".
func appendCanonicalString(dst, q []byte) []byte {
	if len(q) < 2 {
		return append(dst, `""`...)
	}
	s := q[1 : len(q)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return append(dst, q...) // no escapes: already the one form
	}
	start := len(dst)
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		ch := s[i]
		if ch != '\\' {
			j := i
			for j < len(s) && s[j] != '\\' && s[j] >= 0x20 && s[j] != '"' {
				j++
			}
			if j == i {
				dst = appendEscaped(dst, rune(ch))
				j++
			} else {
				dst = append(dst, s[i:j]...)
			}
			i = j
			continue
		}
		if i+1 >= len(s) {
			break
		}
		var r rune
		switch s[i+1] {
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if i+6 > len(s) {
				return append(dst[:start], `""`...)
			}
			r = hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
					return append(dst[:start], `""`...)
				}
				r2 := hex4(s[i+2:])
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return append(dst[:start], `""`...)
				}
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
			dst = appendEscaped(dst, r)
			continue
		default: // '"', '\\', '/'
			r = rune(s[i+1])
		}
		dst = appendEscaped(dst, r)
		i += 2
	}
	return append(dst, '"')
}

// appendEscaped writes r as appendQuoted writes it.
func appendEscaped(dst []byte, r rune) []byte {
	const hexDigits = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r >= 0 && r < 0x20:
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// appendNumber writes the checked number v as [-]0 or [-]0.DDDeN with no
// leading or trailing zeros in the digits, so 1, 1.0 and 10e-1 agree. The
// exponent is exact however long it is written: two numbers that differ
// only far out in a huge exponent must not compare equal.
func appendNumber(dst, v []byte) []byte {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	i := 0
	for i < len(v) && isDigit(v[i]) {
		i++
	}
	intPart := v[:i]
	var frac []byte
	if i < len(v) && v[i] == '.' {
		i++
		j := i
		for i < len(v) && isDigit(v[i]) {
			i++
		}
		frac = v[j:i]
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
	// The digits are intPart then frac; lead of them are leading zeros.
	lead := len(intPart) - len(bytes.TrimLeft(intPart, "0"))
	if lead == len(intPart) {
		lead += len(frac) - len(bytes.TrimLeft(frac, "0"))
	}
	if lead == len(intPart)+len(frac) {
		return append(dst, '0')
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, '0', '.')
	if lead < len(intPart) {
		dst = append(dst, intPart[lead:]...)
		dst = append(dst, frac...)
	} else {
		dst = append(dst, frac[lead-len(intPart):]...)
	}
	// Not every digit is 0, so trimming stops after the point.
	dst = bytes.TrimRight(dst, "0")
	dst = append(dst, 'e')
	// value = 0.digits × 10^(exp + len(intPart) - lead)
	return appendExponent(dst, expNeg, exp, len(intPart)-lead)
}

// appendExponent writes the decimal ±mag + shift. |shift| is below the
// input limit, so once mag has 16 digits or more the sum keeps mag's sign
// and only its magnitude moves.
func appendExponent(dst []byte, neg bool, mag []byte, shift int) []byte {
	if len(mag) < 16 {
		n := 0
		for _, d := range mag {
			n = n*10 + int(d-'0')
		}
		if neg {
			n = -n
		}
		return appendInt(dst, n+shift)
	}
	if neg {
		dst = append(dst, '-')
		shift = -shift
	}
	start := len(dst)
	dst = append(dst, mag...)
	out := dst[start:]
	if shift >= 0 {
		carry := shift
		for i := len(out) - 1; i >= 0 && carry > 0; i-- {
			s := int(out[i]-'0') + carry%10
			carry = carry/10 + s/10
			out[i] = byte('0' + s%10)
		}
		if carry > 0 {
			var head []byte
			head = appendInt(head, carry)
			return append(dst[:start], append(head, out...)...)
		}
		return dst
	}
	borrow := -shift
	for i := len(out) - 1; i >= 0 && borrow > 0; i-- {
		d := int(out[i]-'0') - borrow%10
		borrow /= 10
		if d < 0 {
			d += 10
			borrow++
		}
		out[i] = byte('0' + d)
	}
	z := 0
	for z < len(out)-1 && out[z] == '0' {
		z++
	}
	return append(dst[:start], out[z:]...)
}

func appendInt(dst []byte, n int) []byte {
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

package stream

import (
	"bytes"
	"slices"
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

// AppendMembers appends the members of the checked object obj to dst, in
// order, names unescaped (slices of obj when they have no escapes).
func AppendMembers(dst []Field, obj []byte) []Field {
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
		end := skipString(obj, i)
		name := Unquote(obj[i:end])
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
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		q := i + j
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
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
func AppendCanonical(dst, v []byte) []byte {
	switch TypeOf(v) {
	case Object:
		var buf [16]Field
		fs := AppendMembers(buf[:0], v)
		if !slices.IsSortedFunc(fs, compareNames) {
			slices.SortFunc(fs, compareNames)
		}
		dst = append(dst, '{')
		for k, f := range fs {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, f.Name)
			dst = append(dst, ':')
			dst = AppendCanonical(dst, f.Value)
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
			dst = AppendCanonical(dst, e)
			return true
		})
		return append(dst, ']')
	case String:
		if bytes.IndexByte(v, '\\') < 0 {
			return append(dst, v...) // no escapes: already the one form
		}
		return appendQuoted(dst, Unquote(v))
	case Number:
		return appendNumber(dst, v)
	default:
		return append(dst, v...)
	}
}

func compareNames(a, b Field) int { return bytes.Compare(a.Name, b.Name) }

// appendQuoted writes s as a JSON string, escaping only what JSON requires.
func appendQuoted(dst []byte, s []byte) []byte {
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

// appendNumber writes the checked number v as [-]0 or [-]0.DDDeN with no
// leading or trailing zeros in the digits, so 1, 1.0 and 10e-1 agree. The
// exponent is exact however long it is written: two numbers that differ
// only far out in a huge exponent must not compare equal.
func appendNumber(dst, v []byte) []byte {
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

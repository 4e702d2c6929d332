package stream

import (
	"bytes"
	"io"
	"slices"
	"sync"
)

// WriteCanonical writes AppendCanonical(nil, v) to w, byte for byte, and
// returns how many bytes that is, without ever holding the canonical form
// whole: it goes out in pieces of about canonChunk bytes, so that digesting
// the canonical form of a 16 MiB value costs a few pieces of memory, not a
// copy of the value (SPEC §1). w's errors are ignored (a hash never fails).
//
// It reads v twice. The first pass finds the objects whose member names
// are out of order; the second writes, and an object found out of order
// has its members written in order from their offsets in v, sorted (four
// bytes per member while it is open, counted in the first pass), instead of being moved into order in
// the output as AppendCanonical does. What it still holds whole: one
// number, and the two names being compared when one of them has an escape.
func WriteCanonical(w io.Writer, v []byte) int64 {
	c := canonWriters.Get().(*canonWriter)
	c.w, c.n = w, 0
	c.unsorted = c.unsorted[:0]
	switch TypeOf(v) { // as AppendCanonical
	case Object, Array:
		c.scan(v, 0)
		slices.SortFunc(c.unsorted, func(x, y unsortedObject) int { return int(x.start - y.start) })
		c.value(v, 0)
	case String:
		c.string(v)
	case Number:
		c.out = appendNumber(c.out, v)
	default:
		c.write(v)
	}
	c.flush()
	n := c.n
	c.w = nil
	if cap(c.unsorted) > canonSpans || cap(c.offs) > canonSpans {
		c.unsorted, c.offs = nil, nil // a huge object's: not kept
	}
	if cap(c.a) > canonChunk || cap(c.b) > canonChunk || cap(c.out) > 2*canonChunk {
		c.a, c.b, c.out = nil, nil, nil
	}
	canonWriters.Put(c)
	return n
}

// canonChunk is about how much canonical output a canonWriter holds
// before it writes it out, and the size of the pieces a long string with
// escapes is canonicalized in.
const canonChunk = 32 << 10

type canonWriter struct {
	w io.Writer
	n int64
	// out is the output not yet written.
	out []byte
	// unsorted holds the objects whose members are out of order, in
	// order of their offsets in v.
	unsorted []unsortedObject
	// offs holds the offsets of the member names of the out-of-order
	// objects open, innermost last.
	offs []int32
	// a, b: scratch for names with escapes, compared canonically; piece
	// for a piece of a string.
	a, b, piece []byte
}

type unsortedObject struct{ start, members int32 }

var canonWriters = sync.Pool{New: func() any {
	return &canonWriter{out: make([]byte, 0, 2*canonChunk)}
}}

func (c *canonWriter) flush() {
	if len(c.out) > 0 {
		c.w.Write(c.out)
		c.n += int64(len(c.out))
		c.out = c.out[:0]
	}
}

// write writes p, directly when it is long.
func (c *canonWriter) write(p []byte) {
	if len(c.out)+len(p) <= cap(c.out) {
		c.out = append(c.out, p...)
		return
	}
	c.flush()
	if len(p) >= canonChunk {
		c.w.Write(p)
		c.n += int64(len(p))
		return
	}
	c.out = append(c.out, p...)
}

func (c *canonWriter) byte1(ch byte) {
	if len(c.out) == cap(c.out) {
		c.flush()
	}
	c.out = append(c.out, ch)
}

// compareNames compares the names (string literals) a and b as
// AppendCanonical orders members: by their unescaped bytes.
func (c *canonWriter) compareNames(a, b []byte) int {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1])
	}
	c.a = appendCanonicalString(c.a[:0], a)
	c.b = appendCanonicalString(c.b[:0], b)
	return compareQuoted(c.a, c.b)
}

// compareAt is compareNames for the names whose quotes are at b[x] and
// b[y]: it reads them only as far as they agree, and finds their ends
// only when an escape comes first. An object's names are sorted with it:
// two million of them take some 40 million comparisons, which each
// finding two names' ends and escapes first made 5 times as slow.
func (c *canonWriter) compareAt(b []byte, x, y int) int {
	for i, j := x+1, y+1; i < len(b) && j < len(b); i, j = i+1, j+1 {
		p, q := b[i], b[j]
		switch {
		case p == '\\' || q == '\\':
			// What the escape stands for decides from here.
			return c.compareNames(b[x:skipString(b, x)], b[y:skipString(b, y)])
		case p == q && p != '"':
			continue
		case p == q:
			return 0 // both end here
		case p == '"':
			return -1 // a prefix of the other
		case q == '"':
			return 1
		case p < q:
			return -1
		}
		return 1
	}
	return c.compareNames(b[x:skipString(b, x)], b[y:skipString(b, y)])
}

// scan is the first pass over the checked value at b[i]: it notes the
// objects whose names are out of order, and returns the index past it.
func (c *canonWriter) scan(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '[':
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			start := i
			if i = c.scan(b, i); i == start {
				return len(b) // not checked JSON: stop rather than loop
			}
			if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return min(i+1, len(b))
	case '{':
		start := i
		sorted := true
		members := int32(0)
		var prev []byte
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] == '"' {
			nameEnd := skipString(b, i)
			if prev != nil && sorted && c.compareNames(prev, b[i:nameEnd]) > 0 {
				sorted = false
			}
			prev = b[i:nameEnd]
			members++
			if i = skipSpace(b, nameEnd); i >= len(b) || b[i] != ':' {
				return len(b)
			}
			i = c.scan(b, skipSpace(b, i+1))
			if i = skipSpace(b, i); i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		if !sorted {
			c.unsorted = append(c.unsorted, unsortedObject{int32(start), members})
		}
		return min(i+1, len(b))
	}
	return skipValue(b, i)
}

// value writes the checked value at b[i] and returns the index past it.
func (c *canonWriter) value(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		end := skipString(b, i)
		c.string(b[i:end])
		return end
	case '[':
		c.byte1('[')
		i = skipSpace(b, i+1)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			if n > 0 {
				c.byte1(',')
			}
			start := i
			if i = c.value(b, i); i == start {
				break
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
				break
			}
			i = skipSpace(b, i+1)
		}
		c.byte1(']')
		if i < len(b) && b[i] == ']' {
			i++
		}
		return i
	case '{':
		if k, found := slices.BinarySearchFunc(c.unsorted, int32(i), func(o unsortedObject, start int32) int {
			return int(o.start - start)
		}); found {
			return c.sortedObject(b, i, int(c.unsorted[k].members))
		}
		c.byte1('{')
		i = skipSpace(b, i+1)
		for n := 0; i < len(b) && b[i] == '"'; n++ {
			if n > 0 {
				c.byte1(',')
			}
			if i = c.member(b, i); i >= len(b) || b[i] != ',' {
				break
			}
			i = skipSpace(b, i+1)
		}
		c.byte1('}')
		if i < len(b) && b[i] == '}' {
			i++
		}
		return i
	}
	end := skipValue(b, i) // a number or a literal
	if v := b[i:end]; TypeOf(v) == Number {
		if len(c.out)+len(v)+32 > cap(c.out) {
			c.flush()
		}
		c.out = appendNumber(c.out, v)
	} else {
		c.write(v)
	}
	return end
}

// member writes the member whose name is at b[i] and returns the index
// past its value, and past white space after it.
func (c *canonWriter) member(b []byte, i int) int {
	nameEnd := skipString(b, i)
	c.string(b[i:nameEnd])
	c.byte1(':')
	i = skipSpace(b, nameEnd)
	if i >= len(b) || b[i] != ':' {
		return len(b)
	}
	return skipSpace(b, c.value(b, skipSpace(b, i+1)))
}

// sortedObject writes the object at b[i], whose members are out of order,
// in order of their names.
func (c *canonWriter) sortedObject(b []byte, i, members int) int {
	first := len(c.offs)
	c.offs = slices.Grow(c.offs, members) // exactly, not by append's steps
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		c.offs = append(c.offs, int32(i))
		if i = skipSpace(b, skipString(b, i)); i >= len(b) || b[i] != ':' {
			break
		}
		if i = skipSpace(b, skipValue(b, skipSpace(b, i+1))); i >= len(b) || b[i] != ',' {
			break
		}
		i = skipSpace(b, i+1)
	}
	if i < len(b) && b[i] == '}' {
		i++
	}
	ms := c.offs[first:]
	slices.SortFunc(ms, func(x, y int32) int { return c.compareAt(b, int(x), int(y)) })
	c.byte1('{')
	for k := first; k < len(c.offs); k++ {
		if k > first {
			c.byte1(',')
		}
		c.member(b, int(c.offs[k]))
	}
	c.byte1('}')
	c.offs = c.offs[:first]
	return i
}

// string writes the checked string literal q as appendCanonicalString
// does: a long one with escapes in pieces cut between escapes.
func (c *canonWriter) string(q []byte) {
	if len(q) < 2 {
		c.write([]byte(`""`))
		return
	}
	s := q[1 : len(q)-1]
	if len(q) <= canonChunk || bytes.IndexByte(s, '\\') < 0 {
		if len(c.out)+6*len(q) > cap(c.out) {
			c.flush()
		}
		if len(q) <= canonChunk {
			c.out = appendCanonicalString(c.out, q)
		} else {
			c.write(q) // no escapes: already the one form
		}
		return
	}
	c.byte1('"')
	for start := 0; start < len(s); {
		end := min(start+canonChunk, len(s))
		j := start
		for j < end {
			k := bytes.IndexByte(s[j:end], '\\')
			if k < 0 {
				j = end
				break
			}
			j += k
			switch {
			case j+1 < len(s) && s[j+1] == 'u':
				r := rune(0)
				if j+6 <= len(s) {
					r = hex4(s[j+2:])
				}
				j += 6
				if r >= 0xD800 && r < 0xDC00 && j+6 <= len(s) && s[j] == '\\' && s[j+1] == 'u' {
					j += 6 // a surrogate pair is one escape
				}
			default:
				j += 2
			}
		}
		j = min(j, len(s))
		c.piece = append(append(append(c.piece[:0], '"'), s[start:j]...), '"')
		c.flush()
		c.out = appendCanonicalString(c.out, c.piece)
		// Without the piece's own quotes.
		copy(c.out, c.out[1:len(c.out)-1])
		c.out = c.out[:len(c.out)-2]
		start = j
	}
	c.byte1('"')
}

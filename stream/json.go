package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"iter"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
)

// MaxDepth is the deepest nesting of arrays and objects together that a
// record may have (SPEC §4.1).
const MaxDepth = audit.MaxDepth

// smallObject is how many member names an object may have before the
// duplicate check switches from a linear scan to a map.
const smallObject = 16

// Checker validates that a record is exactly one JSON object: well-formed,
// nested at most MaxDepth deep, with no member name twice in one object
// (names compared after unescaping). It does not decode values. A Checker
// keeps its scratch space between calls so that checking a stream of
// records does not allocate per record; it is not safe for concurrent use.
type Checker struct {
	// Locate says which members, besides the record's own, are located:
	// the caller's format knows which objects its decoder reads.
	Locate Locate

	// The members of the last checked record that a decoder reads (Span.In)
	// without walking the record again. Valid until the next Check.
	Located

	b     []byte
	large largeNames
	table []uint64              // scratch: the names of one class of a large object (repeated)
	maps  []map[string]struct{} // in place of large for an input too long for its offsets
	key   []byte                // scratch: an escaped name, unescaped
	other []byte                // scratch: the name it is compared with
	cause error
}

// Locate names the objects whose members a Checker locates besides the
// record's own: the object under the record's member Child, and the object
// under that one's member Grandchild ("" locates none). TwiceInChild names
// a member the Child object may hold exactly twice, a quirk of the caller's
// format that the caller must still judge (codex's web_search, SPEC §4.1);
// any other repeated name is a duplicate_key.
type Locate struct {
	Child, Grandchild, TwiceInChild string

	// Elements names a member of the record whose array's elements are
	// located (Located.Elements), so that a caller need not walk the
	// array to find them; "" locates none. ChildElements is the same for
	// a member of the Child object; a caller names one of the two. The
	// members of an element that is an object are located too, as a
	// located object's are (Located.MembersOf).
	Elements, ChildElements string

	// Reads, when set, says which member names the caller reads in the
	// located objects. Past an object's first locateAll members, only
	// those are located, and the first one Reads refuses, which is enough
	// to tell that the object has members the caller does not know: an
	// object of two million unknown members then costs a few spans, not a
	// span each (SPEC §1), and an ordinary record, whose objects are
	// small, is located without a call per member.
	Reads func(name []byte) bool
}

// locateAll is how many members of a located object are located whatever
// their names (see Locate.Reads).
const locateAll = 16

// Located locates, in order, the members of a record (Root), of the object
// under its Locate.Child member (Child) and of the object under that one's
// Locate.Grandchild member (Grandchild). A slice is empty when there is no
// such object. Elements locates the elements of the array under the
// record's Locate.Elements member, or the Child's Locate.ChildElements
// member (their values), and ElementMembers the members of those that are
// objects (see MembersOf), unless the array has more than maxElements
// elements: then none is, and ElementsCut is set, so that a hostile array
// costs no span per element (the caller walks it).
type Located struct {
	Root, Child, Grandchild []Span
	Elements                []Span
	ElementMembers          []Span
	ElementsCut             bool
}

// maxElements is how many elements of an array Locate names may be
// located: real content arrays and parts lists hold a few.
const maxElements = 256

// MembersOf returns the located members of element k (Elements[k]): none
// when it is not an object. An element's span holds, in place of a name,
// where its members are in ElementMembers.
func (l *Located) MembersOf(k int) []Span {
	e := &l.Elements[k]
	return l.ElementMembers[e.NameStart:e.NameEnd:e.NameEnd]
}

// at says which located object, if any, the checker is in.
type at uint8

const (
	atOther at = iota
	atRoot
	atChild
	atGrandchild
	atElement // an object that is an element Locate names
)

// Span locates a member in a checked record: the name's text between its
// quotes, b[NameStart:NameEnd], Escaped when it holds an escape, and the
// value, b[ValueStart:ValueEnd], PlainString when it is a string with no
// escape. Offsets are 32-bit (a record is at most 16 MiB), so that a batch
// of spans stays small.
type Span struct {
	NameStart, NameEnd, ValueStart, ValueEnd int32
	Escaped, PlainString                     bool
}

// In returns the member s locates in the record b: its name, unescaped (a
// slice of b when it has no escape), and its value.
func (s *Span) In(b []byte) (name, value []byte) {
	name = b[s.NameStart:s.NameEnd]
	if s.Escaped {
		name = Unquote(b[s.NameStart-1 : s.NameEnd+1])
	}
	return name, b[s.ValueStart:s.ValueEnd]
}

// Name returns the unescaped name of the member s locates in the record b:
// a slice of b when it has no escape.
func (s *Span) Name(b []byte) []byte {
	if s.Escaped {
		return Unquote(b[s.NameStart-1 : s.NameEnd+1])
	}
	return b[s.NameStart:s.NameEnd]
}

// Value returns the value of the member s locates in the record b.
func (s *Span) Value(b []byte) []byte { return b[s.ValueStart:s.ValueEnd] }

// Text returns the unescaped contents of the member's value in the record
// b when it is a string (Unquote), nil when it is not: for a string with
// no escape, without reading it again.
func (s *Span) Text(b []byte) []byte {
	if s.PlainString {
		return b[s.ValueStart+1 : s.ValueEnd-1]
	}
	return Unquote(b[s.ValueStart:s.ValueEnd])
}

// errSyntax and friends are causes kept for tests; they never reach output.
var (
	errSyntax    = errors.New("json: syntax error")
	errTrailing  = errors.New("json: data after the object")
	errNotObject = errors.New("json: record is not an object")
	errSurrogate = errors.New("json: lone surrogate escape")
)

// Check reports the first problem with b as a code: MalformedJSON,
// DuplicateKey or NestingTooDeep; 0 means b is one valid JSON object. The
// input must already be valid UTF-8 (the reader checks the raw bytes).
func (c *Checker) Check(b []byte) audit.Code {
	c.start(b)
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		c.cause = errNotObject
		return audit.MalformedJSON
	}
	// c.object at depth 1, without a call of its own.
	large := c.large.n
	end, code := c.members(i, 1, atRoot)
	if c.large.n > large {
		end, code = c.largeEnd(large, end, code)
	}
	return c.end(end, code)
}

// start resets the checker for a new input.
func (c *Checker) start(b []byte) {
	c.Root, c.Child, c.Grandchild, c.Elements = c.Root[:0], c.Child[:0], c.Grandchild[:0], c.Elements[:0]
	c.ElementMembers, c.ElementsCut = c.ElementMembers[:0], false
	c.b = b
	c.cause = nil
}

// end accepts the input when the value ending at end is followed by white
// space only.
func (c *Checker) end(end int, code audit.Code) audit.Code {
	if code != 0 {
		return code
	}
	if skipSpace(c.b, end) != len(c.b) {
		c.cause = errTrailing
		return audit.MalformedJSON
	}
	return 0
}

// Cause returns the internal reason for the last failed Check, for tests.
func (c *Checker) Cause() error { return c.cause }

func (c *Checker) fail(code audit.Code, err error) (int, audit.Code) {
	c.cause = err
	return 0, code
}

// value checks the value at b[i:] (i at its first byte) and returns the
// index just past it.
func (c *Checker) value(i, depth int) (int, audit.Code) {
	b := c.b
	if uint(i) >= uint(len(b)) {
		return c.fail(audit.MalformedJSON, errSyntax)
	}
	switch b[i] {
	case '{':
		return c.object(i, depth+1, atOther)
	case '[':
		return c.array(i, depth+1, false)
	case '"':
		end, _, ok := scanString(b, i)
		if !ok {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		return end, 0
	case 't':
		return c.literal(i, "true")
	case 'f':
		return c.literal(i, "false")
	case 'n':
		return c.literal(i, "null")
	default:
		end, ok := scanNumber(b, i)
		if !ok {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		return end, 0
	}
}

func (c *Checker) literal(i int, lit string) (int, audit.Code) {
	if !bytes.HasPrefix(c.b[i:], []byte(lit)) {
		return c.fail(audit.MalformedJSON, errSyntax)
	}
	return i + len(lit), 0
}

// array checks the array at b[i]; locate says that its elements are
// Locate.Elements'.
func (c *Checker) array(i, depth int, locate bool) (int, audit.Code) {
	if depth > MaxDepth {
		return c.fail(audit.NestingTooDeep, nil)
	}
	b := c.b
	i = skipSpace(b, i+1)
	if uint(i) < uint(len(b)) && b[i] == ']' {
		return i + 1, 0
	}
	elements, members := len(c.Elements), len(c.ElementMembers)
	for {
		var end int
		var code audit.Code
		m := len(c.ElementMembers) // where this element's members go
		if locate && uint(i) < uint(len(b)) && b[i] == '{' {
			end, code = c.object(i, depth+1, atElement)
		} else {
			end, code = c.value(i, depth)
		}
		if code != 0 {
			return 0, code
		}
		if locate {
			// In place of a name, where its members are (none but for an
			// object).
			c.Elements = append(c.Elements, Span{NameStart: int32(m), NameEnd: int32(len(c.ElementMembers)), ValueStart: int32(i), ValueEnd: int32(end)})
		}
		if locate && len(c.Elements)-elements > maxElements {
			// Too many to locate: none is (Located.ElementsCut).
			c.Elements, c.ElementMembers = c.Elements[:elements], c.ElementMembers[:members]
			c.ElementsCut, locate = true, false
		}
		i = skipSpace(b, end)
		if uint(i) >= uint(len(b)) {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, 0
		default:
			return c.fail(audit.MalformedJSON, errSyntax)
		}
	}
}

// object checks the object at b[i]; in says which located object it is.
func (c *Checker) object(i, depth int, in at) (int, audit.Code) {
	if depth > MaxDepth {
		return c.fail(audit.NestingTooDeep, nil)
	}
	large := c.large.n // where this object's names will be in c.large, if it is large
	end, code := c.members(i, depth, in)
	if c.large.n > large {
		end, code = c.largeEnd(large, end, code)
	}
	return end, code
}

// largeEnd ends an object whose names past its first smallObject are in
// c.large from large on: they are compared once the object is read, or as
// far as it was read when a problem was found in it (code), so that a name
// repeated before that problem is the first one in reading order, as when
// every name is compared as it comes.
func (c *Checker) largeEnd(large, end int, code audit.Code) (int, audit.Code) {
	if code != audit.DuplicateKey && c.repeated(large) {
		end, code = c.fail(audit.DuplicateKey, nil)
	}
	c.large.truncate(large)
	return end, code
}

// smallName locates one of an object's first smallObject names: the
// offset of its opening quote, of its closing quote at 32, and whether it
// has an escape at 63 (see nameIn).
type smallName uint64

func newSmallName(quote, end int, escaped bool) smallName {
	n := smallName(quote) | smallName(end)<<32
	if escaped {
		n |= 1 << 63
	}
	return n
}

func (n smallName) quote() int    { return int(uint32(n)) }
func (n smallName) escaped() bool { return n>>63 != 0 }
func (n smallName) closing() int  { return int(uint32(n>>32) &^ (1 << 31)) }

// nameIn is the unescaped text of the name n locates: a slice of c.b, or
// of *scratch when it has an escape.
func (c *Checker) nameIn(n smallName, scratch *[]byte) []byte {
	if !n.escaped() {
		return c.b[n.quote()+1 : n.closing()]
	}
	*scratch, _ = appendUnquoted((*scratch)[:0], c.b[n.quote():n.closing()+1])
	return *scratch
}

// members checks the members of the object at b[i]. Its first
// smallObject names are noted by where they are (names) and compared one
// by one as they come, only when a name shares a bit (nameBit) with an
// earlier one; the others are noted in c.large (see seen).
func (c *Checker) members(i, depth int, in at) (int, audit.Code) {
	b := c.b
	var names [smallObject]smallName
	idSeen := 0
	var bloom uint64 // nameBit of each of the object's first smallObject names
	count := 0       // names read in this object, but the one it may hold twice
	members := 0     // members read in this object
	refused := false // a member that Locate.Reads refuses was located
	i = skipSpace(b, i+1)
	if uint(i) < uint(len(b)) && b[i] == '}' {
		return i + 1, 0
	}
	for {
		if uint(i) >= uint(len(b)) || b[i] != '"' {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		// The plain names and string values, nearly all, are scanned here,
		// without a call: a call costs every live value here a spill.
		end, escaped, ok := plainWords(b, i+1), false, true
		if uint(end) < uint(len(b)) && b[end] == '"' {
			end++
		} else if end, escaped, ok = stringFrom(b, end); !ok {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		// Most names have no escape: those are compared as they are; an
		// escaped one is unescaped into c.key, which checking the value
		// may reuse: what needs the name is decided before that.
		name := b[i+1 : end-1]
		if escaped {
			var err error
			if c.key, err = appendUnquoted(c.key[:0], b[i:end]); err != nil {
				return c.fail(audit.MalformedJSON, err)
			}
			name = c.key
		}
		if in == atChild && c.twice(name) {
			// The name the object may hold twice is counted, not kept.
			if idSeen++; idSeen > 2 {
				return c.fail(audit.DuplicateKey, nil)
			}
		} else {
			if uint(count) < smallObject {
				// A name whose bit no earlier name has is compared with none.
				bit := nameBit(name)
				if bloom&bit != 0 && c.among(names[:count], name) {
					return c.fail(audit.DuplicateKey, nil)
				}
				bloom |= bit
				names[count] = newSmallName(i, end-1, escaped)
			} else if c.seen(names[:], depth-1, count, name, i, escaped) {
				return c.fail(audit.DuplicateKey, nil)
			}
			count++
		}
		locate := in != atOther && (members < locateAll || c.locates(name, &refused))
		members++
		nameStart, nameEnd := i, end
		// Compact JSON has no space around the colon: that is tested first.
		if uint(end) < uint(len(b)) && b[end] == ':' {
			i = end + 1
		} else if i = skipSpace(b, end); uint(i) < uint(len(b)) && b[i] == ':' {
			i++
		} else {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		i = skipSpace(b, i)
		var code audit.Code
		plain := false
		if uint(i) >= uint(len(b)) {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		switch b[i] {
		case '"':
			// A string, the commonest value, is scanned here: whether it
			// has an escape goes into its span.
			plain = true
			end = i + 1
			if end <= len(b)-24 {
				// The first three words here, unrolled: the call below
				// costs more than a short string.
				if s := specialBytes(binary.LittleEndian.Uint64(b[end:])); s != 0 {
					end += bits.TrailingZeros64(s) / 8
				} else if s := specialBytes(binary.LittleEndian.Uint64(b[end+8:])); s != 0 {
					end += 8 + bits.TrailingZeros64(s)/8
				} else if s := specialBytes(binary.LittleEndian.Uint64(b[end+16:])); s != 0 {
					end += 16 + bits.TrailingZeros64(s)/8
				} else {
					end += 24
				}
			} else if len(b) >= 8 {
				// Less than three words left (a record's last values):
				// the whole words, then the record's last eight bytes,
				// those before end shifted out; the zeros shifted in flag
				// past the end.
				s := uint64(0)
				for ; end <= len(b)-8; end += 8 {
					if s = specialBytes(binary.LittleEndian.Uint64(b[end:])); s != 0 {
						break
					}
				}
				if s == 0 && end < len(b) {
					s = specialBytes(binary.LittleEndian.Uint64(b[len(b)-8:]) >> (8 * uint(end-(len(b)-8))))
				}
				if s != 0 {
					end += bits.TrailingZeros64(s) / 8
				}
			}
			if uint(end) < uint(len(b)) && b[end] == '"' {
				end++
			} else {
				var valueEscaped bool
				if end, valueEscaped, ok = stringFrom(b, end); !ok {
					return c.fail(audit.MalformedJSON, errSyntax)
				}
				plain = !valueEscaped
			}
		case '{':
			// c.object, without a call of its own: most values that are
			// objects are small ones of a record.
			if depth >= MaxDepth {
				return c.fail(audit.NestingTooDeep, nil)
			}
			large := c.large.n
			if end, code = c.members(i, depth+1, c.locatedChild(in, name)); c.large.n > large {
				end, code = c.largeEnd(large, end, code)
			}
		case '[':
			end, code = c.array(i, depth+1, in == atRoot && isName(name, c.Locate.Elements) ||
				in == atChild && isName(name, c.Locate.ChildElements))
		default:
			end, code = c.value(i, depth)
		}
		if code != 0 {
			return 0, code
		}
		if locate {
			c.located(in, Span{int32(nameStart + 1), int32(nameEnd - 1), int32(i), int32(end), escaped, plain})
		}
		if uint(end) < uint(len(b)) && b[end] == ',' {
			// Compact JSON: the next name follows at once.
			i = skipSpace(b, end+1)
			continue
		}
		i = skipSpace(b, end)
		if uint(i) >= uint(len(b)) {
			return c.fail(audit.MalformedJSON, errSyntax)
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			if count > smallObject && len(b) > maxLargeInput {
				c.maps[depth-1] = nil
			}
			return i + 1, 0
		default:
			return c.fail(audit.MalformedJSON, errSyntax)
		}
	}
}

// located appends sp to the members located in the object in.
func (c *Checker) located(in at, sp Span) {
	spans := &c.Grandchild
	switch in {
	case atRoot:
		spans = &c.Root
	case atChild:
		spans = &c.Child
	case atElement:
		spans = &c.ElementMembers
	}
	*spans = append(*spans, sp)
}

// among reports whether name is one of the names earlier locates.
func (c *Checker) among(earlier []smallName, name []byte) bool {
	for _, n := range earlier {
		if bytes.Equal(c.nameIn(n, &c.other), name) {
			return true
		}
	}
	return false
}

// nameBit is one of 64 bits, chosen by name's length and its first and
// last bytes: two equal names have the same bit, so a name whose bit is
// not among those of an object's names so far is none of them.
func nameBit(name []byte) uint64 {
	h := uint(len(name))
	if len(name) > 0 {
		h = h*5 + uint(name[0]) + uint(name[len(name)-1])*3
	}
	return 1 << (h & 63)
}

// locates reports whether a member named name, past the first locateAll
// of a located object, is located (see Locate.Reads); refused says
// whether one that Reads refuses already is.
func (c *Checker) locates(name []byte, refused *bool) bool {
	if c.Locate.Reads == nil || c.Locate.Reads(name) {
		return true
	}
	if *refused {
		return false
	}
	*refused = true
	return true
}

// locatedChild is which located object an object value of the member name
// is, in the object in.
func (c *Checker) locatedChild(in at, name []byte) at {
	switch {
	case in == atRoot && isName(name, c.Locate.Child):
		return atChild
	case in == atChild && isName(name, c.Locate.Grandchild):
		return atGrandchild
	}
	return atOther
}

// twice reports whether name is the Child object's member that may come
// twice.
func (c *Checker) twice(name []byte) bool { return isName(name, c.Locate.TwiceInChild) }

// isName reports whether name is s, one of Locate's names ("" is none),
// a byte at a time: they are short, and a call of memequal would cost the
// caller a spill of every live value.
func isName(name []byte, s string) bool {
	if len(name) != len(s) || len(s) == 0 {
		return false
	}
	for i := range len(s) {
		if name[i] != s[i] {
			return false
		}
	}
	return true
}

// seen reports whether name, the object's count+1st (count >=
// smallObject: members compares an object's first names one by one as
// they come), at b[quote] (its opening quote), is already among the names
// of the object whose first names are first, at nesting level level. From
// its smallObject+1st name on, an object's names are noted in c.large and
// compared once it is read (see object): seen reports false for them.
func (c *Checker) seen(first []smallName, level, count int, name []byte, quote int, escaped bool) bool {
	if len(c.b) > maxLargeInput {
		return c.seenInMap(first, level, count, name)
	}
	if count == smallObject {
		for _, n := range first {
			c.large.push(largeEntry(n.quote(), n.escaped()))
		}
	}
	c.large.push(largeEntry(quote, escaped))
	return false
}

// seenInMap is seen for an input longer than c.large's offsets reach: the
// names go to a map, dropped when the object ends (see members).
func (c *Checker) seenInMap(first []smallName, level, count int, name []byte) bool {
	for len(c.maps) <= level {
		c.maps = append(c.maps, nil)
	}
	m := c.maps[level]
	if count == smallObject {
		m = make(map[string]struct{}, 2*smallObject)
		c.maps[level] = m
		for _, n := range first {
			m[string(c.nameIn(n, &c.other))] = struct{}{}
		}
	}
	if _, ok := m[string(name)]; ok {
		return true
	}
	m[string(name)] = struct{}{}
	return false
}

// largeNames holds the names of the open objects past their first
// smallObject, innermost last, by where they are in the checked input:
// four bytes a name, in chunks, so that two million names cost 8 MB and
// growing never copies them (SPEC §1). An entry is the offset of the
// name's opening quote (24 bits, enough for maxLargeInput), 0x80 when the
// name has an escape, and the name's class in the low 7 bits (see
// repeated).
type largeNames struct {
	chunks [][]uint32 // in use: every one but the last is full
	spare  [][]uint32 // emptied, to be used again
	// n is how many entries there are: the names of an object are those
	// from what n was when it opened.
	n int
}

const (
	firstChunk    = 256      // entries of a largeNames' first chunk; each next one is twice the last
	maxChunk      = 64 << 10 // entries of the largest chunk
	keptChunks    = 16 << 10 // entries of spare chunks kept between records
	maxLargeInput = 1<<24 - 1
)

// A record or a trajectory value is at most MaxBytes long: its offsets
// must fit an entry.
var _ [maxLargeInput - (MaxBytes - 1)]struct{}

func largeEntry(quote int, escaped bool) uint32 {
	e := uint32(quote) << 8
	if escaped {
		e |= 0x80
	}
	return e
}

func (l *largeNames) push(e uint32) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == cap(l.chunks[n-1]) {
		var next []uint32
		if k := len(l.spare); k > 0 {
			next, l.spare = l.spare[k-1], l.spare[:k-1]
		} else {
			size := firstChunk
			if n > 0 {
				size = min(2*cap(l.chunks[n-1]), maxChunk)
			}
			next = make([]uint32, 0, size)
		}
		l.chunks = append(l.chunks, next)
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], e)
	l.n++
}

// at is where the i-th entry is, or goes: chunks[k][j].
func (l *largeNames) at(i int) (k, j int) {
	for k = 0; k < len(l.chunks) && i >= len(l.chunks[k]); k++ {
		i -= len(l.chunks[k])
	}
	return k, i
}

// since yields the entries from the i-th on, in order, a chunk's worth at
// a time.
func (l *largeNames) since(i int) iter.Seq[[]uint32] {
	return func(yield func([]uint32) bool) {
		for k, j := l.at(i); k < len(l.chunks); k, j = k+1, 0 {
			if !yield(l.chunks[k][j:]) {
				return
			}
		}
	}
}

// truncate drops the entries from the i-th on. Once none are left, spare
// chunks beyond keptChunks entries go, so that one huge object does not
// keep its memory for the rest of the input.
func (l *largeNames) truncate(i int) {
	k, j := l.at(i)
	for len(l.chunks) > k+1 {
		last := len(l.chunks) - 1
		l.spare = append(l.spare, l.chunks[last][:0])
		l.chunks[last] = nil
		l.chunks = l.chunks[:last]
	}
	if k < len(l.chunks) {
		l.chunks[k] = l.chunks[k][:j]
	}
	l.n = i
	if l.n == 0 {
		kept := 0
		for _, chunk := range l.chunks {
			kept += cap(chunk)
		}
		for k, chunk := range l.spare {
			if kept += cap(chunk); kept > keptChunks {
				clear(l.spare[k:])
				l.spare = l.spare[:k]
				break
			}
		}
	}
}

// Classes and the table of repeated.
const (
	maxClasses = 128      // the 7 bits of an entry
	classSize  = 32 << 10 // names in a class, about, past which there are more classes
	maxTable   = 4 << 10  // slots of the table kept between objects
)

// repeated reports whether a name comes twice among those noted in
// c.large from the from-th on. The names are put in a table of their
// hashes (seeded per process: nameSeed) a class at a time: a large
// object's names are split into as many classes, by their hashes, as keep
// a class near classSize names, so that the table stays small (at most
// 1 MiB) whatever the size of the object, and the names themselves are
// only in the input.
func (c *Checker) repeated(from int) bool {
	n := c.large.n - from
	classes := 1
	for classes < maxClasses && n > classes*classSize {
		classes *= 2
	}
	var counts [maxClasses]int
	counts[0] = n
	if classes > 1 {
		counts[0] = 0
		for chunk := range c.large.since(from) {
			for j, e := range chunk {
				class := int(maphash.Bytes(nameSeed, c.nameAt(e, &c.key))) & (classes - 1)
				chunk[j] = e | uint32(class)
				counts[class]++
			}
		}
	}
	size := 64
	for size < 2*slices.Max(counts[:classes]) {
		size *= 2
	}
	if cap(c.table) < size {
		c.table = make([]uint64, size)
	}
	found := c.repeatedIn(from, classes, counts[:classes], c.table[:size])
	if cap(c.table) > maxTable {
		c.table = nil
	}
	return found
}

// repeatedIn is repeated for the names from the from-th on, in classes
// classes of counts[class] names each, with table as the table.
func (c *Checker) repeatedIn(from, classes int, counts []int, table []uint64) bool {
	mask := len(table) - 1
	for class := range classes {
		if counts[class] < 2 {
			continue
		}
		clear(table)
		for chunk := range c.large.since(from) {
			for _, e := range chunk {
				if int(e&0x7f) != class {
					continue
				}
				// A slot is the name's hash in the high half (its low bits
				// say where the slot is) and its entry, never 0, in the low.
				name := c.nameAt(e, &c.key)
				h := maphash.Bytes(nameSeed, name)
				slot := h&^0xffffffff | uint64(e)
				for p := int(h>>7) & mask; ; p = (p + 1) & mask {
					s := table[p]
					if s == 0 {
						table[p] = slot
						break
					}
					if s>>32 == slot>>32 && bytes.Equal(c.nameAt(uint32(s), &c.other), name) {
						return true
					}
				}
			}
		}
	}
	return false
}

var nameSeed = maphash.MakeSeed()

// nameAt is the unescaped text of the name an entry locates: a slice of
// c.b, or of *scratch when it has an escape.
func (c *Checker) nameAt(e uint32, scratch *[]byte) []byte {
	q := int(e >> 8)
	if e&0x80 == 0 {
		return c.b[q+1 : q+1+bytes.IndexByte(c.b[q+1:], '"')]
	}
	end, _, _ := scanString(c.b, q)
	*scratch, _ = appendUnquoted((*scratch)[:0], c.b[q:end])
	return *scratch
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipSpace returns the index of the first byte at or after b[i] that is
// not JSON white space. A record printed compactly has none between its
// tokens, and ends with its last: those are tested here, and only a space
// costs a call.
func skipSpace(b []byte, i int) int {
	if uint(i) >= uint(len(b)) || b[i] > ' ' {
		return i
	}
	return skipSpaces(b, i)
}

// skipSpaces is skipSpace past the first byte's test. It is out of line:
// compact JSON, the common case, has no space to skip, and this loop in
// every caller made them larger.
//
//go:noinline
func skipSpaces(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r':
			i++
		case '\n':
			// An indented document's next line: its indentation is a run
			// of spaces, eight at a time.
			for i++; i <= len(b)-8 && binary.LittleEndian.Uint64(b[i:]) == ' '*ones; i += 8 {
			}
		default:
			return i
		}
	}
	return i
}

// scanString returns the index just past the string starting at b[i] ('"'),
// and whether the string holds an escape. It rejects raw control
// characters and malformed escapes (ok false).
func scanString(b []byte, i int) (end int, escaped, ok bool) {
	return stringFrom(b, i+1)
}

// plainWords returns the index of the first byte at or after i that is a
// quote, a backslash or a control character, or len(b): eight bytes at a
// time, then the last few one by one. It is small enough to be inlined:
// the checker scans the plain strings, nearly all, without a call.
func plainWords(b []byte, i int) int {
	if i >= 0 && i <= len(b)-8 {
		if s := specialBytes(binary.LittleEndian.Uint64(b[i:])); s != 0 {
			return i + bits.TrailingZeros64(s)/8
		}
	}
	return i
}

// specialBytes flags, in the word w, each byte that is a quote, a
// backslash or below 0x20 (its high bit), or above one of those (a false
// flag only comes from a borrow, which runs upwards from a real one: the
// lowest flagged byte is a real one). A byte is flagged when it is zero
// after the XOR (a quote or a backslash) or below 0x20; bytes >= 0x80
// never flag. The XORs keep each byte's high bit, so one &^ w stands for
// &^ q and &^ bs.
func specialBytes(w uint64) uint64 {
	q, bs := w^('"'*ones), w^('\\'*ones)
	return ((q - ones) | (bs - ones) | (w - 0x20*ones)) &^ w & highs
}

// stringFrom is scanString for the string whose contents continue at b[i]
// (past its opening quote, and past any escape). String contents are
// most of an export's bytes: the runs of plain bytes and two-byte escapes
// are stepped over by plainRun, sixteen bytes a step where there is
// vector code.
func stringFrom(b []byte, i int) (end int, escaped, ok bool) {
	if i < 0 || i > len(b) {
		return 0, false, false
	}
	for {
		n, esc := plainRun(b[i:])
		i += n
		escaped = escaped || esc
		if uint(i) >= uint(len(b)) {
			return 0, false, false
		}
		switch ch := b[i]; {
		case ch == '"':
			return i + 1, escaped, true
		case ch < 0x20:
			return 0, false, false
		}
		// A backslash, of an escape plainRun does not step over.
		escaped = true
		if i+6 > len(b) || b[i+1] != 'u' || !isHex4(b[i+2:i+6]) {
			return 0, false, false
		}
		r := hex4(b[i+2:])
		i += 6
		if utf16.IsSurrogate(r) {
			// Only a high surrogate followed by a low one is a character.
			if r >= 0xDC00 || i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' || !isHex4(b[i+2:i+6]) {
				return 0, false, false
			}
			if r2 := hex4(b[i+2:]); r2 < 0xDC00 || r2 > 0xDFFF {
				return 0, false, false
			}
			i += 6
		}
	}
}

// plainWords8 is plainRun eight bytes at a time (SWAR, see specialBytes),
// where there is no vector code.
func plainWords8(b []byte) (n int, escaped bool) {
	quotes, backslashes, lows, one, high := swar.quotes, swar.backslashes, swar.lows, swar.ones, swar.highs
	i := 0
	for {
		for n := len(b) - 8; i <= n; i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			q, bs := w^quotes, w^backslashes
			if special := ((q - one) | (bs - one) | (w - lows)) &^ w & high; special != 0 {
				i += bits.TrailingZeros64(special) / 8
				break
			}
		}
		for i < len(b) && !stringSpecial[b[i]] {
			i++
		}
		if i+1 >= len(b) || b[i] != '\\' || !shortEscape[b[i+1]] {
			return min(i, len(b)), escaped
		}
		escaped = true
		i += 2
	}
}

// shortEscape marks the bytes that follow a backslash in a two-byte
// escape.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// swar holds scanString's masks as variables, not constants.
var swar = struct{ quotes, backslashes, lows, ones, highs uint64 }{
	'"' * ones, '\\' * ones, 0x20 * ones, ones, highs,
}

// stringSpecial marks the bytes that end a run of a string's plain bytes:
// the quote, the backslash and the control characters.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func scanNumber(b []byte, i int) (int, bool) {
	start := i
	if uint(i) < uint(len(b)) && b[i] == '-' {
		i++
	}
	switch {
	case uint(i) < uint(len(b)) && b[i] == '0':
		i++
	case uint(i) < uint(len(b)) && b[i] >= '1' && b[i] <= '9':
		for uint(i) < uint(len(b)) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, false
	}
	if uint(i) < uint(len(b)) && b[i] == '.' {
		i++
		d := i
		for uint(i) < uint(len(b)) && isDigit(b[i]) {
			i++
		}
		if i == d {
			return 0, false
		}
	}
	if uint(i) < uint(len(b)) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if uint(i) < uint(len(b)) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for uint(i) < uint(len(b)) && isDigit(b[i]) {
			i++
		}
		if i == d {
			return 0, false
		}
	}
	return i, i > start
}

func isDigit(ch byte) bool { return ch >= '0' && ch <= '9' }

func hexVal(h byte) rune {
	switch {
	case h >= '0' && h <= '9':
		return rune(h - '0')
	case h >= 'a' && h <= 'f':
		return rune(h-'a') + 10
	case h >= 'A' && h <= 'F':
		return rune(h-'A') + 10
	}
	return -1
}

func isHex4(b []byte) bool {
	for _, h := range b {
		if hexVal(h) < 0 {
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}

// appendUnquoted appends the unescaped contents of the well-formed JSON
// string literal q to dst. A \u escape of a lone surrogate is an error:
// parsers disagree on it, and no supported exporter writes one.
func appendUnquoted(dst, q []byte) ([]byte, error) {
	s := q[1 : len(q)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return append(dst, s...), nil
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(dst, s[i:]...), nil
			}
			dst = append(dst, s[i:i+j]...)
			i += j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
					return dst, errSurrogate
				}
				r2 := hex4(s[i+2:])
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return dst, errSurrogate
				}
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst, nil
}

package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"

	"github.com/cairn-audit/cairn/audit"
)

// checkValue is Check for one JSON value of any type, nested inside base
// containers: the value's own arrays and objects count from base+1. With
// locate, an object's members are located as a record's are (Root, and
// Locate's Child and Grandchild).
func (c *Checker) checkValue(b []byte, base int, locate bool) audit.Code {
	c.start(b)
	i := skipSpace(b, 0)
	var end int
	var code audit.Code
	if locate && i < len(b) && b[i] == '{' {
		end, code = c.object(i, base+1, atRoot)
	} else {
		end, code = c.value(i, base)
	}
	return c.end(end, code)
}

// checkPrefix is checkValue for the array or object at the start of b,
// which b may hold more than: it reports the value's end, and whether it
// is valid. A value that b holds only in part is not.
func (c *Checker) checkPrefix(b []byte, base int, locate bool) (int, bool) {
	c.start(b)
	var end int
	var code audit.Code
	if locate && b[0] == '{' {
		end, code = c.object(0, base+1, atRoot)
	} else {
		end, code = c.value(0, base)
	}
	return end, code == 0
}

// PartKind says what a Document part is.
type PartKind uint8

const (
	// Member is a top-level member other than the events array.
	Member PartKind = iota + 1
	// Event is one element of the top-level `events` array.
	Event
	// End is the end of the document; the input was read whole.
	End
)

// Part is one piece of a trajectory document, valid until the next call.
type Part struct {
	Kind  PartKind
	Name  []byte // Member: the member's unescaped name
	Value []byte // Member, Event: the value's bytes, checked
	Index int    // Event: the 0-based index in `events`
}

type docState uint8

const (
	docStart docState = iota
	docMembers
	docEvents
	docEnd
)

// Document streams one JSON object whose `events` member is an array: it
// returns the other top-level members whole and the events one element at a
// time, so that memory grows with the largest element, never with the
// number of events (SPEC §5). Every byte passes the same guard as JSONL:
// 16 MiB, encoding, SHA-256. Errors are *audit.InputError; those found in
// an event carry its index, the others no record.
type Document struct {
	r       *bufio.Reader
	g       guard
	buf     []byte
	state   docState
	first   bool     // no member or element read yet at the current level
	names   topNames // top-level member names, unescaped
	index   int
	checker Checker
	readErr error
	err     error
	sum     []byte
	events  bool   // the array was read
	array   string // the name of the array read element by element
	locate  bool   // the checker locates each element's members (NewDocumentLocating)
	event   bool   // the last part returned is an Event
	scratch []byte // the last name, unescaped
}

// HasEvents reports whether an `events` array was read.
func (d *Document) HasEvents() bool { return d.events }

// NewDocument returns a reader of the trajectory document in r, whose
// array is `events`.
func NewDocument(r io.Reader) *Document { return NewDocumentOf(r, "events") }

// NewDocumentOf returns a reader of a document in r whose top-level member
// array is the array read one element at a time (an OpenCode export's
// `messages`); Event parts are its elements.
func NewDocumentOf(r io.Reader, array string) *Document {
	return &Document{r: bufio.NewReaderSize(StrictReader(r), readSize), g: sizedGuard(r), array: array}
}

// NewDocumentLocating is NewDocumentOf whose checker locates, as it checks
// each element of the array, the members loc names, as a Checker does a
// record's: Located returns them. loc.Reads must be set, so that an
// element of two million members costs a few spans, not a span each.
func NewDocumentLocating(r io.Reader, array string, loc Locate) *Document {
	d := NewDocumentOf(r, array)
	d.checker.Locate, d.locate = loc, true
	return d
}

// Located is what the checker located in the last Event part's value (see
// NewDocumentLocating): offsets in that value, valid until the next call of
// Next. It is empty after any other part, and for a Document that does
// not locate.
func (d *Document) Located() Located {
	if !d.event || !d.locate {
		return Located{}
	}
	return d.checker.Located
}

// Next returns the next part. After an error it returns the same error.
func (d *Document) Next() (Part, error) {
	if d.err != nil {
		return Part{}, d.err
	}
	p, err := d.next()
	if err != nil {
		d.err = err
	}
	d.event = err == nil && p.Kind == Event
	return p, err
}

// Events is how many event elements have been started.
func (d *Document) Events() int { return d.index }

// Bytes is how many input bytes have been consumed; after an encoding or
// size error, the offset just past where the problem became certain. Like
// everything else it depends only on the bytes, never on the Reads.
func (d *Document) Bytes() int64 { return d.g.n }

// Sum is the SHA-256 of the whole input, or nil before End.
func (d *Document) Sum() []byte { return d.sum }

func (d *Document) fail(code audit.Code, record int) (Part, error) {
	switch code {
	case audit.InputUnreadable, audit.InputTooLarge, audit.EmptyInput,
		audit.InputBOM, audit.InputUTF16, audit.InputNotUTF8:
		// Input safety is about the file as a whole (SPEC §3): no record,
		// wherever in the events the guard found it, as for JSONL.
		record = -1
	}
	return Part{}, audit.Invalid(code, record, d.readErr)
}

func (d *Document) next() (Part, error) {
	for {
		switch d.state {
		case docStart:
			ch, code := d.token()
			if code != 0 {
				return d.fail(code, -1)
			}
			if ch != '{' {
				return d.unexpected(-1)
			}
			if code := d.consume(1); code != 0 {
				// The brace is the byte past 16 MiB.
				return d.fail(code, -1)
			}
			d.state, d.first = docMembers, true
		case docMembers:
			ch, code := d.token()
			if code != 0 {
				return d.fail(code, -1)
			}
			if ch == '}' {
				if code := d.consume(1); code != 0 {
					return d.fail(code, -1)
				}
				d.state = docEnd
				continue
			}
			if !d.first {
				if ch != ',' {
					return d.unexpected(-1)
				}
				if code := d.consume(1); code != 0 {
					return d.fail(code, -1)
				}
				if ch, code = d.token(); code != 0 {
					return d.fail(code, -1)
				}
			}
			d.first = false
			if ch != '"' {
				return d.unexpected(-1)
			}
			name, code := d.name()
			if code != 0 {
				return d.fail(code, -1)
			}
			if ch, code = d.token(); code != 0 {
				return d.fail(code, -1)
			}
			if ch != ':' {
				return d.unexpected(-1)
			}
			if code := d.consume(1); code != 0 {
				return d.fail(code, -1)
			}
			if ch, code = d.token(); code != 0 {
				return d.fail(code, -1)
			}
			if string(name) == d.array && ch == '[' {
				if code := d.consume(1); code != 0 {
					return d.fail(code, -1)
				}
				d.state, d.first, d.events = docEvents, true, true
				continue
			}
			v, code := d.value(1, false)
			if code != 0 {
				return d.fail(code, -1)
			}
			return Part{Kind: Member, Name: name, Value: v}, nil
		case docEvents:
			ch, code := d.token()
			if code != 0 {
				return d.fail(code, d.index)
			}
			if ch == ']' {
				if code := d.consume(1); code != 0 {
					return d.fail(code, -1)
				}
				d.state, d.first = docMembers, false
				continue
			}
			if !d.first {
				if ch != ',' {
					return d.unexpected(d.index)
				}
				if code := d.consume(1); code != 0 {
					return d.fail(code, d.index)
				}
				if _, code = d.token(); code != 0 {
					return d.fail(code, d.index)
				}
			}
			d.first = false
			if d.index >= MaxRecords {
				return d.fail(audit.TooManyEvents, d.index)
			}
			v, code := d.value(2, d.locate)
			if code != 0 {
				return d.fail(code, d.index)
			}
			d.index++
			return Part{Kind: Event, Value: v, Index: d.index - 1}, nil
		case docEnd:
			_, code := d.token()
			switch {
			case code == audit.MalformedJSON && d.readErr == nil:
				// Only white space followed: the expected end.
			case code != 0:
				return d.fail(code, -1)
			default:
				return d.unexpected(-1)
			}
			if code := d.g.finish(); code != 0 {
				return d.fail(code, -1)
			}
			d.sum = d.g.h.sum()
			return Part{Kind: End}, nil
		}
	}
}

// unexpected fails on a byte that cannot come next. The guard sees it
// first: when the byte is where an encoding problem starts (a byte-order
// mark, UTF-16, invalid UTF-8), that is the problem reported.
func (d *Document) unexpected(record int) (Part, error) {
	if d.g.n == 0 {
		// A byte-order mark shows only whole: the guard gets the input's
		// first three bytes however the reads delivered them, or all
		// there are, and then the end.
		b, err := d.r.Peek(len(utf8BOM))
		if err != nil && !errors.Is(err, io.EOF) {
			d.readErr = err
			return d.fail(audit.InputUnreadable, -1)
		}
		code := d.consume(len(b))
		if code == 0 && err != nil {
			code = d.g.finish()
		}
		if code != 0 {
			return d.fail(code, -1)
		}
		return d.fail(audit.MalformedJSON, record)
	}
	if code := d.consume(1); code != 0 {
		return d.fail(code, -1)
	}
	return d.fail(audit.MalformedJSON, record)
}

// peek returns the buffered bytes, reading more when there are none; it is
// empty at the end of input (or on a read error, kept in readErr).
func (d *Document) peek() []byte {
	if d.r.Buffered() == 0 {
		if _, err := d.r.Peek(1); err != nil {
			if !errors.Is(err, io.EOF) {
				d.readErr = err
			}
			return nil
		}
	}
	b, _ := d.r.Peek(d.r.Buffered())
	return b
}

// consume passes the next n buffered bytes through the guard.
func (d *Document) consume(n int) audit.Code {
	b, _ := d.r.Peek(n)
	code := d.g.consume(b)
	d.r.Discard(n)
	return code
}

// token skips white space and returns the next byte without consuming it.
// At the end of input it returns MalformedJSON, or the encoding error the
// guard finds there, or InputUnreadable on a read error.
func (d *Document) token() (byte, audit.Code) {
	for {
		b := d.peek()
		if len(b) == 0 {
			if d.readErr != nil {
				return 0, audit.InputUnreadable
			}
			if code := d.g.finish(); code != 0 {
				return 0, code
			}
			return 0, audit.MalformedJSON
		}
		i := skipSpace(b, 0)
		if code := d.consume(i); code != 0 {
			return 0, code
		}
		if i < len(b) {
			return b[i], 0
		}
	}
}

// name reads a top-level member name and refuses a repeated one. The
// name is valid until the next call.
func (d *Document) name() ([]byte, audit.Code) {
	v, code := d.value(1, false)
	if code != 0 {
		return nil, code
	}
	var err error
	d.scratch, err = appendUnquoted(d.scratch[:0], v)
	if err != nil {
		return nil, audit.MalformedJSON
	}
	if !d.names.add(d.scratch) {
		return nil, audit.DuplicateKey
	}
	return d.scratch, 0
}

// value reads the extent of the next JSON value, nested in base containers,
// and checks it. Its bytes are valid until the next call.
//
// An array or object that the read buffer holds whole is checked there
// first, the checker finding its end as it goes: when the checker accepts
// it, its extent is that, and it has been read once. Anything else (a
// value the buffer cuts, or one the checker refuses) is read as below,
// its extent found first and then checked, so that every problem is the
// one that reading finds first, whatever the reads.
func (d *Document) value(base int, locate bool) ([]byte, audit.Code) {
	if b := d.peek(); len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		if end, ok := d.checker.checkPrefix(b, base, locate); ok {
			d.buf = append(d.buf[:0], b[:end]...)
			if code := d.consume(end); code != 0 {
				return nil, code
			}
			return d.buf, 0
		}
	}
	d.buf = d.buf[:0]
	depth := 0
	inString, escaped, scalar, started := false, false, false, false
	for {
		b := d.peek()
		if len(b) == 0 {
			if d.readErr != nil {
				return nil, audit.InputUnreadable
			}
			if code := d.g.finish(); code != 0 {
				return nil, code
			}
			if scalar {
				break // a top-level scalar can end the input; the caller judges
			}
			return nil, audit.MalformedJSON
		}
		i, done := 0, false
	scan:
		for ; i < len(b); i++ {
			ch := b[i]
			switch {
			case !started:
				started = true
				switch ch {
				case '{', '[':
					depth = 1
					if base+depth > MaxDepth {
						return nil, audit.NestingTooDeep
					}
				case '"':
					inString = true
				default:
					scalar = true
				}
			case inString:
				if escaped {
					escaped = false
					continue
				}
				q, esc := closingQuote(b, i)
				if q < 0 {
					escaped, i = esc, len(b)
					break scan
				}
				i, inString = q, false
				if depth == 0 {
					i++
					done = true
					break scan
				}
			case scalar:
				switch ch {
				case ',', '}', ']', ' ', '\t', '\n', '\r':
					done = true
					break scan
				}
			default:
				for i < len(b) && !structural[b[i]] {
					i++ // white space, a number, true, false, null, a colon or comma
				}
				if i == len(b) {
					break scan
				}
				switch b[i] {
				case '"':
					inString = true
				case '{', '[':
					depth++
					if base+depth > MaxDepth {
						// The guard sees every byte up to this one first,
						// however much of it was buffered.
						if code := d.consume(i + 1); code != 0 {
							return nil, code
						}
						return nil, audit.NestingTooDeep
					}
				case '}', ']':
					depth--
					if depth == 0 {
						i++
						done = true
						break scan
					}
				}
			}
		}
		d.buf = appendLong(d.buf, b[:i], 512, d.g.rest(i))
		if code := d.consume(i); code != 0 {
			return nil, code
		}
		if done {
			break
		}
	}
	if code := d.checker.checkValue(d.buf, base, locate); code != 0 {
		return nil, code
	}
	return d.buf, 0
}

// structural marks the bytes that open or close a string or container.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// closingQuote returns the index of the quote that ends the string whose
// bytes b[i:] continue, i not being the escaped byte of a backslash; or
// -1 when b ends first, and then whether its last byte leaves an escape
// open.
func closingQuote(b []byte, i int) (int, bool) {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			n := 0
			for k := len(b) - 1; k >= i && b[k] == '\\'; k-- {
				n++
			}
			return -1, n%2 == 1
		}
		q := i + j
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q, false
		}
		i = q + 1
	}
}

// topNames is the set of a document's top-level member names, exact and
// compact: a million members cost their unescaped text and a few bytes
// each, not a string and a map entry each (SPEC §1). Each name must be
// refused or kept as it comes, so unlike a record's names (Checker.repeated)
// they are in hash tables from the start; and since the document is not in
// memory, their text is kept too. The names are split by their hash into
// topParts parts, each its own table and arena, so that growing one moves a
// 64th of the names: two million of them grow to 16 MiB of slots and 10 MB
// of text, never to that plus the copies of a table and an arena that one
// table would need. The hash is seeded per process (nameSeed): an input
// cannot choose names that collide.
type topNames struct {
	parts [topParts]namePart
}

// topParts is how many parts a topNames has: the top 6 bits of a hash.
const topParts = 64

// add puts name in the set, unless it holds it already: false then.
func (s *topNames) add(name []byte) bool {
	h := maphash.Bytes(nameSeed, name)
	return s.parts[h>>58].add(name, h)
}

// A namePart is a hash table of names: the names are kept in an arena,
// each after its length (uvarint); a slot is 0 when free, else the name's
// offset in the arena (24 bits: see maxArena) and 8 bits of its hash,
// which spare nearly every comparison of two different names. The slots
// are used up to 7/8, and the 8 hash bits keep the longer probes cheap.
type namePart struct {
	arena []byte
	slots []uint32 // a power of two of them, at most 7/8 used
	n     int
}

// maxArena bounds an arena: a name costs its length and at most four bytes
// of it there, and at least its length, two quotes, a colon and one byte
// of value in the input, which is at most MaxBytes.
const maxArena = 1 << 24

var _ [maxArena - MaxBytes]struct{}

// add puts name, whose hash is h, in p, unless p holds it already: false
// then. The slot is found from bits 32 to 57 of h: the top ones chose the
// part.
func (p *namePart) add(name []byte, h uint64) bool {
	if 8*(p.n+1) > 7*len(p.slots) {
		p.grow()
	}
	mask := len(p.slots) - 1
	k := int(h>>32) & mask
	for ; p.slots[k] != 0; k = (k + 1) & mask {
		if e := p.slots[k]; byte(e) == byte(h) && bytes.Equal(p.at(e), name) {
			return false
		}
	}
	if len(p.arena) == 0 {
		p.arena = append(p.arena, 0) // offset 0 is no name's: 0 is a free slot
	}
	off := len(p.arena)
	if off+binary.MaxVarintLen32+len(name) > maxArena {
		// Past what the input's limit allows (see maxArena): a name is
		// never kept where its slot cannot locate it.
		panic("stream: top-level names past the arena's bound")
	}
	// The arena doubles (append's quarters would allocate it five times
	// over while it grows).
	var n [binary.MaxVarintLen32]byte
	p.arena = appendLong(p.arena, binary.AppendUvarint(n[:0], uint64(len(name))), 256, -1)
	p.arena = appendLong(p.arena, name, 256, -1)
	p.slots[k] = uint32(off)<<8 | uint32(byte(h))
	p.n++
	return true
}

// at is the name a slot entry locates.
func (p *namePart) at(e uint32) []byte {
	off := int(e >> 8)
	n, w := binary.Uvarint(p.arena[off:])
	return p.arena[off+w : off+w+int(n)]
}

// grow doubles the slots, placing the names again from their hashes.
func (p *namePart) grow() {
	old := p.slots
	p.slots = make([]uint32, max(2*len(old), 16))
	mask := len(p.slots) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		k := int(maphash.Bytes(nameSeed, p.at(e))>>32) & mask
		for p.slots[k] != 0 {
			k = (k + 1) & mask
		}
		p.slots[k] = e
	}
}

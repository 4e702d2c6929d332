package stream

import (
	"bytes"
	"sync"
)

// HeadBytes is how much of an input a Head looks at: the first buffer a
// Lines or a Document fills. An audit reads at least that much of an input
// (or all of it), whatever its verdict, so a file and standard input with
// the same bytes show their Heads the same bytes.
const HeadBytes = readSize

// MaxHeadWords is how many words a Head can be given: its notes are bits
// and small indexes into the words.
const MaxHeadWords = 64

// A Head notes, as an input is read, how its first JSON value begins, for a
// guess at what printed it (SPEC §14.3): which of the caller's words name
// members of that value, when it is an object; which of them is its first
// member; and which word, if any, is the string value of each member a word
// names. What it notes are positions in the words, never input text (a
// name or a string is held only while it is read, and only while it is no
// longer than the longest word). It sees the first HeadBytes bytes at
// most, with no regard to lines (a document's first value spans many),
// and it judges nothing: a byte that cannot continue the JSON it expects
// ends its look, with what it noted so far.
//
// Names and strings are compared as written, not unescaped: one with an
// escape sequence matches no word. Write takes the bytes read, cut
// anywhere; a Head is safe for a reader on another goroutine than the
// caller that asks it.
type Head struct {
	mu    sync.Mutex
	words []string
	long  int // the longest word's length

	n     int       // bytes seen
	state headState // where the scanner is
	depth int       // nesting below the top-level object, in a nested value
	buf   [maxHeadWord]byte
	blen  int  // bytes of the current name or string in buf
	spoil bool // the current name or string cannot be a word
	cur   int  // the word naming the current member, -1 for none

	seen   uint64 // bit i: words[i] names a member
	first  int    // the word naming the first member, -1 for none
	nfirst bool   // the first member was named (word or not)
	value  [MaxHeadWords]int8
}

// maxHeadWord is the longest word a Head can be given.
const maxHeadWord = 48

type headState uint8

const (
	headBefore    headState = iota // white space before the first value
	headKey                        // in the object: a name or its end
	headNextKey                    // after a comma: a name
	headName                       // in a name
	headNameEsc                    // after a backslash in a name
	headColon                      // after a name
	headValue                      // after a colon
	headString                     // in a member's string value
	headStringEsc                  // after a backslash in it
	headNested                     // in a member's array or object
	headNestedStr                  // in a string inside it
	headNestedEsc                  // after a backslash in that string
	headScalar                     // in a number or literal
	headAfter                      // after a member's value
	headDone                       // the object ended, or the look did
)

// NewHead returns a Head that notes the words: at most MaxHeadWords, each
// at most 48 bytes (it panics otherwise: the words are the caller's, not
// the input's).
func NewHead(words []string) *Head {
	if len(words) > MaxHeadWords {
		panic("stream: too many head words")
	}
	h := &Head{words: words, cur: -1, first: -1}
	for _, w := range words {
		if len(w) > maxHeadWord {
			panic("stream: head word too long")
		}
		h.long = max(h.long, len(w))
	}
	for i := range h.value {
		h.value[i] = -1
	}
	return h
}

// Write notes p, the next bytes read; it never fails.
func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if h.state == headDone {
		return n, nil
	}
	if left := HeadBytes - h.n; len(p) > left {
		p = p[:left]
	}
	h.n += len(p)
	h.scan(p)
	if h.n >= HeadBytes {
		h.state = headDone
	}
	return n, nil
}

// Has reports whether word names a member of the first value.
func (h *Head) Has(word string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.index(word)
	return i >= 0 && h.seen&(1<<i) != 0
}

// First returns the word that names the first value's first member, ""
// when none does.
func (h *Head) First() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.first < 0 {
		return ""
	}
	return h.words[h.first]
}

// Value returns the word that is the string value of the member word
// names, "" when it is not a word (or not a string, or no such member).
// For a name given twice, the last value counts.
func (h *Head) Value(word string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := h.index(word)
	if i < 0 || h.value[i] < 0 {
		return ""
	}
	return h.words[h.value[i]]
}

func (h *Head) index(word string) int {
	for i, w := range h.words {
		if w == word {
			return i
		}
	}
	return -1
}

// escaped is the state after a backslash in a name or a string value.
var escaped = [...]headState{headName: headNameEsc, headString: headStringEsc}

// scan runs the scanner over p. Inside nested values and long strings it
// skips to the next byte that matters.
func (h *Head) scan(p []byte) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch h.state {
		case headBefore:
			switch {
			case isSpace(c):
			case c == '{':
				h.state = headKey
			default:
				h.state = headDone
			}
		case headKey, headNextKey:
			switch {
			case isSpace(c):
			case c == '"':
				h.state, h.blen, h.spoil = headName, 0, false
			default: // the end ('}' after '{'), or not JSON
				h.state = headDone
			}
		case headName, headString:
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				h.keep(p[i:])
				return
			}
			h.keep(p[i : i+j])
			i += j
			switch {
			case p[i] == '\\':
				h.spoil = true
				h.state = escaped[h.state]
			case h.state == headName:
				h.named()
				h.state = headColon
			default:
				h.valued()
				h.state = headAfter
			}
		case headNameEsc:
			h.state = headName // the escaped byte is skipped; \uXXXX's digits are plain
		case headStringEsc:
			h.state = headString
		case headColon:
			switch {
			case isSpace(c):
			case c == ':':
				h.state = headValue
			default:
				h.state = headDone
			}
		case headValue:
			switch {
			case isSpace(c):
			case c == '"':
				h.state, h.blen, h.spoil = headString, 0, false
			case c == '{' || c == '[':
				h.state, h.depth = headNested, 1
			case c == '-' || isDigit(c) || c == 't' || c == 'f' || c == 'n':
				h.state = headScalar
			default:
				h.state = headDone
			}
		case headScalar:
			switch {
			case c == ',':
				h.state = headNextKey
			case c == '}':
				h.state = headDone
			case isSpace(c):
				h.state = headAfter
			}
		case headNested:
			j := bytes.IndexAny(p[i:], `"{}[]`)
			if j < 0 {
				return
			}
			i += j
			switch p[i] {
			case '"':
				h.state = headNestedStr
			case '{', '[':
				h.depth++
			default:
				if h.depth--; h.depth == 0 {
					h.state = headAfter
				}
			}
		case headNestedStr:
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
			if p[i] == '\\' {
				h.state = headNestedEsc
			} else {
				h.state = headNested
			}
		case headNestedEsc:
			h.state = headNestedStr
		case headAfter:
			switch {
			case isSpace(c):
			case c == ',':
				h.state = headNextKey
			default: // '}' or anything else
				h.state = headDone
			}
		case headDone:
			return
		}
	}
}

// keep adds b to the current name or string, spoiling it once it is longer
// than every word.
func (h *Head) keep(b []byte) {
	if h.spoil {
		return
	}
	if h.blen+len(b) > h.long {
		h.spoil = true
		return
	}
	h.blen += copy(h.buf[h.blen:], b)
}

// word returns the index of the word the current name or string is, -1
// for none.
func (h *Head) word() int {
	if h.spoil {
		return -1
	}
	for i, w := range h.words {
		if w == string(h.buf[:h.blen]) {
			return i
		}
	}
	return -1
}

// named notes the member name just read.
func (h *Head) named() {
	h.cur = h.word()
	if h.cur >= 0 {
		h.seen |= 1 << h.cur
		h.value[h.cur] = -1 // until its value says otherwise
	}
	if !h.nfirst {
		h.nfirst, h.first = true, h.cur
	}
}

// valued notes the string value just read, of the member h.cur names.
func (h *Head) valued() {
	if h.cur >= 0 {
		h.value[h.cur] = int8(h.word())
	}
}

// isSpace reports JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

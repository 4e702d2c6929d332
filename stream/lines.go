package stream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
)

// The spec's limits, as package audit defines them.
const (
	MaxBytes   = audit.MaxBytes   // an input's size
	MaxRecords = audit.MaxRecords // JSONL records or trajectory events
)

// readSize is the read buffer. Longer lines are assembled in a separate
// buffer that grows with the longest line, never past MaxBytes.
const readSize = 64 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// guard sees every input byte once, in order, as it is consumed: it counts
// bytes against MaxBytes, feeds the SHA-256 and checks the encoding (BOM,
// UTF-16, UTF-8). Its verdict, and the count it stops at, depend only on
// the bytes, never on how they are cut into chunks (SPEC §3: a pipe that
// delivers one byte at a time gives the same result as a file): the
// byte-order marks are looked for in the input's first bytes however many
// calls bring them, a UTF-8 sequence may be cut anywhere, and the limit
// falls on the 16 MiB boundary, not at the end of the chunk that crosses
// it. The first problem in reading order is the one reported.
//
// The guard may hold back its verdict on a first byte 0xFE or 0xFF until
// it sees the second (a UTF-16 byte-order mark, or not UTF-8): a caller
// that reaches a verdict of its own on the first byte passes the guard the
// input's first three bytes, or all there are and then calls finish.
type guard struct {
	// n counts the bytes consumed; after an error, it is where the problem
	// became certain (just past its last byte), whatever the chunks.
	n     int64
	h     *digest // nil when the caller hashes the input itself (Prefetch)
	head  [3]byte // the input's first bytes, for the byte-order marks
	held  bool    // the first byte was 0xFE or 0xFF, alone so far
	carry []byte  // an incomplete UTF-8 sequence at the end of the last chunk
	buf   []byte
	// size is the input's size as its reader knows it before reading (a
	// File's, from fstat), or -1: it only sizes buffers (see appendLong).
	size int64
}

func newGuard() guard { return guard{h: newDigest(), size: -1} }

// sizedGuard is newGuard for the input r, whose size it takes when r
// knows it (a File).
func sizedGuard(r io.Reader) guard {
	g := newGuard()
	if s, ok := r.(interface{ Size() int64 }); ok {
		g.size = s.Size()
	}
	return g
}

// rest is how many bytes are left to read past the first n after those
// consumed, by the input's size, or -1 when it is not known.
func (g *guard) rest(n int) int64 {
	if g.size < 0 {
		return -1
	}
	return max(g.size-g.n-int64(n), 0)
}

// consume checks p, the next bytes of the input.
func (g *guard) consume(p []byte) audit.Code {
	if len(p) == 0 {
		return 0
	}
	if g.n < int64(len(g.head)) {
		copy(g.head[g.n:], p)
		h := g.head[:min(g.n+int64(len(p)), int64(len(g.head)))]
		switch {
		case bytes.Equal(h, utf8BOM):
			g.n = int64(len(utf8BOM))
			return audit.InputBOM
		case len(h) >= 2 && (h[0] == 0xFE && h[1] == 0xFF || h[0] == 0xFF && h[1] == 0xFE):
			g.n = 2
			return audit.InputUTF16
		case len(h) == 1 && (h[0] == 0xFE || h[0] == 0xFF):
			// Half a UTF-16 byte-order mark, or a byte never valid in
			// UTF-8: the next byte says which.
			g.held = true
			g.n = 1
			if g.h != nil {
				g.h.write(p)
			}
			return 0
		case g.held:
			g.n = 1
			return audit.InputNotUTF8
		}
	}
	if room := MaxBytes - g.n; int64(len(p)) > room {
		// What comes before the limit is checked first: a problem there
		// is earlier in reading order.
		if code := g.check(p[:room]); code != 0 {
			return code
		}
		g.n = MaxBytes + 1
		return audit.InputTooLarge
	}
	return g.check(p)
}

// check counts p, hashes it and checks its encoding.
func (g *guard) check(p []byte) audit.Code {
	base := g.n
	g.n += int64(len(p))
	if g.h != nil {
		g.h.write(p)
	}
	if len(g.carry) == 0 && textOnly(p) {
		// ASCII without NUL, the usual export, in one pass.
		return 0
	}
	if i := bytes.IndexByte(p, 0); i >= 0 {
		// A NUL is UTF-16 evidence, unless an invalid sequence comes before
		// it: where a chunk ends must not change the code.
		if code := g.utf8(p[:i], base); code != 0 {
			return code
		}
		g.n = base + int64(i) + 1
		return audit.InputUTF16
	}
	return g.utf8(p, base)
}

// utf8 checks that p, which starts at input offset base, continues valid
// UTF-8, keeping an incomplete sequence at its end for the next chunk. On
// an invalid sequence it sets n just past the byte that made it invalid.
func (g *guard) utf8(p []byte, base int64) audit.Code {
	if len(g.carry) > 0 {
		// Complete the sequence left over from the previous chunk.
		need := utf8.UTFMax - len(g.carry)
		g.buf = append(g.buf[:0], g.carry...)
		g.buf = append(g.buf, p[:min(need, len(p))]...)
		r, size := utf8.DecodeRune(g.buf)
		if r == utf8.RuneError && size <= 1 {
			if utf8.FullRune(g.buf) {
				g.n = base - int64(len(g.carry)) + int64(invalidEnd(g.buf))
				return audit.InputNotUTF8
			}
			g.carry = append(g.carry[:0], g.buf...)
			return 0
		}
		used := size - len(g.carry)
		p, base = p[used:], base+int64(used)
		g.carry = g.carry[:0]
	}
	if utf8.Valid(p) {
		return 0
	}
	// Valid but for an incomplete sequence at the very end?
	start := len(p) - 1
	for start > 0 && start > len(p)-utf8.UTFMax && !utf8.RuneStart(p[start]) {
		start--
	}
	if utf8.FullRune(p[start:]) || !utf8.Valid(p[:start]) {
		for i := 0; i < len(p); {
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 && utf8.FullRune(p[i:]) {
				g.n = base + int64(i+invalidEnd(p[i:]))
				break
			}
			i += size
		}
		return audit.InputNotUTF8
	}
	g.carry = append(g.carry[:0], p[start:]...)
	return 0
}

// textWords is textOnly eight bytes at a time, where there is no vector
// code: a word holds a NUL when one of its bytes, less one, borrows.
func textWords(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&highs != 0 || (w-ones)&^w&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] == 0 || b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// invalidEnd is the length of the shortest prefix of p, which starts with
// an invalid UTF-8 sequence, that no valid UTF-8 begins with.
func invalidEnd(p []byte) int {
	for m := 1; m < len(p); m++ {
		if utf8.FullRune(p[:m]) {
			return m
		}
	}
	return len(p)
}

// finish checks the end of the input.
func (g *guard) finish() audit.Code {
	switch {
	case g.n == 0:
		return audit.EmptyInput
	case g.held, len(g.carry) > 0:
		return audit.InputNotUTF8
	}
	return 0
}

// Lines frames a JSONL stream (SPEC §4.1): one record per line, one terminal
// newline allowed, no blank records, at most MaxRecords. It reads the input
// once, through a guard, and stops at the first problem.
type Lines struct {
	src    io.Reader     // the StrictReader that r reads (Prefetch reads it directly)
	r      *bufio.Reader // nil until the first Next
	g      guard
	long   []byte
	record int
	err    error
	sum    []byte
}

// NewLines returns a reader of the records of r, read through a
// StrictReader: a nil r, or a Read that returns a count outside
// 0..len(p), is input_unreadable.
func NewLines(r io.Reader) *Lines {
	return &Lines{src: StrictReader(r), g: sizedGuard(r)}
}

// Next returns the next record, valid until the following call, with the
// line's newline removed (other whitespace around it is left to the JSON
// check). At the end it returns io.EOF; on invalid input an
// *audit.InputError. After an error, Next returns the same error.
func (l *Lines) Next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	line, err := l.next()
	if err != nil {
		l.err = err
		return nil, err
	}
	return line, nil
}

func (l *Lines) next() ([]byte, error) {
	l.long = l.long[:0]
	for {
		if l.r == nil {
			// Made on the first read: a Prefetch reads src itself.
			l.r = bufio.NewReaderSize(l.src, readSize)
		}
		chunk, err := l.r.ReadSlice('\n')
		if code := l.g.consume(chunk); code != 0 {
			return nil, audit.Invalid(code, -1, nil)
		}
		switch {
		case err == nil:
			if len(l.long) > 0 {
				l.long = appendLong(l.long, chunk, longStart, l.g.rest(0))
				chunk = l.long
			}
			return l.frame(chunk[:len(chunk)-1])
		case errors.Is(err, bufio.ErrBufferFull):
			l.long = appendLong(l.long, chunk, longStart, l.g.rest(0))
		case errors.Is(err, io.EOF):
			if code := l.g.finish(); code != 0 {
				return nil, audit.Invalid(code, -1, nil)
			}
			line := chunk
			if len(l.long) > 0 {
				l.long = appendLong(l.long, chunk, longStart, l.g.rest(0))
				line = l.long
			}
			if len(line) == 0 {
				// Nothing after the terminal newline.
				if l.g.h != nil {
					l.sum = l.g.h.sum()
				}
				return nil, io.EOF
			}
			return l.frame(line)
		default:
			return nil, audit.Invalid(audit.InputUnreadable, -1, err)
		}
	}
}

// longStart is the first size of the buffer that assembles a long line:
// four read buffers.
const longStart = 4 * readSize

// appendLong is append(b, p...) for a buffer that may grow to MaxBytes: it
// doubles from start, never past MaxBytes unless p needs more, so that a
// 16 MiB line read from stdin costs about 32 MiB of allocations in all
// (append's growth by a quarter costs five times the line) and at most a
// half-size buffer and a full one at once. When rest, the bytes of the
// input left to read after p, is known (>= 0: a file's size), a buffer
// that reaches exactLong grows once more, to hold all of them: a 16 MiB
// line of a file costs 17.8 MiB of allocations, and a 16 MiB buffer with
// at most 1 MiB beside it. A size that turns out short (nothing left by
// it) doubles again. The guard has counted p first: what b holds is
// never more than MaxBytes, save a chunk of slack.
func appendLong(b, p []byte, start int, rest int64) []byte {
	if len(b)+len(p) <= cap(b) {
		return append(b, p...)
	}
	nb := make([]byte, len(b), longCap(cap(b), len(b)+len(p), start, rest))
	copy(nb, b)
	return append(nb, p...)
}

// longCap is the capacity a long buffer of capacity c that must hold need
// bytes grows to (appendLong's policy): double, from start; once past
// exactLong, need and the rest of the input (rest > 0: what its size
// leaves); never past MaxBytes unless need is more.
func longCap(c, need, start int, rest int64) int {
	n := max(2*c, start)
	if rest > 0 && n >= exactLong {
		n = need + int(min(rest, MaxBytes))
	}
	return max(min(n, MaxBytes), need)
}

// exactLong is the size from which a long buffer of an input of known size
// grows to what is left of the input instead of doubling.
const exactLong = 1 << 20

// frame counts and checks one line's record.
func (l *Lines) frame(line []byte) ([]byte, error) {
	l.record++
	if err := refused(line, l.record); err != nil {
		return nil, err
	}
	return line, nil
}

// refused is the error that the line, the input's record-th, ends the
// input with: past MaxRecords, or blank; nil for a record to check.
func refused(line []byte, record int) error {
	switch {
	case record > MaxRecords:
		return audit.Invalid(audit.TooManyRecords, record, nil)
	case skipSpace(line, 0) == len(line):
		return audit.Invalid(audit.BlankRecord, record, nil)
	}
	return nil
}

// Record is the 1-based number of the last record returned.
func (l *Lines) Record() int { return l.record }

// Bytes is how many input bytes have been consumed; after an encoding or
// size error, the offset just past where the problem became certain. Like
// everything else it depends only on the bytes, never on the Reads.
func (l *Lines) Bytes() int64 { return l.g.n }

// Sum is the SHA-256 of the whole input, or nil until Next has returned
// io.EOF.
func (l *Lines) Sum() []byte { return l.sum }

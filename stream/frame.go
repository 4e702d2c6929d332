package stream

import (
	"bytes"
	"errors"
	"io"

	"github.com/cairn-audit/cairn/audit"
)

// frame fills batches from l's input and sends them to out, the last one
// with how the input ended: the records, their numbers and byte counts and
// the first error are exactly those l.Next would return.
//
// It reads straight into a batch's buffer, a read at a time, and the guard
// sees each read as it comes rather than each line: a record is not
// copied, save the unfinished line after a batch's last record, which
// starts the next batch. A problem the guard finds in a read is held until
// the framing reaches the record it is in, where Lines would find it, and
// the bytes from it on are dropped. A record longer than a batch's buffer
// is read into the long buffer, which grows with the longest record and
// which one batch at most holds at a time, so that the largest record is
// in memory once.
func (p *Prefetch) frame(l *Lines, out chan<- *batch) {
	f := batchFramer{p: p, src: l.src, g: &l.g}
	for {
		b, ok := f.back(true)
		if !ok {
			return
		}
		Mark("frame+")
		if !f.fill(b) {
			return
		}
		// Once sent, the batch belongs to the next stage: whether it ends
		// the input is read before.
		last := b.err != nil
		if b.err == nil || b.err == io.EOF {
			p.hashBatch(b)
		}
		Mark("frame-")
		select {
		case out <- b:
		case <-p.done:
			return
		}
		if last {
			return
		}
	}
}

// batchFramer is frame's state between batches.
type batchFramer struct {
	p   *Prefetch
	src io.Reader
	g   *guard
	// tail is the unfinished line after the last batch's records: read,
	// and seen by the guard, but not yet in a batch. base is the input
	// offset of its first byte.
	tail   []byte
	base   int64
	record int
	// end is what ends the input once the bytes read are framed: the
	// guard's problem, a read error or io.EOF (with the guard's verdict
	// on the end); endBytes is the byte count that goes with it.
	end      error
	endBytes int64
	// long is the long buffer when no batch holds it; longOut the batch
	// that does.
	long    []byte
	longOut *batch
	spare   []*batch // free batches received while waiting for longOut
}

// back takes a batch returned by the last stage, or a spare one when
// that is allowed; false once the Prefetch is closed.
func (f *batchFramer) back(spareToo bool) (*batch, bool) {
	var b *batch
	if n := len(f.spare); spareToo && n > 0 {
		b, f.spare = f.spare[n-1], f.spare[:n-1]
	} else {
		select {
		case b = <-f.p.free:
		case <-f.p.done:
			return nil, false
		}
	}
	if b.hashed != nil {
		<-b.hashed // long done, nearly always
		b.hashed = nil
	}
	if b == f.longOut {
		// Its records are used: the long buffer is free again (the tail
		// may still be in it, and is moved from there).
		f.long, b.buf, b.own, f.longOut = b.buf, b.own, nil, nil
	}
	return b, true
}

// takeLong makes the long buffer b's, with room for at least need bytes,
// holding content, and keeps b's own buffer aside: it waits for the batch
// that holds the long buffer to come back.
func (f *batchFramer) takeLong(b *batch, content []byte, need int) bool {
	for f.longOut != nil {
		x, ok := f.back(false)
		if !ok {
			return false
		}
		f.spare = append(f.spare, x)
	}
	long := f.long
	if cap(long) < need {
		long = make([]byte, 0, need)
	}
	// content may be the long buffer's own bytes (the tail of the batch
	// that held it): copy moves them to its start.
	long = long[:len(content)]
	copy(long, content)
	f.long, f.longOut = nil, b
	b.own, b.buf = b.buf[:0], long
	return true
}

// longSize is the capacity the long buffer grows to from one of n bytes
// that is full: Lines' policy (longCap) for n bytes and a read more, so
// that what is left of an input of known size, and its end, fit.
func (f *batchFramer) longSize(n int) int {
	return longCap(n, n+readSize, longStart, f.g.rest(0))
}

// fill frames records into b, reading as needed, until b is full or the
// input ends; false when the Prefetch is closed meanwhile.
func (f *batchFramer) fill(b *batch) bool {
	p := f.p
	b.buf, b.lines, b.spans, b.err, b.code, b.cause = b.buf[:0], b.lines[:0], b.spans[:0], nil, 0, nil
	b.digest = nil
	if len(f.tail) > cap(b.buf) {
		if !f.takeLong(b, f.tail, len(f.tail)+readSize) {
			return false
		}
	} else {
		b.buf = append(b.buf, f.tail...)
	}
	f.tail = nil
	b.first = f.record + 1
	base := f.base // the input offset of b.buf[0]
	start := 0     // the first byte of b.buf not framed
	searched := 0  // b.buf[start:searched] holds no newline
	for {
		for len(b.lines) < p.lines && start < p.size {
			i := bytes.IndexByte(b.buf[searched:], '\n')
			if i < 0 {
				searched = len(b.buf)
				break
			}
			nl := searched + i
			if !f.record1(b, start, nl, base+int64(nl)+1) {
				return true
			}
			start, searched = nl+1, nl+1
		}
		if len(b.lines) == p.lines || start >= p.size {
			break // full
		}
		if f.end != nil {
			f.finish(b, start, base)
			return true
		}
		if len(b.buf) == cap(b.buf) {
			if start > 0 {
				break // the unfinished line starts the next batch
			}
			// One unfinished line fills the buffer: it is a long one.
			if b.own == nil {
				if !f.takeLong(b, b.buf, f.longSize(len(b.buf))) {
					return false
				}
			} else {
				long := make([]byte, len(b.buf), f.longSize(len(b.buf)))
				copy(long, b.buf)
				b.buf = long
			}
		}
		f.readInto(b)
	}
	// b.buf keeps every byte up to its last record's newline, in order:
	// that is what the digest takes of it.
	f.tail = b.buf[start:]
	f.base = base + int64(start)
	b.buf = b.buf[:start]
	return true
}

// record1 takes the record b.buf[start:end], whose input ends at offset
// bytes, as Lines.frame does: counted, and refused when past MaxRecords
// or blank (which ends the input: false).
func (f *batchFramer) record1(b *batch, start, end int, bytes int64) bool {
	f.record++
	// A record that starts with a byte that is not white space is not
	// blank: only the others need refused's test.
	if plain := f.record <= MaxRecords && start < end && b.buf[start] > ' '; plain {
		b.lines = append(b.lines, lineRef{start: int32(start), end: int32(end), bytes: bytes})
		return true
	}
	if err := refused(b.buf[start:end], f.record); err != nil {
		b.err, b.final = err, position{record: f.record, bytes: bytes}
		b.buf = b.buf[:end]
		return false
	}
	b.lines = append(b.lines, lineRef{start: int32(start), end: int32(end), bytes: bytes})
	return true
}

// finish ends b at the end of what was read: the last record, when the
// input ends without a newline after it, and the input's end, or the
// problem that stopped the reading.
func (f *batchFramer) finish(b *batch, start int, base int64) {
	if f.end == io.EOF && start < len(b.buf) {
		if !f.record1(b, start, len(b.buf), base+int64(len(b.buf))) {
			return
		}
	}
	b.err, b.final = f.end, position{record: f.record, bytes: f.endBytes}
}

// readInto reads once into b's buffer past its bytes, at most readSize,
// and has the guard see what came. A problem it finds drops the bytes
// from the one that made it certain on and ends the input there; so do a
// read error and the end of input, after the bytes read with them.
func (f *batchFramer) readInto(b *batch) {
	n := len(b.buf)
	k, err := f.src.Read(b.buf[n:min(cap(b.buf), n+readSize)])
	at := f.g.n // the input offset of the read's first byte
	if code := f.g.consume(b.buf[n : n+k]); code != 0 {
		// f.g.n is just past the byte that made the problem certain: the
		// record that holds it is the one Lines fails.
		b.buf = b.buf[:n+max(int(f.g.n-1-at), 0)]
		f.end, f.endBytes = audit.Invalid(code, -1, nil), f.g.n
		return
	}
	b.buf = b.buf[:n+k]
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		if code := f.g.finish(); code != 0 {
			f.end = audit.Invalid(code, -1, nil)
		} else {
			f.end = io.EOF
		}
		f.endBytes = f.g.n
	default:
		f.end, f.endBytes = audit.Invalid(audit.InputUnreadable, -1, err), f.g.n
	}
}

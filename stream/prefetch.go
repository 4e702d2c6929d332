package stream

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"runtime"
	"sync"

	"github.com/cairn-audit/cairn/audit"
)

// Prefetch frames a Lines' input on a second goroutine, so that framing
// (reading, the size and encoding guard, the digest) overlaps with what the
// caller does with each record. It returns exactly what the Lines would
// return, in the same order — records, record numbers, byte counts, the
// first error, the digest — so the first problem in reading order is
// still the one reported; it reads the input into its batches itself
// rather than through the Lines' buffer (see frame). It reads ahead at
// most prefetchBatches batches of about prefetchBytes each; Close stops
// it.
//
// Given a Checker, a third goroutine checks each framed record as JSON
// (the larger part of the work on a record) before the caller sees it, and
// reading stops after the first record the checker rejects; Checked
// returns the verdict on the record Next returned last.
//
// A panic on one of its goroutines (the reader's own, say) is not left
// there, where nobody could recover it and it would end the program: Next
// panics with the same value on the caller's goroutine, once the batches
// handed over before it are used up (records of the batch being filled are
// lost with the panic). A runtime.Goexit there ends the caller's goroutine
// in the same way.
type Prefetch struct {
	batches chan *batch
	free    chan *batch
	done    chan struct{}
	stop    sync.Once
	// failed is closed when a stage ended abnormally: with the panic
	// value, or, for runtime.Goexit, with goexit set.
	failed   chan struct{}
	fail     sync.Once
	panicked any
	goexit   bool
	// a batch's size: about this many bytes, at most this many records
	size, lines int
	// The input's SHA-256, of the batches in order (see hashBatch): hashed
	// is closed once the last batch sent on is.
	h      hash.Hash
	hashed chan struct{}

	cur    *batch
	pos    int
	record int
	bytes  int64
	sum    []byte
	err    error
}

// Verdict is a Checker's finding on one record: Code 0 for a valid one,
// with the members the checker located in it, or a code and the internal
// cause (for tests) for a rejected one.
type Verdict struct {
	Code  audit.Code
	Cause error
	Located
}

// errRejected is what Next returns after the record the checker rejected.
var errRejected = errors.New("stream: record rejected by the checker")

// Batches are large because every hand-over between goroutines may wake a
// sleeping thread, which is slow on a VM: 256 KiB batches instead of 64 KiB
// made a 16 MiB audit 13% faster. At most prefetchBatches exist at once,
// one per stage.
const (
	prefetchBatches = 3
	prefetchBytes   = 256 << 10
	prefetchLines   = 2048
	// prefetchSlack is room past prefetchBytes for the record that takes
	// a batch past it; a record longer than a batch's buffer is read into
	// the long buffer (see frame).
	prefetchSlack = 8 << 10
)

// lineRef locates a record in its batch. It is kept small: the framer
// writes one per record into memory the other stages read last.
type lineRef struct {
	start, end int32 // the record is buf[start:end]
	// With a checker: the record's located members are spans[root:child],
	// spans[child:grandchild] and spans[grandchild:spansEnd]; with elems
	// set, spans[grandchild:elements], and its located elements are
	// spans[elements:members] and their members spans[members:spansEnd].
	root, child, grandchild, elements, members, spansEnd int32
	elems                                                elems
	bytes                                                int64 // input bytes consumed with the record
}

// elems says what a record's checker located of Locate's elements.
type elems uint8

const (
	noElements elems = iota // none (most records)
	elementsLocated
	elementsCut // Located.ElementsCut
)

// position is where the input stood when a batch's error was returned.
type position struct {
	record int
	bytes  int64
}

// batch is a run of records read into its buffer, and, in the last one,
// how the input ended.
type batch struct {
	// buf holds the input's bytes from the batch's first record to its
	// last record's newline (or, in the last batch, to the end of input):
	// the records, and the digest's bytes, in order.
	buf   []byte
	own   []byte // buf's own storage while buf is the long buffer (see frame)
	lines []lineRef
	spans []Span // offsets in the record's line
	first int    // the record number of lines[0]: lines hold consecutive records
	err   error  // how the input ends (io.EOF at the end), or errRejected
	final position
	// The checker's code and cause for the batch's last line, which ends
	// the input when the code is not 0.
	code  audit.Code
	cause error
	// hashed is closed once buf is in the input's digest (nil: it is not
	// hashed); digest is then the input's SHA-256 when the batch ends it.
	hashed chan struct{}
	digest []byte
}

// NewPrefetch starts reading l on its own goroutine, checking each record
// with c unless c is nil; from then on c belongs to that goroutine. The
// caller must call Close when it stops before the end of input.
func NewPrefetch(l *Lines, c *Checker) *Prefetch {
	return newPrefetch(l, c, prefetchBytes, prefetchLines)
}

// newPrefetch is NewPrefetch with batches of about size bytes or lines
// records; tests use small ones to cross batch boundaries often.
func newPrefetch(l *Lines, c *Checker, size, lines int) *Prefetch {
	p := &Prefetch{
		batches: make(chan *batch, prefetchBatches),
		free:    make(chan *batch, prefetchBatches),
		done:    make(chan struct{}),
		failed:  make(chan struct{}),
		size:    size,
		lines:   lines,
		h:       sha256.New(),
	}
	// The batches hold every byte of a valid input, in order: they are
	// hashed in place of the Lines' copies into digest blocks.
	if l != nil {
		l.g.h = nil
	}
	for range prefetchBatches {
		// Full size from the start: growing them by doubling was a tenth
		// of a cold 50,000-record run.
		b := &batch{
			buf:   make([]byte, 0, size+prefetchSlack),
			lines: make([]lineRef, 0, lines),
		}
		if c != nil {
			b.spans = make([]Span, 0, 6*lines)
		}
		p.free <- b
	}
	if c == nil {
		go p.run(func() { p.frame(l, p.batches) })
		return p
	}
	// A third stage checks the framed batches: framing, checking and the
	// caller's work on each record then share the two cores.
	framed := make(chan *batch, prefetchBatches)
	go p.run(func() { p.frame(l, framed) })
	go p.run(func() { p.checkAll(c, framed) })
	return p
}

// run runs a stage, and records how it ended if it did not return: a
// panic's value, or runtime.Goexit (which recover does not see).
func (p *Prefetch) run(stage func()) {
	returned := false
	defer func() {
		v := recover()
		if returned {
			return
		}
		p.fail.Do(func() {
			p.panicked, p.goexit = v, v == nil
			close(p.failed)
		})
	}()
	stage()
	returned = true
}

// next is the next batch from the last stage, or, once there is none, the
// end of a stage that failed, raised on the caller's goroutine.
func (p *Prefetch) next() *batch {
	select {
	case b := <-p.batches:
		return b
	default:
	}
	select {
	case b := <-p.batches:
		return b
	case <-p.failed:
		if p.goexit {
			runtime.Goexit()
		}
		panic(p.panicked)
	}
}

// hashBatch adds b's bytes to the input's digest on a goroutine of its
// own, once the batch before it is hashed, and, when b ends the input, takes
// the digest. The batch's buffer is only read there, as the later stages
// read it, and is not reused before b.hashed is closed (see frame).
func (p *Prefetch) hashBatch(b *batch) {
	prev, done := p.hashed, make(chan struct{})
	p.hashed, b.hashed = done, done
	buf, final := b.buf, b.err != nil
	go func() {
		if prev != nil {
			<-prev
		}
		p.h.Write(buf)
		if final {
			b.digest = p.h.Sum(nil)
		}
		close(done)
	}()
}

// checkAll runs c over each framed batch's records, in order, and passes the
// batch on. The first record c rejects ends the batch, and the input, in
// place of whatever the framing found after it.
func (p *Prefetch) checkAll(c *Checker, in <-chan *batch) {
	for {
		var b *batch
		select {
		case b = <-in:
		case <-p.done:
			return
		}
		Mark("check+")
		spans := b.spans // kept here, and in the batch once it is checked
		for k := range b.lines {
			ref := &b.lines[k]
			if code := c.Check(b.buf[ref.start:ref.end]); code != 0 {
				b.code, b.cause = code, c.Cause()
				b.err, b.final = errRejected, position{b.first + k, ref.bytes}
				b.lines = b.lines[:k+1]
				break
			}
			// The record's, then the child's, the grandchild's and the
			// elements' spans, each copied only when there is one (most
			// records have no grandchild, many no child).
			ref.root = int32(len(spans))
			spans = append(spans, c.Root...)
			ref.child = int32(len(spans))
			if len(c.Child) > 0 {
				spans = append(spans, c.Child...)
			}
			ref.grandchild = int32(len(spans))
			if len(c.Grandchild) > 0 {
				spans = append(spans, c.Grandchild...)
			}
			ref.elems = noElements
			if len(c.Elements) > 0 {
				ref.elems, ref.elements = elementsLocated, int32(len(spans))
				spans = append(spans, c.Elements...)
				ref.members = int32(len(spans))
				spans = append(spans, c.ElementMembers...)
			} else if c.ElementsCut {
				ref.elems = elementsCut
			}
			ref.spansEnd = int32(len(spans))
		}
		b.spans = spans
		last := b.err != nil // read before the batch is handed on
		Mark("check-")
		select {
		case p.batches <- b:
		case <-p.done:
			return
		}
		if last {
			return
		}
	}
}

// Next is Lines.Next: the next record, valid until the following call, or
// io.EOF, or the input's error; after an error, the same error. After a
// record the checker rejected, it returns errRejected.
func (p *Prefetch) Next() ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	for p.cur == nil || p.pos >= len(p.cur.lines) {
		if p.cur != nil {
			if p.cur.err != nil {
				p.err, p.sum = p.cur.err, nil
				if p.err == io.EOF {
					<-p.cur.hashed
					p.sum = p.cur.digest
				}
				p.record, p.bytes = p.cur.final.record, p.cur.final.bytes
				return nil, p.err
			}
			Mark("use-")
			p.free <- p.cur
		}
		p.cur, p.pos = p.next(), 0
		Mark("use+")
	}
	b := p.cur
	ref := &b.lines[p.pos]
	p.pos++
	p.record, p.bytes = b.first+p.pos-1, ref.bytes
	return b.buf[ref.start:ref.end], nil
}

// Checked is the checker's verdict on the record Next returned last; with
// no checker, or after an error, an empty Verdict. Its spans are offsets in
// that record, and valid until the next call of Next. It is taken from
// the batch here, not kept by Next: a Verdict is large to copy.
func (p *Prefetch) Checked() Verdict {
	b := p.cur
	if p.err != nil || b == nil || p.pos == 0 {
		return Verdict{}
	}
	k := p.pos - 1
	if k == len(b.lines)-1 && b.code != 0 {
		return Verdict{Code: b.code, Cause: b.cause}
	}
	if b.spans == nil {
		return Verdict{}
	}
	ref := &b.lines[k]
	spans := b.spans[ref.root:ref.spansEnd:ref.spansEnd]
	child, grandchild := ref.child-ref.root, ref.grandchild-ref.root
	if ref.elems != elementsLocated {
		return Verdict{Located: Located{
			Root:        spans[:child:child],
			Child:       spans[child:grandchild:grandchild],
			Grandchild:  spans[grandchild:],
			ElementsCut: ref.elems == elementsCut,
		}}
	}
	elements, members := ref.elements-ref.root, ref.members-ref.root
	return Verdict{Located: Located{
		Root:           spans[:child:child],
		Child:          spans[child:grandchild:grandchild],
		Grandchild:     spans[grandchild:elements:elements],
		Elements:       spans[elements:members:members],
		ElementMembers: spans[members:],
	}}
}

// Record is the 1-based number of the last record returned.
func (p *Prefetch) Record() int { return p.record }

// Bytes is how many input bytes had been consumed when the last record (or
// the error) was returned.
func (p *Prefetch) Bytes() int64 { return p.bytes }

// Sum is the SHA-256 of the whole input, or nil until Next has returned
// io.EOF.
func (p *Prefetch) Sum() []byte { return p.sum }

// Close stops the reading goroutine.
func (p *Prefetch) Close() { p.stop.Do(func() { close(p.done) }) }

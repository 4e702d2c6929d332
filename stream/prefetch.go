package stream

import "sync"

// Prefetch runs a Lines on a second goroutine, so that framing (reading,
// the size and encoding guard, the digest) overlaps with what the caller
// does with each record. It returns exactly what the Lines returns, in the
// same order — records, record numbers, byte counts, the first error, the
// digest — so the first problem in reading order is still the one
// reported. It reads ahead at most prefetchBatches batches of about
// prefetchBytes each; Close stops it.
type Prefetch struct {
	batches chan *batch
	free    chan *batch
	done    chan struct{}
	stop    sync.Once

	cur    *batch
	pos    int
	record int
	bytes  int64
	sum    []byte
	err    error
}

const (
	prefetchBatches = 3
	prefetchBytes   = 64 << 10
	prefetchLines   = 1024
	// prefetchSlack is room for the line that takes a batch past
	// prefetchBytes; a longer one grows the batch.
	prefetchSlack = 8 << 10
)

type lineRef struct {
	start, end int
	record     int
	bytes      int64
}

// batch is a run of records copied out of the reader's buffer, and, in
// the last one, how the input ended.
type batch struct {
	buf   []byte
	lines []lineRef
	err   error // the Lines' error (io.EOF at the end)
	sum   []byte
	final lineRef // record and bytes when err was returned
}

// NewPrefetch starts reading l on its own goroutine. The caller must call
// Close when it stops before the end of input.
func NewPrefetch(l *Lines) *Prefetch {
	p := &Prefetch{
		batches: make(chan *batch, prefetchBatches),
		free:    make(chan *batch, prefetchBatches),
		done:    make(chan struct{}),
	}
	for range prefetchBatches {
		// Full size from the start: growing them by doubling was a tenth
		// of a cold 50,000-record run.
		p.free <- &batch{
			buf:   make([]byte, 0, prefetchBytes+prefetchSlack),
			lines: make([]lineRef, 0, prefetchLines),
		}
	}
	go p.run(l)
	return p
}

func (p *Prefetch) run(l *Lines) {
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		b.buf, b.lines, b.err = b.buf[:0], b.lines[:0], nil
		for len(b.buf) < prefetchBytes && len(b.lines) < prefetchLines {
			line, err := l.Next()
			if err != nil {
				b.err, b.sum = err, l.Sum()
				b.final = lineRef{record: l.Record(), bytes: l.Bytes()}
				break
			}
			start := len(b.buf)
			b.buf = append(b.buf, line...)
			b.lines = append(b.lines, lineRef{start, len(b.buf), l.Record(), l.Bytes()})
		}
		select {
		case p.batches <- b:
		case <-p.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// Next is Lines.Next: the next record, valid until the following call, or
// io.EOF, or the input's error; after an error, the same error.
func (p *Prefetch) Next() ([]byte, error) {
	if p.err != nil {
		return nil, p.err
	}
	for p.cur == nil || p.pos >= len(p.cur.lines) {
		if p.cur != nil {
			if p.cur.err != nil {
				p.err, p.sum = p.cur.err, p.cur.sum
				p.record, p.bytes = p.cur.final.record, p.cur.final.bytes
				return nil, p.err
			}
			p.free <- p.cur
		}
		p.cur, p.pos = <-p.batches, 0
	}
	ref := p.cur.lines[p.pos]
	p.pos++
	p.record, p.bytes = ref.record, ref.bytes
	return p.cur.buf[ref.start:ref.end], nil
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

package stream

import (
	"crypto/sha256"
	"hash"
	"sync"
)

// digestBlock is how many bytes are hashed at a time off the reading
// goroutine.
const digestBlock = 64 << 10

// digest is the SHA-256 of the input, computed on a second core while the
// first one checks records: bytes are copied into one of two blocks, and a
// full block is hashed by a short-lived goroutine while the other fills.
// At most one block is in flight, so nothing outlives the reader by more
// than one block's hashing, and memory is two blocks.
type digest struct {
	h       hash.Hash
	blocks  [2][]byte
	cur     int
	pending chan struct{} // closed when the block in flight is hashed
}

func newDigest() *digest { return &digest{h: sha256.New()} }

// blockPool keeps digest blocks between inputs: a batch of small audits
// (SPEC §10) would otherwise allocate two blocks per input.
var blockPool = sync.Pool{New: func() any { b := make([]byte, 0, digestBlock); return &b }}

// write adds the next input bytes.
func (d *digest) write(p []byte) {
	for len(p) > 0 {
		b := d.blocks[d.cur]
		if b == nil {
			b = (*blockPool.Get().(*[]byte))[:0]
		}
		n := min(len(p), digestBlock-len(b))
		b = append(b, p[:n]...)
		p = p[n:]
		d.blocks[d.cur] = b
		if len(b) == digestBlock {
			d.flush()
		}
	}
}

// flush hands the current block to a goroutine and switches blocks.
func (d *digest) flush() {
	d.wait()
	b := d.blocks[d.cur]
	done := make(chan struct{})
	d.pending = done
	go func() {
		d.h.Write(b)
		close(done)
	}()
	d.cur ^= 1
	d.blocks[d.cur] = d.blocks[d.cur][:0]
}

func (d *digest) wait() {
	if d.pending != nil {
		<-d.pending
		d.pending = nil
	}
}

// sum returns the digest of everything written. The digest's blocks go
// back to the pool: nothing may be written after.
func (d *digest) sum() []byte {
	d.wait()
	d.h.Write(d.blocks[d.cur])
	for i, b := range d.blocks {
		if b != nil {
			b = b[:0]
			blockPool.Put(&b)
			d.blocks[i] = nil
		}
	}
	return d.h.Sum(nil)
}

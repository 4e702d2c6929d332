// Package streamtest has the readers that the chunking tests of stream and
// of the command line deliver their inputs through, in the manner of
// testing/iotest: what cairn reports must not depend on how Reads are cut.
package streamtest

import (
	"io"
	"math/rand/v2"
)

// RandReader returns b in Reads of sizes from 0 to max bytes, drawn from a
// PCG seeded with (seed, stream), never two empty ones in a row (bufio
// gives up after 100).
func RandReader(b []byte, seed, stream uint64, max int) io.Reader {
	return &randReader{b: b, r: rand.New(rand.NewPCG(seed, stream)), max: max}
}

type randReader struct {
	b     []byte
	r     *rand.Rand
	max   int
	empty bool
}

func (r *randReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := r.r.IntN(r.max + 1)
	if n == 0 && r.empty {
		n = 1
	}
	r.empty = n == 0
	n = min(n, len(p), len(r.b))
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

// CutReader returns b ending a Read at each of the offsets cuts, in
// increasing order, and otherwise as much as asked.
func CutReader(b []byte, cuts []int) io.Reader {
	return &cutReader{b: b, cuts: cuts}
}

type cutReader struct {
	b    []byte
	off  int
	cuts []int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.off == len(r.b) {
		return 0, io.EOF
	}
	for len(r.cuts) > 0 && r.cuts[0] <= r.off {
		r.cuts = r.cuts[1:]
	}
	end := len(r.b)
	if len(r.cuts) > 0 {
		end = min(end, r.cuts[0])
	}
	n := copy(p, r.b[r.off:end])
	r.off += n
	return n, nil
}

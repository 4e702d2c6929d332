// Package streamtest has the readers that the chunking tests of stream and
// of the command line deliver their inputs through, in the manner of
// testing/iotest: what cairn reports must not depend on how Reads are cut;
// and the hostile objects of the memory tests (SPEC §1).
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

// Names appends to dst the members ,"NAME":0 of as many distinct short
// names as fit in size bytes, and says how many: every name of 1, then 2,
// 3 and 4 printable ASCII characters but the quote and the backslash (93
// of them), in counter order, but those in skip (an object's own
// members). scripts/mem.sh writes the same: with 16 MiB, 1,952,455 names,
// SPEC §1's object of two million distinct short member names.
func Names(dst []byte, size int, skip ...string) ([]byte, int) {
	var alphabet []byte
	for ch := byte(33); ch < 127; ch++ {
		if ch != '"' && ch != '\\' {
			alphabet = append(alphabet, ch)
		}
	}
	var digits []int // the name, least significant character first
	name := make([]byte, 0, 8)
	n, written := 0, 0
	for {
		// count up: 0, 1, …, 92, then 00, 01, …
		k := 0
		for ; k < len(digits); k++ {
			if digits[k]++; digits[k] < len(alphabet) {
				break
			}
			digits[k] = 0
		}
		if k == len(digits) {
			digits = append(digits, 0)
		}
		name = name[:0]
		for k := len(digits) - 1; k >= 0; k-- {
			name = append(name, alphabet[digits[k]])
		}
		if skipped(skip, name) {
			continue
		}
		if written+len(name)+5 > size {
			return dst, n
		}
		dst = append(append(append(dst, `,"`...), name...), `":0`...)
		written += len(name) + 5
		n++
	}
}

func skipped(skip []string, name []byte) bool {
	for _, s := range skip {
		if s == string(name) {
			return true
		}
	}
	return false
}

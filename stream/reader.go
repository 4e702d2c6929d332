package stream

import (
	"errors"
	"io"
)

// The causes of input_unreadable for a reader that cannot be read at all.
var (
	errNilReader = errors.New("stream: nil reader")
	errReadCount = errors.New("stream: reader returned a count outside 0..len(p)")
)

// StrictReader returns r with io.Reader's contract enforced on every Read:
// a count outside 0..len(p) is a read error (errReadCount), as is a nil r,
// and so are maxEmptyReads empty reads in a row without an error
// (io.ErrNoProgress, as bufio says); after a read error of its own it
// returns that error again. bufio panics on a negative count, and a count
// past len(p) would move it past its buffer; read on Prefetch's goroutine,
// either panic would end the program. A reader that never progresses
// would keep a loop that reads to the end (the drain of standard input)
// spinning. Lines reads through one; a caller that hands its reader to
// another scanner wraps it first.
//
// A panic in r's Read is left alone: it is r's, and Prefetch carries it to
// its caller's goroutine.
func StrictReader(r io.Reader) io.Reader {
	if s, ok := r.(*strictReader); ok {
		return s
	}
	return &strictReader{r: r}
}

// maxEmptyReads is how many empty reads in a row, without an error, mean
// a reader makes no progress: bufio's own count.
const maxEmptyReads = 100

type strictReader struct {
	r     io.Reader
	empty int   // empty reads in a row
	err   error // errNilReader, errReadCount or io.ErrNoProgress, once returned
}

func (s *strictReader) Read(p []byte) (int, error) {
	switch {
	case s.err != nil:
		return 0, s.err
	case s.r == nil:
		s.err = errNilReader
		return 0, s.err
	}
	n, err := s.r.Read(p)
	switch {
	case n < 0 || n > len(p):
		// What the reader put in p cannot be told from what it did not.
		s.err = errReadCount
		return 0, s.err
	case n > 0 || err != nil || len(p) == 0:
		s.empty = 0
	default:
		if s.empty++; s.empty >= maxEmptyReads {
			s.err = io.ErrNoProgress
			return 0, s.err
		}
	}
	return n, err
}

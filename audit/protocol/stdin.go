package protocol

import (
	"io"
	"sync"
)

// maxStdin is how much of standard input is read in all, the discarded
// rest after an early verdict included (SPEC §3).
const maxStdin = 1 << 30

// stdinReader counts what is read from standard input, and after an early
// verdict reads the rest and discards it, so that a producer or a tee
// upstream is never cut off by a broken pipe. Reads are serialized: the
// read-ahead goroutine may still be in one when the audit is over, and the
// count must include what it got.
type stdinReader struct {
	mu sync.Mutex
	r  io.Reader
	n  int64
}

func (s *stdinReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.r.Read(p)
	s.n += int64(n)
	return n, err
}

// drain reads standard input to its end, or until maxStdin bytes were read
// in all, and returns the number of bytes read in all.
func (s *stdinReader) drain() int64 {
	buf := make([]byte, 64<<10)
	for {
		s.mu.Lock()
		left := maxStdin - s.n
		if left <= 0 {
			n := s.n
			s.mu.Unlock()
			return n
		}
		p := buf
		if int64(len(p)) > left {
			p = p[:left]
		}
		k, err := s.r.Read(p)
		s.n += int64(k)
		n := s.n
		s.mu.Unlock()
		if err != nil {
			return n
		}
	}
}

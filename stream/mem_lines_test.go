package stream

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestLinesLongLineAllocations: a line of nearly 16 MiB is assembled by
// doubling its buffer, not by append's growth by a quarter: about twice the
// line in allocations (append cost about six times it), whatever the chunks.
func TestLinesLongLineAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocations")
	}
	const size = MaxBytes - 1024
	line := bytes.Repeat([]byte("ledger validation conventions "), size/30)
	input := append(append([]byte(`"`), line...), "\"\n{}\n"...)
	for _, tc := range []struct {
		chunk int
		sized bool // the reader knows the input's size, as a File does
	}{{len(input), false}, {4096, false}, {1000, false}, {len(input), true}, {4096, true}} {
		chunk := tc.chunk
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var r io.Reader = &chunked{b: input, n: chunk}
		if tc.sized {
			r = &sizedChunked{chunked{b: input, n: chunk}, int64(len(input))}
		}
		l := NewLines(r)
		rec, err := l.Next()
		if err != nil || len(rec) != len(line)+2 {
			t.Fatalf("chunk %d: record of %d bytes, %v", chunk, len(rec), err)
		}
		if rec, err = l.Next(); err != nil || string(rec) != "{}" {
			t.Fatalf("chunk %d: second record %q, %v", chunk, rec, err)
		}
		if _, err = l.Next(); err != io.EOF {
			t.Fatalf("chunk %d: %v at the end", chunk, err)
		}
		runtime.ReadMemStats(&after)
		// Doubling costs about twice the line; with the size known, the
		// line's buffer grows to all that is left of the input once it
		// reaches exactLong.
		allowed := uint64(2*MaxBytes + 2*readSize + (1 << 20))
		if tc.sized {
			allowed = MaxBytes + 2*exactLong + 2*readSize
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > allowed {
			t.Errorf("chunk %d, sized %v: %d MiB allocated for one line of %d MiB", chunk, tc.sized, got>>20, len(line)>>20)
		}
	}
}

// sizedChunked is a chunked reader that knows the input's size.
type sizedChunked struct {
	chunked
	size int64
}

func (s *sizedChunked) Size() int64 { return s.size }

// chunked delivers b at most n bytes per Read.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

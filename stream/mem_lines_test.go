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
	for _, chunk := range []int{len(input), 4096, 1000} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := NewLines(&chunked{b: input, n: chunk})
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
		if got := after.TotalAlloc - before.TotalAlloc; got > 2*MaxBytes+2*readSize+(1<<20) {
			t.Errorf("chunk %d: %d MiB allocated for one line of %d MiB", chunk, got>>20, len(line)>>20)
		}
	}
}

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

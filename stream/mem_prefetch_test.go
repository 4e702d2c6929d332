package stream

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestPrefetchLongRecordOnce: a record longer than a batch is in memory
// once, where the Lines assembled it, not copied into a batch as well
// (SPEC §1: one 16 MiB record within 48 MiB). Measured by the live heap
// after collections while the record is held, not by time.
func TestPrefetchLongRecordOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 15 MiB record")
	}
	const size = 15 << 20
	// The input is generated as it is read, so that only the reader's
	// copies are in memory; records follow the long one, so that the
	// framing goroutine is still reading when the record is held.
	in := io.MultiReader(
		strings.NewReader(`{"type":"turn.started"}`+"\n"+`{"type":"error","message":"`),
		&repeated{b: 'x', n: size},
		strings.NewReader(`"}`+"\n"+strings.Repeat(`{"type":"turn.started"}`+"\n", 20000)))
	recordLen := len(`{"type":"error","message":""}`) + size
	base := liveHeap()
	p := NewPrefetch(NewLines(in), &Checker{})
	defer p.Close()
	var held uint64
	for {
		line, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(line) == recordLen {
			held = liveHeap() - base
		}
	}
	t.Logf("%d-byte record: live heap %d bytes while it is held", recordLen, held)
	// the Lines' buffer (append's growth leaves up to a quarter spare),
	// three batches of 264 KiB, the read buffer and the digest
	if limit := uint64(recordLen)*5/4 + 2<<20; held == 0 || held > limit {
		t.Errorf("live heap %d bytes while a %d-byte record is held, want at most %d: the record is copied", held, recordLen, limit)
	}
}

// repeated reads as n bytes b.
type repeated struct {
	b byte
	n int
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// shortSized is a reader that reports a size smaller than what it reads,
// as a file that grows while it is read does.
type shortSized struct{ io.Reader }

func (shortSized) Size() int64 { return 100 }

// TestPrefetchLongRecordWrongSize: a record longer than the size its
// input reported grows the long buffer by doubling once that size is
// passed, not a read at a time: allocations stay a small multiple of the
// record, and the record is read whole.
func TestPrefetchLongRecordWrongSize(t *testing.T) {
	const size = 3 << 20
	for _, how := range []string{"Lines", "Prefetch"} {
		in := io.MultiReader(strings.NewReader(`{"type":"error","message":"`), &repeated{b: 'x', n: size}, strings.NewReader(`"}`+"\n"))
		var f framer = NewLines(shortSized{in})
		if how == "Prefetch" {
			p := NewPrefetch(f.(*Lines), &Checker{})
			defer p.Close()
			f = p
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		line, err := f.Next()
		runtime.ReadMemStats(&after)
		if err != nil || len(line) != size+len(`{"type":"error","message":""}`) {
			t.Fatalf("%s: got %d bytes, %v; want the record whole", how, len(line), err)
		}
		if _, err := f.Next(); err != io.EOF {
			t.Fatalf("%s: then %v, want EOF", how, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 5*size {
			t.Errorf("%s: %d bytes allocated for a %d-byte record, want at most %d", how, got, size, 5*size)
		}
	}
}

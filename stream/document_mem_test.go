package stream

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// trajectorySource generates a trajectory document of n events on the fly,
// so that the input itself is never in memory: what the heap holds while
// it is read is the reader's own state. Events alternate between a project
// search and its result, each about 300 bytes.
type trajectorySource struct {
	n, i    int
	state   int // 0 head, 1 events, 2 tail, 3 done
	scratch []byte
	pending []byte
	size    int64
}

const (
	memHead = `{"schema_version":1,"session_id":"s","harness":"pi","project_root":"/p",` +
		`"started_at":"2026-10-07T00:00:00Z","ended_at":"2026-10-07T00:01:00Z","events":[` + "\n"
	memTail = "\n" + `],"capture":{"captured_at":"2026-10-07T00:01:00Z","omitted_reasoning_blocks":0,` +
		`"omitted_unknown_records":0,"truncated":false}}` + "\n"
)

var memPad = strings.Repeat("ledger validation conventions ", 5)

func newTrajectorySource(n int) *trajectorySource {
	return &trajectorySource{n: n, scratch: make([]byte, 0, 512)}
}

func (s *trajectorySource) appendEvent(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ",\n"...)
	}
	b = append(b, `{"sequence":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	id := i &^ 1
	if i%2 == 0 {
		b = append(b, `,"kind":"tool_invocation","payload":{"call_id":"call-`...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, `","tool_name":"memory_search","input":{"scope":"project","query":"`...)
		b = append(b, memPad...)
		b = append(b, `"}}}`...)
		return b
	}
	b = append(b, `,"kind":"tool_result","payload":{"call_id":"call-`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `","is_error":false,"output":"{\"mode\":\"substring\",\"count\":0,\"results\":[],\"note\":\"`...)
	b = append(b, memPad...)
	b = append(b, `\"}"}}`...)
	return b
}

func (s *trajectorySource) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		switch {
		case s.state == 0:
			s.pending = append(s.scratch[:0], memHead...)
			s.state = 1
		case s.state == 1 && s.i < s.n:
			s.pending = s.appendEvent(s.scratch[:0], s.i)
			s.i++
		case s.state == 1:
			s.pending = append(s.scratch[:0], memTail...)
			s.state = 2
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	s.size += int64(n)
	return n, nil
}

// liveHeap is the heap in use by reachable objects. Two collections: the
// first only moves sync.Pool contents to the victim cache.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// docMemory streams a generated document of n events through a Document and
// returns the input size, the largest live heap seen (sampled every 2,500
// events, relative to before the Document existed) and the largest
// capacity of the Document's value buffer.
func docMemory(t *testing.T, n int) (size int64, peak uint64, bufCap int) {
	t.Helper()
	src := newTrajectorySource(n)
	base := liveHeap()
	d := NewDocument(src)
	sample := func() {
		if h := liveHeap(); h > base && h-base > peak {
			peak = h - base
		}
	}
	events := 0
	for {
		p, err := d.Next()
		if err != nil {
			t.Fatalf("%d events: event %d: %v", n, events, err)
		}
		bufCap = max(bufCap, cap(d.buf))
		if p.Kind == End {
			break
		}
		if p.Kind == Event {
			if p.Index != events {
				t.Fatalf("%d events: index %d, want %d", n, p.Index, events)
			}
			events++
			if events%2500 == 0 {
				sample()
			}
		}
	}
	sample()
	runtime.KeepAlive(d)
	if events != n || d.Events() != n || d.Bytes() != src.size || d.Sum() == nil {
		t.Fatalf("%d events: read %d events, %d of %d bytes", n, events, d.Bytes(), src.size)
	}
	return src.size, peak, bufCap
}

// TestDocumentMemoryBounded proves SPEC §1's bound for the trajectory
// reader: a document of 50,000 small events (about 15 MiB) costs no more
// memory than one of 3,000 (about 1 MiB). Memory is the live heap measured
// after collections while the document is read, not a timing.
func TestDocumentMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 15 MiB")
	}
	smallSize, smallPeak, smallCap := docMemory(t, 3_000)
	size, peak, bufCap := docMemory(t, MaxRecords)
	t.Logf("%d events, %d bytes: peak live heap %d bytes, value buffer %d bytes", 3_000, smallSize, smallPeak, smallCap)
	t.Logf("%d events, %d bytes: peak live heap %d bytes, value buffer %d bytes", MaxRecords, size, peak, bufCap)

	if size > MaxBytes || size < 14<<20 {
		t.Fatalf("the large document is %d bytes, want close to 16 MiB (the test's premise)", size)
	}
	// The value buffer holds one element at a time: about 300 bytes here.
	const bufLimit = 64 << 10
	if bufCap > bufLimit || smallCap > bufLimit {
		t.Errorf("value buffer grew to %d bytes (%d for the small document), want at most %d", bufCap, smallCap, bufLimit)
	}
	// The heap holds the read buffer, the digest and the checker's scratch:
	// the same for 50,000 events as for 3,000, and far below the input.
	const slack = 32 << 10
	if peak > smallPeak+slack {
		t.Errorf("peak live heap %d bytes for %d events, %d for 3,000: memory grows with the number of events", peak, MaxRecords, smallPeak)
	}
	if limit := uint64(size / 64); peak > limit {
		t.Errorf("peak live heap %d bytes for a %d-byte input, want at most %d", peak, size, limit)
	}
}

// TestDocumentMemoryLargeElement is the other side of the bound: memory
// follows the largest single element, which the value buffer must hold
// whole (and keeps the capacity of).
func TestDocumentMemoryLargeElement(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	doc := memHead + `{"sequence":0,"kind":"model_output","payload":{"text":"` + big + `"}}` + memTail
	d := NewDocument(strings.NewReader(doc))
	for {
		p, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind == Event && len(p.Value) < 1<<20 {
			t.Fatalf("event of %d bytes, want the whole 1 MiB element", len(p.Value))
		}
		if p.Kind == End {
			break
		}
	}
	if c := cap(d.buf); c < 1<<20 || c > 4<<20 {
		t.Errorf("value buffer capacity %d, want the largest element's size (1 MiB), within a factor of 4", c)
	}
}

// BenchmarkDocument streams a document of 10,000 events (about 3 MiB).
func BenchmarkDocument(b *testing.B) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, newTrajectorySource(10_000)); err != nil {
		b.Fatal(err)
	}
	doc := buf.Bytes()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		d := NewDocument(bytes.NewReader(doc))
		for {
			p, err := d.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				b.Fatal(err)
			}
			if p.Kind == End {
				break
			}
		}
	}
	b.ReportMetric(float64(len(doc))/10_000, "bytes/event")
}

// topMembersSource generates a trajectory of n top-level members with
// four-character names (as scripts/mem.sh's traj-top), then the events.
type topMembersSource struct {
	n, i    int
	pending []byte
	buf     []byte
	done    bool
}

func (s *topMembersSource) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		switch {
		case s.done:
			return 0, io.EOF
		case s.i == 0:
			s.pending = []byte(`{"schema_version":1`)
			s.i++
		case s.i <= s.n:
			const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
			b := append(s.buf[:0], `,"`...)
			for k, m := 0, s.i-1; k < 4; k++ {
				b = append(b, digits[m%36])
				m /= 36
			}
			s.buf = append(b, `":0`...)
			s.pending = s.buf
			s.i++
		default:
			s.pending = []byte(`,"events":[]}`)
			s.done = true
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// TestDocumentMemoryTopMembers: the names of 1,600,000 top-level members
// are kept to refuse a repeated one, in about 10 bytes each (their text, a
// length and a slot), not a string and a map entry each (about 80).
func TestDocumentMemoryTopMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1,600,000 members")
	}
	const n = 1_600_000
	base := liveHeap()
	d := NewDocument(&topMembersSource{n: n})
	members := 0
	var held uint64
	for {
		p, err := d.Next()
		if err != nil {
			t.Fatalf("member %d: %v", members, err)
		}
		if p.Kind == Member {
			members++
		}
		if p.Kind == End {
			break
		}
		if members == n {
			held = liveHeap() - base
		}
	}
	runtime.KeepAlive(d)
	if members != n+1 {
		t.Fatalf("%d members, want %d", members, n+1)
	}
	t.Logf("%d top-level members: %d MiB live", n, held>>20)
	if held > 20<<20 {
		t.Errorf("%d MiB live for the names of %d top-level members, want at most 20", held>>20, n)
	}
	// A repeated name is still refused, however many came before.
	doc := `{"a":1,"b":2,"a":3,"events":[]}`
	d = NewDocument(strings.NewReader(doc))
	for {
		_, err := d.Next()
		if err != nil {
			var ie *audit.InputError
			if !errors.As(err, &ie) || ie.Code != audit.DuplicateKey {
				t.Fatalf("repeated name: %v, want duplicate_key", err)
			}
			break
		}
	}
}

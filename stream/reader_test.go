package stream

import (
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// badReader gives head, then returns what bad returns.
type badReader struct {
	head string
	bad  func(p []byte) (int, error)
}

func (r *badReader) Read(p []byte) (int, error) {
	if r.head != "" {
		n := copy(p, r.head)
		r.head = r.head[n:]
		return n, nil
	}
	return r.bad(p)
}

// records is enough JSONL to fill several small prefetch batches.
var records = strings.Repeat(`{"type":"turn.started"}`+"\n", 200)

// TestLinesBadReader checks that a nil reader, a count outside 0..len(p)
// and a reader that never progresses are input_unreadable from Lines and
// Prefetch, with and without a checker, never a panic, and that Lines
// stops at the first.
func TestLinesBadReader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     func() io.Reader
		cause error
	}{
		{"nil", func() io.Reader { return nil }, errNilReader},
		{"negative count", func() io.Reader { return &badReader{bad: func([]byte) (int, error) { return -1, nil }} }, errReadCount},
		{"negative count after records", func() io.Reader {
			return &badReader{head: records, bad: func([]byte) (int, error) { return -1, io.EOF }}
		}, errReadCount},
		{"count past len(p)", func() io.Reader { return &badReader{bad: func(p []byte) (int, error) { return len(p) + 1, nil }} }, errReadCount},
		{"count past len(p) after records", func() io.Reader {
			return &badReader{head: records, bad: func(p []byte) (int, error) { return math.MaxInt, nil }}
		}, errReadCount},
		{"no progress", func() io.Reader { return &badReader{bad: func([]byte) (int, error) { return 0, nil }} }, io.ErrNoProgress},
	} {
		for _, how := range []struct {
			name string
			f    func(io.Reader) framer
		}{
			{"Lines", func(r io.Reader) framer { return NewLines(r) }},
			{"Prefetch", func(r io.Reader) framer { return newPrefetch(NewLines(r), nil, 64, 4) }},
			{"Prefetch with a checker", func(r io.Reader) framer { return newPrefetch(NewLines(r), &Checker{}, 64, 4) }},
		} {
			t.Run(tc.name+"/"+how.name, func(t *testing.T) {
				f := how.f(tc.r())
				if p, ok := f.(*Prefetch); ok {
					defer p.Close()
				}
				var err error
				for err == nil {
					_, err = f.Next()
				}
				var ie *audit.InputError
				if !errors.As(err, &ie) || ie.Code != audit.InputUnreadable || !errors.Is(err, tc.cause) {
					t.Fatalf("got %v, want input_unreadable caused by %v", err, tc.cause)
				}
				if f.Bytes() < 0 || f.Bytes() > int64(len(records)) {
					t.Errorf("Bytes() %d: a bad count was counted", f.Bytes())
				}
			})
		}
	}
}

// TestStrictReaderSticky checks that a StrictReader is not wrapped twice
// and that after its own error it never calls the reader again.
func TestStrictReaderSticky(t *testing.T) {
	calls := 0
	s := StrictReader(&badReader{bad: func([]byte) (int, error) { calls++; return -1, nil }})
	if StrictReader(s) != s {
		t.Error("StrictReader wrapped a StrictReader again")
	}
	for range 3 {
		if n, err := s.Read(make([]byte, 8)); n != 0 || err != errReadCount {
			t.Fatalf("got %d, %v; want 0, errReadCount", n, err)
		}
	}
	if calls != 1 {
		t.Errorf("the reader was called %d times, want once", calls)
	}
}

// prefetchPanic is what the panicking readers panic with.
type prefetchPanic struct{ name string }

// TestPrefetchCarriesPanics checks that a panic or a runtime.Goexit on
// Prefetch's goroutines (here, the reader's) reaches the caller's
// goroutine from Next, with the same value; a nil Lines is such a panic
// too.
func TestPrefetchCarriesPanics(t *testing.T) {
	for _, checked := range []bool{false, true} {
		// A checker belongs to its Prefetch's goroutine: a new one each.
		checker := func() *Checker {
			if checked {
				return &Checker{}
			}
			return nil
		}
		for _, head := range []string{"", records} {
			name := "after records"
			if head == "" {
				name = "at once"
			}
			if checked {
				name += ", with a checker"
			}
			t.Run("panic "+name, func(t *testing.T) {
				want := &prefetchPanic{name}
				p := newPrefetch(NewLines(&badReader{head: head, bad: func([]byte) (int, error) { panic(want) }}), checker(), 64, 4)
				defer p.Close()
				n := 0
				got := func() (v any) {
					defer func() { v = recover() }()
					for {
						if _, err := p.Next(); err != nil {
							t.Fatalf("Next returned %v after %d records, want a panic", err, n)
						}
						n++
					}
				}()
				if got != want {
					t.Fatalf("recovered %v, want the reader's %v", got, want)
				}
				if most := strings.Count(head, "\n"); n > most {
					t.Errorf("%d records before the panic, want at most %d", n, most)
				}
			})
			t.Run("Goexit "+name, func(t *testing.T) {
				p := newPrefetch(NewLines(&badReader{head: head, bad: func([]byte) (int, error) { runtime.Goexit(); return 0, nil }}), checker(), 64, 4)
				defer p.Close()
				returned, done := false, make(chan any)
				go func() {
					defer func() { done <- recover() }()
					for {
						if _, err := p.Next(); err != nil {
							break
						}
					}
					returned = true
				}()
				if v := <-done; v != nil || returned {
					t.Fatalf("returned %v, recovered %v; want the caller's goroutine to exit", returned, v)
				}
			})
		}
	}
	t.Run("nil Lines", func(t *testing.T) {
		p := NewPrefetch(nil, nil)
		defer p.Close()
		got := func() (v any) {
			defer func() { v = recover() }()
			p.Next()
			return nil
		}()
		if _, ok := got.(runtime.Error); !ok {
			t.Fatalf("recovered %v, want the nil dereference's runtime.Error", got)
		}
	})
}

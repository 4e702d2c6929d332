package protocol

import (
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// controls are a valid input of each format, read whole by a test.
func controls(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for format, name := range map[string]string{
		audit.FormatCodex:      "protocol-codex.jsonl",
		audit.FormatClaude:     "protocol-claude.jsonl",
		audit.FormatTrajectory: "protocol-project-search.json",
	} {
		b, err := os.ReadFile("../../testdata/controls/" + name)
		if err != nil {
			t.Fatal(err)
		}
		out[format] = b
	}
	return out
}

// scripted is a reader that gives its input's first bytes, then returns
// what bad returns. (The input's first bytes let the read-ahead stages
// start before the bad Read.)
type scripted struct {
	head []byte
	bad  func(p []byte) (int, error)
}

func (s *scripted) Read(p []byte) (int, error) {
	if len(s.head) > 0 {
		n := copy(p, s.head)
		s.head = s.head[n:]
		return n, nil
	}
	return s.bad(p)
}

// TestAuditStreamBadReader checks that a reader that breaks io.Reader's
// contract (a negative count, a count past len(p)), and a nil reader, are
// the input's invalid report, input_unreadable, for every format, on
// whichever goroutine the reading happens: never a panic, never a count
// that reaches the report.
func TestAuditStreamBadReader(t *testing.T) {
	bad := map[string]func(p []byte) (int, error){
		"negative count":              func([]byte) (int, error) { return -1, nil },
		"negative count and EOF":      func([]byte) (int, error) { return -5, io.EOF },
		"count past len(p)":           func(p []byte) (int, error) { return len(p) + 1, nil },
		"count past len(p) and EOF":   func(p []byte) (int, error) { return 2*len(p) + 7, io.EOF },
		"huge count":                  func([]byte) (int, error) { return math.MaxInt, nil },
		"no progress":                 func([]byte) (int, error) { return 0, nil },
		"negative count and an error": func([]byte) (int, error) { return -1, errors.New("read failed") },
	}
	for format, input := range controls(t) {
		readers := map[string]func() io.Reader{"nil": func() io.Reader { return nil }}
		for name, f := range bad {
			readers[name] = func() io.Reader { return &scripted{bad: f} }
			readers[name+", after half the input"] = func() io.Reader { return &scripted{head: input[:len(input)/2], bad: f} }
		}
		for name, r := range readers {
			t.Run(format+"/"+name, func(t *testing.T) {
				rep, err := AuditStream(r(), Options{Format: format})
				if err != nil {
					t.Fatalf("got error %v, want a report", err)
				}
				if rep.Status != audit.StatusInvalid || rep.ExitCode != 2 || rep.Error == nil || rep.Error.Code != audit.InputUnreadable {
					t.Fatalf("got %s, exit %d, error %+v; want invalid, exit 2, input_unreadable", rep.Status, rep.ExitCode, rep.Error)
				}
				if rep.Input.Bytes < 0 || rep.Input.Bytes > int64(len(input)) {
					t.Errorf("input.bytes %d, want 0 to %d: a bad count reached the report", rep.Input.Bytes, len(input))
				}
			})
		}
	}
}

// readerPanic is what the panicking readers panic with.
type readerPanic struct{ where string }

// TestAuditStreamReaderPanics checks the decision for a reader that
// panics: the panic is the caller's, on the caller's goroutine, with the
// reader's own value, whichever goroutine cairn read on (a host program
// can recover it; before, a read-ahead goroutine's panic ended the
// process). A reader that calls runtime.Goexit ends the caller's
// goroutine the same way.
func TestAuditStreamReaderPanics(t *testing.T) {
	for format, input := range controls(t) {
		for _, head := range []struct {
			name  string
			bytes []byte
		}{{"at once", nil}, {"after half the input", input[:len(input)/2]}} {
			t.Run(format+"/panic "+head.name, func(t *testing.T) {
				want := &readerPanic{format + head.name}
				r := &scripted{head: head.bytes, bad: func([]byte) (int, error) { panic(want) }}
				got := func() (v any) {
					defer func() { v = recover() }()
					AuditStream(r, Options{Format: format})
					return nil
				}()
				if got != want {
					t.Fatalf("AuditStream recovered %v, want the reader's panic %v", got, want)
				}
			})
			t.Run(format+"/Goexit "+head.name, func(t *testing.T) {
				r := &scripted{head: head.bytes, bad: func([]byte) (int, error) { runtime.Goexit(); return 0, nil }}
				returned, done := false, make(chan any)
				go func() {
					defer func() { done <- recover() }()
					AuditStream(r, Options{Format: format})
					returned = true
				}()
				if v := <-done; v != nil || returned {
					t.Fatalf("AuditStream returned %v, recovered %v; want the caller's goroutine to exit", returned, v)
				}
			})
		}
	}
}

// TestAuditFileOddPaths checks paths no file system holds: each is its
// invalid report, never a panic.
func TestAuditFileOddPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		code audit.Code
	}{
		{"empty", "", audit.InputNotFound},
		{"NUL", "run\x00.jsonl", audit.InputUnreadable},
		{"NUL only", "\x00", audit.InputUnreadable},
		{"a name too long", strings.Repeat("n", 10000), audit.InputUnreadable},
		{"a path too long", strings.Repeat("d/", 5000) + "f", audit.InputNotFound},
		{"root", "/", audit.InputNotRegular},
		{"dot", ".", audit.InputNotRegular},
		{"invalid UTF-8", "\xff\xfe.jsonl", audit.InputNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range Formats() {
				format := f.Name
				rep, err := AuditFile(tc.path, Options{Format: format})
				if err != nil || rep.Error == nil || rep.Error.Code != tc.code || rep.ExitCode != 2 {
					t.Errorf("%s: got %v, %+v; want %s, exit 2", format, err, rep, tc.code)
				}
			}
		})
	}
}

package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-audit/cairn/audit"
)

// step is what a framer returned for one call of Next.
type step struct {
	line    string
	record  int
	bytes   int64
	errText string
}

type framer interface {
	Next() ([]byte, error)
	Record() int
	Bytes() int64
	Sum() []byte
}

func trace(f framer) ([]step, []byte) {
	var steps []step
	for {
		line, err := f.Next()
		s := step{line: string(line), record: f.Record(), bytes: f.Bytes()}
		if err != nil {
			var ie *audit.InputError
			switch {
			case errors.Is(err, io.EOF):
				s.errText = "EOF"
			case errors.As(err, &ie):
				s.errText = fmt.Sprintf("%s@%d", ie.Code, ie.Record)
			default:
				s.errText = err.Error()
			}
			steps = append(steps, s)
			// After an error, the same error again.
			if _, again := f.Next(); again == nil || (again.Error() != err.Error()) {
				steps = append(steps, step{errText: "different error on repeat"})
			}
			return steps, f.Sum()
		}
		steps = append(steps, s)
	}
}

// samePrefetch checks that Prefetch returns exactly what Lines returns.
func samePrefetch(t *testing.T, name string, in []byte, sizes []batchSize) {
	t.Helper()
	want, wantSum := trace(NewLines(bytes.NewReader(in)))
	for _, size := range sizes {
		p := newPrefetch(NewLines(bytes.NewReader(in)), nil, size.bytes, size.lines)
		got, gotSum := trace(p)
		p.Close()
		sameTrace(t, name, got, want, gotSum, wantSum)
	}
}

type batchSize struct{ bytes, lines int }

// smallBatches cross batch boundaries within a few records; the fuzz
// targets use them only (the product's size allocates too much per exec).
var (
	smallBatches = []batchSize{{64, 3}, {1, 1}}
	allBatches   = append([]batchSize{{prefetchBytes, prefetchLines}}, smallBatches...)
)

func sameTrace(t *testing.T, name string, got, want []step, gotSum, wantSum []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d steps, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: step %d: got %+v, want %+v", name, i, got[i], want[i])
		}
	}
	if !bytes.Equal(gotSum, wantSum) {
		t.Fatalf("%s: got digest %x, want %x", name, gotSum, wantSum)
	}
}

func prefetchInputs(t testing.TB) map[string][]byte {
	in := map[string][]byte{}
	files, _ := filepath.Glob("../testdata/codex/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(f)] = b
	}
	many := strings.Repeat(`{"type":"error","message":"m"}`+"\n", 3000)
	long := `{"type":"error","message":"` + strings.Repeat("x", 200<<10) + `"}` + "\n"
	in["empty"] = nil
	in["bom"] = []byte("\xef\xbb\xbf{}\n")
	in["many records"] = []byte(many)
	in["many then blank"] = []byte(many + "\n")
	in["invalid utf8 late"] = []byte(many + "{\"a\":\"\xff\"}\n" + many)
	in["nul late"] = []byte(many + "{\x00}\n")
	in["long lines"] = []byte(long + many + long)
	in["no final newline"] = []byte(strings.TrimSuffix(many, "\n"))
	in["too many records"] = []byte(strings.Repeat("{}\n", MaxRecords+1))
	in["too large"] = []byte(strings.Repeat(long, MaxBytes/len(long)+1))
	in["malformed late"] = []byte(many + `{"type":}` + "\n" + many)
	in["duplicate late"] = []byte(many + `{"a":1,"a":2}` + "\n")
	in["item elements"] = []byte(strings.Repeat(`{"type":"item.completed","item":{"id":"i","items":[{"a":1,"b":"x"},2,{}]}}`+"\n"+
		`{"type":"x","item":{"items":[`+strings.Repeat(`{"k":1},`, 300)+`{}]}}`+"\n", 500))
	in["web_search ids"] = []byte(strings.Repeat(`{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws","query":"q"}}`+"\n", 2000))
	in["malformed after long"] = []byte(long + long + "{\n" + many)
	// longer than a product batch: lent to the batch, not copied
	longer := `{"type":"error","message":"` + strings.Repeat("y", 300<<10) + `"}`
	in["records longer than a batch"] = []byte(longer + "\n" + many + longer + "\n" + longer + "\n" + long + longer)
	in["malformed longer than a batch"] = []byte(many + longer[:len(longer)-1] + "\n" + many)
	return in
}

// sameCheckedPrefetch checks that Prefetch with a checker returns what
// Lines returns followed, record by record, by a Checker's verdict, up to
// and including the first record the checker rejects, then errRejected.
func sameCheckedPrefetch(t *testing.T, name string, in []byte, sizes []batchSize) {
	t.Helper()
	for _, size := range sizes {
		p := newPrefetch(NewLines(bytes.NewReader(in)), &Checker{Locate: prefetchLocate}, size.bytes, size.lines)
		sameChecked(t, name, in, p)
		p.Close()
	}
}

// prefetchLocate locates everything a Checker can: codex's item and its
// result, and the item's items with their members.
var prefetchLocate = Locate{Child: "item", Grandchild: "result", TwiceInChild: "id", ChildElements: "items"}

func sameChecked(t *testing.T, name string, in []byte, p *Prefetch) {
	t.Helper()
	l := NewLines(bytes.NewReader(in))
	var c Checker
	c.Locate = prefetchLocate
	for n := 1; ; n++ {
		want, wantErr := l.Next()
		got, gotErr := p.Next()
		if p.Record() != l.Record() || p.Bytes() != l.Bytes() {
			t.Fatalf("%s: step %d: record %d bytes %d, want %d %d", name, n, p.Record(), p.Bytes(), l.Record(), l.Bytes())
		}
		if wantErr != nil {
			if gotErr == nil || gotErr.Error() != wantErr.Error() {
				t.Fatalf("%s: step %d: got error %v, want %v", name, n, gotErr, wantErr)
			}
			if !bytes.Equal(p.Sum(), l.Sum()) {
				t.Fatalf("%s: digest differs", name)
			}
			return
		}
		if gotErr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: step %d: got %q, %v, want %q", name, n, got, gotErr, want)
		}
		code := c.Check(want)
		v := p.Checked()
		if v.Code != code || (code != 0 && v.Cause != c.Cause()) {
			t.Fatalf("%s: step %d: verdict %v (%v), want %v (%v)", name, n, v.Code, v.Cause, code, c.Cause())
		}
		if code != 0 {
			if _, err := p.Next(); err != errRejected {
				t.Fatalf("%s: after a rejected record: %v, want errRejected", name, err)
			}
			if p.Record() != l.Record() {
				t.Fatalf("%s: record %d after the rejected one, want %d", name, p.Record(), l.Record())
			}
			return
		}
		if !slices.Equal(v.Root, c.Root) || !slices.Equal(v.Child, c.Child) || !slices.Equal(v.Grandchild, c.Grandchild) {
			t.Fatalf("%s: step %d: members %v %v %v, want %v %v %v", name, n, v.Root, v.Child, v.Grandchild, c.Root, c.Child, c.Grandchild)
		}
		if !slices.Equal(v.Elements, c.Elements) || !slices.Equal(v.ElementMembers, c.ElementMembers) || v.ElementsCut != c.ElementsCut {
			t.Fatalf("%s: step %d: elements %v %v %v, want %v %v %v", name, n, v.Elements, v.ElementMembers, v.ElementsCut, c.Elements, c.ElementMembers, c.ElementsCut)
		}
	}
}

func TestPrefetchIsLines(t *testing.T) {
	for name, in := range prefetchInputs(t) {
		t.Run(name, func(t *testing.T) {
			samePrefetch(t, name, in, allBatches)
			sameCheckedPrefetch(t, name, in, allBatches)
		})
	}
}

// TestPrefetchClose checks that a caller stopping early ends the reading
// goroutine.
func TestPrefetchClose(t *testing.T) {
	before := runtime.NumGoroutine()
	in := []byte(strings.Repeat(`{"type":"error","message":"m"}`+"\n", 20000))
	for range 10 {
		p := NewPrefetch(NewLines(bytes.NewReader(in)), &Checker{})
		if _, err := p.Next(); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("got %d goroutines after Close, want at most %d", n, before)
	}
}

// FuzzPrefetch: on any input, Prefetch returns what Lines returns.
func FuzzPrefetch(f *testing.F) {
	for _, in := range prefetchInputs(f) {
		if len(in) < 1<<20 {
			f.Add(in)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Tiny batches hand every record over twice between goroutines:
		// on a long input that outlasts the fuzzer's 10-second limit per
		// input (golang/go#56238), so long inputs run at the product's size.
		sizes := smallBatches
		if len(in) > 32<<10 {
			sizes = allBatches[:1]
		}
		samePrefetch(t, "fuzz input", in, sizes)
		sameCheckedPrefetch(t, "fuzz input", in, sizes)
	})
}

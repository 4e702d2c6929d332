package stream

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// canonSame fails unless WriteCanonical writes exactly AppendCanonical's
// form of v and counts it.
func canonSame(t *testing.T, v []byte) {
	t.Helper()
	var buf bytes.Buffer
	n := WriteCanonical(&buf, v)
	want := AppendCanonical(nil, v)
	if !bytes.Equal(buf.Bytes(), want) || n != int64(len(want)) {
		g, w := buf.String(), string(want)
		if len(g) > 200 || len(w) > 200 {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("WriteCanonical of %d bytes: %d bytes (counted %d), AppendCanonical %d; first difference at %d", len(v), len(g), n, len(w), i)
		}
		t.Fatalf("WriteCanonical(%s) = %s (counted %d), want %s", v, g, n, w)
	}
}

func TestWriteCanonicalSame(t *testing.T) {
	for _, v := range canonCorpus(t) {
		canonSame(t, v)
	}
	for _, v := range []string{
		`{"b":1,"a":{"d":[{"y":1,"x":2}],"c":"\u00e9"}}`,
		`[{"\u0062":1,"a":2},{"a":1,"\u0062":2}]`,
		`{"é":1,"\u00e8":2,"e":3}`,
		`{"a\\":1,"a":2,"a\"":3}`,
		`{"scope":"project","query":"x"}`,
		// names that agree for a while, one a prefix of another, an escape
		// after the common part, escapes that sort other than they read
		`{"abc":1,"ab":2,"":3,"a\u0062d":4,"a\"":5,"aB":6,"ab\\":7,"\u0041":8,"@":9,"a!":10,"a\u0020":11}`,
		`"plain"`, `1.50e3`, `[1e0,{"z":[],"y":{}}]`,
	} {
		canonSame(t, []byte(v))
	}
	// Long strings, with escapes of every kind around the places a piece
	// may be cut.
	escapes := []string{`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\u0001`, "é", "x", "xxxxxxx", `\t`}
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		var b strings.Builder
		b.WriteString(`{"z":"`)
		for b.Len() < canonChunk*3+r.IntN(canonChunk) {
			b.WriteString(escapes[r.IntN(len(escapes))])
		}
		b.WriteString(`","a":[`)
		if round%2 == 0 {
			b.WriteString(`"` + strings.Repeat("y", canonChunk+round) + `"`)
		} else {
			b.WriteString(strings.Repeat("1.0,", canonChunk/4) + "2")
		}
		b.WriteString(`]}`)
		canonSame(t, []byte(b.String()))
	}
	// The hostile shapes, one out of order at the top.
	for _, shape := range hostileShapes {
		rec := hostileRecord(shape, 1<<20)
		c := Checker{Locate: codexLocate}
		canonSame(t, arguments(t, &c, rec))
	}
}

// countWriter counts what it is given.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestWriteCanonicalAllocations: the canonical form of a 16 MiB hostile
// argument is written out in pieces, never held whole: a few pieces of
// memory, and for an object of a million members out of order four bytes
// a member (AppendCanonical needs the whole form, 16 MiB and more).
func TestWriteCanonicalAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	if testing.Short() {
		t.Skip("builds 16 MiB records")
	}
	for _, shape := range hostileShapes {
		rec := hostileRecord(shape, MaxBytes-1024)
		c := Checker{Locate: codexLocate}
		args := arguments(t, &c, rec)
		var w countWriter
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := WriteCanonical(&w, args)
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		limit := uint64(1 << 20)
		if shape == "members" {
			limit = 8 << 20 // four bytes per member: their offsets
		}
		t.Logf("%s: %d bytes of canonical form, %d KiB allocated", shape, n, got>>10)
		if n != w.n || n < int64(len(args))/2 {
			t.Errorf("%s: counted %d bytes, wrote %d, for %d bytes of arguments", shape, n, w.n, len(args))
		}
		if got > limit {
			t.Errorf("%s: %d KiB allocated to write the canonical form of %d MiB, want at most %d KiB", shape, got>>10, len(args)>>20, limit>>10)
		}
	}
}

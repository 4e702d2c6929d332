package stream

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/cairn-audit/cairn/stream/streamtest"
)

// FuzzChunking reads arbitrary bytes with Lines, Prefetch and Document, once in
// one Read and then cut into Reads by seed (one byte each, or random sizes
// from 0 up), and requires the same records, parts, counts, error and
// digest (SPEC §3); it also runs the guard alone over the same cuts and
// compares it with a reading of the whole input at once.
func FuzzChunking(f *testing.F) {
	for _, b := range ckShipped(f) {
		f.Add(b, uint64(0))
	}
	for i, e := range ckEdges() {
		f.Add(e.in, uint64(i))
	}
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		wantLines, wantDoc := ckLines(bytes.NewReader(in)), ckDocument(bytes.NewReader(in))
		open := func() io.Reader {
			switch seed % 4 {
			case 0:
				return iotest.OneByteReader(bytes.NewReader(in))
			case 1:
				return iotest.DataErrReader(streamtest.RandReader(in, seed, 0, 5))
			default:
				return streamtest.RandReader(in, seed, 1, 1<<(seed%13))
			}
		}
		if got := ckLines(open()); got != wantLines {
			t.Fatalf("Lines, seed %d:\n got %s\nwant %s", seed, shorten(got), shorten(wantLines))
		}
		if got := ckPrefetch(open()); got != wantLines {
			t.Fatalf("Prefetch, seed %d:\n got %s\nwant %s", seed, shorten(got), shorten(wantLines))
		}
		if got := ckDocument(open()); got != wantDoc {
			t.Fatalf("Document, seed %d:\n got %s\nwant %s", seed, shorten(got), shorten(wantDoc))
		}
		wantCode, wantN := ckGuardWhole(in)
		cuts := ckRandomCuts(rand.New(rand.NewPCG(seed, 2)), len(in))
		code, n, sum := ckGuardChunks(in, cuts)
		if code != wantCode || n != wantN {
			t.Fatalf("guard cut at %v: %v at %d, want %v at %d", cuts, code, n, wantCode, wantN)
		}
		if want := sha256.Sum256(in); code == 0 && !bytes.Equal(sum, want[:]) {
			t.Fatalf("guard cut at %v: wrong digest", cuts)
		}
	})
}

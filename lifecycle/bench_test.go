package lifecycle

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/cairn-audit/cairn/stream"
)

// BenchmarkDecodeApply decodes every record of an export from the members
// the JSON checker located (the checking itself is done beforehand, out of
// the timing) and runs both FSMs over it: the lifecycle's share of an
// audit. The export is the one named by CAIRN_BENCH_FILE, or the largest
// shipped sample.
func BenchmarkDecodeApply(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_FILE")
	if path == "" {
		path = "../testdata/codex/g-coding-session.jsonl"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	type checked struct {
		line []byte
		loc  stream.Located
	}
	var recs []checked
	c := stream.Checker{Locate: Locate}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if c.Check(line) != 0 {
			b.Fatal("the export holds a record the checker rejects")
		}
		recs = append(recs, checked{line, stream.Located{Root: slices.Clone(c.Root), Child: slices.Clone(c.Child), Grandchild: slices.Clone(c.Grandchild)}})
	}
	var d Decoder
	var rec Record
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m := NewMachine()
		for _, r := range recs {
			if code := d.DecodeChecked(r.line, &r.loc, &rec); code != 0 {
				b.Fatal(code)
			}
			if _, code := m.Apply(&rec); code != 0 {
				b.Fatal(code)
			}
		}
	}
}

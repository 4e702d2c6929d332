package stream

import (
	"bytes"
	"os"
	"testing"
)

// benchInput is the export named by CAIRN_BENCH_FILE, or the largest
// shipped sample.
func benchInput(b *testing.B) []byte {
	path := os.Getenv("CAIRN_BENCH_FILE")
	if path == "" {
		path = "../testdata/codex/g-coding-session.jsonl"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkLines frames an export: guard (size, encoding), digest, lines.
func BenchmarkLines(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		l := NewLines(bytes.NewReader(data))
		for {
			if _, err := l.Next(); err != nil {
				break
			}
		}
		if l.Sum() == nil {
			b.Fatal("input not read whole")
		}
	}
}

// BenchmarkChecker checks every record of an export.
func BenchmarkChecker(b *testing.B) {
	data := benchInput(b)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	c := Checker{Locate: codexLocate}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, line := range lines {
			if code := c.Check(line); code != 0 {
				b.Fatal(code)
			}
		}
	}
}

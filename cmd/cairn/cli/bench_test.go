package cli

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// BenchmarkAuditCodex runs the whole audit, bytes to report, over the
// export named by CAIRN_BENCH_FILE (default: the largest shipped sample).
func BenchmarkAuditCodex(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_FILE")
	if path == "" {
		path = "../../../testdata/codex/g-coding-session.jsonl"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	}
	args := []string{"eval", "protocol", "--codex-jsonl", "-", "--json"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		status := run(args, bytes.NewReader(data), io.Discard, io.Discard, getenv)
		if status == 2 {
			b.Fatal("invalid input")
		}
	}
}

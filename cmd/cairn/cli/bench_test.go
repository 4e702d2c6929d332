package cli

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// BenchmarkAuditCodex runs the whole audit, bytes to report, over the
// export named by CAIRN_BENCH_FILE (default: the largest shipped sample),
// read as CAIRN_BENCH_FORMAT (a format of the table; default codex-jsonl):
//
//	go run ./scripts/gengemini > /tmp/gemini.jsonl
//	CAIRN_BENCH_FORMAT=gemini-jsonl CAIRN_BENCH_FILE=/tmp/gemini.jsonl go test ./cmd/cairn/cli -run '^$' -bench AuditCodex
func BenchmarkAuditCodex(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_FILE")
	if path == "" {
		path = "../../../testdata/codex/g-coding-session.jsonl"
	}
	format := os.Getenv("CAIRN_BENCH_FORMAT")
	if format == "" {
		format = "codex-jsonl"
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
	args := []string{"eval", "protocol", "--" + format, "-", "--json"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		status := run(args, bytes.NewReader(data), io.Discard, io.Discard, getenv)
		if status == 2 {
			b.Fatal("invalid input")
		}
	}
}

package normalize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/normalize"
)

// FuzzQwen is FuzzClaude's property for the Qwen Code dialect (SPEC §18):
// the front end fed record by record and the reader, inline and with the
// prefetch, agree; every error and finding names a place of
// normalize.QwenPlaces(). Seeded from the real Qwen Code captures (every
// version), the streams of testdata/script/qwen_*.txtar, and turns of
// Qwen Code's own: a bridged delete, a bridge without arguments, a task
// naming a call, an API-error text before a failed result.
func FuzzQwen(f *testing.F) {
	seeds := qwenSeeds(f)
	for _, in := range seeds[:len(seeds):len(seeds)] {
		seeds = append(seeds,
			bytes.ReplaceAll(in, []byte(`"name":"mcp__cairn-memory__memory_search","arguments"`), []byte(`"name":"mcp__cairn-memory__memory_delete","arguments"`)),
			bytes.ReplaceAll(in, []byte(`"arguments"`), []byte(`"args"`)),
			bytes.ReplaceAll(in, []byte(`"subtype":"task_notification"`), []byte(`"subtype":"task_started"`)),
			bytes.ReplaceAll(in, []byte(`"is_error":false,"duration_ms"`), []byte(`"is_error":true,"duration_ms"`)),
			bytes.ReplaceAll(in, []byte(`"text":"`), []byte(`"text":"[API Error: `)))
	}
	fuzzClaudeDialect(f, seeds, claudeDialect{
		name: "qwen-code", places: normalize.QwenPlaces(), front: normalize.NewQwen,
		checker: normalize.NewQwenChecker, read: normalize.ReadQwen,
	})
}

// qwenSeeds are the real Qwen Code captures and the streams of the
// qwen_*.txtar scripts.
func qwenSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob("../testdata/qwen/real/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no real Qwen Code captures (%v)", err)
	}
	scripts, _ := filepath.Glob("../testdata/script/qwen_*.txtar")
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			tb.Fatal(err)
		}
		for _, file := range a.Files {
			if filepath.Ext(file.Name) == ".jsonl" {
				out = append(out, file.Data)
			}
		}
	}
	return out
}

//go:build !wasip1

package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

func humanReport(color bool) string {
	r := audit.NewReport(audit.FormatCodex, "file", audit.DefaultRules(false))
	r.SetHarness("codex")
	r.Conclude(audit.Checks{
		EvidenceComplete:    audit.Verdict{State: audit.Pass, Codes: []audit.Code{}},
		MemoryFirst:         audit.Verdict{State: audit.Fail, Codes: []audit.Code{audit.ToolBeforeProjectSearch}},
		RetrievalResult:     audit.Verdict{State: audit.Inconclusive, Codes: []audit.Code{audit.SearchResultMissing}},
		DirectWriteBoundary: audit.Verdict{State: audit.Pass, Codes: []audit.Code{}},
	})
	var b bytes.Buffer
	text, _ := render.FormatNamed("text")
	text.New(&b, render.Options{Color: color}).Input(render.Input{Position: 1, Report: r})
	return b.String()
}

func TestHumanColour(t *testing.T) {
	plain, colored := humanReport(false), humanReport(true)
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("plain output has escape codes:\n%s", plain)
	}
	for _, want := range []string{"\x1b[31mFAIL\x1b[0m", "\x1b[32mpass\x1b[0m", "\x1b[31mfail\x1b[0m", "\x1b[33minconclusive\x1b[0m"} {
		if !strings.Contains(colored, want) {
			t.Errorf("coloured output lacks %q:\n%s", want, colored)
		}
	}
	strip := strings.NewReplacer("\x1b[31m", "", "\x1b[32m", "", "\x1b[33m", "", "\x1b[1;31m", "", "\x1b[0m", "")
	if got := strip.Replace(colored); got != plain {
		t.Errorf("colour changes the text or its alignment:\n got %q\nwant %q", got, plain)
	}
}

// TestNoColourOffTerminal checks that run never colours a pipe, with or
// without NO_COLOR.
func TestNoColourOffTerminal(t *testing.T) {
	for _, env := range []map[string]string{{"CAIRN_EVAL": "1"}, {"CAIRN_EVAL": "1", "NO_COLOR": "1"}} {
		_, out, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", mustAbs(t, "../../../testdata/codex/d-command-before-memory-search.jsonl")}, env)
		if strings.Contains(out, "\x1b[") || !strings.Contains(out, "FAIL") {
			t.Errorf("output to a pipe: got %q, want plain text", out)
		}
	}
}

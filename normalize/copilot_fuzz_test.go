package normalize_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
)

// FuzzCopilot is FuzzClaude for the GitHub Copilot CLI front end (SPEC
// §17), seeded from the real captures (every version) and
// copilot_stream.txtar: each line through a stream.Checker and
// Copilot.Checked, then End and the engine's Finish, and the whole input
// through ReadCopilot. No panic; every error an *audit.InputError with an
// invalid code at the record fed and a place of CopilotPlaces(); every
// finding at such a place; the read concludes what the loop did when it
// sees the loop's records.
func FuzzCopilot(f *testing.F) {
	for _, in := range cliSeeds(f, "copilot") {
		f.Add(in)
		lines := bytes.SplitAfter(in, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))
		f.Add(bytes.ReplaceAll(in, []byte(`"toolName":"task"`), []byte(`"toolName":"cairn-memory-memory_store"`)))
		f.Add(bytes.ReplaceAll(in, []byte(`"success":true`), []byte(`"success":false`)))
		f.Add(bytes.ReplaceAll(in, []byte(`"type":"abort"`), []byte(`"type":"assistant.idle"`)))
	}
	f.Add([]byte{})
	places := map[string]bool{}
	for _, p := range normalize.CopilotPlaces() {
		places[p] = true
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		simple := len(in) > 0 && utf8.Valid(in) && !bytes.HasPrefix(in, []byte("\xef\xbb\xbf"))
		for line := range bytes.SplitSeq(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
			if len(bytes.Trim(line, " \t\r")) == 0 {
				simple = false
			}
		}
		engine := audit.NewEngine(audit.DefaultRules(false))
		fed := feedLines(t, places, in, engine, normalize.NewCopilot(engine), normalize.NewCopilotChecker())

		got := normalize.ReadCopilot(bytes.NewReader(in), audit.DefaultRules(false))
		if got.Harness != "copilot" {
			t.Fatalf("harness %q", got.Harness)
		}
		if got.Err != nil {
			claudeCheckError(t, places, got.Err, -2)
		} else {
			claudeCheckFindings(t, places, got.Engine)
		}
		var ie *audit.InputError
		if errors.As(got.Err, &ie) && ie.Record == -1 {
			simple = false // an encoding the reader refuses as a whole
		}
		if a := claudeOutcomeOf(got.Engine, got.Err); simple && a != fed {
			t.Fatalf("read: %s\nfed:  %s", a, fed)
		}
	})
}

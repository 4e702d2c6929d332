package normalize_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
)

// fuzzFront is what FuzzFront needs of a JSONL front end: its harness, its
// places, how to make it and its checker, and its whole-input reader.
type fuzzFront struct {
	cli, harness string
	places       []string
	make         func(*audit.Engine) frontEnd
	checker      func() *stream.Checker
	read         func(io.Reader, audit.Rules) normalize.Input
	// mutations are replacements that turn a seed into a neighbour worth
	// a seed of its own (a memory call, an error, a cut lifecycle).
	mutations [][2]string
}

// fuzzFrontEnd fuzzes a JSONL front end: seeded from the real captures
// and the CLI's stream script (and mutations of them), each line through the
// front end's checker and Checked, then End and the engine's Finish, and
// the whole input through its reader. No panic; every error an
// *audit.InputError with an invalid code at the record fed and a place of
// the front end's; every finding at such a place; the read concludes what
// the loop did when it sees the loop's records. These run the parser
// alone: FuzzOpenCode ran 4.2 million inputs in four minutes where
// FuzzAuditOpenCode, through the CLI, ran 15 thousand in five.
func fuzzFrontEnd(f *testing.F, fe fuzzFront) {
	for _, in := range cliSeeds(f, fe.cli) {
		f.Add(in)
		lines := bytes.SplitAfter(in, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))
		for _, m := range fe.mutations {
			if mut := bytes.ReplaceAll(in, []byte(m[0]), []byte(m[1])); !bytes.Equal(mut, in) {
				f.Add(mut)
			}
		}
	}
	f.Add([]byte{})
	places := map[string]bool{}
	for _, p := range fe.places {
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
		fed := feedLines(t, places, in, engine, fe.make(engine), fe.checker())

		got := fe.read(bytes.NewReader(in), audit.DefaultRules(false))
		if got.Harness != fe.harness {
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

// FuzzPi: the Pi front end (SPEC §12), its codemode bookkeeping calls
// among the mutations (SPEC v4: a call with a lifecycle).
func FuzzPi(f *testing.F) {
	fuzzFrontEnd(f, fuzzFront{cli: "pi", harness: "pi", places: normalize.PiPlaces(),
		make:    func(e *audit.Engine) frontEnd { return normalize.NewPi(e) },
		checker: normalize.NewPiChecker, read: normalize.ReadPi,
		mutations: [][2]string{
			{`"type":"tool_execution_end"`, `"type":"tool_execution_update"`},
			{`"isError":false`, `"isError":true`},
			{`"name":"bash"`, `"name":"codemode"`},
			{`"type":"agent_end"`, `"type":"turn_end"`},
		}})
}

// FuzzGemini: the Gemini CLI front end (SPEC §11), update_topic among the
// mutations (SPEC v4: a bookkeeping call with a lifecycle).
func FuzzGemini(f *testing.F) {
	fuzzFrontEnd(f, fuzzFront{cli: "gemini", harness: "gemini-cli", places: normalize.GeminiPlaces(),
		make:    func(e *audit.Engine) frontEnd { return normalize.NewGemini(e) },
		checker: normalize.NewGeminiChecker, read: normalize.ReadGemini,
		mutations: [][2]string{
			{`"type":"tool_result"`, `"type":"message"`},
			{`"status":"success"`, `"status":"error"`},
			{`"tool_name":"run_shell_command"`, `"tool_name":"update_topic"`},
		}})
}

// FuzzOpenCode: the OpenCode run front end (SPEC §13), a tool part's
// members in other records' parts among the mutations (SPEC v4: a tool
// part is never narration).
func FuzzOpenCode(f *testing.F) {
	fuzzFrontEnd(f, fuzzFront{cli: "opencode", harness: "opencode", places: normalize.OpenCodePlaces(),
		make:    func(e *audit.Engine) frontEnd { return normalize.NewOpenCode(e) },
		checker: normalize.NewOpenCodeChecker, read: normalize.ReadOpenCode,
		mutations: [][2]string{
			{`"type":"tool_use"`, `"type":"text"`},
			{`"type":"text","timestamp"`, `"type":"tool_use","timestamp"`},
			{`"status":"completed"`, `"status":"error"`},
			{`"reason":"stop"`, `"reason":"tool-calls"`},
		}})
}

// FuzzCline: the Cline CLI front end (SPEC §19), a tool's end, an error
// result, sub-agents' frames and the run's end among the mutations.
func FuzzCline(f *testing.F) {
	fuzzFrontEnd(f, fuzzFront{cli: "cline", harness: "cline", places: normalize.ClinePlaces(),
		make:    func(e *audit.Engine) frontEnd { return normalize.NewCline(e) },
		checker: normalize.NewClineChecker, read: normalize.ReadCline,
		mutations: [][2]string{
			{`"type":"content_end"`, `"type":"content_start"`},
			{`"contentType":"tool"`, `"contentType":"text"`},
			{`"hookEventName":"agent_end"`, `"hookEventName":"agent_start"`},
			{`"type":"run_result"`, `"type":"agent_event"`},
		}})
}

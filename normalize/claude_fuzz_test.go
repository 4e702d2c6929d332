package normalize_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
)

// FuzzClaude feeds arbitrary record lines to the Claude Code front end
// (SPEC §9) at the normalize level: each line through a stream.Checker and
// Claude.Checked, then End and the engine's Finish; and the whole input
// through ReadClaude, on one goroutine (a sized reader) and with the
// prefetch (a plain reader). Properties: no panic; every error is an
// *audit.InputError with an invalid code of SPEC §8, at the record that was
// fed, and a place of normalize.ClaudePlaces() (or none); nothing is fed
// after an error; every finding's place is one of ClaudePlaces(); both
// reads conclude the same, and the same as the loop when the reader sees
// the loop's records (UTF-8, no byte-order mark, no blank record).
func FuzzClaude(f *testing.F) {
	fuzzClaudeDialect(f, claudeSeeds(f), claudeDialect{
		name: "claude-code", places: normalize.ClaudePlaces(), front: normalize.NewClaude,
		checker: normalize.NewClaudeChecker, read: normalize.ReadClaude,
	})
}

// claudeDialect is what FuzzClaude's property needs of a dialect of the
// Claude Code reader: its harness, places, front end, checker and reader.
type claudeDialect struct {
	name    string
	places  []string
	front   func(*audit.Engine) *normalize.Claude
	checker func() *stream.Checker
	read    normalize.Reader
}

// fuzzClaudeDialect is FuzzClaude's property for dialect d, seeded with
// seeds.
func fuzzClaudeDialect(f *testing.F, seeds [][]byte, d claudeDialect) {
	for _, in := range seeds {
		f.Add(in)
		lines := bytes.SplitAfter(in, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // init twice
		f.Add(bytes.ReplaceAll(in, []byte(`"result"`), []byte(`"stream_event"`)))
		f.Add(bytes.ReplaceAll(in, []byte(`"tool_use"`), []byte(`"server_tool_use"`)))
		f.Add(bytes.ReplaceAll(in, []byte(`"parent_tool_use_id":null`), []byte(`"parent_tool_use_id":"toolu_x"`)))
	}
	f.Add([]byte{})
	f.Add([]byte(`{"type":"system","subtype":"init","mcp_servers":[{"name":"cairn-memory","status":"connected"}]}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"ToolSearch","input":{}}]},"parent_tool_use_id":null}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[]}]}}` + "\n" +
		`{"type":"result","subtype":"success","is_error":false}` + "\n"))
	places := map[string]bool{}
	for _, p := range d.places {
		places[p] = true
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// The reader sees the same records as the loop below when the
		// input is UTF-8 with no byte-order mark and no blank record.
		simple := len(in) > 0 && utf8.Valid(in) && !bytes.HasPrefix(in, []byte("\xef\xbb\xbf"))
		for line := range bytes.SplitSeq(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
			if len(bytes.Trim(line, " \t\r")) == 0 {
				simple = false
			}
		}
		for _, capture := range []bool{false, true} {
			engine := audit.NewEngine(audit.DefaultRules(capture))
			fed := feedLines(t, places, in, engine, d.front(engine), d.checker())
			if !capture {
				// A message's content blocks walked, as the reader does
				// where the checker located none of them: the same.
				engine := audit.NewEngine(audit.DefaultRules(false))
				if walked := feedLines(t, places, in, engine, walkBlocks{d.front(engine)}, d.checker()); walked != fed {
					t.Fatalf("blocks located: %s\nblocks walked:  %s", fed, walked)
				}
			}

			// On one goroutine (a sized reader) and with the prefetch (a
			// plain one): both give what the loop above gave.
			inline := d.read(bytes.NewReader(in), audit.DefaultRules(capture))
			reads := []normalize.Input{inline}
			if !capture { // the prefetch is costly to start: once an input
				reads = append(reads, d.read(struct{ io.Reader }{bytes.NewReader(in)}, audit.DefaultRules(capture)))
			}
			for _, got := range reads {
				// Only another dialect's init (Claude Code reading a Qwen
				// Code stream) leaves the harness unknown.
				if got.Harness != d.name && (got.Harness != "" || !bytes.Contains(in, []byte("qwen_code_version"))) {
					t.Fatalf("harness %q", got.Harness)
				}
				if got.Err != nil {
					claudeCheckError(t, places, got.Err, -2)
					if got.Sum != nil {
						t.Fatal("a digest with an error")
					}
					continue
				}
				if got.Sum == nil || got.Bytes != int64(len(in)) {
					t.Fatalf("read %d of %d bytes, digest %x", got.Bytes, len(in), got.Sum)
				}
				claudeCheckFindings(t, places, got.Engine)
			}
			a := claudeOutcomeOf(inline.Engine, inline.Err)
			if len(reads) == 2 {
				if b := claudeOutcomeOf(reads[1].Engine, reads[1].Err); a != b {
					t.Fatalf("read inline: %s\nread ahead:  %s", a, b)
				}
			}
			var ie *audit.InputError
			if errors.As(inline.Err, &ie) && ie.Record == -1 {
				simple = false // an encoding the reader refuses as a whole (NUL: UTF-16)
			}
			if simple && a != fed {
				t.Fatalf("read: %s\nfed:  %s", a, fed)
			}
		}
	})
}

// walkBlocks is a Claude Code reader given verdicts without the content
// blocks the checker located, as for an array longer than it locates
// (ElementsCut): it walks them.
type walkBlocks struct{ *normalize.Claude }

func (w walkBlocks) Checked(line []byte, n int, v stream.Verdict) error {
	v.ElementsCut = len(v.Elements) > 0
	v.Elements, v.ElementMembers = nil, nil
	return w.Claude.Checked(line, n, v)
}

// frontEnd is a JSONL front end as the fuzz targets feed it.
type frontEnd interface {
	Checked(line []byte, n int, v stream.Verdict) error
	End() error
}

// feedLines feeds each non-blank UTF-8 line of in, checked by checker, to
// fe, then its End: every error must be an invalid code at the record fed
// and a place of places (and the checker's own code when it refused the
// record), every finding at such a place. It returns what the engine
// concluded.
func feedLines(t *testing.T, places map[string]bool, in []byte, engine *audit.Engine, fe frontEnd, checker *stream.Checker) string {
	t.Helper()
	n := 0
	var stopped error
	for line := range bytes.SplitSeq(in, []byte("\n")) {
		if len(bytes.Trim(line, " \t\r")) == 0 || !utf8.Valid(line) {
			continue // the reader's business, not the front end's
		}
		n++
		code := checker.Check(line)
		v := stream.Verdict{Code: code, Cause: checker.Cause(), Located: checker.Located}
		if err := fe.Checked(line, n, v); err != nil {
			ie := claudeCheckError(t, places, err, n)
			if code != 0 && ie.Code != code {
				t.Fatalf("record %d: the checker said %s, Checked %s", n, code, ie.Code)
			}
			stopped = err
			break
		}
	}
	if stopped == nil {
		if err := fe.End(); err != nil {
			t.Fatalf("End: %v", err)
		}
		claudeCheckFindings(t, places, engine)
	}
	return claudeOutcomeOf(engine, stopped)
}

// claudeOutcomeOf is what a finished engine concluded, or the error.
func claudeOutcomeOf(e *audit.Engine, err error) string {
	if err != nil {
		var ie *audit.InputError
		if errors.As(err, &ie) {
			return fmt.Sprintf("invalid %s at %d %q", ie.Code, ie.Record, ie.Where)
		}
		return "error " + err.Error()
	}
	c, counts := e.Finish()
	var b strings.Builder
	fmt.Fprintf(&b, "%v %+v", c, counts)
	for _, f := range e.Findings() {
		r, w := -1, ""
		if f.Record != nil {
			r = *f.Record
		}
		if f.Where != nil {
			w = *f.Where
		}
		fmt.Fprintf(&b, " %d:%s@%s", r, f.Code, w)
	}
	return b.String()
}

// claudeCheckError checks an error of the Claude front end: an
// *audit.InputError with an invalid code, at record n (-2: any record of
// the input), at a place of the contract.
func claudeCheckError(t *testing.T, places map[string]bool, err error, n int) *audit.InputError {
	t.Helper()
	var ie *audit.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *audit.InputError", err, err)
	}
	if ie.Code.Kind() != audit.KindInvalid {
		t.Fatalf("error code %s is not an invalid code", ie.Code)
	}
	if n != -2 && ie.Record != n {
		t.Fatalf("%s at record %d, fed record %d", ie.Code, ie.Record, n)
	}
	if ie.Where != "" && !places[ie.Where] {
		t.Fatalf("%s at %q, not a place of the contract", ie.Code, ie.Where)
	}
	return ie
}

// claudeCheckFindings finishes the engine and checks that every finding
// names a place of the contract.
func claudeCheckFindings(t *testing.T, places map[string]bool, e *audit.Engine) {
	t.Helper()
	e.Finish()
	for _, f := range e.Findings() {
		if f.Where != nil && !places[*f.Where] {
			t.Fatalf("finding %s at %q, not a place of the contract", f.Code, *f.Where)
		}
	}
}

// claudeSeeds are the real Claude Code captures (every version) and the
// streams of testdata/script/claude_stream.txtar.
func claudeSeeds(tb testing.TB) [][]byte { return cliSeeds(tb, "claude") }

// cliSeeds are the real captures of a CLI (testdata/CLI/real, every
// version) and the streams of testdata/script/CLI_stream.txtar.
func cliSeeds(tb testing.TB, cli string) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob("../testdata/" + cli + "/real/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no real %s captures (%v)", cli, err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	a, err := txtar.ParseFile("../testdata/script/" + cli + "_stream.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	for _, file := range a.Files {
		if filepath.Ext(file.Name) == ".jsonl" {
			out = append(out, file.Data)
		}
	}
	return out
}

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
)

// FuzzAuditClaude is FuzzAudit for --claude-jsonl (SPEC §9): arbitrary
// bytes, as a Claude Code stream-json stream on standard input, through
// run() with and without --json. Properties: no panic; the exit code is 0–3
// and agrees with the report's status; the JSON report is one object on one
// line with every member, harness claude-code, the input's size and digest
// when it was read whole; an invalid status carries an invalid code of SPEC
// §8; every where of the findings and of the error is one of
// normalize.ClaudePlaces(); the human report agrees; and no piece of the
// input made of 8 or more letters and digits reaches stdout or stderr,
// unless the report's own vocabulary holds it.
func FuzzAuditClaude(f *testing.F) {
	// The newest captures only: the seed run is part of every go test.
	seeds := fzClaudeSeeds(f, "2.1.332")
	vocab := fzClaudeVocabulary(seeds)
	for _, b := range seeds {
		f.Add(b)
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                 // cut short
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil)) // init twice
		f.Add(bytes.ReplaceAll(b, []byte(`"result"`), []byte(`"MARKERrecord1"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"ToolSearch"`), []byte(`"mcp__cairn-memory__memory_delete"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"cairn-memory"`), []byte(`"MARKERserver9"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`))) // a marker in every string
	}
	f.Add([]byte{})
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditClaudeInput(t, vocab, in) })
}

// fzClaudeSeeds are the real Claude Code captures of version ("*": every
// version) and the streams of testdata/script/claude_stream.txtar.
func fzClaudeSeeds(tb testing.TB, version string) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob("../../../testdata/claude/real/" + version + "/*.jsonl")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no real Claude captures (%v)", err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	for _, c := range claudeScriptCases(tb) {
		out = append(out, c.data)
	}
	return out
}

// claudeCase is one stream of claude_stream.txtar.
type claudeCase struct {
	name string
	data []byte
}

func claudeScriptCases(tb testing.TB) []claudeCase {
	tb.Helper()
	a, err := txtar.ParseFile("../../../testdata/script/claude_stream.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	var out []claudeCase
	for _, file := range a.Files {
		if strings.HasSuffix(file.Name, ".jsonl") {
			out = append(out, claudeCase{file.Name, file.Data})
		}
	}
	if len(out) == 0 {
		tb.Fatal("no streams in claude_stream.txtar")
	}
	return out
}

// fzClaudeVocabulary is fzVocabulary for Claude Code streams.
func fzClaudeVocabulary(seeds [][]byte) string {
	var b strings.Builder
	b.WriteString("claude-code\n")
	b.WriteString(strings.Join(normalize.ClaudePlaces(), "\n") + "\n")
	for _, c := range audit.Codes() {
		b.WriteString(c.String() + "\n" + c.Meaning() + "\n" + c.Next() + "\n")
	}
	for _, in := range append(seeds, nil) {
		for _, args := range [][]string{
			{"eval", "protocol", "--claude-jsonl", "-", "--json"},
			{"eval", "protocol", "--claude-jsonl", "-", "--capture-authorized"},
		} {
			_, stdout, stderr := privRun(args, in)
			b.Write(stdout)
			b.Write(stderr)
		}
	}
	return b.String()
}

// fzClaudePlaces is the contract's vocabulary of places for Claude Code.
func fzClaudePlaces() map[string]bool {
	m := map[string]bool{}
	for _, p := range normalize.ClaudePlaces() {
		m[p] = true
	}
	return m
}

// fuzzAuditClaudeInput is fuzzAuditInput for --claude-jsonl.
func fuzzAuditClaudeInput(t *testing.T, vocab string, in []byte) {
	code, stdout, stderr := privRun([]string{"eval", "protocol", "--claude-jsonl", "-", "--json"}, in)
	if code < 0 || code > 3 {
		t.Fatalf("exit %d", code)
	}
	rep := fzClaudeReport(t, code, stdout, stderr)
	sum := sha256.Sum256(in)
	digest := hex.EncodeToString(sum[:])
	if rep.Status != "invalid" {
		if rep.Input.SHA256 == nil || *rep.Input.SHA256 != digest || rep.Input.Bytes != int64(len(in)) {
			t.Fatalf("input %+v, want %d bytes with digest %s", rep.Input, len(in), digest)
		}
	}
	fzNoLeak(t, vocab, in, bytes.ReplaceAll(append(stdout, stderr...), []byte(digest), nil))

	hcode, hout, herr := privRun([]string{"eval", "protocol", "--claude-jsonl", "-"}, in)
	if hcode != code {
		t.Fatalf("human report: exit %d, JSON report: exit %d", hcode, code)
	}
	if want := "cairn eval protocol: " + strings.ToUpper(rep.Status) + " "; !bytes.HasPrefix(hout, []byte(want)) {
		t.Fatalf("human report starts %q, want %q", privFirstLine(hout), want)
	}
	if !bytes.Equal(herr, stderr) {
		t.Fatalf("stderr differs between modes: %q and %q", herr, stderr)
	}
	fzNoLeak(t, vocab, in, bytes.ReplaceAll(append(hout, herr...), []byte(digest[:12]), nil))
}

// fzClaudeReport is fzReport for a Claude Code report: harness claude-code,
// places of normalize.ClaudePlaces().
func fzClaudeReport(t *testing.T, code int, stdout, stderr []byte) fzReportJSON {
	t.Helper()
	if !bytes.HasSuffix(stdout, []byte("\n")) || bytes.Count(stdout, []byte("\n")) != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &members); err != nil {
		t.Fatalf("stdout is not a JSON object: %v", err)
	}
	if len(members) != 11 {
		t.Fatalf("report has %d members, want 11", len(members))
	}
	var rep fzReportJSON
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.Schema != audit.Schema || !rep.Enabled || rep.Status != fzExitStatus[code] || rep.ExitCode != code {
		t.Fatalf("schema %q enabled %v status %q exit_code %d, with exit %d", rep.Schema, rep.Enabled, rep.Status, rep.ExitCode, code)
	}
	if rep.Input.Format != audit.FormatClaude || rep.Input.Source != "stdin" || rep.Input.Harness == nil || *rep.Input.Harness != "claude-code" {
		t.Fatalf("input %+v, harness %v", rep.Input, rep.Input.Harness)
	}
	if len(rep.Counts) != 11 || len(rep.Limitations) != 3 || rep.Findings == nil {
		t.Fatalf("counts %v, limitations %v", rep.Counts, rep.Limitations)
	}
	places := fzClaudePlaces()
	if rep.Status == "invalid" {
		if rep.Error == nil || rep.Checks != nil || rep.Input.SHA256 != nil {
			t.Fatalf("invalid report with error %v, checks %v, sha256 %v", rep.Error, rep.Checks, rep.Input.SHA256)
		}
		c, ok := audit.ParseCode(rep.Error.Code)
		if !ok || c.Kind() != audit.KindInvalid {
			t.Fatalf("invalid with error code %q, not an invalid code of SPEC §8", rep.Error.Code)
		}
		if r := rep.Error.Record; r != nil && (*r < 1 || *r > rep.Input.Records) {
			t.Fatalf("error at record %d of %d", *r, rep.Input.Records)
		}
		if !bytes.Contains(stderr, []byte(rep.Error.Code)) {
			t.Fatalf("stderr %q does not name %s", stderr, rep.Error.Code)
		}
		if w := rep.Error.Where; w != nil && !places[*w] {
			t.Fatalf("error at %q, not a place of the contract", *w)
		}
		if len(rep.Findings) != 0 {
			t.Fatalf("invalid report with findings %v", rep.Findings)
		}
		return rep
	}
	if rep.Error != nil || rep.Checks == nil || len(*rep.Checks) != 4 || len(stderr) != 0 {
		t.Fatalf("%s report with error %v, checks %v, stderr %q", rep.Status, rep.Error, rep.Checks, stderr)
	}
	reported := map[string]bool{}
	worst := "pass"
	rank := map[string]int{"pass": 0, "inconclusive": 1, "fail": 2}
	for name, c := range *rep.Checks {
		if _, ok := rank[c.State]; !ok || c.Codes == nil {
			t.Fatalf("check %s: state %q codes %v", name, c.State, c.Codes)
		}
		for _, s := range c.Codes {
			k, ok := audit.ParseCode(s)
			if !ok || k.Kind() == audit.KindInvalid || k.Kind() == audit.KindLimitation {
				t.Fatalf("check %s: code %q", name, s)
			}
			reported[s] = true
		}
		if rank[c.State] > rank[worst] {
			worst = c.State
		}
	}
	if worst != rep.Status {
		t.Fatalf("status %s, but the worst check is %s", rep.Status, worst)
	}
	if len(rep.Findings) > audit.MaxFindings {
		t.Fatalf("%d findings", len(rep.Findings))
	}
	seen := map[string]bool{}
	last, lastCode := -1, ""
	for _, f := range rep.Findings {
		if !reported[f.Code] {
			t.Fatalf("finding %s is not a code of the checks", f.Code)
		}
		where := ""
		if f.Where != nil {
			where = *f.Where
			if !places[where] {
				t.Fatalf("finding %s at %q, not a place of the contract", f.Code, where)
			}
		}
		if k := f.Code + "@" + where; seen[k] {
			t.Fatalf("finding %s listed twice", k)
		} else {
			seen[k] = true
		}
		r := 1 << 62
		if f.Record != nil {
			r = *f.Record
			if r < 1 || r > rep.Input.Records {
				t.Fatalf("finding %s at record %d of %d", f.Code, r, rep.Input.Records)
			}
		}
		if r < last || r == last && f.Code < lastCode {
			t.Fatalf("findings out of order: %s at %d after %s at %d", f.Code, r, lastCode, last)
		}
		last, lastCode = r, f.Code
	}
	return rep
}

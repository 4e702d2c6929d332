package leaktest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/normalize"
)

// FuzzAudit runs arbitrary bytes, as a codex export on standard input,
// through run() with and without --json. Properties: no panic; the exit
// code is 0–3 and agrees with the report's status; the JSON report is one
// object on one line with every member, the input's size and digest when
// it was read whole, and an invalid status always carries an invalid code
// of SPEC §8; and no piece of the input made of 8 or more letters and
// digits appears on stdout or stderr, unless the report's own vocabulary
// contains it (see fzVocabulary).
func FuzzAudit(f *testing.F) {
	paths, err := filepath.Glob("../../../../testdata/codex/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	paths = append(paths, "../../../../testdata/controls/protocol-codex.jsonl")
	// What the newest real codex printed (testdata/codex/real).
	real, _ := filepath.Glob("../../../../testdata/codex/real/0.171.0/*.jsonl")
	paths = append(paths, real...)
	var fixtures [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		fixtures = append(fixtures, b)
	}
	vocab := fzVocabulary(f, fixtures)
	for _, b := range fixtures {
		f.Add(b)
		lines := bytes.SplitAfter(b, []byte("\n"))
		f.Add(bytes.Join(lines[:len(lines)/2], nil))                                     // cut short
		f.Add(append(bytes.Clone(b), lines[len(lines)/2]...))                            // a record after the end
		f.Add(bytes.Join(append([][]byte{lines[0]}, lines...), nil))                     // thread.started twice
		f.Add(bytes.ReplaceAll(b, []byte(`"item_1"`), []byte(`"item_0"`)))               // ids collide
		f.Add(bytes.ReplaceAll(b, []byte(`"memory_search"`), []byte(`"memory_delete"`))) // a mutation
		f.Add(bytes.ReplaceAll(b, []byte(`"project"`), []byte(`"MARKERproject7"`)))      // scope not project
		f.Add(bytes.ReplaceAll(b, []byte(`":"`), []byte(`":"MARKERq1w2e3r4`)))           // a marker in every string
	}
	g := &privGen{r: rand.New(rand.NewPCG(1, 2))}
	f.Add(g.passCase().input)
	f.Add(g.failCase().input)
	f.Add(g.inconclusiveCase().input)
	for _, fault := range privFaults {
		f.Add(g.invalidCase(fault).input)
	}
	f.Add([]byte{})
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--codex-jsonl", audit.FormatCodex, in) })
}

// fuzzAuditInput runs in through the CLI on standard input, in JSON and
// human modes, and checks the properties FuzzAudit states.
func fuzzAuditInput(t *testing.T, vocab string, flag, format string, in []byte) {
	// Under go test the seed corpus runs in parallel, a package's share of
	// a busy machine's cores; while fuzzing this has no effect.
	t.Parallel()
	code, stdout, stderr := privRun([]string{"eval", "protocol", flag, "-", "--json"}, in)
	if code < 0 || code > 3 {
		t.Fatalf("exit %d", code)
	}
	rep := fzReport(t, format, code, stdout, stderr)
	sum := sha256.Sum256(in)
	digest := hex.EncodeToString(sum[:])
	if rep.Status != "invalid" {
		if rep.Input.SHA256 == nil || *rep.Input.SHA256 != digest || rep.Input.Bytes != int64(len(in)) {
			t.Fatalf("input %+v, want %d bytes with digest %s", rep.Input, len(in), digest)
		}
	}
	fzNoLeak(t, vocab, in, bytes.ReplaceAll(append(stdout, stderr...), []byte(digest), nil))

	hcode, hout, herr := privRun([]string{"eval", "protocol", flag, "-"}, in)
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

// FuzzAuditTrajectory is FuzzAudit for --trajectory: arbitrary bytes, as a
// normalized trajectory on standard input, with the same properties.
func FuzzAuditTrajectory(f *testing.F) {
	paths, err := filepath.Glob("../../../../testdata/controls/*.json")
	if err != nil {
		f.Fatal(err)
	}
	var docs [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		docs = append(docs, b)
	}
	if len(docs) == 0 {
		f.Fatal("no trajectory controls")
	}
	vocab := fzTrajectoryVocabulary(docs)
	for _, b := range docs {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.ReplaceAll(b, []byte(`"pi"`), []byte(`"opencode"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"pi"`), []byte(`"MARKERharness9"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"sequence": 1`), []byte(`"sequence": 0`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"search-1"`), []byte(`"MARKERcall1234"`)))
		f.Add(bytes.ReplaceAll(b, []byte(`": "`), []byte(`": "MARKERq1w2e3r4`)))
		f.Add(bytes.ReplaceAll(b, []byte(`"truncated": false`), []byte(`"truncated": true, "truncated": false`)))
	}
	f.Add([]byte(`{"events":[` + strings.Repeat(`[`, 200) + `]}`))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzAuditInput(t, vocab, "--trajectory", audit.FormatTrajectory, in) })
}

// fzTrajectoryVocabulary is fzVocabulary for trajectories, with the
// harness names a report prints.
func fzTrajectoryVocabulary(docs [][]byte) string {
	var b strings.Builder
	b.WriteString("claude-code opencode pi\n")
	b.WriteString(strings.Join(normalize.TrajectoryPlaces(), "\n") + "\n")
	for _, c := range audit.Codes() {
		b.WriteString(c.String() + "\n" + c.Meaning() + "\n" + c.Next() + "\n")
	}
	for _, in := range append(docs, nil) {
		for _, args := range [][]string{
			{"eval", "protocol", "--trajectory", "-", "--json"},
			{"eval", "protocol", "--trajectory", "-", "--capture-authorized"},
		} {
			_, stdout, stderr := privRun(args, in)
			b.Write(stdout)
			b.Write(stderr)
		}
	}
	return b.String()
}

var fzExitStatus = map[int]string{0: "pass", 1: "fail", 2: "invalid", 3: "inconclusive"}

// fzReport checks the shape of a --json report and its agreement with the
// exit code and stderr.
func fzReport(t *testing.T, format string, code int, stdout, stderr []byte) clitest.Report {
	t.Helper()
	if !bytes.HasSuffix(stdout, []byte("\n")) || bytes.Count(stdout, []byte("\n")) != 1 {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &members); err != nil {
		t.Fatalf("stdout is not a JSON object: %v", err)
	}
	reportMembers := []string{"schema", "enabled", "status", "exit_code", "input", "policy", "checks", "counts", "findings", "error", "limitations"}
	for _, m := range reportMembers {
		if _, ok := members[m]; !ok {
			t.Fatalf("report has no %q", m)
		}
	}
	if len(members) != len(reportMembers) {
		t.Fatalf("report has %d members, want %d", len(members), len(reportMembers))
	}
	var rep clitest.Report
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.Schema != audit.Schema || !rep.Enabled || rep.Status != fzExitStatus[code] || rep.ExitCode != code {
		t.Fatalf("schema %q enabled %v status %q exit_code %d, with exit %d", rep.Schema, rep.Enabled, rep.Status, rep.ExitCode, code)
	}
	harness := "none"
	if rep.Input.Harness != nil {
		harness = *rep.Input.Harness
	}
	// The row's harness, else (a trajectory) none or one it may name.
	row, _ := protocol.FormatNamed(format)
	wantHarness := map[string]bool{row.Harness: true}
	if row.Harness == "" {
		wantHarness = map[string]bool{"none": true}
		for _, h := range normalize.Harnesses {
			wantHarness[h] = true
		}
	}
	if rep.Input.Format != format || rep.Input.Source != "stdin" || !wantHarness[harness] {
		t.Fatalf("input %+v, harness %s", rep.Input, harness)
	}
	if len(rep.Counts) != 12 || len(rep.Limitations) != 3 || rep.Findings == nil {
		t.Fatalf("counts %v, limitations %v", rep.Counts, rep.Limitations)
	}
	if rep.Status == "invalid" {
		if rep.Error == nil || rep.Checks != nil || rep.Input.SHA256 != nil {
			t.Fatalf("invalid report with error %v, checks %v, sha256 %v", rep.Error, rep.Checks, rep.Input.SHA256)
		}
		c, ok := audit.ParseCode(rep.Error.Code)
		if !ok || c.Kind() != audit.KindInvalid {
			t.Fatalf("invalid with error code %q, not an invalid code of SPEC §8", rep.Error.Code)
		}
		first := 1 // a JSONL line; a document's event or message index starts at 0
		if row, _ := protocol.FormatNamed(format); row.Unit != "line" {
			first = 0
		}
		if r := rep.Error.Record; r != nil && (*r < first || *r > rep.Input.Records) {
			t.Fatalf("error at record %d of %d", *r, rep.Input.Records)
		}
		if !bytes.Contains(stderr, []byte(rep.Error.Code)) {
			t.Fatalf("stderr %q does not name %s", stderr, rep.Error.Code)
		}
		if w := rep.Error.Where; w != nil && !fzPlaces(format)[*w] {
			t.Fatalf("error at %q, not a place of the contract", *w)
		}
		if len(rep.Findings) != 0 {
			t.Fatalf("invalid report with findings %v", rep.Findings)
		}
		return rep
	}
	fzFindings(t, format, rep)
	if rep.Error != nil || rep.Checks == nil || len(*rep.Checks) != 4 || len(stderr) != 0 {
		t.Fatalf("%s report with error %v, checks %v, stderr %q", rep.Status, rep.Error, rep.Checks, stderr)
	}
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
		}
		if rank[c.State] > rank[worst] {
			worst = c.State
		}
	}
	if worst != rep.Status {
		t.Fatalf("status %s, but the worst check is %s", rep.Status, worst)
	}
	return rep
}

// fzPlaces is the contract's vocabulary of places for format (SPEC §7.1):
// a where outside it could be a name from the input.
func fzPlaces(format string) map[string]bool {
	f, _ := protocol.FormatNamed(format)
	ps := f.Places()
	m := map[string]bool{}
	for _, p := range ps {
		m[p] = true
	}
	return m
}

// fzFindings checks the findings of a report with checks: each names a code
// of the checks, a record within the input and a place of the contract,
// once per (code, where), by record (the input as a whole last) then code.
func fzFindings(t *testing.T, format string, rep clitest.Report) {
	t.Helper()
	reported := map[string]bool{}
	for _, c := range *rep.Checks {
		for _, code := range c.Codes {
			reported[code] = true
		}
	}
	places := fzPlaces(format)
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
		r := 1 << 62 // the input as a whole sorts last
		if f.Record != nil {
			r = *f.Record
			if r < 0 || r > rep.Input.Records {
				t.Fatalf("finding %s at record %d of %d", f.Code, r, rep.Input.Records)
			}
		}
		if r < last || r == last && f.Code < lastCode {
			t.Fatalf("findings out of order: %s at %d after %s at %d", f.Code, r, lastCode, last)
		}
		last, lastCode = r, f.Code
	}
}

// fzVocabulary is every text a report may print whatever its input: the
// codes with their meanings and advice, the contract's places, and the
// reports of the fixtures and of an empty input in both modes. A piece of
// the input found there is no evidence of a leak.
func fzVocabulary(f *testing.F, fixtures [][]byte) string {
	var b strings.Builder
	b.WriteString(strings.Join(lifecycle.Places(), "\n") + "\n")
	for _, c := range audit.Codes() {
		b.WriteString(c.String() + "\n" + c.Meaning() + "\n" + c.Next() + "\n")
	}
	for _, in := range append(fixtures, nil) {
		for _, args := range [][]string{
			{"eval", "protocol", "--codex-jsonl", "-", "--json"},
			{"eval", "protocol", "--codex-jsonl", "-", "--capture-authorized"},
		} {
			_, stdout, stderr := privRun(args, in)
			b.Write(stdout)
			b.Write(stderr)
		}
	}
	return b.String()
}

// fzNoLeak fails when an 8-character window of a run of letters and digits
// of the input appears in out and is not part of the report vocabulary.
func fzNoLeak(t *testing.T, vocab string, in, out []byte) {
	t.Helper()
	seen := map[uint64]bool{}
	run := 0
	for i, c := range out {
		if !clitest.Alnum(c) {
			run = 0
			continue
		}
		if run++; run >= clitest.Window {
			seen[binary.LittleEndian.Uint64(out[i+1-clitest.Window:])] = true
		}
	}
	if len(seen) == 0 {
		return
	}
	run = 0
	for i, c := range in {
		if !clitest.Alnum(c) {
			run = 0
			continue
		}
		if run++; run < clitest.Window {
			continue
		}
		w := in[i+1-clitest.Window : i+1]
		if seen[binary.LittleEndian.Uint64(w)] && !strings.Contains(vocab, string(w)) {
			t.Fatalf("output repeats %q from the input:\n%s", w, out)
		}
	}
}

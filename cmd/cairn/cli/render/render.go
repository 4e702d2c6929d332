// Package render writes the reports of one run of cairn in every format
// of --output (SPEC §7.3, §14.1): the human text, the JSON report, SARIF
// 2.1.0 for code scanning, JUnit XML for test reporters, and GitHub
// Actions workflow commands with a Markdown step summary. Every format is
// one row of one table (Formats: name, help, Writer), so the flag's enum,
// its help, the completions and the tests that loop over every format all
// come from here, and the commands write every format the same way.
//
// Every document is derived from the reports (package audit) and holds
// what they hold: fixed codes and texts, counts, digests and the
// contract's place names, never input content (SPEC §7.2). The only name
// of an input is the URI its caller gave (SARIF, --sarif-uri).
//
// A Writer takes the inputs of a run in order and writes one document as
// it goes, so that memory does not grow with the number of inputs (SPEC
// §10). The command line, the gate, the step summary's file and the exit
// code are package cli's.
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

// A Format is one format of --output: a row of the table.
type Format struct {
	// Name is the flag's value, and Help says what it prints (the help and
	// the completions).
	Name, Help string
	// New returns the format's Writer, writing to w.
	New func(w io.Writer, opts Options) Writer
	// StepSummary: the format also writes a Markdown summary to
	// Options.Summary (the file GITHUB_STEP_SUMMARY names).
	StepSummary bool
	// NamesInputs: the format names an input by the URI its caller gave
	// (Input.URI, --sarif-uri); the others name none.
	NamesInputs bool
	// Human: the report is the one people read on a terminal, which
	// already says why an input is invalid.
	Human bool
}

// formats are the formats of --output, in the order the help and the
// completions list them; the first is the default.
var formats = []Format{
	{Name: "text", Help: "the human report (the default)", New: newText, Human: true},
	{Name: "json", Help: "the JSON report (schema cairn.eval.protocol/v1), as --json", New: newJSON},
	{Name: "sarif", Help: "SARIF 2.1.0, for code scanning", New: newSARIF, NamesInputs: true},
	{Name: "junit", Help: "JUnit XML, a test case per check", New: newJUnit},
	{Name: "github", Help: "GitHub Actions annotations, and a table in GITHUB_STEP_SUMMARY", New: newGitHub, StepSummary: true},
}

// Formats returns the formats of --output, the default first.
func Formats() []Format { return append([]Format(nil), formats...) }

// FormatNamed returns the format called name, and false for none.
func FormatNamed(name string) (Format, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// An Input is one audited input of a run.
type Input struct {
	// Position is the input's place among the run's inputs, from 1: the
	// order of the arguments, the only correlation a report gives.
	Position int
	Report   *audit.Report
	// URI is the caller's name for the input (--sarif-uri), or "".
	URI string
}

// Options describe the run. Only the text format tells eval protocol from
// a batch of one (Batch); every other format's document of one input is
// the same from either.
type Options struct {
	// Version is cairn's version (cairn version's), and Revision and
	// Modified its VCS stamp when known: SARIF's tool version
	// (ToolVersion).
	Version  string
	Revision string
	Modified bool
	// Summary, when not nil, is where the github format appends its
	// Markdown table (the file GITHUB_STEP_SUMMARY names).
	Summary io.Writer
	// Batch: the run is eval batch's, whose text is a line per input and
	// a totals line, not the human report of one.
	Batch bool
	// Color: the text may be coloured (SPEC §7.3: stdout is a terminal,
	// NO_COLOR is unset and TERM is not dumb).
	Color bool
}

// A Writer writes one document for the inputs of a run: Input for each,
// in order of position, then Close; or, when the audit is off, Disabled
// alone. Writes go to writers that remember their first error (the
// caller's); a Writer returns none.
type Writer interface {
	Input(Input)
	// Close ends the document of a run whose process exits with exit.
	// stop, when not nil, says why the run ended before its last input:
	// the document then never reads as a complete run (SPEC §14.1).
	Close(exit int, stop *Stop)
	// Disabled ends a run whose gate was off, of n inputs; notice is the
	// fixed line saying that nothing was audited.
	Disabled(n int, notice string)
}

// A Stop is why a run ended before its last input: a bad entry of its
// list of paths, a write that failed, a signal. Code is its fixed code,
// Text one fixed line saying what happened and what to do; neither holds
// a path or an input's byte.
type Stop struct {
	Code string
	Text string
}

// line is "CODE: TEXT".
func (s *Stop) line() string { return s.Code + ": " + s.Text }

// CodesURL is the page that explains every code; its sections are the
// code kinds (anchors).
const CodesURL = "https://github.com/cairn-audit/cairn/blob/main/docs/codes.md"

// kindAnchors are the anchors of docs/codes.md's sections, one per kind:
// GitHub's slugs of their headings (a test holds them to the page).
var kindAnchors = map[audit.Kind]string{
	audit.KindInvalid:       "invalid-input-exit-2",
	audit.KindEvidence:      "inconclusive-evidence",
	audit.KindCheck:         "inconclusive-checks",
	audit.KindFail:          "fail-exit-1",
	audit.KindInformational: "informational",
	audit.KindLimitation:    "limitations",
	audit.KindUsage:         "catalog-usage-errors-exit-2-no-report",
}

// HelpURI is where docs/codes.md explains code: its kind's section.
func HelpURI(code audit.Code) string { return CodesURL + "#" + kindAnchors[code.Kind()] }

// RecordText names a record for people: "line 3" (JSONL), "event 3"
// (trajectory), as the format table says, or "the input as a whole".
func RecordText(format string, record *int) string {
	if record == nil {
		return "the input as a whole"
	}
	unit := "record"
	if f, ok := protocol.FormatNamed(format); ok {
		unit = f.Unit
	}
	return fmt.Sprintf("%s %d", unit, *record)
}

// isLine reports whether a format's records are lines of the input: then
// a record number is a line number.
func isLine(format string) bool {
	f, ok := protocol.FormatNamed(format)
	return ok && f.Unit == "line"
}

// placeText is where something was observed, "line 3 at
// command_execution", "the input as a whole".
func placeText(format string, record *int, where *string) string {
	s := RecordText(format, record)
	if where != nil {
		s += " at " + *where
	}
	return s
}

// firstFinding is the first finding of code in rep, and false when the
// findings (at most audit.MaxFindings) have none.
func firstFinding(rep *audit.Report, code audit.Code) (audit.Finding, bool) {
	for _, f := range rep.Findings {
		if f.Code == code {
			return f, true
		}
	}
	return audit.Finding{}, false
}

// codeText is one code with its meaning and where it was first observed:
// "tool_before_project_search: the first call was not … (line 3 at
// command_execution)".
func codeText(rep *audit.Report, code audit.Code) string {
	s := code.String() + ": " + code.Meaning()
	if f, ok := firstFinding(rep, code); ok {
		s += " (" + placeText(rep.Input.Format, f.Record, f.Where) + ")"
	}
	return s
}

// codeNames are the codes' names.
func codeNames(codes []audit.Code) []string {
	names := make([]string, len(codes))
	for i, c := range codes {
		names[i] = c.String()
	}
	return names
}

// informational are a check's informational codes, which a passing check
// may carry too.
func informational(codes []audit.Code) []audit.Code {
	var out []audit.Code
	for _, c := range codes {
		if c.Kind() == audit.KindInformational {
			out = append(out, c)
		}
	}
	return out
}

// totals counts the inputs of a run by status.
type totals struct {
	inputs int
	by     map[audit.Status]int
}

func (t *totals) add(st audit.Status) {
	if t.by == nil {
		t.by = map[audit.Status]int{}
	}
	t.inputs++
	t.by[st]++
}

// text is "2 inputs: pass 1, fail 1, inconclusive 0, invalid 0 (exit
// 1)", exit the process's (SPEC §14.1: --fail-on and a stop included);
// a run that stopped early says so and why: "(exit 2; stopped early:
// list_entry_empty)".
func (t *totals) text(exit int, stop *Stop) string {
	unit := "inputs"
	if t.inputs == 1 {
		unit = "input"
	}
	end := ""
	if stop != nil {
		end = "; stopped early: " + stop.Code
	}
	return fmt.Sprintf("%d %s: pass %d, fail %d, inconclusive %d, invalid %d (exit %d%s)", t.inputs, unit,
		t.by[audit.StatusPass], t.by[audit.StatusFail], t.by[audit.StatusInconclusive], t.by[audit.StatusInvalid], exit, end)
}

// inputName is "input 2".
func inputName(pos int) string { return fmt.Sprintf("input %d", pos) }

// joinCodes is "a b c".
func joinCodes(codes []audit.Code) string { return strings.Join(codeNames(codes), " ") }

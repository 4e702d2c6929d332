package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/cairn-audit/cairn/audit"
)

// SummarySchema is the schema name of eval summarize --json's object.
const SummarySchema = "cairn.eval.summary/v1"

// maxReportLine is the longest line eval summarize takes for a report: a
// report is at most a few KiB (64 findings of the contract's short
// words), so a longer line is not one, and the reader's buffer is bounded.
const maxReportLine = 64 << 10

// summaryStatuses are the statuses a summary counts, in the order it
// prints them: the enabled ones by precedence, then the disabled envelope.
var summaryStatuses = [...]audit.Status{audit.StatusPass, audit.StatusFail, audit.StatusInconclusive, audit.StatusInvalid, audit.StatusDisabled}

// checkStates are the states of a check, in the order a summary prints
// them.
var checkStates = [...]audit.State{audit.Pass, audit.Fail, audit.Inconclusive}

// summary is the totals of a stream of reports (SPEC §15): by status, by
// each check's state, and the reports each code appears in. It holds
// counts only, never a report, so its memory is the same for ten reports
// and for ten million.
type summary struct {
	reports  int
	statuses [len(summaryStatuses)]int
	checks   [audit.NumChecks][len(checkStates)]int // by check, then state
	codes    []int                                  // reports with each code, by audit.Code
	worst    audit.Status
	enabled  bool // an enabled report was read: worst is its status
	rep      audit.Report
	enc      bytes.Buffer
	seen     []bool // codes seen in the report being added
}

func newSummary() *summary {
	n := len(audit.Codes()) + 1
	return &summary{codes: make([]int, n), seen: make([]bool, n), worst: audit.StatusDisabled}
}

// disabledLine is the disabled envelope as eval batch --json prints it.
var disabledLine = func() []byte {
	b, _ := json.Marshal(audit.DisabledReport())
	return b
}()

// reportProblem is why a line is not a report this summary can count.
type reportProblem int

const (
	reportOK          reportProblem = iota
	reportNot                       // not a cairn.eval.protocol/v1 report
	reportOtherSchema               // a JSON object whose schema is another's
)

// add counts the report on line (without its newline; a CR before it is
// allowed). A line is a report when it is what cairn prints for one: it
// decodes into an audit.Report whose status, exit code, checks and error
// agree, and encodes back to the same bytes (encoding/json, as
// writeJSON prints it), so that a member missing, added, renamed,
// repeated or of another type is not a report, and every code is of the
// vocabulary. On a problem nothing is counted.
func (s *summary) add(line []byte) reportProblem {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if bytes.Equal(line, disabledLine) {
		s.count(audit.StatusDisabled)
		return reportOK
	}
	r := &s.rep
	*r = audit.Report{}
	if err := gojson.Unmarshal(line, r); err != nil || !consistent(r) {
		return otherSchema(line)
	}
	s.enc.Reset()
	enc := json.NewEncoder(&s.enc)
	if err := enc.Encode(r); err != nil || !bytes.Equal(bytes.TrimSuffix(s.enc.Bytes(), []byte("\n")), line) {
		return otherSchema(line)
	}
	s.count(r.Status)
	for i := range s.seen {
		s.seen[i] = false
	}
	if r.Error != nil {
		s.seen[r.Error.Code] = true
	} else {
		for k, v := range r.Checks.All() {
			for j, st := range checkStates {
				if v.State == st {
					s.checks[k][j]++
				}
			}
			for _, c := range v.Codes {
				s.seen[c] = true
			}
		}
	}
	for c, seen := range s.seen {
		if seen {
			s.codes[c]++
		}
	}
	return reportOK
}

// count adds a report of status st.
func (s *summary) count(st audit.Status) {
	s.reports++
	for i, x := range summaryStatuses {
		if x == st {
			s.statuses[i]++
		}
	}
	if st == audit.StatusDisabled {
		return
	}
	if !s.enabled || st.Precedence() > s.worst.Precedence() {
		s.worst = st
	}
	s.enabled = true
}

// consistent reports whether r is an enabled report of this schema whose
// members agree with each other as SPEC §7.1 says: the status is its exit
// code's, an invalid report has an error and no checks and findings, any
// other has checks and no error, and its status is its checks' verdict.
func consistent(r *audit.Report) bool {
	if r.Schema != audit.Schema || !r.Enabled || r.Findings == nil || len(r.Limitations) < 3 {
		return false
	}
	switch r.Status {
	case audit.StatusPass, audit.StatusFail, audit.StatusInconclusive, audit.StatusInvalid:
	default:
		return false
	}
	if r.ExitCode != r.Status.ExitCode() {
		return false
	}
	if r.Status == audit.StatusInvalid {
		return r.Checks == nil && r.Error != nil && len(r.Findings) == 0
	}
	if r.Checks == nil || r.Error != nil {
		return false
	}
	verdict := audit.StatusPass
	for _, v := range r.Checks.All() {
		switch v.State {
		case audit.Fail:
			verdict = audit.StatusFail
		case audit.Inconclusive:
			if verdict == audit.StatusPass {
				verdict = audit.StatusInconclusive
			}
		case audit.Pass:
		default:
			return false
		}
		if v.Codes == nil {
			return false
		}
	}
	return verdict == r.Status
}

// otherSchema tells a JSON object whose schema member names another
// schema (a report of another version, say) from a line that is no
// report at all. It runs only on a line already refused.
func otherSchema(line []byte) reportProblem {
	var head struct {
		Schema *string `json:"schema"`
	}
	if gojson.Unmarshal(line, &head) == nil && head.Schema != nil && *head.Schema != audit.Schema {
		return reportOtherSchema
	}
	return reportNot
}

// exitCode is the summary's exit status: the worst report's (SPEC §2.2,
// §15), 0 when every report is a disabled envelope.
func (s *summary) exitCode() int { return s.worst.ExitCode() }

// writeText prints the totals for people: fixed words, codes and counts.
func (s *summary) writeText(w io.Writer) {
	fmt.Fprintf(w, "cairn eval summarize: %s, worst %s (exit %d)\n", plural(s.reports, "report"), s.worst, s.exitCode())
	var parts []string
	for i, st := range summaryStatuses {
		parts = append(parts, fmt.Sprintf("%s %d", st, s.statuses[i]))
	}
	fmt.Fprintf(w, "%-22s %s\n", "status", strings.Join(parts, ", "))
	for k := range audit.NumChecks {
		parts = parts[:0]
		for j, st := range checkStates {
			parts = append(parts, fmt.Sprintf("%s %d", st, s.checks[k][j]))
		}
		fmt.Fprintf(w, "%-22s %s\n", k, strings.Join(parts, ", "))
	}
	// The counts line up after the longest code a report can hold.
	width := 0
	for _, c := range audit.Codes() {
		if k := c.Kind(); k != audit.KindLimitation && k != audit.KindUsage {
			width = max(width, len(c.String()))
		}
	}
	label := "codes"
	for _, c := range audit.Codes() {
		if n := s.codes[c]; n > 0 {
			fmt.Fprintf(w, "%-22s %-*s %d\n", label, width, c, n)
			label = ""
		}
	}
	if label != "" {
		fmt.Fprintf(w, "%-22s none\n", label)
	}
}

// summaryJSON is eval summarize --json's object (docs/summary.schema.json).
type summaryJSON struct {
	Schema   string       `json:"schema"`
	Reports  int          `json:"reports"`
	Status   audit.Status `json:"status"`
	ExitCode int          `json:"exit_code"`
	Statuses objectJSON   `json:"statuses"`
	Checks   objectJSON   `json:"checks"`
	Codes    objectJSON   `json:"codes"`
}

// objectJSON is a JSON object whose members keep their order: counts,
// or objects of counts.
type objectJSON []memberJSON

type memberJSON struct {
	name  string
	value any // an int or an objectJSON
}

func (o objectJSON) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(m.name)
		value, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), value...)
	}
	return append(b, '}'), nil
}

// json is the summary as eval summarize --json prints it: the codes seen,
// in the vocabulary's order (SPEC §8).
func (s *summary) json() summaryJSON {
	out := summaryJSON{Schema: SummarySchema, Reports: s.reports, Status: s.worst, ExitCode: s.exitCode(),
		Statuses: objectJSON{}, Checks: objectJSON{}, Codes: objectJSON{}}
	for i, st := range summaryStatuses {
		out.Statuses = append(out.Statuses, memberJSON{string(st), s.statuses[i]})
	}
	for k := range audit.NumChecks {
		states := objectJSON{}
		for j, st := range checkStates {
			states = append(states, memberJSON{string(st), s.checks[k][j]})
		}
		out.Checks = append(out.Checks, memberJSON{k.String(), states})
	}
	for _, c := range audit.Codes() {
		if n := s.codes[c]; n > 0 {
			out.Codes = append(out.Codes, memberJSON{c.String(), n})
		}
	}
	return out
}

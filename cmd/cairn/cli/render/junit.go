package render

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-audit/cairn/audit"
)

// JUnit XML, as the common JUnit schema (Jenkins, Ant, the reporters that
// read either) has it: testsuites holding one testsuite per input, in
// order, each with its properties and one testcase per check: no child
// for a pass, failure for a fail, skipped (with the codes) for an
// inconclusive check, error for every check of an invalid input.

type junitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitOutcome `xml:"failure"`
	Error     *junitOutcome `xml:"error"`
	Skipped   *junitOutcome `xml:"skipped"`
}

type junitOutcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

type junitWriter struct {
	w io.Writer
}

func newJUnit(w io.Writer, opts Options) Writer {
	io.WriteString(w, xml.Header)
	io.WriteString(w, `<testsuites name="cairn">`+"\n")
	return &junitWriter{w: w}
}

func (j *junitWriter) suite(s junitSuite) {
	s.Tests = len(s.Cases)
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	b, err := xml.MarshalIndent(s, "  ", "  ")
	if err != nil {
		panic("render: a JUnit suite does not encode")
	}
	j.w.Write(append(b, '\n'))
}

func (j *junitWriter) Input(in Input) {
	rep := in.Report
	name := inputName(in.Position)
	s := junitSuite{Name: name + " (" + rep.Input.Format + ")", Properties: junitProperties(rep)}
	if e := rep.Error; e != nil {
		out := &junitOutcome{
			Message: "invalid input: " + e.Code.String(), Type: "invalid",
			Text: e.Code.String() + ": " + e.Code.Meaning() + " (" + placeText(rep.Input.Format, e.Record, e.Where) + "); " + e.Code.Next(),
		}
		for k := range audit.NumChecks {
			s.Cases = append(s.Cases, junitCase{Name: k.String(), Classname: name, Error: out})
		}
		j.suite(s)
		return
	}
	if rep.Checks != nil {
		for k, v := range rep.Checks.All() {
			tc := junitCase{Name: k.String(), Classname: name}
			var lines []string
			for _, code := range v.Codes {
				lines = append(lines, codeText(rep, code))
			}
			out := &junitOutcome{Message: string(v.State) + ": " + joinCodes(v.Codes), Type: string(v.State), Text: strings.Join(lines, "\n")}
			switch v.State {
			case audit.Fail:
				tc.Failure = out
			case audit.Inconclusive:
				out.Type = ""
				tc.Skipped = out
			}
			s.Cases = append(s.Cases, tc)
		}
	}
	j.suite(s)
}

// junitProperties are what the report says of the input, as properties.
func junitProperties(rep *audit.Report) []junitProperty {
	harness := "unknown"
	if rep.Input.Harness != nil {
		harness = *rep.Input.Harness
	}
	ps := []junitProperty{
		{"status", string(rep.Status)},
		{"exit_code", strconv.Itoa(rep.ExitCode)},
		{"format", rep.Input.Format},
		{"source", rep.Input.Source},
		{"harness", harness},
		{"records", strconv.Itoa(rep.Input.Records)},
		{"events", strconv.Itoa(rep.Input.Events)},
	}
	if rep.Input.SHA256 != nil {
		ps = append(ps, junitProperty{"sha256", *rep.Input.SHA256})
	}
	ps = append(ps, junitProperty{"policy_sha256", rep.Policy.SHA256},
		junitProperty{"limitations", joinCodes(rep.Limitations)})
	return ps
}

// Close: a run that stopped early gains a suite whose one test case is
// an error naming the stop's code, after the inputs' suites.
func (j *junitWriter) Close(exit int, stop *Stop) {
	if stop != nil {
		j.suite(junitSuite{Name: "cairn run (stopped early)", Properties: []junitProperty{{"exit_code", strconv.Itoa(exit)}},
			Cases: []junitCase{{Name: "the run", Classname: "cairn", Error: &junitOutcome{
				Message: "stopped early: " + stop.Code, Type: "stopped", Text: "the run did not complete: " + stop.line()}}}})
	}
	io.WriteString(j.w, "</testsuites>\n")
}

// Disabled: a suite per input whose checks are all skipped.
func (j *junitWriter) Disabled(n int, notice string) {
	for pos := 1; pos <= n; pos++ {
		name := inputName(pos)
		s := junitSuite{Name: name + " (not audited)", Properties: []junitProperty{{"status", string(audit.StatusDisabled)}}}
		for k := range audit.NumChecks {
			s.Cases = append(s.Cases, junitCase{Name: k.String(), Classname: name, Skipped: &junitOutcome{Message: notice}})
		}
		j.suite(s)
	}
	j.Close(0, nil)
}

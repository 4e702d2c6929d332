//go:build !wasip1

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// Every format of --output (SPEC §7.3, §14.1) on real reports of every
// input format of the table: SARIF against the SARIF 2.1.0 JSON Schema and
// against the JSON report of each input, JUnit against the JUnit schema's
// structure, GitHub's workflow commands and step summary, the text and
// the JSON lines line by line; none may hold input text.

// ciInput is one input of a format and the JSON report cairn gives it.
type ciInput struct {
	name   string // for failures: where it came from
	path   string
	report []byte
	status string
}

// ciInputs are, for every format of the table, real inputs with all four
// outcomes: the real captures (testdata/DIR/real/VERSION, DIR the format
// name without -jsonl), the shipped controls, each capture cut inside its
// second record (an invalid input made from a real one), and, for an
// outcome still missing (a format with no real capture yet, a trajectory
// that is inconclusive), the inputs of the format's own scripts
// (testdata/script/DIR_*.txtar). A format without the four outcomes fails.
func ciInputs(t *testing.T) map[string][]ciInput {
	t.Helper()
	dir := t.TempDir()
	n := 0
	// auditAll writes the inputs to files and audits them in one batch,
	// whose line i is eval protocol --json's report of input i.
	auditAll := func(format string, names []string, datas [][]byte) []ciInput {
		if len(names) == 0 {
			return nil
		}
		var ins []ciInput
		args := []string{"eval", "batch", "--format", format, "--json"}
		for i, data := range datas {
			n++
			path := filepath.Join(dir, fmt.Sprintf("%d.in", n))
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			ins = append(ins, ciInput{name: names[i], path: path})
			args = append(args, path)
		}
		_, stdout, _ := runCapture(args, map[string]string{"CAIRN_EVAL": "1"})
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != len(ins) {
			t.Fatalf("%s: %d reports of %d inputs", format, len(lines), len(ins))
		}
		for i, line := range lines {
			var rep struct{ Status string }
			if err := json.Unmarshal([]byte(line), &rep); err != nil {
				t.Fatalf("%s: %v", ins[i].name, err)
			}
			ins[i].report, ins[i].status = []byte(line+"\n"), rep.Status
		}
		return ins
	}
	out := map[string][]ciInput{}
	for _, f := range protocol.Formats() {
		// DIR is the name up to its first dash (opencode for both
		// OpenCode inputs); a JSONL format's inputs end .jsonl, the
		// documents' .json (an export's capture .export.json).
		d, _, _ := strings.Cut(f.Name, "-")
		ext, realExt := ".jsonl", ".jsonl"
		if f.Unit != "line" {
			ext, realExt = ".json", ".export.json"
		}
		var files []string
		real, _ := filepath.Glob("../../../testdata/" + d + "/real/*/*" + realExt)
		files = append(files, real...)
		controls, _ := filepath.Glob("../../../testdata/controls/protocol-" + d + "*.jsonl")
		switch f.Unit {
		case "event":
			controls, _ = filepath.Glob("../../../testdata/controls/*.json")
		case "message":
			controls = nil
		}
		files = append(files, controls...)
		var names []string
		var datas [][]byte
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			names, datas = append(names, p), append(datas, b)
			if i := bytes.IndexByte(b, '\n'); i >= 0 && i+2 < len(b) {
				names, datas = append(names, p+" cut in its second record"), append(datas, b[:i+2])
			} else if len(b) > 2 {
				names, datas = append(names, p+" cut in half"), append(datas, b[:len(b)/2])
			}
		}
		out[f.Name] = auditAll(f.Name, names, datas)
		if missing := ciMissing(out[f.Name]); len(missing) > 0 {
			// The first input of the format's scripts of each missing
			// outcome.
			names, datas = nil, nil
			archives, _ := filepath.Glob("../../../testdata/script/" + d + "_*.txtar")
			for _, a := range archives {
				ar, err := txtar.ParseFile(a)
				if err != nil {
					t.Fatal(err)
				}
				for _, file := range ar.Files {
					if strings.HasSuffix(file.Name, ext) {
						names, datas = append(names, filepath.Base(a)+":"+file.Name), append(datas, file.Data)
					}
				}
			}
			for _, in := range auditAll(f.Name, names, datas) {
				if slices.Contains(ciMissing(out[f.Name]), in.status) {
					out[f.Name] = append(out[f.Name], in)
				}
			}
			t.Logf("%s: no real input is %v; inputs of the format's scripts stand in", f.Name, missing)
		}
		if missing := ciMissing(out[f.Name]); len(missing) > 0 {
			t.Errorf("%s: no input is %v", f.Name, missing)
		}
	}
	return out
}

// ciMissing are the outcomes no input has.
func ciMissing(ins []ciInput) []string {
	var missing []string
	for _, st := range []string{"pass", "fail", "inconclusive", "invalid"} {
		if !slices.ContainsFunc(ins, func(in ciInput) bool { return in.status == st }) {
			missing = append(missing, st)
		}
	}
	return missing
}

func (in ciInput) parsed(t *testing.T) clitest.Report {
	var r clitest.Report
	if err := json.Unmarshal(in.report, &r); err != nil {
		t.Fatalf("%s: %v", in.name, err)
	}
	return r
}

// ciTally counts the inputs' reports by status, and gives the worst
// status of them.
func ciTally(t *testing.T, ins []ciInput) (statuses map[string]int, worst audit.Status) {
	statuses, worst = map[string]int{}, audit.StatusPass
	for _, in := range ins {
		rep := in.parsed(t)
		statuses[rep.Status]++
		if st := audit.Status(rep.Status); st.Precedence() > worst.Precedence() {
			worst = st
		}
	}
	return statuses, worst
}

var ciCheckNames = []string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"}

// TestCheckNames holds the names of audit.Check, where every renderer
// takes them, to the report's members.
func TestCheckNames(t *testing.T) {
	var got []string
	for k := range audit.NumChecks {
		got = append(got, k.String())
	}
	b, _ := json.Marshal(audit.Checks{})
	var members []string
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		tok, _ := dec.Token()
		if s, ok := tok.(string); ok {
			members = append(members, s)
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
	if !slices.Equal(got, members) || !slices.Equal(got, ciCheckNames) {
		t.Errorf("audit.Check names %v, the report's members are %v", got, members)
	}
}

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs("../../../testdata/sarif/sarif-2.1.0-rtm.5.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

// sarifLog is what the tests read of a SARIF document.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name            string `json:"name"`
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
				Rules           []struct {
					ID                   string `json:"id"`
					Name                 string `json:"name"`
					HelpURI              string `json:"helpUri"`
					ShortDescription     struct{ Text string }
					DefaultConfiguration struct{ Level string }
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation struct{ URI string }
					Region           *struct{ StartLine *int }
				} `json:"physicalLocation"`
				LogicalLocations []struct {
					Name               string `json:"name"`
					FullyQualifiedName string `json:"fullyQualifiedName"`
				} `json:"logicalLocations"`
			} `json:"locations"`
			Properties struct {
				Input  int
				Record *int
				Where  *string
			} `json:"properties"`
		} `json:"results"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
		} `json:"invocations"`
		Properties struct {
			Inputs   int            `json:"inputs"`
			Statuses map[string]int `json:"statuses"`
			ExitCode int            `json:"exit_code"`
		} `json:"properties"`
	} `json:"runs"`
}

// validateSARIF checks a SARIF document of ins against the schema and
// against their reports: the rules are the code table, each report's
// findings (and the codes they leave out) are its results in order, an
// invalid report one error result, with levels by kind, logical locations
// of the position, record and place, and a physical location exactly when
// a URI named the input.
func validateSARIF(t *testing.T, schema *jsonschema.Schema, name string, doc []byte, ins []ciInput, uris []string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("%s: SARIF is not JSON: %v", name, err)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("%s: SARIF does not match the SARIF 2.1.0 schema: %v", name, err)
	}
	var log sarifLog
	if err := json.Unmarshal(doc, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || log.Schema != render.SchemaURI || len(log.Runs) != 1 {
		return fmt.Errorf("%s: version %s, $schema %s, %d runs", name, log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	// A rule per code a report can carry: not the catalog's usage codes.
	var codes []audit.Code
	for _, c := range audit.Codes() {
		if c.Kind() != audit.KindUsage {
			codes = append(codes, c)
		}
	}
	if run.Tool.Driver.Name != "cairn" || len(run.Tool.Driver.Rules) != len(codes) {
		return fmt.Errorf("%s: tool %s with %d rules, want cairn with %d", name, run.Tool.Driver.Name, len(run.Tool.Driver.Rules), len(codes))
	}
	if d := run.Tool.Driver; d.Version == "" || d.Version[0] < '0' || d.Version[0] > '9' || d.SemanticVersion == "" || !strings.HasPrefix(d.SemanticVersion, d.Version) {
		return fmt.Errorf("%s: tool version %q, semanticVersion %q: want a version that starts with a digit and the SemVer it starts", name, d.Version, d.SemanticVersion)
	}
	for i, r := range run.Tool.Driver.Rules {
		c := codes[i]
		if r.ID != c.String() || r.Name != render.RuleName(c) || r.ShortDescription.Text != c.Meaning() || r.HelpURI != render.HelpURI(c) || r.DefaultConfiguration.Level != render.Level(c) {
			return fmt.Errorf("%s: rule %d is %+v, want %s", name, i, r, c)
		}
	}
	// The results each report should give, in order.
	type want struct {
		code   string
		input  int
		record *int
		where  *string
	}
	var wants []want
	statuses, _ := ciTally(t, ins)
	for i, in := range ins {
		rep := in.parsed(t)
		if rep.Error != nil {
			wants = append(wants, want{rep.Error.Code, i + 1, rep.Error.Record, rep.Error.Where})
			continue
		}
		seen := map[string]bool{}
		for _, f := range rep.Findings {
			seen[f.Code] = true
			wants = append(wants, want{f.Code, i + 1, f.Record, f.Where})
		}
		for _, c := range ciCheckNames {
			for _, code := range (*rep.Checks)[c].Codes {
				if !seen[code] {
					seen[code] = true
					wants = append(wants, want{code, i + 1, nil, nil})
				}
			}
		}
	}
	if len(run.Results) != len(wants) {
		return fmt.Errorf("%s: %d results, want %d", name, len(run.Results), len(wants))
	}
	for i, r := range run.Results {
		w := wants[i]
		code, _ := audit.ParseCode(w.code)
		if r.RuleID != w.code || r.RuleIndex < 0 || r.RuleIndex >= len(codes) || run.Tool.Driver.Rules[r.RuleIndex].ID != w.code {
			return fmt.Errorf("%s: result %d is rule %s (index %d), want %s", name, i, r.RuleID, r.RuleIndex, w.code)
		}
		if r.Level != render.Level(code) || r.Level == "none" {
			return fmt.Errorf("%s: result %d (%s) has level %s", name, i, w.code, r.Level)
		}
		if r.Properties.Input != w.input || !sameInt(r.Properties.Record, w.record) || !sameString(r.Properties.Where, w.where) {
			return fmt.Errorf("%s: result %d (%s) is at input %d record %v where %v, want %+v", name, i, w.code, r.Properties.Input, r.Properties.Record, r.Properties.Where, w)
		}
		if !strings.HasPrefix(r.Message.Text, fmt.Sprintf("input %d: ", w.input)) || !strings.Contains(r.Message.Text, code.Meaning()) {
			return fmt.Errorf("%s: result %d's message %q", name, i, r.Message.Text)
		}
		format := ins[w.input-1].parsed(t).Input.Format
		fqn := []string{fmt.Sprintf("input %d", w.input)}
		if w.record != nil {
			fqn = append(fqn, render.RecordText(format, w.record))
		}
		if w.where != nil {
			fqn = append(fqn, *w.where)
		}
		if len(r.Locations) != 1 || len(r.Locations[0].LogicalLocations) != 1 {
			return fmt.Errorf("%s: result %d has %d locations", name, i, len(r.Locations))
		}
		loc := r.Locations[0]
		if got := loc.LogicalLocations[0]; got.FullyQualifiedName != strings.Join(fqn, "/") || got.Name != fqn[len(fqn)-1] {
			return fmt.Errorf("%s: result %d's logical location %+v, want %q", name, i, got, strings.Join(fqn, "/"))
		}
		p := loc.PhysicalLocation
		if uris == nil {
			if p != nil {
				return fmt.Errorf("%s: result %d names the input with no --sarif-uri", name, i)
			}
			continue
		}
		if p == nil || p.ArtifactLocation.URI != uris[w.input-1] {
			return fmt.Errorf("%s: result %d's physical location %+v, want the URI %q", name, i, p, uris[w.input-1])
		}
		// The record's line for JSONL, line 1 for the input as a whole
		// or a document.
		wantLine := 1
		if w.record != nil && *w.record >= 1 && strings.HasSuffix(format, "-jsonl") {
			wantLine = *w.record
		}
		if p.Region == nil || p.Region.StartLine == nil || *p.Region.StartLine != wantLine {
			return fmt.Errorf("%s: result %d's region %+v for record %v, want startLine %d", name, i, p.Region, w.record, wantLine)
		}
	}
	props := run.Properties
	if len(run.Invocations) != 1 || !run.Invocations[0].ExecutionSuccessful || props.Inputs != len(ins) {
		return fmt.Errorf("%s: invocations %+v, %d inputs", name, run.Invocations, props.Inputs)
	}
	for _, st := range []string{"pass", "fail", "inconclusive", "invalid"} {
		if props.Statuses[st] != statuses[st] {
			return fmt.Errorf("%s: statuses %v, want %v", name, props.Statuses, statuses)
		}
	}
	return nil
}

func sameInt(a, b *int) bool       { return a == nil && b == nil || a != nil && b != nil && *a == *b }
func sameString(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// xmlNode is an element of a JUnit document.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xmlNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n xmlNode) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// validateJUnit checks a JUnit document of ins against the elements and
// attributes the common JUnit XSD (Jenkins' junit.xsd, which the Ant
// format and the reporters that read either agree with) requires, and
// against their reports:
//
//   - the root is testsuites, holding only testsuite elements, one per
//     input in order;
//   - a testsuite has name and tests, and failures, errors and skipped,
//     non-negative integers equal to the counts of its test cases;
//     properties, when present, comes first and holds property elements
//     with name and value;
//   - a testcase has name and classname and at most one child, failure,
//     error or skipped; failure and error have message and type;
//   - the test cases are the four checks in report order, with no child
//     for a pass, failure for a fail, skipped for an inconclusive check,
//     error for every check of an invalid input.
func validateJUnit(t *testing.T, name string, doc []byte, ins []ciInput) error {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte(xml.Header)) {
		return fmt.Errorf("%s: no XML declaration", name)
	}
	var root xmlNode
	if err := xml.Unmarshal(doc, &root); err != nil {
		return fmt.Errorf("%s: not XML: %v", name, err)
	}
	if root.XMLName.Local != "testsuites" || len(root.Children) != len(ins) {
		return fmt.Errorf("%s: root %s with %d children, want testsuites with %d", name, root.XMLName.Local, len(root.Children), len(ins))
	}
	for i, suite := range root.Children {
		rep := ins[i].parsed(t)
		if suite.XMLName.Local != "testsuite" {
			return fmt.Errorf("%s: child %d is %s", name, i, suite.XMLName.Local)
		}
		if n, ok := suite.attr("name"); !ok || !strings.HasPrefix(n, fmt.Sprintf("input %d ", i+1)) {
			return fmt.Errorf("%s: suite %d is named %q", name, i, n)
		}
		cases := suite.Children
		if len(cases) > 0 && cases[0].XMLName.Local == "properties" {
			for _, p := range cases[0].Children {
				_, okName := p.attr("name")
				_, okValue := p.attr("value")
				if p.XMLName.Local != "property" || !okName || !okValue {
					return fmt.Errorf("%s: suite %d has a property %+v", name, i, p)
				}
			}
			cases = cases[1:]
		}
		counts := map[string]int{}
		if len(cases) != len(ciCheckNames) {
			return fmt.Errorf("%s: suite %d has %d cases", name, i, len(cases))
		}
		for j, c := range cases {
			n, okName := c.attr("name")
			_, okClass := c.attr("classname")
			if c.XMLName.Local != "testcase" || !okName || !okClass || len(c.Children) > 1 || n != ciCheckNames[j] {
				return fmt.Errorf("%s: suite %d case %d is %+v", name, i, j, c)
			}
			got := ""
			if len(c.Children) == 1 {
				child := c.Children[0]
				got = child.XMLName.Local
				_, okMessage := child.attr("message")
				_, okType := child.attr("type")
				if !okMessage || (got == "failure" || got == "error") && !okType {
					return fmt.Errorf("%s: suite %d case %s: %s without message or type", name, i, n, got)
				}
				counts[got]++
			}
			want := "error"
			if rep.Checks != nil {
				want = map[string]string{"pass": "", "fail": "failure", "inconclusive": "skipped"}[(*rep.Checks)[n].State]
			}
			if got != want {
				return fmt.Errorf("%s: suite %d case %s has %q, want %q (report %s)", name, i, n, got, want, rep.Status)
			}
		}
		for attr, want := range map[string]int{"tests": len(cases), "failures": counts["failure"], "errors": counts["error"], "skipped": counts["skipped"]} {
			v, ok := suite.attr(attr)
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n != want {
				return fmt.Errorf("%s: suite %d has %s=%q, want %d", name, i, attr, v, want)
			}
		}
	}
	return nil
}

var (
	githubCommand = regexp.MustCompile(`^::(error|warning|notice) title=cairn input ([0-9]+)%3A ([^:,\r\n]*)::([^\r\n]*)$`)
	githubTotals  = regexp.MustCompile(`^cairn: [0-9]+ inputs?: pass [0-9]+, fail [0-9]+, inconclusive [0-9]+, invalid [0-9]+ \(exit [0-3]\)$`)
)

// validateGitHub checks the workflow commands of ins: for each input in
// order, one ::error per failing check or for an invalid input, one
// ::warning per inconclusive check, one ::notice per informational code of
// a passing check, each titled with the input, the check and its codes;
// then the totals line; and the summary's table has a row per input.
func validateGitHub(t *testing.T, name string, out, summary []byte, ins []ciInput) error {
	t.Helper()
	var want []string
	statuses, worst := ciTally(t, ins)
	for i, in := range ins {
		rep := in.parsed(t)
		if rep.Error != nil {
			want = append(want, fmt.Sprintf("error %d invalid input%%3A %s", i+1, rep.Error.Code))
			continue
		}
		for _, c := range ciCheckNames {
			check := (*rep.Checks)[c]
			switch check.State {
			case "fail":
				want = append(want, fmt.Sprintf("error %d %s fail%%3A %s", i+1, c, strings.Join(check.Codes, " ")))
			case "inconclusive":
				want = append(want, fmt.Sprintf("warning %d %s inconclusive%%3A %s", i+1, c, strings.Join(check.Codes, " ")))
			default:
				for _, code := range check.Codes {
					want = append(want, fmt.Sprintf("notice %d %s%%3A %s", i+1, c, code))
				}
			}
		}
	}
	// GitHub shows 10 annotations of each level a step: the commands past
	// 10 errors, 10 warnings or 9 notices are counted in one last notice.
	var shown []string
	printed, left := map[string]int{}, map[string]int{}
	for _, w := range want {
		level, _, _ := strings.Cut(w, " ")
		room := render.MaxAnnotations
		if level == "notice" {
			room--
		}
		if printed[level] >= room {
			left[level]++
			continue
		}
		printed[level]++
		shown = append(shown, w)
	}
	want = shown
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if n := left["error"] + left["warning"] + left["notice"]; n > 0 {
		if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], fmt.Sprintf("::notice title=cairn%%3A %d more finding", n)) ||
			!strings.Contains(lines[len(lines)-2], fmt.Sprintf("%d more errors, %d more warnings and %d more notices are not annotated here", left["error"], left["warning"], left["notice"])) {
			return fmt.Errorf("%s: no notice of the %d findings not annotated (%v):\n%s", name, n, left, out)
		}
		lines = append(lines[:len(lines)-2], lines[len(lines)-1])
	}
	if len(lines) != len(want)+1 {
		return fmt.Errorf("%s: %d lines, want %d commands and the totals:\n%s", name, len(lines), len(want), out)
	}
	for i, w := range want {
		m := githubCommand.FindStringSubmatch(lines[i])
		if m == nil || strings.Join(m[1:4], " ") != w {
			return fmt.Errorf("%s: line %d is %q, want a command %q", name, i+1, lines[i], w)
		}
	}
	totals := fmt.Sprintf("pass %d, fail %d, inconclusive %d, invalid %d (exit %d)", statuses["pass"], statuses["fail"], statuses["inconclusive"], statuses["invalid"], worst.ExitCode())
	if last := lines[len(lines)-1]; !githubTotals.MatchString(last) || !strings.HasSuffix(last, totals) {
		return fmt.Errorf("%s: last line %q, want the totals %s", name, last, totals)
	}
	var rows int
	sc := bufio.NewScanner(bytes.NewReader(summary))
	for sc.Scan() {
		if m := regexp.MustCompile(`^\| ([0-9]+) \| ([a-z-]+) \| ([a-z]+) \(exit [0-3]\)`).FindStringSubmatch(sc.Text()); m != nil {
			rows++
			rep := ins[rows-1].parsed(t)
			if m[1] != strconv.Itoa(rows) || m[2] != rep.Input.Format || m[3] != rep.Status {
				return fmt.Errorf("%s: summary row %q, want input %d %s %s", name, sc.Text(), rows, rep.Input.Format, rep.Status)
			}
		}
	}
	if rows != len(ins) || !strings.Contains(string(summary), totals) {
		return fmt.Errorf("%s: the summary has %d rows of %d inputs, or not the totals:\n%s", name, rows, len(ins), summary)
	}
	return nil
}

// validateJSON checks eval batch's JSON lines of ins: line i is byte for
// byte the report of input i (SPEC §10), and nothing follows.
func validateJSON(t *testing.T, name string, doc []byte, ins []ciInput) error {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(doc), "\n"), "\n")
	if len(lines) != len(ins) || !bytes.HasSuffix(doc, []byte("\n")) {
		return fmt.Errorf("%s: %d lines, want a report per input:\n%s", name, len(lines), doc)
	}
	for i, in := range ins {
		if want := strings.TrimSuffix(string(in.report), "\n"); lines[i] != want {
			return fmt.Errorf("%s: line %d is\n%s\nwant the report of input %d\n%s", name, i+1, lines[i], i+1, want)
		}
	}
	return nil
}

// validateText checks the text of ins: eval batch's (batch) is a line per
// input, in order, with its position, status, exit code and the codes of
// its checks that did not pass (or its error's), then the totals line;
// eval protocol's, of one input, is the human report, which starts with
// the status and exit code and ends with what is not certified.
func validateText(t *testing.T, name string, doc []byte, ins []ciInput, batch bool) error {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(doc), "\n"), "\n")
	if !batch {
		rep := ins[0].parsed(t)
		first := fmt.Sprintf("cairn eval protocol: %s (exit %d)", strings.ToUpper(rep.Status), rep.ExitCode)
		last := fmt.Sprintf("%-22s %s", "not certified", strings.Join(rep.Limitations, " "))
		if len(ins) != 1 || lines[0] != first || lines[len(lines)-1] != last {
			return fmt.Errorf("%s: the human report does not start %q and end %q:\n%s", name, first, last, doc)
		}
		return nil
	}
	if len(lines) != len(ins)+1 {
		return fmt.Errorf("%s: %d lines, want one per input and the totals:\n%s", name, len(lines), doc)
	}
	statuses, worst := ciTally(t, ins)
	for i, in := range ins {
		rep := in.parsed(t)
		var codes []string
		if rep.Error != nil {
			codes = append(codes, rep.Error.Code)
		} else {
			for _, c := range ciCheckNames {
				if check := (*rep.Checks)[c]; check.State != "pass" {
					for _, code := range check.Codes {
						if !slices.Contains(codes, code) {
							codes = append(codes, code)
						}
					}
				}
			}
		}
		want := strings.TrimSpace(fmt.Sprintf("%-6d %-12s exit %d  %s", i+1, rep.Status, rep.ExitCode, strings.Join(codes, " ")))
		if lines[i] != want {
			return fmt.Errorf("%s: line %d is %q, want %q", name, i+1, lines[i], want)
		}
	}
	totals := fmt.Sprintf("total %d: pass %d, fail %d, inconclusive %d, invalid %d (exit %d)", len(ins),
		statuses["pass"], statuses["fail"], statuses["inconclusive"], statuses["invalid"], worst.ExitCode())
	if last := lines[len(lines)-1]; last != totals {
		return fmt.Errorf("%s: last line %q, want the totals %q", name, last, totals)
	}
	return nil
}

// ciValidator validates a format's document of ins: eval batch's
// (batch), or eval protocol's of one input; summary is the step summary
// of a format that writes one (render.Format.StepSummary), uris the
// --sarif-uri of a format that names inputs.
type ciValidator func(t *testing.T, name string, doc, summary []byte, ins []ciInput, uris []string, batch bool) error

// ciValidators are the validators of every format of --output, by name:
// a format of the table without one fails TestCIFormatsOnRealReports.
func ciValidators(schema *jsonschema.Schema) map[string]ciValidator {
	return map[string]ciValidator{
		"text": func(t *testing.T, name string, doc, _ []byte, ins []ciInput, _ []string, batch bool) error {
			return validateText(t, name, doc, ins, batch)
		},
		"json": func(t *testing.T, name string, doc, _ []byte, ins []ciInput, _ []string, _ bool) error {
			return validateJSON(t, name, doc, ins)
		},
		"sarif": func(t *testing.T, name string, doc, _ []byte, ins []ciInput, uris []string, _ bool) error {
			return validateSARIF(t, schema, name, doc, ins, uris)
		},
		"junit": func(t *testing.T, name string, doc, _ []byte, ins []ciInput, _ []string, _ bool) error {
			return validateJUnit(t, name, doc, ins)
		},
		"github": func(t *testing.T, name string, doc, summary []byte, ins []ciInput, _ []string, _ bool) error {
			return validateGitHub(t, name, doc, summary, ins)
		},
	}
}

// ciVocabulary is what a CI document may say whatever the input: the
// inputs' JSON reports (payload-free, as the privacy tests prove), the
// code texts, every format's places and harness, and the renderers' own
// constants.
func ciVocabulary(ins map[string][]ciInput) string {
	var b strings.Builder
	for _, c := range audit.Codes() {
		b.WriteString(c.String() + "\n" + c.Meaning() + "\n" + c.Next() + "\n")
	}
	for _, f := range protocol.Formats() {
		b.WriteString(f.Name + "\n" + f.Harness + "\n" + strings.Join(f.Places(), "\n") + "\n")
	}
	for _, list := range ins {
		for _, in := range list {
			b.Write(in.report)
		}
	}
	b.WriteString(render.SchemaURI + "\n" + render.InformationURI + "\n" + render.CodesURL + "\n" + version() + "\n")
	// The documents' own words: what they print for an empty input.
	for _, f := range render.Formats() {
		_, stdout, stderr := runCapture([]string{"eval", "protocol", "--codex-jsonl", "-", "--output", f.Name}, map[string]string{"CAIRN_EVAL": "1"})
		b.WriteString(stdout + stderr)
	}
	b.WriteString(ciStructureWords)
	return b.String()
}

// ciStructureWords are the member names of SARIF and the words of the
// other documents that an empty input's documents do not show.
const ciStructureWords = `physicalLocation artifactLocation uri region startLine record where checks
testsuites testsuite testcase failure skipped error classname properties property
cairn input pass fail inconclusive invalid exit
`

// ciNoLeak is fzNoLeak for many inputs and one document: no 8-character
// run of letters and digits of an input is in doc unless the vocabulary
// has it.
func ciNoLeak(t *testing.T, what, vocab string, inputs [][]byte, doc []byte) {
	t.Helper()
	seen := map[string]bool{}
	run := 0
	for i, c := range doc {
		if !clitest.Alnum(c) {
			run = 0
			continue
		}
		if run++; run >= clitest.Window {
			seen[string(doc[i+1-clitest.Window:i+1])] = true
		}
	}
	for w := range seen {
		if strings.Contains(vocab, w) {
			delete(seen, w)
		}
	}
	for _, in := range inputs {
		run = 0
		for i, c := range in {
			if !clitest.Alnum(c) {
				run = 0
				continue
			}
			if run++; run >= clitest.Window && seen[string(in[i+1-clitest.Window:i+1])] {
				t.Fatalf("%s repeats %q from an input", what, in[i+1-clitest.Window:i+1])
			}
		}
	}
}

// TestCIFormatsOnRealReports runs eval batch with each format of --output
// (render.Formats: every one needs a validator) over every input
// format's inputs (ciInputs), and eval protocol over one input of each
// outcome, and validates what they print.
func TestCIFormatsOnRealReports(t *testing.T) {
	t.Parallel()
	validators := ciValidators(sarifSchema(t))
	all := ciInputs(t)
	vocab := ciVocabulary(all)
	env := map[string]string{"CAIRN_EVAL": "1"}
	for _, f := range protocol.Formats() {
		ins := all[f.Name]
		t.Run(f.Name, func(t *testing.T) {
			paths := make([]string, len(ins))
			var uris []string
			var uriArgs []string
			for i, in := range ins {
				paths[i] = in.path
				uris = append(uris, fmt.Sprintf("runs/%d%%20%s.jsonl", i, f.Name))
				uriArgs = append(uriArgs, "--sarif-uri", uris[i])
			}
			batch := func(args ...string) (int, string, string) {
				return runCapture(append(append([]string{"eval", "batch", "--format", f.Name}, args...), paths...), env)
			}
			var datas [][]byte
			for _, in := range ins {
				data, err := os.ReadFile(in.path)
				if err != nil {
					t.Fatal(err)
				}
				datas = append(datas, data)
			}
			noLeak := func(what string, doc []byte) {
				ciNoLeak(t, what, vocab, datas, doc)
				for _, p := range paths {
					if bytes.Contains(doc, []byte(filepath.Base(p))) || bytes.Contains(doc, []byte(filepath.Dir(p))) {
						t.Fatalf("%s names an input's path", what)
					}
				}
			}
			// Each format's document of every input, with a step summary
			// for the format that writes one; with and without URIs for
			// the format that names inputs.
			for _, o := range render.Formats() {
				validate := validators[o.Name]
				if validate == nil {
					t.Fatalf("--output %s has no validator in ciValidators", o.Name)
				}
				env := map[string]string{"CAIRN_EVAL": "1"}
				summary := ""
				if o.StepSummary {
					summary = filepath.Join(t.TempDir(), "summary.md")
					env["GITHUB_STEP_SUMMARY"] = summary
				}
				_, doc, stderr := runCapture(append([]string{"eval", "batch", "--format", f.Name, "--output", o.Name}, paths...), env)
				var written []byte
				if o.StepSummary {
					var err error
					if written, err = os.ReadFile(summary); err != nil {
						t.Fatal(err)
					}
					noLeak("the step summary", written)
				}
				if err := validate(t, "batch "+o.Name, []byte(doc), written, ins, nil, true); err != nil {
					t.Fatal(err)
				}
				noLeak(o.Name, []byte(doc+stderr))
				if o.NamesInputs {
					_, named, _ := batch(append([]string{"--output", o.Name}, uriArgs...)...)
					if err := validate(t, "batch "+o.Name+" with URIs", []byte(named), nil, ins, uris, true); err != nil {
						t.Fatal(err)
					}
				}
			}

			// eval protocol: the document of a batch of one, but for the
			// human report, eval protocol's own.
			for _, st := range []string{"pass", "fail", "inconclusive", "invalid"} {
				i := slices.IndexFunc(ins, func(in ciInput) bool { return in.status == st })
				in := ins[i]
				for _, o := range render.Formats() {
					args := []string{"eval", "protocol", "--" + f.Name, in.path, "--output", o.Name}
					bargs := []string{"eval", "batch", "--format", f.Name, "--output", o.Name, in.path}
					var inURIs []string
					if o.NamesInputs {
						inURIs = uris[i : i+1]
						args = append(args, "--sarif-uri", uris[i])
						bargs = append(bargs, "--sarif-uri", uris[i])
					}
					code, got, _ := runCapture(args, env)
					if code != in.parsed(t).ExitCode {
						t.Errorf("%s (%s) --output %s: exit %d, want %d", in.name, st, o.Name, code, in.parsed(t).ExitCode)
					}
					if o.Human {
						if err := validators[o.Name](t, in.name, []byte(got), nil, []ciInput{in}, inURIs, false); err != nil {
							t.Fatal(err)
						}
						continue
					}
					_, one, _ := runCapture(bargs, env)
					if got != one {
						t.Errorf("%s (%s) --output %s: eval protocol's document differs from eval batch's of one:\n%s\n%s", in.name, st, o.Name, got, one)
					}
					if !o.StepSummary {
						if err := validators[o.Name](t, in.name, []byte(got), nil, []ciInput{in}, inURIs, false); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// TestSARIFSchemaRejects shows that the schema and the checks of
// validateSARIF are not vacuous: broken documents fail them.
func TestSARIFSchemaRejects(t *testing.T) {
	schema := sarifSchema(t)
	_, good, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl"), "--output", "sarif"}, map[string]string{"CAIRN_EVAL": "1"})
	bad := map[string]string{
		"another version":   strings.Replace(good, `"version": "2.1.0"`, `"version": "2.0.0"`, 1),
		"an unknown level":  strings.Replace(good, `"level": "error"`, `"level": "fatal"`, 1),
		"an unknown member": strings.Replace(good, `"ruleId":`, `"rule":"x","ruleId":`, 1),
		"a relative helpUri": strings.Replace(good, `"helpUri": "https://github.com/cairn-audit/cairn/blob/main/docs/codes.md#invalid-input-exit-2"`,
			`"helpUri": "docs/codes.md#invalid-input-exit-2"`, 1),
		"a message without text": strings.Replace(good, `"message": {
            "text":`, `"message": {
            "markdown":`, 1),
	}
	for name, doc := range bad {
		if doc == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(v) == nil {
			t.Errorf("%s: the SARIF schema accepts a broken document", name)
		}
	}
}

// TestHelpURIAnchors holds each rule's help URI to docs/codes.md: the
// anchor is GitHub's slug of the heading of the section that lists the
// code.
func TestHelpURIAnchors(t *testing.T) {
	b, err := os.ReadFile("../../../docs/codes.md")
	if err != nil {
		t.Fatal(err)
	}
	anchor := ""
	found := map[string]string{}
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)` \\|")
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			anchor = githubSlug(h)
		}
		if m := row.FindStringSubmatch(line); m != nil {
			found[m[1]] = render.CodesURL + "#" + anchor
		}
	}
	for _, c := range audit.Codes() {
		if got := render.HelpURI(c); got != found[c.String()] {
			t.Errorf("%s: help URI %s, docs/codes.md has it under %s", c, got, found[c.String()])
		}
	}
}

// githubSlug is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation but hyphens and underscores dropped.
func githubSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestIsURIReference: what --sarif-uri takes (RFC 3986 §4.1), and what
// it refuses.
func TestIsURIReference(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"runs/a.jsonl", true},
		{"runs/a%20b.jsonl", true},
		{"run%232.jsonl", true},
		{"runs/%C3%A9.jsonl", true},
		{"100%25.jsonl", true},
		{"-pass.jsonl", true},
		{"a%2Fb", true},
		{"./a:b.jsonl", true},
		{"https://example.com/x?y=1#z", true},
		{"file:///home/u/run.jsonl", true},
		{"http://[::1]:8080/a", true},
		{"//host/a", true},
		{"", false},
		{"runs/a b.jsonl", false},
		{`runs\a.jsonl`, false},
		{"runs/é.jsonl", false},
		{"100%.jsonl", false},
		{"100%2.jsonl", false},
		{"a#b#c", false},
		{"a:b.jsonl", true}, // a URI of scheme a: the Action encodes a path's ":"
		{"1a:b", false},
		{"runs/[x].jsonl", false},
		{"http://[::1/a", false},
		{"{x}|<z>\"", false},
		{"a\x00b", false},
	} {
		if got := render.IsURIReference(tc.in); got != tc.want {
			t.Errorf("IsURIReference(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestSARIFToolVersion: SARIF's tool version starts with a digit and its
// semanticVersion is SemVer (SPEC §14.1 v4).
func TestSARIFToolVersion(t *testing.T) {
	for _, tc := range []struct {
		cairn, revision string
		modified        bool
		version, sem    string
	}{
		{"v1.2.3", "abc", false, "1.2.3", "1.2.3"},
		{"v1.2.3-rc.1", "", false, "1.2.3-rc.1", "1.2.3-rc.1"},
		{"v0.0.0-20261206120000-9c730d3abcde", "", false, "0.0.0-20261206120000-9c730d3abcde", "0.0.0-20261206120000-9c730d3abcde"},
		{"v0.0.0-SNAPSHOT-9c730d3.dirty", "", false, "0.0.0-SNAPSHOT-9c730d3.dirty", "0.0.0-SNAPSHOT-9c730d3.dirty"},
		{"(devel)", "9c730d3abcdef", false, "0.0.0-dev", "0.0.0-dev+9c730d3abcdef"},
		{"(devel)", "9c730d3abcdef", true, "0.0.0-dev", "0.0.0-dev+9c730d3abcdef.modified"},
		{"(devel)", "", false, "0.0.0-dev", "0.0.0-dev"},
		{"unknown", "not a revision!", false, "0.0.0-dev", "0.0.0-dev"},
		{"v01.2.3", "", false, "0.0.0-dev", "0.0.0-dev"},
	} {
		v, sem := render.ToolVersion(tc.cairn, tc.revision, tc.modified)
		if v != tc.version || sem != tc.sem {
			t.Errorf("ToolVersion(%q, %q, %v) = %q, %q; want %q, %q", tc.cairn, tc.revision, tc.modified, v, sem, tc.version, tc.sem)
		}
	}
}

// TestCIValidatorsReject shows that validateSARIF, validateJUnit,
// validateGitHub, validateText and validateJSON are not vacuous: each mutation of a good document, the
// schema still satisfied where it is SARIF, fails them.
func TestCIValidatorsReject(t *testing.T) {
	schema := sarifSchema(t)
	env := map[string]string{"CAIRN_EVAL": "1"}
	paths := []string{
		mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl"),
		mustAbs(t, "../../../testdata/codex/real/0.171.0/http-400.jsonl"),
	}
	_, reports, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--json"}, paths...), env)
	var ins []ciInput
	for i, line := range strings.Split(strings.TrimSuffix(reports, "\n"), "\n") {
		ins = append(ins, ciInput{name: paths[i], path: paths[i], report: []byte(line)})
	}
	uris := []string{"a.jsonl", "b.jsonl"}
	batch := func(extra ...string) string {
		_, out, _ := runCapture(append(append([]string{"eval", "batch", "--format", "codex-jsonl"}, extra...), paths...), env)
		return out
	}
	sarif := batch("--output", "sarif", "--sarif-uri", uris[0], "--sarif-uri", uris[1])
	junit := batch("--output", "junit")
	summaryPath := filepath.Join(t.TempDir(), "summary.md")
	_, github, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github"}, paths...),
		map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": summaryPath})
	summary, err := os.ReadFile(summaryPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateSARIF(t, schema, "good", []byte(sarif), ins, uris); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(t, "good", []byte(junit), ins); err != nil {
		t.Fatal(err)
	}
	if err := validateGitHub(t, "good", []byte(github), summary, ins); err != nil {
		t.Fatal(err)
	}
	mutate := func(name, doc, old, new string) string {
		t.Helper()
		if !strings.Contains(doc, old) {
			t.Fatalf("%s: the mutation does not apply", name)
		}
		return strings.Replace(doc, old, new, 1)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"another rule's index", `"ruleIndex": 48,`, `"ruleIndex": 47,`},
		{"a fail code as a warning", `"level": "error",
          "message"`, `"level": "warning",
          "message"`},
		{"another line", `"startLine": 3`, `"startLine": 4`},
		{"another input", `"input": 2,`, `"input": 1,`},
		{"another URI", `"uri": "b.jsonl"`, `"uri": "a.jsonl"`},
		{"another place", `"fullyQualifiedName": "input 1/line 3/command_execution"`, `"fullyQualifiedName": "input 1/command_execution"`},
		{"a lost result", `"ruleId": "turn_failed"`, `"ruleId": "turn_incomplete"`},
		{"an unsuccessful run", `"executionSuccessful": true`, `"executionSuccessful": false`},
	} {
		if validateSARIF(t, schema, tc.name, []byte(mutate(tc.name, sarif, tc.old, tc.new)), ins, uris) == nil {
			t.Errorf("validateSARIF accepts %s", tc.name)
		}
	}
	for _, tc := range []struct{ name, old, new string }{
		{"a wrong count", `failures="1"`, `failures="0"`},
		{"a fail as skipped", `<failure message="fail: tool_before_project_search" type="fail">tool_before_project_search: the first call was not a project-scoped memory search (line 3 at command_execution)</failure>`, `<skipped message="x"></skipped>`},
		{"no classname", `<testcase name="memory_first" classname="input 1">`, `<testcase name="memory_first">`},
		{"a failure without type", `type="fail"`, ``},
		{"checks out of order", `<testcase name="evidence_complete" classname="input 1">`, `<testcase name="retrieval_result" classname="input 1">`},
		{"no suite", `<testsuite name="input 2 (codex-jsonl)"`, `<testsuiteX name="input 2 (codex-jsonl)"`},
	} {
		if validateJUnit(t, tc.name, []byte(mutate(tc.name, junit, tc.old, tc.new)), ins) == nil {
			t.Errorf("validateJUnit accepts %s", tc.name)
		}
	}
	for _, tc := range []struct{ name, old, new string }{
		{"an error as a warning", "::error title=cairn input 1", "::warning title=cairn input 1"},
		{"an unescaped title", "input 1%3A memory_first", "input 1: memory_first"},
		{"a lost command", "::warning title=cairn input 2%3A retrieval_result inconclusive%3A turn_failed::turn_failed: the run ended in failure (turn.failed, an error result or record, a failed or aborted attempt) (line 4 at turn.failed)\n", ""},
		{"wrong totals", "(exit 1)", "(exit 0)"},
	} {
		if validateGitHub(t, tc.name, []byte(mutate(tc.name, github, tc.old, tc.new)), summary, ins) == nil {
			t.Errorf("validateGitHub accepts %s", tc.name)
		}
	}
	if validateGitHub(t, "a lost row", []byte(github), []byte(mutate("a lost row", string(summary), "| 2 | codex-jsonl", "| 3 | codex-jsonl")), ins) == nil {
		t.Errorf("validateGitHub accepts a summary with a wrong row")
	}
	text := batch()
	if err := validateText(t, "good", []byte(text), ins, true); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(text, "\n")
	for _, tc := range []struct{ name, old, new string }{
		{"another exit", first, strings.Replace(first, "exit 1", "exit 3", 1)},
		{"a lost code", first, strings.Fields(first)[0] + "      fail         exit 1"},
		{"a lost line", first + "\n", ""},
		{"wrong totals", "(exit 1)", "(exit 0)"},
	} {
		if validateText(t, tc.name, []byte(mutate(tc.name, text, tc.old, tc.new)), ins, true) == nil {
			t.Errorf("validateText accepts %s", tc.name)
		}
	}
	if err := validateJSON(t, "good", []byte(reports), ins); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"another status", `"status":"fail"`, `"status":"pass"`},
		{"a lost report", string(ins[1].report) + "\n", ""},
	} {
		if validateJSON(t, tc.name, []byte(mutate(tc.name, reports, tc.old, tc.new)), ins) == nil {
			t.Errorf("validateJSON accepts %s", tc.name)
		}
	}
}

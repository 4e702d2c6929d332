package render

import (
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-audit/cairn/audit"
)

// SARIF 2.1.0 (OASIS): one run whose tool has one rule per code of the
// vocabulary (SPEC §8), and one result per finding of every input, in the
// order of the inputs and of their findings; an invalid input is one
// result. A result's logical location is the input's position, the
// record and the contract's place; its physical location, only when the
// caller named the input by a URI, always has a region: the record's line
// for JSONL, line 1 for the input as a whole or a document. What real
// consumers need besides the schema (SPEC §14.1 v4: the SARIF
// multitool's SARIF and GitHub rules): a version that starts with a
// digit and a semanticVersion, a name on every rule, those regions.

// SchemaURI is the SARIF document's $schema: the OASIS schema of SARIF
// 2.1.0 with its first errata.
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// InformationURI is cairn's home, SARIF's tool informationUri.
const InformationURI = "https://github.com/cairn-audit/cairn"

type sarifText struct {
	Text string `json:"text"`
}

type sarifLevel struct {
	Level string `json:"level"`
}

type sarifRule struct {
	ID                   string     `json:"id"`
	Name                 string     `json:"name"`
	ShortDescription     sarifText  `json:"shortDescription"`
	FullDescription      sarifText  `json:"fullDescription"`
	Help                 sarifText  `json:"help"`
	HelpURI              string     `json:"helpUri"`
	DefaultConfiguration sarifLevel `json:"defaultConfiguration"`
}

type sarifTool struct {
	Driver struct {
		Name            string      `json:"name"`
		Version         string      `json:"version"`
		SemanticVersion string      `json:"semanticVersion"`
		InformationURI  string      `json:"informationUri"`
		Rules           []sarifRule `json:"rules"`
	} `json:"driver"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties sarifResultBag  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

// sarifResultBag is a result's property bag: the report's own words.
type sarifResultBag struct {
	Input  int      `json:"input"`
	Format string   `json:"format"`
	Status string   `json:"status"`
	Record *int     `json:"record,omitempty"`
	Where  *string  `json:"where,omitempty"`
	Checks []string `json:"checks,omitempty"`
}

type sarifNotification struct {
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Descriptor *sarifReference `json:"descriptor,omitempty"`
}

// sarifReference names a notification's fixed code.
type sarifReference struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ExitCode                   int                 `json:"exitCode"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

// sarifRunBag is the run's property bag: the totals of the inputs, and
// the process's exit code.
type sarifRunBag struct {
	Inputs      int            `json:"inputs"`
	Statuses    map[string]int `json:"statuses"`
	ExitCode    int            `json:"exit_code"`
	Limitations []audit.Code   `json:"limitations,omitempty"`
	Enabled     bool           `json:"enabled"`
}

// ruleCodes are the codes a report can carry, one rule each: every code
// but the catalog's usage codes, which stop a command before any report.
var ruleCodes = func() []audit.Code {
	var cs []audit.Code
	for _, c := range audit.Codes() {
		if c.Kind() != audit.KindUsage {
			cs = append(cs, c)
		}
	}
	return cs
}()

// ruleIndex is each code's index among the rules.
var ruleIndex = func() map[audit.Code]int {
	m := map[audit.Code]int{}
	for i, c := range ruleCodes {
		m[c] = i
	}
	return m
}()

// Level is the SARIF level of a code's results and rule: error for fail
// codes and invalid input, warning for the inconclusive kinds, note for
// informational codes, none for limitations (never a result).
func Level(code audit.Code) string {
	switch code.Kind() {
	case audit.KindFail, audit.KindInvalid:
		return "error"
	case audit.KindEvidence, audit.KindCheck:
		return "warning"
	case audit.KindInformational:
		return "note"
	}
	return "none"
}

func sarifRules() []sarifRule {
	var rules []sarifRule
	for _, c := range ruleCodes {
		rules = append(rules, sarifRule{
			ID:                   c.String(),
			Name:                 RuleName(c),
			ShortDescription:     sarifText{c.Meaning()},
			FullDescription:      sarifText{c.Meaning() + "; " + c.Next()},
			Help:                 sarifText{c.Next()},
			HelpURI:              HelpURI(c),
			DefaultConfiguration: sarifLevel{Level(c)},
		})
	}
	return rules
}

type sarifWriter struct {
	w       io.Writer
	opts    Options
	results int
	totals  totals
	limits  []audit.Code
}

// The document's nesting, for indentation.
const (
	sarifRunIndent    = "    "
	sarifMemberIndent = "      "
	sarifResultIndent = "        "
)

func newSARIF(w io.Writer, opts Options) Writer {
	s := &sarifWriter{w: w, opts: opts}
	var tool sarifTool
	tool.Driver.Name = "cairn"
	tool.Driver.Version, tool.Driver.SemanticVersion = ToolVersion(opts.Version, opts.Revision, opts.Modified)
	tool.Driver.InformationURI = InformationURI
	tool.Driver.Rules = sarifRules()
	io.WriteString(w, "{\n  \"$schema\": "+quote(SchemaURI)+",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n"+sarifRunIndent+"{\n")
	io.WriteString(w, sarifMemberIndent+"\"tool\": "+indent(tool, sarifMemberIndent)+",\n")
	io.WriteString(w, sarifMemberIndent+"\"results\": [")
	return s
}

func (s *sarifWriter) result(r sarifResult) {
	sep := ",\n"
	if s.results == 0 {
		sep = "\n"
	}
	s.results++
	io.WriteString(s.w, sep+sarifResultIndent+indent(r, sarifResultIndent))
}

func (s *sarifWriter) Input(in Input) {
	rep := in.Report
	s.totals.add(rep.Status)
	s.limits = rep.Limitations
	if rep.Error != nil {
		e := rep.Error
		s.result(sarifResult{
			RuleID: e.Code.String(), RuleIndex: ruleIndex[e.Code], Level: Level(e.Code),
			Message:    sarifText{inputName(in.Position) + ": invalid input: " + e.Code.Meaning() + " (" + placeText(rep.Input.Format, e.Record, e.Where) + "); " + e.Code.Next()},
			Locations:  []sarifLocation{location(in, e.Record, e.Where)},
			Properties: sarifResultBag{Input: in.Position, Format: rep.Input.Format, Status: string(rep.Status), Record: e.Record, Where: e.Where},
		})
		return
	}
	if rep.Checks == nil {
		return
	}
	checks := rep.Checks
	// carriers are the checks that list a code, with their states.
	carriers := func(code audit.Code) (names, states []string) {
		for k, v := range checks.All() {
			for _, c := range v.Codes {
				if c == code {
					names = append(names, k.String())
					states = append(states, k.String()+" "+string(v.State))
				}
			}
		}
		return names, states
	}
	seen := map[audit.Code]bool{}
	emit := func(code audit.Code, record *int, where *string) {
		names, states := carriers(code)
		place := placeText(rep.Input.Format, record, where)
		s.result(sarifResult{
			RuleID: code.String(), RuleIndex: ruleIndex[code], Level: Level(code),
			Message:    sarifText{inputName(in.Position) + ": " + code.Meaning() + " (" + strings.Join(append(states, place), "; ") + "); " + code.Next()},
			Locations:  []sarifLocation{location(in, record, where)},
			Properties: sarifResultBag{Input: in.Position, Format: rep.Input.Format, Status: string(rep.Status), Record: record, Where: where, Checks: names},
		})
	}
	for _, f := range rep.Findings {
		seen[f.Code] = true
		emit(f.Code, f.Record, f.Where)
	}
	// A code the findings leave out (there are at most 64) is still a
	// result, at the input as a whole.
	for _, v := range checks.All() {
		for _, code := range v.Codes {
			if !seen[code] {
				seen[code] = true
				emit(code, nil, nil)
			}
		}
	}
}

// location is a result's location: logical always (the input, the record,
// the place), physical when the caller named the input.
func location(in Input, record *int, where *string) sarifLocation {
	parts := []string{inputName(in.Position)}
	if record != nil {
		parts = append(parts, RecordText(in.Report.Input.Format, record))
	}
	if where != nil {
		parts = append(parts, *where)
	}
	loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: parts[len(parts)-1], FullyQualifiedName: strings.Join(parts, "/")}}}
	if in.URI != "" {
		p := &sarifPhysical{Region: &sarifRegion{StartLine: 1}}
		p.ArtifactLocation.URI = in.URI
		if record != nil && isLine(in.Report.Input.Format) && *record >= 1 {
			p.Region.StartLine = *record
		}
		loc.PhysicalLocation = p
	}
	return loc
}

func (s *sarifWriter) end(inv sarifInvocation, enabled bool, inputs int) {
	if s.results > 0 {
		io.WriteString(s.w, "\n"+sarifMemberIndent)
	}
	io.WriteString(s.w, "],\n")
	io.WriteString(s.w, sarifMemberIndent+"\"invocations\": "+indent([]sarifInvocation{inv}, sarifMemberIndent)+",\n")
	bag := sarifRunBag{Inputs: inputs, Statuses: map[string]int{}, Limitations: s.limits, Enabled: enabled}
	for _, st := range []audit.Status{audit.StatusPass, audit.StatusFail, audit.StatusInconclusive, audit.StatusInvalid} {
		bag.Statuses[string(st)] = s.totals.by[st]
	}
	bag.ExitCode = inv.ExitCode
	io.WriteString(s.w, sarifMemberIndent+"\"properties\": "+indent(bag, sarifMemberIndent)+"\n")
	io.WriteString(s.w, sarifRunIndent+"}\n  ]\n}\n")
}

// Close: a run that stopped early is no successful execution, and its
// invocation's notification names the stop's code.
func (s *sarifWriter) Close(exit int, stop *Stop) {
	inv := sarifInvocation{ExecutionSuccessful: stop == nil, ExitCode: exit}
	if stop != nil {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "error",
			Message:    sarifText{"the run did not complete: " + stop.line()},
			Descriptor: &sarifReference{ID: stop.Code}}}
	}
	s.end(inv, true, s.totals.inputs)
}

// Disabled: no result, and an invocation that says nothing was audited.
func (s *sarifWriter) Disabled(n int, notice string) {
	s.end(sarifInvocation{ExecutionSuccessful: false, ToolExecutionNotifications: []sarifNotification{{Level: "warning", Message: sarifText{notice}}}}, false, n)
}

// indent is v as indented JSON whose lines after the first start with
// prefix.
func indent(v any, prefix string) string {
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		// Fixed texts, numbers and digests only.
		panic("render: a SARIF part does not encode")
	}
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// RuleName is a code's rule name, its words in PascalCase:
// tool_before_project_search is ToolBeforeProjectSearch.
func RuleName(code audit.Code) string {
	var b strings.Builder
	for _, w := range strings.Split(code.String(), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// ToolVersion is SARIF's tool version and semanticVersion for cairn's
// version, as cairn version prints it (v1.2.3, a pseudo-version,
// "(devel)"): a release's without its v; for a build that has no version,
// 0.0.0-dev, with the VCS revision (and "modified") as build metadata
// when known. version always starts with a digit and semantic is SemVer
// 2.0.0.
func ToolVersion(cairn, revision string, modified bool) (version, semantic string) {
	v := strings.TrimPrefix(cairn, "v")
	if semVer().MatchString(v) {
		return v, v
	}
	semantic = "0.0.0-dev"
	if buildIdent().MatchString(revision) {
		semantic += "+" + revision
		if modified {
			semantic += ".modified"
		}
	}
	return "0.0.0-dev", semantic
}

// The regular expressions are compiled the first time one is used, not
// at the start of every run, most of which print no SARIF.
var (
	// semVer is SemVer 2.0.0's grammar (semver.org), a version with its
	// pre-release and build metadata.
	semVer = lazyRegexp(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
		`(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?` +
		`(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	buildIdent = lazyRegexp(`^[0-9A-Za-z-]+$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// IsURIReference reports whether s is a URI reference (RFC 3986 §4.1: a
// URI, or a relative reference), not empty: what --sarif-uri takes. Every
// byte is unreserved, a sub-delimiter, one of ":/?#@", or starts a
// percent-encoding (% and two hex digits); at most one # starts the
// fragment; "[" and "]" only around an IP literal host; a ":" before the
// first "/", "?" or "#" ends a scheme (a letter, then letters, digits, +,
// - or .), so a relative path's first segment holds none.
func IsURIReference(s string) bool {
	if s == "" || strings.Count(s, "#") > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=:/?#@[]", c) >= 0:
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	rest := s
	if i := strings.IndexAny(s, ":/?#"); i >= 0 && s[i] == ':' {
		if !scheme().MatchString(s[:i]) {
			return false // a relative path whose first segment holds ":"
		}
		rest = s[i+1:]
	}
	// Brackets belong to an IP literal, the whole host of an authority.
	if strings.ContainsAny(rest, "[]") {
		auth, ok := strings.CutPrefix(rest, "//")
		if !ok {
			return false
		}
		if i := strings.IndexAny(auth, "/?#"); i >= 0 {
			auth = auth[:i]
		}
		host := auth[strings.LastIndexByte(auth, '@')+1:]
		end := strings.IndexByte(host, ']')
		if !strings.HasPrefix(host, "[") || end < 0 || strings.Count(rest, "[") != 1 || strings.Count(rest, "]") != 1 ||
			end+1 < len(host) && (host[end+1] != ':' || !allDigits(host[end+2:])) {
			return false
		}
	}
	return true
}

var scheme = lazyRegexp(`^[A-Za-z][A-Za-z0-9+.-]*$`)

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
)

type explainCmd struct {
	Code string `arg:"" optional:"" help:"A code from a report, e.g. project_search_absent (any case)."`
	List bool   `name:"list" help:"List every code with its kind and meaning."`
	JSON bool   `name:"json" help:"Print as JSON: one object for a code, an array with --list."`
}

func (c *explainCmd) Help() string {
	return `Prints what a report code means, what to do about it, and where a report
shows what it was about. Every code of the report's vocabulary is known;
case does not matter.

Examples:
  cairn explain project_search_absent
  cairn explain --list
  cairn explain --json turn_failed`
}

var kindNames = map[audit.Kind]string{
	audit.KindInvalid:       "invalid input, exit 2",
	audit.KindEvidence:      "inconclusive evidence",
	audit.KindCheck:         "inconclusive check",
	audit.KindFail:          "fail, exit 1",
	audit.KindInformational: "informational",
	audit.KindLimitation:    "limitation",
	audit.KindUsage:         "catalog usage error, exit 2",
}

// catalogKindNames name the kinds of the codes of cairn catalog (SPEC
// §16.5), which no report holds.
var catalogKindNames = map[catalog.CodeKind]string{
	catalog.KindToolsList: "tools/list file, exit 2",
	catalog.KindFinding:   "catalog check, exit 1",
	catalog.KindDerive:    "catalog derive, exit 2",
}

// codeText is a code's texts, as explain --json prints them.
type codeText struct {
	Code    string `json:"code"`
	Kind    string `json:"kind"`
	Meaning string `json:"meaning"`
	Next    string `json:"next"`
	Where   string `json:"where,omitempty"`
}

func textOf(c audit.Code) codeText {
	return codeText{Code: c.String(), Kind: kindNames[c.Kind()], Meaning: c.Meaning(), Next: c.Next(), Where: whereTexts[c.Kind()]}
}

func catalogTextOf(c catalog.Code) codeText {
	return codeText{Code: c.String(), Kind: catalogKindNames[c.Kind()], Meaning: c.Meaning(), Next: c.Next(), Where: catalogWhereTexts[c.Kind()]}
}

// allCodeTexts are every code's texts: the report's (SPEC §8), then cairn
// catalog's.
func allCodeTexts() []codeText {
	var all []codeText
	for _, k := range audit.Codes() {
		all = append(all, textOf(k))
	}
	for _, k := range catalog.Codes() {
		all = append(all, catalogTextOf(k))
	}
	return all
}

// lookupCode finds a code of either vocabulary by its name.
func lookupCode(name string) (codeText, bool) {
	if c, ok := audit.ParseCode(name); ok {
		return textOf(c), true
	}
	if c, ok := catalog.ParseCode(name); ok {
		return catalogTextOf(c), true
	}
	return codeText{}, false
}

func (c *explainCmd) Run(e *env) error {
	if c.List {
		all := allCodeTexts()
		if c.JSON {
			writeJSON(e.stdout, all)
			return nil
		}
		for _, t := range all {
			fmt.Fprintf(e.stdout, "%-41s %-22s %s\n", t.Code, t.Kind, t.Meaning)
		}
		return nil
	}
	if c.Code == "" {
		fmt.Fprintln(e.stderr, "cairn: usage error: give a code, or --list")
		fmt.Fprintln(e.stderr, "Run 'cairn explain --help' for usage.")
		return statusError(2)
	}
	t, ok := lookupCode(strings.ToLower(c.Code))
	if !ok {
		// The unknown word is not repeated: it is the caller's text. The
		// suggestions are codes, chosen by their distance to it.
		fmt.Fprintf(e.stderr, "cairn: unknown code; the nearest codes are: %s\n", strings.Join(nearestCodes(c.Code, 3), ", "))
		fmt.Fprintln(e.stderr, "Run 'cairn explain --list' for every code.")
		return statusError(2)
	}
	if c.JSON {
		writeJSON(e.stdout, t)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s (%s)\n  meaning: %s\n  next:    %s\n", t.Code, t.Kind, t.Meaning, t.Next)
	if t.Where != "" {
		fmt.Fprintf(e.stdout, "  where:   %s\n", t.Where)
	}
	return nil
}

// nearestCodes are the n codes nearest to s by edit distance, nearest
// first, ties in SPEC order.
func nearestCodes(s string, n int) []string {
	s = strings.ToLower(s)
	type scored struct {
		name string
		d, i int
	}
	var all []scored
	for i, c := range allCodeTexts() {
		all = append(all, scored{c.Code, distance(s, c.Code), i})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return a.i - b.i
	})
	out := make([]string, 0, n)
	for _, x := range all[:n] {
		out = append(out, x.name)
	}
	return out
}

// whereTexts say where a report shows what a code was about (SPEC §7.1).
var whereTexts = map[audit.Kind]string{
	audit.KindInvalid:       "the report's error gives the line or event, and for schema_violation the member missing or of the wrong type",
	audit.KindEvidence:      "the report's findings give the first line or event where it was seen and the place in the contract",
	audit.KindCheck:         "the report's findings give the first line or event where it was seen and the place in the contract",
	audit.KindFail:          "the report's findings give the line or event of the call that decided it",
	audit.KindInformational: "the report's findings give the line or event of the call",
	audit.KindUsage:         "the one stderr line names the member of the catalog (catalog.tools[3].search.scope.kind); no report is printed",
}

// catalogWhereTexts say where cairn catalog shows what a code was about.
var catalogWhereTexts = map[catalog.CodeKind]string{
	catalog.KindToolsList: "cairn catalog check prints it (derive: on stderr) with the member of the tools/list file (tools_list.result.tools[3].annotations.readOnlyHint), never its content",
	catalog.KindFinding:   "cairn catalog check prints it with the tool's position in the catalog (catalog.tools[2]) or in the tools/list file (tools_list.result.tools[5]), never its name",
	catalog.KindDerive:    "cairn catalog derive prints it on stderr with the tool's position in the tools/list file, or which --search (0-based), never its name",
}

package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
)

type explainCmd struct {
	Code string `arg:"" optional:""`
	List bool   `name:"list"`
	JSON bool   `name:"json"`
}

func (c *explainCmd) Help() string {
	return `Prints what a report code means, what to do about it, and where a report
shows what it was about; or, for a check's name (evidence_complete,
memory_first, retrieval_result, direct_write_boundary), what the check
looks at, what each of its states means and the codes it gives. The codes
that say why eval batch stopped early are known too. Case does not matter.

Examples:
  cairn explain project_search_absent
  cairn explain memory_first
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

// stopKind is the kind explain gives a stop code.
const stopKind = "run stopped, exit 2"

// text is a stop code's texts, as explain prints a code's.
func (s stopCode) text() codeText {
	return codeText{Code: s.code, Kind: stopKind, Meaning: s.meaning, Next: s.next,
		Where: "eval batch's document: SARIF's invocation (unsuccessful, its notification names the code), JUnit's last test case (an error), the github format's ::error and step summary row, the totals line; the fixed line on stderr"}
}

// allCodeTexts are every code's texts, in the order explain --list gives
// them: the report's (SPEC §8), cairn catalog's, then the stop codes of a
// batch.
func allCodeTexts() []codeText {
	var all []codeText
	for _, k := range audit.Codes() {
		all = append(all, textOf(k))
	}
	for _, k := range catalog.Codes() {
		all = append(all, catalogTextOf(k))
	}
	for _, s := range stopCodes {
		all = append(all, s.text())
	}
	return all
}

// lookupCode finds a code of any of the vocabularies by its name.
func lookupCode(name string) (codeText, bool) {
	if c, ok := audit.ParseCode(name); ok {
		return textOf(c), true
	}
	if c, ok := catalog.ParseCode(name); ok {
		return catalogTextOf(c), true
	}
	if s, ok := stopCodeNamed(name); ok {
		return s.text(), true
	}
	return codeText{}, false
}

func (c *explainCmd) Run(e *env) error {
	if c.List {
		var all []any
		for _, ch := range checkTexts() {
			all = append(all, ch)
		}
		for _, t := range allCodeTexts() {
			all = append(all, t)
		}
		if c.JSON {
			writeJSON(e.stdout, all)
			return nil
		}
		for _, ch := range checkTexts() {
			fmt.Fprintf(e.stdout, "%-41s %-22s %s\n", ch.Check, ch.Kind, ch.Checks)
		}
		for _, x := range all[len(checkTexts()):] {
			t := x.(codeText)
			fmt.Fprintf(e.stdout, "%-41s %-22s %s\n", t.Code, t.Kind, t.Meaning)
		}
		return nil
	}
	if c.Code == "" {
		fmt.Fprintln(e.stderr, "cairn: usage error: give a code or a check's name, or --list")
		fmt.Fprintln(e.stderr, "Run 'cairn explain --help' for usage.")
		return statusError(2)
	}
	name := strings.ToLower(c.Code)
	if ch, ok := checkNamed(name); ok {
		if c.JSON {
			writeJSON(e.stdout, ch)
			return nil
		}
		fmt.Fprintf(e.stdout, "%s (%s)\n  %-14s %s\n", ch.Check, ch.Kind, "checks:", ch.Checks)
		for _, st := range ch.States {
			fmt.Fprintf(e.stdout, "  %-14s %s\n", st.State+":", st.When)
			if len(st.Codes) > 0 {
				fmt.Fprintf(e.stdout, "  %-14s codes: %s\n", "", strings.Join(st.Codes, ", "))
			}
		}
		fmt.Fprintf(e.stdout, "  %-14s %s\n", "next:", checkNext)
		return nil
	}
	t, ok := lookupCode(name)
	if !ok {
		// The unknown word is not repeated: it is the caller's text. The
		// suggestions are names, chosen by their distance to it.
		fmt.Fprintf(e.stderr, "cairn: unknown code or check; the nearest are: %s\n", strings.Join(nearestCodes(c.Code, 3), ", "))
		fmt.Fprintln(e.stderr, "Run 'cairn explain --list' for every check and code.")
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

// nearestCodes are the n names (checks, codes, stop codes) nearest to s
// by edit distance, nearest first, ties in the order explain --list
// gives.
func nearestCodes(s string, n int) []string {
	s = strings.ToLower(s)
	type scored struct {
		name string
		d, i int
	}
	var all []scored
	var names []string
	for _, ch := range checkTexts() {
		names = append(names, ch.Check)
	}
	for _, c := range allCodeTexts() {
		names = append(names, c.Code)
	}
	for i, name := range names {
		all = append(all, scored{name, distance(s, name), i})
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

// checkText is what explain says of a check (SPEC §6): what it looks at,
// and each state it can have, with the codes that state carries.
type checkText struct {
	Check  string       `json:"check"`
	Kind   string       `json:"kind"`
	Checks string       `json:"checks"`
	States []checkState `json:"states"`
}

type checkState struct {
	State string   `json:"state"`
	When  string   `json:"when"`
	Codes []string `json:"codes"`
}

// checkNext is what to do with a check that did not pass.
const checkNext = "each code of the check in a report has its own entry: cairn explain CODE"

// absenceCut are the codes that keep an absence from being proven (SPEC
// §6): a memory_first or retrieval_result that would fail for want of a
// project search is inconclusive with them.
var absenceCut = []audit.Code{audit.TurnIncomplete, audit.TurnFailed, audit.UnknownRecord, audit.UnknownItemType,
	audit.SequenceGap, audit.UnknownRecordsOmitted, audit.CaptureTruncated, audit.MessageAborted, audit.SubagentEvidenceMissing}

// checkTexts are the checks, in report order (audit.Check; a test holds
// their codes to the report schema's).
func checkTexts() []checkText {
	names := func(cs ...audit.Code) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	var evidence []audit.Code
	for _, c := range audit.Codes() {
		if c.Kind() == audit.KindEvidence {
			evidence = append(evidence, c)
		}
	}
	texts := [audit.NumChecks]checkText{
		audit.CheckEvidenceComplete: {Checks: "whether the input shows the whole run: every call ordered and with its result, nothing unknown, truncated, missing or cut short; it says how far the other three can be trusted",
			States: []checkState{
				{"pass", "the evidence is complete", names()},
				{"inconclusive", "something in the input keeps the run from being seen whole; each code says what", names(evidence...)},
				{"fail", "never: incomplete evidence is inconclusive, not a violation", names()},
			}},
		audit.CheckMemoryFirst: {Checks: "the first call the agent dispatched: it must be a memory search scoped to the project, before any other tool",
			States: []checkState{
				{"pass", "the first dispatched call is a project-scoped memory search", names()},
				{"fail", "the first call was another tool, a search not scoped to the project, or there was no call at all on complete evidence", names(audit.ToolBeforeProjectSearch, audit.FirstSearchNotProjectScoped, audit.ProjectSearchAbsent)},
				{"inconclusive", "the first call cannot be established (a call seen only at its end, unknown records, a truncated capture), its input is unknown, the memory server was not available, or the run ended before an absence could be proven (the codes that cut it short)",
					names(append([]audit.Code{audit.DispatchOrderUnknown, audit.MemoryServerUnavailable, audit.CallInputUnknown}, absenceCut...)...)},
			}},
		audit.CheckRetrievalResult: {Checks: "whether a project-scoped memory search came back with a result cairn can read (the catalog's result shape: for cairn-memory/1 its mode, count and results; zero hits passes)",
			States: []checkState{
				{"pass", "some project search has a readable, non-error result", names()},
				{"fail", "no project search at all, on complete evidence", names(audit.ProjectSearchAbsent)},
				{"inconclusive", "each project search lacks a result, has an error or an unreadable result, its input is unknown, the memory server was not available, or the run ended before an absence could be proven",
					names(append([]audit.Code{audit.SearchResultMissing, audit.SearchResultError, audit.SearchResultUninterpretable, audit.MemoryServerUnavailable, audit.CallInputUnknown}, absenceCut...)...)},
			}},
		audit.CheckDirectWriteBoundary: {Checks: "every attempt to write or delete memory directly, failed or denied ones included, and the tools whose effects cannot be seen",
			States: []checkState{
				{"pass", "no direct mutation outside what --capture-authorized allows, and no tool whose effects cannot be seen", names()},
				{"fail", "a destructive mutation, an additive one without --capture-authorized, or a call of a tool of the memory server that the catalog does not list", names(audit.DestructiveMutation, audit.DirectMutationUnauthorized, audit.UndeclaredMemoryTool)},
				{"inconclusive", "no violation seen, but other tools ran whose effects cannot be seen, or the run ended before every call was seen", names(audit.OpaqueToolEffects, audit.TurnFailed, audit.TurnIncomplete)},
				{"any state", "informational: --capture-authorized let an additive mutation through", names(audit.CaptureAuthorizationAsserted)},
			}},
	}
	for k := range audit.NumChecks {
		texts[k].Check, texts[k].Kind = k.String(), "check"
	}
	return texts[:]
}

// checkNamed is the check called name, and false for none.
func checkNamed(name string) (checkText, bool) {
	for _, c := range checkTexts() {
		if c.Check == name {
			return c, true
		}
	}
	return checkText{}, false
}

package audit

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// EventKind is the kind of a normalized event: the shared model that every
// input format is mapped to.
type EventKind uint8

const (
	// EventCall is a dispatched tool call, at its dispatch position.
	EventCall EventKind = iota + 1
	// EventResult is the final result of an earlier Call with the same Ref.
	EventResult
	// EventNarration is model text (Codex's agent_message, a trajectory's
	// model_output, every CLI's assistant text): never evidence.
	EventNarration
	// EventReasoning is a reasoning item: counted only.
	EventReasoning
	// EventCounted is any other record that is only counted (todo lists, notices,
	// user input).
	EventCounted
	// EventStreamError is an error the CLI printed in its stream (Codex's
	// top-level `error` record, another CLI's error event or error
	// result): counted in stream_errors, not judged.
	EventStreamError
	// EventUnknown is a record or event kind outside the contract.
	EventUnknown
	// EventDiscovery is tool discovery (Claude Code's ToolSearch): neither
	// a call nor an effect, counted in tool_discovery only (SPEC §9).
	EventDiscovery
	// EventBookkeeping is a call of the CLI's own that neither acts nor
	// discovers (Gemini CLI's update_topic, Pi's codemode): counted in
	// bookkeeping only (SPEC §7.1, §11, §12). Its lifecycle is still
	// judged: given a Ref, it awaits Settle, and without it is
	// call_incomplete (SPEC v4 §11, §12).
	EventBookkeeping
)

// Outcome is how a call ended.
type Outcome uint8

const (
	// OK: a final, non-error result.
	OK Outcome = iota
	// Failed: an error, failure or refusal, with or without a result.
	Failed
	// Unfinished: the completion still says in progress; no final result.
	Unfinished
	// Unrecognized: the result's status is outside the contract.
	Unrecognized
)

// Event is one normalized event.
type Event struct {
	Kind EventKind
	// Ref correlates a Result with its Call; the caller keeps it unique.
	Ref int
	// Record is where the event was read (a 1-based line or a 0-based
	// event index; -1 for the input as a whole), and Where names it in the
	// contract's vocabulary ("" for none): what findings report (SPEC
	// §7.1). Where is never a name taken from the input.
	Record int
	Where  string

	// Call: the catalog tool (NoTool for an opaque call, Catalog.Resolve),
	// whether it is a search whose scope rule held (Catalog.Scoped),
	// whether only its completion was seen, and whether its type is
	// unknown.
	Tool          Tool
	ProjectScoped bool
	TerminalOnly  bool
	UnknownType   bool
	// SubAgent: a call the main agent's own turn did not make (a
	// sub-agent's, or a program's: Claude Code's non-direct caller), which
	// memory_first does not look at (SPEC §9). NoResult: a call that gets
	// no result of its own (a server tool), never incomplete.
	SubAgent bool
	NoResult bool
	// InputUnknown, when not 0, is why the call's input is unknown: it
	// was cut off (MessageAborted, SPEC §9) or the CLI replaced it
	// (CallInputUnknown, §13). Such a call is no project search; as the
	// first call it leaves memory_first inconclusive with that code, and a
	// search of unknown input leaves an absence of project searches
	// unproven.
	InputUnknown Code
	// HidesCalls: a call that ran a sub-agent whose own calls the input
	// does not hold (Gemini CLI's invoke_agent): the evidence is not
	// complete, and an absence of project searches is not proven.
	HidesCalls bool

	// Result: how the call ended, and for a search whether the result has
	// the search's result shape (Catalog.Retrieves).
	Outcome   Outcome
	Retrieval bool
}

// Counts are the report's counts (SPEC §7.1).
type Counts struct {
	Calls            int `json:"calls"`
	MemoryCalls      int `json:"memory_calls"`
	ProjectSearches  int `json:"project_searches"`
	MutationAttempts int `json:"mutation_attempts"`
	OpaqueCalls      int `json:"opaque_calls"`
	Narration        int `json:"narration"`
	Reasoning        int `json:"reasoning"`
	StreamErrors     int `json:"stream_errors"`
	UnknownRecords   int `json:"unknown_records"`
	IncompleteCalls  int `json:"incomplete_calls"`
	ToolDiscovery    int `json:"tool_discovery"`
	Bookkeeping      int `json:"bookkeeping"`
}

// pending is a call awaiting its result: whether it is a project search,
// and where it was made.
type pending struct {
	projectSearch bool
	record        int
	where         string
}

// codeSet is a set of codes; every code fits in 128 bits (codes.go).
type codeSet [2]uint64

func (s *codeSet) add(c Code)     { s[c/64] |= 1 << (c % 64) }
func (s codeSet) has(c Code) bool { return s[c/64]&(1<<(c%64)) != 0 }

// and is the set of the codes in both s and t.
func (s codeSet) and(t codeSet) codeSet { return codeSet{s[0] & t[0], s[1] & t[1]} }

// list returns the codes of the set sorted by name.
func (s codeSet) list() []Code {
	var cs []Code
	for c := Code(1); c < numCodes; c++ {
		if s.has(c) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b Code) int { return strings.Compare(a.String(), b.String()) })
	return cs
}

// Engine reduces normalized events, in input order, to the four checks. It
// keeps only aggregates and the calls still awaiting a result.
type Engine struct {
	catalog           *Catalog
	captureAuthorized bool

	counts   Counts
	events   int
	evidence codeSet

	first        *Event // the first dispatched call (of the main agent)
	firstEvent   Event
	orderUnknown bool // the first call cannot be established
	// unavailable: the input proves the memory server was not available
	// to the agent (SPEC §9): a fail of memory_first or retrieval_result is
	// then inconclusive.
	unavailable bool

	pending map[int]pending

	searchOK, searchMissing, searchError, searchUninterpretable bool
	destructive, capture                                        bool
	// undeclared: a tool of a declared server that the catalog does not
	// list was called: a mutation attempt (SPEC §16.3).
	undeclared bool
	// searchInputUnknown is why a memory_search's input was unknown (0:
	// none was): an absence of project searches is then not proven.
	searchInputUnknown Code
	// firstHidden is why the first call is in another input (0: it is in
	// this one): memory_first is inconclusive with it (SPEC §13).
	firstHidden Code
	// writeCut is a turn code that keeps direct_write_boundary from
	// passing: a call may have run that the input never shows (SPEC §13).
	writeCut Code

	// seen is every (code, where) observed, at its first record, in order
	// of observation: findings are those whose code the checks report. Its
	// size is bounded by the vocabulary, not by the input.
	seen     []Finding
	seenKeys map[findingKey]struct{}
	findings []Finding
}

type findingKey struct {
	code  Code
	where string
}

// Finding says where a code of the checks was first observed (SPEC §7.1):
// a record (nil for the input as a whole) and a name of the contract's own
// vocabulary (nil for none), never a name from the input.
type Finding struct {
	Code   Code    `json:"code"`
	Record *int    `json:"record"`
	Where  *string `json:"where"`
}

// MaxFindings is the most findings a report lists (SPEC §7.1).
const MaxFindings = 64

// observe notes that code was observed at record (-1: none), where ("":
// none), unless that (code, where) was seen before.
func (e *Engine) observe(c Code, record int, where string) {
	k := findingKey{c, where}
	if _, ok := e.seenKeys[k]; ok {
		return
	}
	e.seenKeys[k] = struct{}{}
	// The copies escape, not the parameters: a (code, where) seen before
	// costs no allocation.
	f := Finding{Code: c}
	if record >= 0 {
		r := record
		f.Record = &r
	}
	if where != "" {
		w := where
		f.Where = &w
	}
	e.seen = append(e.seen, f)
}

// NewEngine returns an engine that judges by rules r.
func NewEngine(r Rules) *Engine {
	return &Engine{catalog: r.catalog(), captureAuthorized: r.CaptureAuthorized,
		pending: map[int]pending{}, seenKeys: map[findingKey]struct{}{}}
}

// Catalog is the catalog the engine judges by: the one its front end
// resolves tool names with.
func (e *Engine) Catalog() *Catalog { return e.catalog }

// Add takes the next event. Its only error code is TooManyEvents.
func (e *Engine) Add(ev Event) Code {
	e.events++
	if e.events > MaxEvents {
		return TooManyEvents
	}
	switch ev.Kind {
	case EventCall:
		e.call(ev)
	case EventResult:
		e.result(ev)
	case EventNarration:
		e.counts.Narration++
	case EventReasoning:
		e.counts.Reasoning = satAdd(e.counts.Reasoning, 1)
	case EventStreamError:
		e.counts.StreamErrors++
	case EventDiscovery:
		e.counts.ToolDiscovery++
	case EventBookkeeping:
		e.counts.Bookkeeping++
		if ev.Ref != 0 {
			// Not a call of the checks: its tool is NoTool, and it is
			// neither first, opaque nor a memory call.
			e.pending[ev.Ref] = pending{record: ev.Record, where: ev.Where}
		}
	case EventUnknown:
		e.counts.UnknownRecords = satAdd(e.counts.UnknownRecords, 1)
		e.evidence.add(UnknownRecord)
		e.observe(UnknownRecord, ev.Record, ev.Where)
		if e.first == nil {
			e.orderUnknown = true
			e.observe(DispatchOrderUnknown, ev.Record, ev.Where)
		}
	}
	return 0
}

func (e *Engine) call(ev Event) {
	c := &e.counts
	c.Calls++
	if e.first == nil && !ev.SubAgent {
		e.firstEvent = ev
		e.first = &e.firstEvent
		if ev.UnknownType {
			e.orderUnknown = true
			e.observe(DispatchOrderUnknown, ev.Record, ev.Where)
		}
	}
	if ev.TerminalOnly {
		e.evidence.add(TerminalOnlyCall)
		e.observe(TerminalOnlyCall, ev.Record, ev.Where)
		e.orderUnknown = true
		e.observe(DispatchOrderUnknown, ev.Record, ev.Where)
	}
	if ev.UnknownType {
		e.evidence.add(UnknownItemType)
		e.observe(UnknownItemType, ev.Record, ev.Where)
	}
	if ev.InputUnknown == CallInputUnknown {
		e.evidence.add(CallInputUnknown)
		e.observe(CallInputUnknown, ev.Record, ev.Where)
	}
	if ev.HidesCalls {
		e.evidence.add(SubagentEvidenceMissing)
		e.observe(SubagentEvidenceMissing, ev.Record, ev.Where)
	}
	switch e.catalog.Role(ev.Tool) {
	case RoleOpaque:
		c.OpaqueCalls++
		e.observe(OpaqueToolEffects, ev.Record, ev.Where)
	case RoleRead:
		c.MemoryCalls++
	case RoleSearch:
		c.MemoryCalls++
		switch {
		case ev.InputUnknown != 0:
			e.searchInputUnknown = ev.InputUnknown
		case ev.ProjectScoped:
			c.ProjectSearches++ // the catalog's scope rule held (Catalog.Scoped)
		}
	case RoleCapture:
		c.MemoryCalls++
		c.MutationAttempts++
		e.capture = true
		e.observe(DirectMutationUnauthorized, ev.Record, ev.Where)
		e.observe(CaptureAuthorizationAsserted, ev.Record, ev.Where)
	case RoleDestructive:
		c.MemoryCalls++
		c.MutationAttempts++
		e.destructive = true
		e.observe(DestructiveMutation, ev.Record, ev.Where)
	case RoleUndeclared:
		// Fail-closed: MCP takes a tool without annotations as
		// destructive, and a misspelled tool name in a catalog must never
		// hide a delete (SPEC §16.3).
		c.MemoryCalls++
		c.MutationAttempts++
		e.undeclared = true
		e.observe(UndeclaredMemoryTool, ev.Record, ev.Where)
	}
	if !ev.NoResult {
		search := e.catalog.IsSearch(ev.Tool) && ev.ProjectScoped && ev.InputUnknown == 0
		e.pending[ev.Ref] = pending{projectSearch: search, record: ev.Record, where: ev.Where}
	}
}

func (e *Engine) result(ev Event) {
	p, ok := e.pending[ev.Ref]
	if !ok {
		return // the front ends correlate; an uncorrelated result has no call
	}
	delete(e.pending, ev.Ref)
	if ev.Outcome == Unfinished {
		e.incomplete(p, ev.Record, ev.Where)
		return
	}
	if !p.projectSearch {
		return // not a project search
	}
	switch {
	case ev.Outcome == Failed:
		e.searchError = true
		e.observe(SearchResultError, ev.Record, ev.Where)
	case ev.Outcome == OK && ev.Retrieval:
		e.searchOK = true
	default:
		e.searchUninterpretable = true
		e.observe(SearchResultUninterpretable, ev.Record, ev.Where)
	}
}

// Settle takes the end of the bookkeeping call ref (an EventBookkeeping
// with that Ref): its result is not judged, and is not an event of the
// checks.
func (e *Engine) Settle(ref int) { delete(e.pending, ref) }

// incomplete takes a call that has no final result, as observed at record
// and where: its completion, or its start when it never completed.
func (e *Engine) incomplete(p pending, record int, where string) {
	e.counts.IncompleteCalls++
	e.evidence.add(CallIncomplete)
	e.observe(CallIncomplete, record, where)
	if p.projectSearch {
		e.searchMissing = true
		e.observe(SearchResultMissing, record, where)
	}
}

// Note records an evidence code found by a front end (unknown_field,
// turn_incomplete, sequence_gap, …) at record (-1: the input as a whole)
// and where (a name of the contract's vocabulary, or "").
func (e *Engine) Note(c Code, record int, where string) {
	e.evidence.add(c)
	e.observe(c, record, where)
	switch c {
	case UnknownRecordsOmitted, CaptureTruncated:
		e.orderUnknown = true
		e.observe(DispatchOrderUnknown, record, where)
	}
}

// HideOrder records, at record and where, something that hides when the
// first call was dispatched if it comes before that call (a sub-agent's
// record whose parent call was never seen, SPEC §9).
func (e *Engine) HideOrder(record int, where string) {
	if e.first == nil {
		e.orderUnknown = true
		e.observe(DispatchOrderUnknown, record, where)
	}
}

// HideFirst records, at record and where, that the run's first call is in
// another input (an OpenCode sub-agent's session: its parent's calls came
// first): memory_first, and only it, is inconclusive with code.
func (e *Engine) HideFirst(code Code, record int, where string) {
	e.firstHidden = code
	e.observe(code, record, where)
}

// CutWriteBoundary records that the input may hide calls that ran (a
// stream that prints a call only once it finished, cut short: SPEC §13):
// direct_write_boundary cannot pass, and is inconclusive with code, a
// turn code, unless it fails.
func (e *Engine) CutWriteBoundary(code Code) { e.writeCut = code }

// Unavailable records, at record and where, that the memory server was
// not available to the agent (SPEC §9).
func (e *Engine) Unavailable(record int, where string) {
	e.unavailable = true
	e.observe(MemoryServerUnavailable, record, where)
}

// AddUnknownRecords counts records a capture says it omitted.
func (e *Engine) AddUnknownRecords(n int) {
	e.counts.UnknownRecords = satAdd(e.counts.UnknownRecords, n)
}

// AddReasoning counts reasoning blocks a capture says it omitted.
func (e *Engine) AddReasoning(n int) { e.counts.Reasoning = satAdd(e.counts.Reasoning, n) }

// satAdd adds two counts ≥ 0, saturating at the largest int: a capture may
// claim any number, and a count is never negative.
func satAdd(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// Events is how many events were added.
func (e *Engine) Events() int { return e.events }

// Counts returns the counts so far.
func (e *Engine) Counts() Counts { return e.counts }

// Finish ends the input: calls still pending are incomplete. It returns the
// checks and the final counts.
func (e *Engine) Finish() (Checks, Counts) {
	// In the order of the calls, so that the first record is found first.
	refs := make([]int, 0, len(e.pending))
	for ref := range e.pending {
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, func(a, b int) int { return cmp.Compare(e.pending[a].record, e.pending[b].record) })
	for _, ref := range refs {
		p := e.pending[ref]
		delete(e.pending, ref)
		e.incomplete(p, p.record, p.where)
	}
	if f := e.first; f != nil {
		e.observe(ToolBeforeProjectSearch, f.Record, f.Where)
		e.observe(FirstSearchNotProjectScoped, f.Record, f.Where)
	}
	e.observe(ProjectSearchAbsent, -1, "")
	c := Checks{
		EvidenceComplete:    e.evidenceComplete(),
		MemoryFirst:         e.excused(e.memoryFirst()),
		RetrievalResult:     e.excused(e.retrievalResult()),
		DirectWriteBoundary: e.directWriteBoundary(),
	}
	e.findings = e.findingsOf(c)
	return c, e.counts
}

// Findings are the findings of the checks Finish returned: one per
// (code, where) of a code the checks report, at the first record it was
// observed, by record (the input as a whole last) then code, at most
// MaxFindings.
func (e *Engine) Findings() []Finding { return e.findings }

func (e *Engine) findingsOf(c Checks) []Finding {
	var reported codeSet
	for _, v := range c.All() {
		for _, code := range v.Codes {
			reported.add(code)
		}
	}
	fs := []Finding{}
	for _, f := range e.seen {
		if reported.has(f.Code) {
			fs = append(fs, f)
		}
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		switch {
		case a.Record == nil && b.Record != nil:
			return 1
		case a.Record != nil && b.Record == nil:
			return -1
		case a.Record != nil && *a.Record != *b.Record:
			return cmp.Compare(*a.Record, *b.Record)
		}
		return strings.Compare(a.Code.String(), b.Code.String())
	})
	if len(fs) > MaxFindings {
		fs = fs[:MaxFindings]
	}
	return fs
}

func check(s State, codes ...Code) Verdict {
	if codes == nil {
		codes = []Code{}
	}
	return Verdict{State: s, Codes: codes}
}

func (e *Engine) evidenceComplete() Verdict {
	codes := e.evidence.list()
	if len(codes) > 0 {
		return check(Inconclusive, codes...)
	}
	return check(Pass)
}

// absenceCut are the evidence codes that keep an absence from being proven
// (SPEC §6): the run did not end normally, or something was hidden.
var absenceCut = codeSetOf(TurnFailed, TurnIncomplete, CaptureTruncated, UnknownRecordsOmitted,
	SequenceGap, UnknownRecord, UnknownItemType, MessageAborted, SubagentEvidenceMissing)

func codeSetOf(cs ...Code) codeSet {
	var s codeSet
	for _, c := range cs {
		s.add(c)
	}
	return s
}

// absent is the verdict on an absence of project searches: a fail only on
// complete evidence, else inconclusive with the codes that cut it short.
func (e *Engine) absent() Verdict {
	if cut := e.evidence.and(absenceCut); cut != (codeSet{}) {
		return check(Inconclusive, cut.list()...)
	}
	return check(Fail, ProjectSearchAbsent)
}

// excused turns a fail into inconclusive memory_server_unavailable when the
// memory tools were not available to the agent (SPEC §9).
func (e *Engine) excused(c Verdict) Verdict {
	if e.unavailable && c.State == Fail {
		return check(Inconclusive, MemoryServerUnavailable)
	}
	return c
}

func (e *Engine) memoryFirst() Verdict {
	switch {
	case e.firstHidden != 0:
		return check(Inconclusive, e.firstHidden)
	case e.orderUnknown:
		return check(Inconclusive, DispatchOrderUnknown)
	case e.first == nil:
		return e.absent()
	case e.first.InputUnknown != 0:
		return check(Inconclusive, e.first.InputUnknown)
	case !e.catalog.IsSearch(e.first.Tool):
		return check(Fail, ToolBeforeProjectSearch)
	case !e.first.ProjectScoped:
		return check(Fail, FirstSearchNotProjectScoped)
	}
	return check(Pass)
}

func (e *Engine) retrievalResult() Verdict {
	switch {
	case e.counts.ProjectSearches == 0:
		if c := e.absent(); c.State == Fail && e.searchInputUnknown != 0 {
			return check(Inconclusive, e.searchInputUnknown)
		}
		return e.absent()
	case e.searchOK:
		return check(Pass)
	}
	var s codeSet
	if e.searchMissing {
		s.add(SearchResultMissing)
	}
	if e.searchError {
		s.add(SearchResultError)
	}
	if e.searchUninterpretable {
		s.add(SearchResultUninterpretable)
	}
	return check(Inconclusive, s.list()...)
}

func (e *Engine) directWriteBoundary() Verdict {
	var s codeSet
	if e.destructive {
		s.add(DestructiveMutation)
	}
	if e.capture && !e.captureAuthorized {
		s.add(DirectMutationUnauthorized)
	}
	if e.undeclared {
		s.add(UndeclaredMemoryTool)
	}
	state := Pass
	switch {
	case s != (codeSet{}):
		state = Fail
	case e.counts.OpaqueCalls > 0:
		state = Inconclusive
		s.add(OpaqueToolEffects)
	}
	if state != Fail && e.writeCut != 0 {
		state = Inconclusive
		s.add(e.writeCut)
	}
	if e.capture && e.captureAuthorized {
		s.add(CaptureAuthorizationAsserted)
	}
	return check(state, s.list()...)
}

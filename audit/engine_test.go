package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Event builders for hand-written sequences.

func search(ref int) Event {
	return Event{Kind: EventCall, Ref: ref, Tool: MemorySearch, ProjectScoped: true}
}

// searchUnscoped is a memory_search whose scope is missing or not "project".
func searchUnscoped(ref int) Event { return Event{Kind: EventCall, Ref: ref, Tool: MemorySearch} }

func memCall(ref int, t Tool) Event { return Event{Kind: EventCall, Ref: ref, Tool: t} }

func opaque(ref int) Event { return Event{Kind: EventCall, Ref: ref} }

func unknownType(ref int) Event { return Event{Kind: EventCall, Ref: ref, UnknownType: true} }

func terminalOnly(ev Event) Event { ev.TerminalOnly = true; return ev }

// found is a final, non-error result with the retrieval shape (zero hits
// included: the shape, not the count, is what the engine is told).
func found(ref int) Event { return Event{Kind: EventResult, Ref: ref, Outcome: OK, Retrieval: true} }

// okShapeless is a final, non-error result without the retrieval shape.
func okShapeless(ref int) Event { return Event{Kind: EventResult, Ref: ref, Outcome: OK} }

func failed(ref int) Event { return Event{Kind: EventResult, Ref: ref, Outcome: Failed} }

// failedWithShape is an MCP isError result: status failed, result filled.
func failedWithShape(ref int) Event {
	return Event{Kind: EventResult, Ref: ref, Outcome: Failed, Retrieval: true}
}

func unfinished(ref int) Event { return Event{Kind: EventResult, Ref: ref, Outcome: Unfinished} }

func unrecognized(ref int) Event { return Event{Kind: EventResult, Ref: ref, Outcome: Unrecognized} }

var (
	narration = Event{Kind: EventNarration}
	reasoning = Event{Kind: EventReasoning}
	counted   = Event{Kind: EventCounted}
	streamErr = Event{Kind: EventStreamError}
	unknown   = Event{Kind: EventUnknown}
)

// note is a pseudo-event: a code a front end notes with Engine.Note.
type note Code

// step is an Event or a note.
type step any

func runEngine(t *testing.T, capture bool, steps []step) (Checks, Counts) {
	t.Helper()
	return feedEngine(t, capture, steps).Finish()
}

// feedEngine feeds the steps to a new engine, each at its 1-based position
// as its record; a note is for the input as a whole when it is last.
func feedEngine(t *testing.T, capture bool, steps []step) *Engine {
	t.Helper()
	e := NewEngine(DefaultRules(capture))
	for i, s := range steps {
		switch s := s.(type) {
		case Event:
			s.Record = i + 1
			if code := e.Add(s); code != 0 {
				t.Fatalf("step %d: Add(%+v) = %s, want ok", i+1, s, code)
			}
		case note:
			record := i + 1
			if i == len(steps)-1 {
				record = -1
			}
			e.Note(Code(s), record, "")
		default:
			t.Fatalf("step %d: %T is neither an Event nor a note", i+1, s)
		}
	}
	return e
}

// at names an event's place.
func at(ev Event, where string) Event { ev.Where = where; return ev }

func findingString(f Finding) string {
	r, w := "input", "-"
	if f.Record != nil {
		r = fmt.Sprint(*f.Record)
	}
	if f.Where != nil {
		w = *f.Where
	}
	return r + ":" + f.Code.String() + "@" + w
}

// TestFindings checks SPEC §7.1's findings: for each code of the checks,
// the first record where it was observed and the contract place, one per
// (code, where), by record (the input as a whole last) then code.
func TestFindings(t *testing.T) {
	cmd := func(ref int) Event { return at(opaque(ref), "command_execution") }
	mcp := func(ev Event) Event { return at(ev, "mcp_tool_call") }
	res := func(ev Event) Event { return at(ev, "mcp_tool_call.result") }
	tests := []struct {
		name    string
		capture bool
		steps   []step
		want    []string
	}{
		{"a pass has none", false, []step{mcp(search(1)), res(found(1))}, []string{}},
		{"command first", false, []step{narration, cmd(1), res(found(1)), mcp(search(2)), res(found(2)), cmd(3)},
			[]string{"2:opaque_tool_effects@command_execution", "2:tool_before_project_search@command_execution", "6:call_incomplete@command_execution"}},
		{"no call on complete evidence", false, []step{narration},
			[]string{"input:project_search_absent@-"}},
		{"failed turn, no call", false, []step{narration, note(TurnFailed)},
			[]string{"input:turn_failed@-"}},
		{"unknown record first", false, []step{unknown, mcp(search(2)), res(found(2)), unknown},
			[]string{"1:dispatch_order_unknown@-", "1:unknown_record@-"}},
		{"terminal-only call, then a destructive one", false, []step{mcp(search(1)), res(found(1)), at(terminalOnly(memCall(3, MemoryDelete)), "mcp_tool_call"), res(failed(3)), mcp(memCall(5, MemoryDelete))},
			[]string{"3:destructive_mutation@mcp_tool_call", "3:dispatch_order_unknown@mcp_tool_call", "3:terminal_only_call@mcp_tool_call", "5:call_incomplete@mcp_tool_call"}},
		{"search results", false, []step{mcp(search(1)), res(failed(1)), mcp(search(3)), res(okShapeless(3)), mcp(search(5))},
			[]string{"2:search_result_error@mcp_tool_call.result", "4:search_result_uninterpretable@mcp_tool_call.result",
				"5:call_incomplete@mcp_tool_call", "5:search_result_missing@mcp_tool_call"}},
		{"unfinished at its completion", false, []step{mcp(search(1)), at(unfinished(1), "mcp_tool_call.status")},
			[]string{"2:call_incomplete@mcp_tool_call.status", "2:search_result_missing@mcp_tool_call.status"}},
		{"capture authorized", true, []step{mcp(search(1)), res(found(1)), mcp(memCall(3, MemoryStore)), res(found(3))},
			[]string{"3:capture_authorization_asserted@mcp_tool_call"}},
		{"capture unauthorized, one per place", false, []step{mcp(search(1)), res(found(1)), mcp(memCall(3, MemoryStore)), mcp(memCall(4, MemoryStore)), at(memCall(5, MemoryStore), "tool_invocation")},
			[]string{"3:call_incomplete@mcp_tool_call", "3:direct_mutation_unauthorized@mcp_tool_call",
				"5:call_incomplete@tool_invocation", "5:direct_mutation_unauthorized@tool_invocation"}},
		{"unscoped first", false, []step{mcp(searchUnscoped(1)), res(found(1))},
			[]string{"1:first_search_not_project_scoped@mcp_tool_call", "input:project_search_absent@-"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := feedEngine(t, tc.capture, tc.steps)
			e.Finish()
			got := []string{}
			for _, f := range e.Findings() {
				got = append(got, findingString(f))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: got findings %q, want %q", describe(tc.steps), got, tc.want)
			}
		})
	}
}

// TestFindingsBounded checks that findings stay at MaxFindings however
// many places the input has.
func TestFindingsBounded(t *testing.T) {
	e := NewEngine(DefaultRules(false))
	for i := range 200 {
		e.Add(Event{Kind: EventCall, Ref: i, Record: i + 1, Where: fmt.Sprint("place", i)})
	}
	e.Finish()
	if n := len(e.Findings()); n != MaxFindings {
		t.Fatalf("got %d findings, want %d", n, MaxFindings)
	}
}

func describe(steps []step) string {
	var parts []string
	for _, s := range steps {
		switch s := s.(type) {
		case Event:
			parts = append(parts, fmt.Sprintf("%+v", s))
		case note:
			parts = append(parts, "note "+Code(s).String())
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func checkString(c Verdict) string {
	names := make([]string, len(c.Codes))
	for i, code := range c.Codes {
		names[i] = code.String()
	}
	return fmt.Sprintf("%s %v", c.State, names)
}

func sameCheck(got, want Verdict) bool {
	return got.State == want.State && slices.Equal(got.Codes, want.Codes) && got.Codes != nil
}

type checkCase struct {
	name    string
	capture bool
	steps   []step
	want    Verdict
}

func runCheckCases(t *testing.T, pick func(Checks) Verdict, tests []checkCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checks, _ := runEngine(t, tc.capture, tc.steps)
			if tc.want.Codes == nil {
				tc.want.Codes = []Code{}
			}
			if got := pick(checks); !sameCheck(got, tc.want) {
				t.Errorf("events %s (capture %v): got %s, want %s", describe(tc.steps), tc.capture, checkString(got), checkString(tc.want))
			}
		})
	}
}

func want(s State, codes ...Code) Verdict { return Verdict{State: s, Codes: codes} }

// TestMemoryFirst is SPEC §6.2, row by row.
func TestMemoryFirst(t *testing.T) {
	runCheckCases(t, func(c Checks) Verdict { return c.MemoryFirst }, []checkCase{
		// it is a memory_search with scope "project": pass
		{"project search first", false, []step{search(1), found(1)}, want(Pass)},
		{"project search without result", false, []step{search(1)}, want(Pass)},
		{"failed project search", false, []step{search(1), failed(1), opaque(2)}, want(Pass)},
		{"narration before the search is not a call", false, []step{narration, reasoning, counted, streamErr, search(1), found(1)}, want(Pass)},
		{"project search then other tools", false, []step{search(1), found(1), opaque(2), memCall(3, MemoryDelete)}, want(Pass)},
		{"unknown record after the first call", false, []step{search(1), unknown, found(1)}, want(Pass)},
		{"unknown item type after the first call", false, []step{search(1), found(1), unknownType(2)}, want(Pass)},
		{"unknown field does not hide the order", false, []step{note(UnknownField), search(1), found(1)}, want(Pass)},
		{"failed turn does not hide the order", false, []step{search(1), found(1), note(TurnFailed)}, want(Pass)},
		{"incomplete turn does not hide the order", false, []step{search(1), note(TurnIncomplete)}, want(Pass)},
		{"sequence gap does not hide the order", false, []step{note(SequenceGap), search(1), found(1)}, want(Pass)},

		// any other call first: fail tool_before_project_search
		{"command first", false, []step{opaque(1), found(1), search(2), found(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"opaque call without result first", false, []step{opaque(1), search(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"memory_get first", false, []step{memCall(1, MemoryGet), search(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"memory_list first", false, []step{memCall(1, MemoryList), search(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"memory_store first", true, []step{memCall(1, MemoryStore), search(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"memory_update first", false, []step{memCall(1, MemoryUpdate), search(2)}, want(Fail, ToolBeforeProjectSearch)},
		{"memory_delete first", false, []step{memCall(1, MemoryDelete)}, want(Fail, ToolBeforeProjectSearch)},
		{"other call first, no search at all", false, []step{opaque(1), found(1)}, want(Fail, ToolBeforeProjectSearch)},
		{"parallel: opaque dispatched first, completes last", false, []step{opaque(1), search(2), found(2), found(1)}, want(Fail, ToolBeforeProjectSearch)},

		// a memory_search not scoped to the project first
		{"unscoped search first", false, []step{searchUnscoped(1), found(1), search(2), found(2)}, want(Fail, FirstSearchNotProjectScoped)},
		{"unscoped search only", false, []step{searchUnscoped(1)}, want(Fail, FirstSearchNotProjectScoped)},

		// no call at all
		{"no events", false, nil, want(Fail, ProjectSearchAbsent)},
		{"narration only", false, []step{narration, narration, reasoning, streamErr, counted}, want(Fail, ProjectSearchAbsent)},
		// ... proven only by complete evidence (SPEC §6): else inconclusive
		// with the codes that cut it short
		{"failed turn, no call", false, []step{narration, note(TurnFailed)}, want(Inconclusive, TurnFailed)},
		{"incomplete turn, no call", false, []step{streamErr, note(TurnIncomplete)}, want(Inconclusive, TurnIncomplete)},
		{"sequence gap, no call", false, []step{narration, note(SequenceGap)}, want(Inconclusive, SequenceGap)},
		{"message aborted, no call", false, []step{note(MessageAborted)}, want(Inconclusive, MessageAborted)},
		{"failed turn and gap, no call", false, []step{note(SequenceGap), note(TurnFailed)}, want(Inconclusive, SequenceGap, TurnFailed)},
		{"unknown field does not cut an absence", false, []step{note(UnknownField), narration}, want(Fail, ProjectSearchAbsent)},
		{"incomplete call does not cut an absence", false, []step{note(CallIncomplete)}, want(Fail, ProjectSearchAbsent)},
		{"failed turn after a wrong first call stays a fail", false, []step{opaque(1), note(TurnFailed)}, want(Fail, ToolBeforeProjectSearch)},
		{"incomplete turn after an unscoped search stays a fail", false, []step{searchUnscoped(1), note(TurnIncomplete)}, want(Fail, FirstSearchNotProjectScoped)},

		// the first call cannot be established: this row wins
		{"terminal-only call after the project search", false, []step{search(1), found(1), terminalOnly(opaque(2)), found(2)}, want(Inconclusive, DispatchOrderUnknown)},
		{"terminal-only project search alone", false, []step{terminalOnly(search(1)), found(1)}, want(Inconclusive, DispatchOrderUnknown)},
		{"terminal-only call first, over tool_before", false, []step{terminalOnly(opaque(1)), found(1), search(2), found(2)}, want(Inconclusive, DispatchOrderUnknown)},
		{"terminal-only call after another tool, over tool_before", false, []step{opaque(1), found(1), terminalOnly(memCall(2, MemoryGet)), found(2)}, want(Inconclusive, DispatchOrderUnknown)},
		{"terminal-only call after unscoped search", false, []step{searchUnscoped(1), terminalOnly(search(2)), found(2)}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown record before the project search", false, []step{unknown, search(1), found(1)}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown record before another tool", false, []step{narration, unknown, opaque(1)}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown record and no call, over project_search_absent", false, []step{unknown}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown item type first", false, []step{unknownType(1), search(2), found(2)}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown records omitted", false, []step{note(UnknownRecordsOmitted), search(1), found(1)}, want(Inconclusive, DispatchOrderUnknown)},
		{"unknown records omitted noted at the end", false, []step{search(1), found(1), note(UnknownRecordsOmitted)}, want(Inconclusive, DispatchOrderUnknown)},
		{"truncated capture", false, []step{search(1), found(1), note(CaptureTruncated)}, want(Inconclusive, DispatchOrderUnknown)},
		{"truncated capture with no call", false, []step{note(CaptureTruncated)}, want(Inconclusive, DispatchOrderUnknown)},
		{"truncated capture over tool_before", false, []step{opaque(1), note(CaptureTruncated)}, want(Inconclusive, DispatchOrderUnknown)},
	})
}

// TestRetrievalResult is SPEC §6.3, row by row.
func TestRetrievalResult(t *testing.T) {
	runCheckCases(t, func(c Checks) Verdict { return c.RetrievalResult }, []checkCase{
		{"project search with retrieval result", false, []step{search(1), found(1)}, want(Pass)},
		{"zero hits passes", false, []step{search(1), found(1)}, want(Pass)},
		{"one good search among failures", false, []step{search(1), failed(1), search(2), found(2), search(3), okShapeless(3), search(4)}, want(Pass)},
		{"good search before a missing one", false, []step{search(1), found(1), search(2)}, want(Pass)},
		{"after another tool", false, []step{opaque(1), found(1), search(2), found(2)}, want(Pass)},
		{"terminal-only project search with result", false, []step{terminalOnly(search(1)), found(1)}, want(Pass)},
		{"parallel searches completing out of order", false, []step{search(1), search(2), found(2), failed(1)}, want(Pass)},

		{"no events", false, nil, want(Fail, ProjectSearchAbsent)},
		{"narration only", false, []step{narration}, want(Fail, ProjectSearchAbsent)},
		{"unscoped search only", false, []step{searchUnscoped(1), found(1)}, want(Fail, ProjectSearchAbsent)},
		{"other memory tools only", true, []step{memCall(1, MemoryGet), found(1), memCall(2, MemoryList), found(2), memCall(3, MemoryStore), found(3)}, want(Fail, ProjectSearchAbsent)},
		{"opaque calls only", false, []step{opaque(1), found(1), opaque(2)}, want(Fail, ProjectSearchAbsent)},

		// an absence is proven only by complete evidence (SPEC §6)
		{"opaque calls and an unknown item type", false, []step{opaque(1), found(1), unknownType(2)}, want(Inconclusive, UnknownItemType)},
		{"opaque calls and an unknown record", false, []step{opaque(1), found(1), unknown}, want(Inconclusive, UnknownRecord)},
		{"no call, failed turn", false, []step{narration, note(TurnFailed)}, want(Inconclusive, TurnFailed)},
		{"opaque call, incomplete turn", false, []step{opaque(1), note(TurnIncomplete)}, want(Inconclusive, TurnIncomplete)},
		{"unscoped search, truncated capture", false, []step{searchUnscoped(1), found(1), note(CaptureTruncated)}, want(Inconclusive, CaptureTruncated)},
		{"omitted records", false, []step{note(UnknownRecordsOmitted)}, want(Inconclusive, UnknownRecordsOmitted)},
		{"unknown field does not cut it", false, []step{opaque(1), found(1), note(UnknownField)}, want(Fail, ProjectSearchAbsent)},

		{"result missing", false, []step{search(1)}, want(Inconclusive, SearchResultMissing)},
		{"result still in progress", false, []step{search(1), unfinished(1)}, want(Inconclusive, SearchResultMissing)},
		{"result for another call only", false, []step{search(1), opaque(2), found(2)}, want(Inconclusive, SearchResultMissing)},
		{"uncorrelated result", false, []step{search(1), found(9)}, want(Inconclusive, SearchResultMissing)},
		{"error result", false, []step{search(1), failed(1)}, want(Inconclusive, SearchResultError)},
		{"isError result with the search shape", false, []step{search(1), failedWithShape(1)}, want(Inconclusive, SearchResultError)},
		{"result without the search shape", false, []step{search(1), okShapeless(1)}, want(Inconclusive, SearchResultUninterpretable)},
		{"result with an unrecognized status", false, []step{search(1), unrecognized(1)}, want(Inconclusive, SearchResultUninterpretable)},
		{"unscoped search passes, project search fails", false, []step{searchUnscoped(1), found(1), search(2), failed(2)}, want(Inconclusive, SearchResultError)},
		{"every kind of miss", false, []step{search(1), failed(1), search(2), okShapeless(2), search(3)}, want(Inconclusive, SearchResultError, SearchResultMissing, SearchResultUninterpretable)},
		{"two misses of one kind", false, []step{search(1), search(2)}, want(Inconclusive, SearchResultMissing)},
	})
}

// TestDirectWriteBoundary is SPEC §6.4, row by row.
func TestDirectWriteBoundary(t *testing.T) {
	runCheckCases(t, func(c Checks) Verdict { return c.DirectWriteBoundary }, []checkCase{
		{"no calls", false, nil, want(Pass)},
		{"reads only", false, []step{search(1), found(1), memCall(2, MemoryGet), found(2), memCall(3, MemoryList)}, want(Pass)},
		{"capture flag without a store", true, []step{search(1), found(1)}, want(Pass)},
		{"authorized store", true, []step{search(1), found(1), memCall(2, MemoryStore), found(2)}, want(Pass, CaptureAuthorizationAsserted)},
		{"authorized failed store", true, []step{memCall(1, MemoryStore), failed(1)}, want(Pass, CaptureAuthorizationAsserted)},

		{"memory_update", false, []step{search(1), found(1), memCall(2, MemoryUpdate), found(2)}, want(Fail, DestructiveMutation)},
		{"memory_delete", false, []step{memCall(1, MemoryDelete), found(1)}, want(Fail, DestructiveMutation)},
		{"failed delete", false, []step{memCall(1, MemoryDelete), failed(1)}, want(Fail, DestructiveMutation)},
		{"delete without result", false, []step{memCall(1, MemoryDelete)}, want(Fail, DestructiveMutation)},
		{"delete still in progress", false, []step{memCall(1, MemoryDelete), unfinished(1)}, want(Fail, DestructiveMutation)},
		{"terminal-only delete", false, []step{terminalOnly(memCall(1, MemoryDelete)), failed(1)}, want(Fail, DestructiveMutation)},
		{"destructive despite the capture flag", true, []step{memCall(1, MemoryUpdate), found(1)}, want(Fail, DestructiveMutation)},
		{"unauthorized store", false, []step{memCall(1, MemoryStore), found(1)}, want(Fail, DirectMutationUnauthorized)},
		{"unauthorized declined store", false, []step{memCall(1, MemoryStore), failed(1)}, want(Fail, DirectMutationUnauthorized)},
		{"unauthorized store without result", false, []step{memCall(1, MemoryStore)}, want(Fail, DirectMutationUnauthorized)},
		{"destructive and unauthorized", false, []step{memCall(1, MemoryStore), memCall(2, MemoryDelete)}, want(Fail, DestructiveMutation, DirectMutationUnauthorized)},

		{"opaque call", false, []step{search(1), found(1), opaque(2), found(2)}, want(Inconclusive, OpaqueToolEffects)},
		{"opaque call without result", false, []step{opaque(1)}, want(Inconclusive, OpaqueToolEffects)},
		{"unknown item type", false, []step{unknownType(1)}, want(Inconclusive, OpaqueToolEffects)},
		{"terminal-only opaque call", false, []step{terminalOnly(opaque(1)), found(1)}, want(Inconclusive, OpaqueToolEffects)},

		// fail wins over inconclusive
		{"destructive and opaque", false, []step{opaque(1), memCall(2, MemoryDelete)}, want(Fail, DestructiveMutation)},
		{"unauthorized and opaque", false, []step{memCall(1, MemoryStore), opaque(2)}, want(Fail, DirectMutationUnauthorized)},

		// the informational code whenever the flag allowed an additive mutation
		{"authorized store and opaque", true, []step{memCall(1, MemoryStore), found(1), opaque(2), found(2)}, want(Inconclusive, CaptureAuthorizationAsserted, OpaqueToolEffects)},
		{"authorized store and destructive", true, []step{memCall(1, MemoryStore), memCall(2, MemoryDelete)}, want(Fail, CaptureAuthorizationAsserted, DestructiveMutation)},
	})
}

// TestEvidenceComplete is SPEC §6.1: pass, or inconclusive with every
// applicable evidence code, sorted and de-duplicated; never fail.
func TestEvidenceComplete(t *testing.T) {
	var tests []checkCase
	tests = append(tests,
		checkCase{"no events", false, nil, want(Pass)},
		checkCase{"every call has its result", false, []step{search(1), opaque(2), found(2), found(1), narration, reasoning}, want(Pass)},
		checkCase{"error results are results", false, []step{search(1), failed(1), memCall(2, MemoryDelete), failed(2)}, want(Pass)},
		checkCase{"stream errors are counted, not judged", false, []step{streamErr, search(1), found(1), streamErr}, want(Pass)},
		checkCase{"call without result", false, []step{search(1), found(1), opaque(2)}, want(Inconclusive, CallIncomplete)},
		checkCase{"call still in progress at completion", false, []step{opaque(1), unfinished(1)}, want(Inconclusive, CallIncomplete)},
		checkCase{"terminal-only call", false, []step{terminalOnly(search(1)), found(1)}, want(Inconclusive, TerminalOnlyCall)},
		checkCase{"unknown item type", false, []step{unknownType(1), found(1)}, want(Inconclusive, UnknownItemType)},
		checkCase{"unknown record", false, []step{unknown}, want(Inconclusive, UnknownRecord)},
		checkCase{"unknown record after the calls", false, []step{search(1), found(1), unknown}, want(Inconclusive, UnknownRecord)},
		checkCase{"codes sorted and de-duplicated", false, []step{
			unknown, note(UnknownField), terminalOnly(opaque(1)), found(1), unknown, note(UnknownField),
			unknownType(2), opaque(3), note(TurnFailed),
		}, want(Inconclusive, CallIncomplete, TerminalOnlyCall, TurnFailed, UnknownField, UnknownItemType, UnknownRecord)},
	)
	for _, c := range []Code{UnknownField, TurnIncomplete, TurnFailed, SequenceGap, UnknownRecordsOmitted, CaptureTruncated, CallIncomplete, UnknownRecord} {
		tests = append(tests, checkCase{"noted " + c.String(), false, []step{search(1), found(1), note(c)}, want(Inconclusive, c)})
	}
	runCheckCases(t, func(c Checks) Verdict { return c.EvidenceComplete }, tests)
}

// TestChecksNeverNull checks that every check has a state and a codes list
// that encodes as [] rather than null, whatever the input.
func TestChecksNeverNull(t *testing.T) {
	inputs := [][]step{nil, {search(1), found(1)}, {unknown, opaque(1)}}
	for i, steps := range inputs {
		checks, _ := runEngine(t, false, steps)
		for name, c := range map[string]Verdict{
			"evidence_complete": checks.EvidenceComplete, "memory_first": checks.MemoryFirst,
			"retrieval_result": checks.RetrievalResult, "direct_write_boundary": checks.DirectWriteBoundary,
		} {
			if c.Codes == nil || c.State == "" {
				t.Errorf("input %d %s: %s has state %q, codes %v; want a state and non-nil codes", i, describe(steps), name, c.State, c.Codes)
			}
			if c.State == Fail && name == "evidence_complete" {
				t.Errorf("input %d %s: evidence_complete failed; it is never fail", i, describe(steps))
			}
		}
	}
}

// TestCounts is SPEC §7.1's counts, on one sequence with every kind of
// event.
func TestCounts(t *testing.T) {
	e := NewEngine(DefaultRules(false))
	steps := []Event{
		narration, narration, reasoning, streamErr, streamErr, streamErr, unknown, counted,
		search(1), found(1), // project search
		searchUnscoped(2), found(2), // memory call, not a project search
		memCall(3, MemoryGet),              // no result: incomplete
		memCall(4, MemoryStore), failed(4), // failed mutation attempt
		memCall(5, MemoryDelete), unfinished(5), // in progress at completion: incomplete
		opaque(6), found(6),
		unknownType(7), // opaque, no result: incomplete
		terminalOnly(memCall(8, MemoryUpdate)), found(8),
		terminalOnly(search(9)), found(9), // a dispatched call, counted once
		found(42), // uncorrelated: no call
	}
	for i, ev := range steps {
		if code := e.Add(ev); code != 0 {
			t.Fatalf("step %d: Add(%+v) = %s", i+1, ev, code)
		}
	}
	e.AddUnknownRecords(2)
	e.AddReasoning(3)
	_, got := e.Finish()
	want := Counts{
		Calls: 9, MemoryCalls: 7, ProjectSearches: 2, MutationAttempts: 3, OpaqueCalls: 2,
		Narration: 2, Reasoning: 4, StreamErrors: 3, UnknownRecords: 3, IncompleteCalls: 3,
	}
	if got != want {
		t.Errorf("Finish() counts = %+v, want %+v", got, want)
	}
	if got.Calls != got.MemoryCalls+got.OpaqueCalls {
		t.Errorf("calls %d != memory_calls %d + opaque_calls %d", got.Calls, got.MemoryCalls, got.OpaqueCalls)
	}
	if n := e.Events(); n != len(steps) {
		t.Errorf("Events() = %d, want %d (every event added)", n, len(steps))
	}
	if c := e.Counts(); c != want {
		t.Errorf("Counts() after Finish = %+v, want %+v", c, want)
	}
}

func TestCountsIncompleteOnce(t *testing.T) {
	tests := []struct {
		name  string
		steps []Event
		want  int
	}{
		{"pending at the end", []Event{opaque(1), opaque(2)}, 2},
		{"unfinished result", []Event{opaque(1), unfinished(1)}, 1},
		{"unfinished then nothing more", []Event{search(1), unfinished(1), found(1)}, 1}, // a later result has no pending call
		{"all finished", []Event{opaque(1), found(1), search(2), failed(2)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(DefaultRules(false))
			for _, ev := range tc.steps {
				e.Add(ev)
			}
			if _, c := e.Finish(); c.IncompleteCalls != tc.want {
				t.Errorf("events %+v: incomplete_calls = %d, want %d", tc.steps, c.IncompleteCalls, tc.want)
			}
		})
	}
}

// TestTooManyEvents checks the 50,000-event bound: the 50,001st event is
// refused.
func TestTooManyEvents(t *testing.T) {
	if MaxEvents != 50_000 {
		t.Fatalf("MaxEvents = %d, want 50000", MaxEvents)
	}
	kinds := []Event{narration, search(1), unknown}
	for _, last := range kinds {
		t.Run(fmt.Sprintf("kind %d", last.Kind), func(t *testing.T) {
			e := NewEngine(DefaultRules(false))
			for i := 1; i <= MaxEvents; i++ {
				if code := e.Add(counted); code != 0 {
					t.Fatalf("Add of event %d = %s, want ok", i, code)
				}
			}
			if code := e.Add(last); code != TooManyEvents {
				t.Errorf("Add of event %d (%+v) = %s, want %s", MaxEvents+1, last, code, TooManyEvents)
			}
		})
	}
}

// TestConclude walks every combination of check states: fail wins over
// inconclusive, which wins over pass (SPEC §2.2).
func TestConclude(t *testing.T) {
	states := []State{Pass, Fail, Inconclusive}
	for _, a := range states {
		for _, b := range states {
			for _, c := range states {
				for _, d := range states {
					all := []State{a, b, c, d}
					t.Run(fmt.Sprint(all), func(t *testing.T) {
						wantStatus, wantExit := StatusPass, 0
						switch {
						case slices.Contains(all, Fail):
							wantStatus, wantExit = StatusFail, 1
						case slices.Contains(all, Inconclusive):
							wantStatus, wantExit = StatusInconclusive, 3
						}
						r := NewReport(FormatCodex, "file", DefaultRules(false))
						r.Conclude(Checks{
							EvidenceComplete:    Verdict{State: a, Codes: []Code{}},
							MemoryFirst:         Verdict{State: b, Codes: []Code{}},
							RetrievalResult:     Verdict{State: c, Codes: []Code{}},
							DirectWriteBoundary: Verdict{State: d, Codes: []Code{}},
						})
						if r.Status != wantStatus || r.ExitCode != wantExit {
							t.Errorf("Conclude(%v): status %s, exit %d; want %s, %d", all, r.Status, r.ExitCode, wantStatus, wantExit)
						}
						if r.Checks == nil || r.Checks.MemoryFirst.State != b {
							t.Errorf("Conclude(%v): checks not kept", all)
						}
					})
				}
			}
		}
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		s    Status
		want int
	}{
		{StatusPass, 0},
		{StatusFail, 1},
		{StatusInvalid, 2},
		{StatusInconclusive, 3},
		{StatusDisabled, 0},
	}
	for _, tc := range tests {
		t.Run(string(tc.s), func(t *testing.T) {
			if got := tc.s.ExitCode(); got != tc.want {
				t.Errorf("%s.ExitCode() = %d, want %d", tc.s, got, tc.want)
			}
		})
	}
}

// TestInvalidate checks SPEC §7.1 for invalid input: checks null, the error
// code and record (null for the input as a whole), digest null; invalid
// wins over any earlier verdict.
func TestInvalidate(t *testing.T) {
	tests := []struct {
		name   string
		record int
		want   string
	}{
		{"whole input", -1, "null"},
		{"trajectory event 0", 0, "0"},
		{"JSONL line 7", 7, "7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReport(FormatCodex, "stdin", DefaultRules(false))
			r.SetDigest([]byte{1, 2, 3})
			r.Conclude(Checks{EvidenceComplete: Verdict{State: Fail}})
			r.Invalidate(Invalid(DuplicateKey, tc.record, nil))
			if r.Status != StatusInvalid || r.ExitCode != 2 || r.Checks != nil || r.Input.SHA256 != nil {
				t.Errorf("Invalidate(record %d): status %s, exit %d, checks %v, sha256 %v; want invalid, 2, nil, nil", tc.record, r.Status, r.ExitCode, r.Checks, r.Input.SHA256)
			}
			b, err := json.Marshal(r.Error)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(b), `{"code":"duplicate_key","record":`+tc.want+`,"where":null}`; got != want {
				t.Errorf("Invalidate(record %d): error = %s, want %s", tc.record, got, want)
			}
		})
	}
}

// TestReportJSONShape checks the member order and the always-present
// members of SPEC §7.1.
func TestReportJSONShape(t *testing.T) {
	r := NewReport(FormatCodex, "file", DefaultRules(true))
	r.SetHarness("codex")
	r.SetDigest(make([]byte, 32))
	checks, counts := runEngine(t, true, []step{search(1), found(1)})
	r.Counts = counts
	r.Conclude(checks)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	order := []string{
		`{"schema":"cairn.eval.protocol/v1","enabled":true,"status":"pass","exit_code":0,"input":{"format":"codex-jsonl","source":"file","harness":"codex","sha256":"0000`,
		`","bytes":0,"records":0,"events":0},"policy":{"catalog":"cairn-memory/1","capture_authorized":true,"sha256":"` + PolicyDigest(true) + `"}`,
		`,"checks":{"evidence_complete":{"state":"pass","codes":[]},"memory_first":{"state":"pass","codes":[]},"retrieval_result":{"state":"pass","codes":[]},"direct_write_boundary":{"state":"pass","codes":[]}}`,
		`,"counts":{"calls":1,"memory_calls":1,"project_searches":1,"mutation_attempts":0,"opaque_calls":0,"narration":0,"reasoning":0,"stream_errors":0,"unknown_records":0,"incomplete_calls":0,"tool_discovery":0,"bookkeeping":0}`,
		`,"findings":[],"error":null,"limitations":["task_quality_not_certified","indirect_effects_not_certified","input_not_authenticated","capture_authorization_asserted_by_caller"]}`,
	}
	rest := s
	for _, part := range order {
		i := strings.Index(rest, part)
		if i < 0 {
			t.Fatalf("report JSON\n%s\nlacks, in order,\n%s", s, part)
		}
		rest = rest[i+len(part):]
	}
	if rest != "" {
		t.Errorf("report JSON ends with %q after the last member", rest)
	}
}

func TestNewReportLimitations(t *testing.T) {
	tests := []struct {
		capture bool
		want    []Code
	}{
		{false, []Code{TaskQualityNotCertified, IndirectEffectsNotCertified, InputNotAuthenticated}},
		{true, []Code{TaskQualityNotCertified, IndirectEffectsNotCertified, InputNotAuthenticated, CaptureAuthorizationAssertedByCaller}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.capture), func(t *testing.T) {
			r := NewReport(FormatTrajectory, "stdin", DefaultRules(tc.capture))
			if !slices.Equal(r.Limitations, tc.want) {
				t.Errorf("NewReport(capture %v).Limitations = %v, want %v", tc.capture, r.Limitations, tc.want)
			}
			if r.Policy.Catalog != "cairn-memory/1" || r.Policy.CaptureAuthorized != tc.capture || r.Policy.SHA256 != PolicyDigest(tc.capture) {
				t.Errorf("NewReport(capture %v).Policy = %+v, want catalog cairn-memory/1, capture %v, digest %s", tc.capture, r.Policy, tc.capture, PolicyDigest(tc.capture))
			}
			if r.Schema != "cairn.eval.protocol/v1" || !r.Enabled || r.Input.Harness != nil {
				t.Errorf("NewReport(capture %v): schema %q, enabled %v, harness %v; want cairn.eval.protocol/v1, true, nil", tc.capture, r.Schema, r.Enabled, r.Input.Harness)
			}
		})
	}
}

func TestDisabledReport(t *testing.T) {
	b, err := json.Marshal(DisabledReport())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"schema":"cairn.eval.protocol/v1","enabled":false,"status":"disabled"}`; got != want {
		t.Errorf("DisabledReport() = %s, want %s", got, want)
	}
}

// TestCountsSaturate checks that a capture's claimed counts never make a
// count negative: they saturate at the largest int.
func TestCountsSaturate(t *testing.T) {
	e := NewEngine(DefaultRules(false))
	e.AddUnknownRecords(math.MaxInt)
	e.AddReasoning(math.MaxInt - 1)
	e.Add(Event{Kind: EventUnknown})
	e.Add(Event{Kind: EventReasoning})
	e.Add(Event{Kind: EventReasoning})
	e.AddUnknownRecords(5)
	_, c := e.Finish()
	if c.UnknownRecords != math.MaxInt || c.Reasoning != math.MaxInt {
		t.Errorf("counts unknown_records %d, reasoning %d; want both %d", c.UnknownRecords, c.Reasoning, math.MaxInt)
	}
}

package normalize_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
)

// FuzzCodexLifecycle lets the fuzzer's bytes choose a sequence of
// well-formed codex exec records (record kinds, item types, ids from a
// small pool, statuses, catalog and other servers and tools, arguments
// equal as values but not as bytes, result shapes) so that the turn and
// item state machines are driven deep. A reference model written from
// SPEC §4.2–§4.4 and §6 predicts, record by record, which record is
// rejected and with which code, and at the end the counts and the four
// checks; the real pipeline must agree, and must never panic.
func FuzzCodexLifecycle(f *testing.F) {
	// Seeds: the real fixtures, each translated to the choices that
	// rebuild it as closely as the generator can, plus a few hand-made
	// sequences that reach each invalid code.
	paths, err := filepath.Glob("../testdata/codex/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	paths = append(paths, "../testdata/controls/protocol-codex.jsonl")
	// What the newest real codex printed (testdata/codex/real).
	real, _ := filepath.Glob("../testdata/codex/real/0.171.0/*.jsonl")
	paths = append(paths, real...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(lcSeedFromFixture(b))
	}
	rec := func(kind byte) []byte { return []byte{kind, 0} }
	item := func(ev, id, typ, st, server, tool, args, res, errored byte) []byte {
		return []byte{lcItem, 0, ev, id, typ, st, server, tool, args, res, errored}
	}
	seq := func(capture byte, parts ...[]byte) []byte {
		return slices.Concat(append([][]byte{{capture}}, parts...)...)
	}
	const mcp, search, store = 4, 0, 3
	for _, s := range [][]byte{
		{},
		seq(0, rec(lcThread), rec(lcTurn), rec(lcEnd)),
		// a project search, started and completed: pass
		seq(0, rec(lcThread), rec(lcTurn), item(0, 0, mcp, 0, 0, search, 0, 0, 0),
			item(2, 0, mcp, 1, 0, search, 0, 1, 0), rec(lcEnd)),
		// the same arguments written differently are the same identity
		seq(0, rec(lcTurn), item(0, 1, mcp, 0, 1, search, 5, 0, 0),
			item(2, 1, mcp, 1, 1, search, 6, 2, 0), rec(lcEnd)),
		// memory_store with and without the capture assertion
		seq(1, rec(lcTurn), item(0, 0, mcp, 0, 0, search, 0, 0, 0), item(2, 0, mcp, 1, 0, search, 0, 5, 0),
			item(0, 1, mcp, 0, 0, store, 1, 0, 0), item(2, 1, mcp, 2, 0, store, 1, 0, 1), rec(lcEnd)),
		seq(0, rec(lcTurn), item(0, 1, mcp, 0, 0, store, 1, 0, 0), item(2, 1, mcp, 1, 0, store, 1, 0, 0), rec(lcFail)),
		seq(0, rec(lcTurn), item(1, 2, 7, 0, 0, 0, 0, 0, 0)),                                                // orphan update
		seq(0, rec(lcTurn), item(0, 0, mcp, 0, 0, search, 0, 0, 0), item(2, 0, mcp, 1, 0, search, 1, 0, 0)), // mismatch
		seq(0, rec(lcTurn), item(0, 0, 7, 0, 0, 0, 0, 0, 0), item(1, 0, 7, 0, 0, 0, 0, 0, 0),
			item(2, 0, 7, 0, 0, 0, 0, 0, 0), item(1, 0, 7, 0, 0, 0, 0, 0, 0)), // update after completion
		seq(0, rec(lcTurn), rec(lcEnd), rec(lcStreamErr)),                                     // after the terminal record
		seq(0, rec(lcTurn), rec(lcTurn)),                                                      // multiple turns
		seq(0, item(2, 0, 8, 0, 0, 0, 0, 0, 0), rec(lcThread)),                                // misplaced thread.started
		seq(0, item(0, 0, 2, 0, 0, 0, 0, 0, 0)),                                               // event outside turn
		seq(0, rec(lcTurn), item(2, 3, 6, 0, 0, 0, 0, 0, 0), item(2, 3, 6, 0, 0, 0, 0, 0, 0)), // completed twice
		seq(0, rec(lcTurn), rec(lcUnknown), item(0, 1, 9, 0, 0, 0, 0, 0, 0), item(2, 1, 9, 0, 0, 0, 0, 0, 0)),
		seq(0, rec(lcTurn), item(2, 1, mcp, 1, 0, search, 0, 1, 0), rec(lcEnd)), // terminal-only call
		seq(0, rec(lcTurn), item(0, 0, mcp, 0, 0, search, 0, 0, 0), item(2, 0, mcp, 0, 0, search, 0, 0, 0),
			item(0, 1, 2, 0, 0, 0, 0, 0, 0), rec(lcEnd)), // in_progress at completion, a command never completed
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, choices []byte) {
		g := &lcGen{b: choices}
		capture := g.next()%2 == 1
		engine := audit.NewEngine(audit.DefaultRules(capture))
		codex := normalize.NewCodex(engine)
		m := newLCModel(capture)
		var transcript strings.Builder
		n := 0
		for !g.done() && n < 400 {
			line, rec := g.record()
			n++
			fmt.Fprintf(&transcript, "%d %s\n", n, line)
			want := m.apply(rec)
			err := codex.Record([]byte(line), n)
			if err == nil && want == 0 {
				continue
			}
			var ie *audit.InputError
			switch {
			case err == nil:
				t.Fatalf("record %d accepted, want %v\n%s", n, want, &transcript)
			case !errors.As(err, &ie):
				t.Fatalf("record %d: got error %T %v, want *audit.InputError", n, err, err)
			case ie.Code.Kind() != audit.KindInvalid:
				t.Fatalf("record %d: got %v, not an invalid code", n, ie.Code)
			case ie.Record != n:
				t.Fatalf("record %d: error says record %d", n, ie.Record)
			case ie.Code != want:
				t.Fatalf("record %d: got %v, want %v\n%s", n, ie.Code, want, &transcript)
			}
			return // nothing may be fed after an invalid record
		}
		codex.End()
		checks, counts := engine.Finish()
		lcCheckKinds(t, checks)
		wantChecks, wantCounts := m.finish()
		if counts != wantCounts {
			t.Fatalf("got counts %+v, want %+v\n%s", counts, wantCounts, &transcript)
		}
		if fmt.Sprint(checks) != fmt.Sprint(wantChecks) {
			t.Fatalf("got checks %v, want %v\n%s", checks, wantChecks, &transcript)
		}
	})
}

// lcCheckKinds checks each check's state and codes against SPEC §6 and §8,
// independently of the model.
func lcCheckKinds(t *testing.T, c audit.Checks) {
	t.Helper()
	rows := []struct {
		name   string
		check  audit.Verdict
		states []audit.State
		kinds  map[audit.State][]audit.Kind
	}{
		{"evidence_complete", c.EvidenceComplete, []audit.State{audit.Pass, audit.Inconclusive},
			map[audit.State][]audit.Kind{audit.Inconclusive: {audit.KindEvidence}}},
		// An unproven absence is inconclusive with evidence codes (SPEC §6).
		{"memory_first", c.MemoryFirst, []audit.State{audit.Pass, audit.Fail, audit.Inconclusive},
			map[audit.State][]audit.Kind{audit.Fail: {audit.KindFail}, audit.Inconclusive: {audit.KindCheck, audit.KindEvidence}}},
		{"retrieval_result", c.RetrievalResult, []audit.State{audit.Pass, audit.Fail, audit.Inconclusive},
			map[audit.State][]audit.Kind{audit.Fail: {audit.KindFail}, audit.Inconclusive: {audit.KindCheck, audit.KindEvidence}}},
		{"direct_write_boundary", c.DirectWriteBoundary, []audit.State{audit.Pass, audit.Fail, audit.Inconclusive},
			map[audit.State][]audit.Kind{
				audit.Pass:         {audit.KindInformational},
				audit.Fail:         {audit.KindFail, audit.KindInformational},
				audit.Inconclusive: {audit.KindCheck, audit.KindInformational},
			}},
	}
	for _, r := range rows {
		if !slices.Contains(r.states, r.check.State) {
			t.Fatalf("%s: state %q", r.name, r.check.State)
		}
		if r.check.Codes == nil {
			t.Fatalf("%s: nil codes (the report needs [])", r.name)
		}
		if r.check.State != audit.Pass && r.check.State != "" && len(r.check.Codes) == 0 {
			t.Fatalf("%s: %s without a code", r.name, r.check.State)
		}
		primary := 0
		for i, code := range r.check.Codes {
			if i > 0 && r.check.Codes[i-1].String() >= code.String() {
				t.Fatalf("%s: codes %v not sorted and distinct", r.name, r.check.Codes)
			}
			if !slices.Contains(r.kinds[r.check.State], code.Kind()) {
				t.Fatalf("%s: %s with code %v", r.name, r.check.State, code)
			}
			if code.Kind() != audit.KindInformational {
				primary++
			}
		}
		if r.check.State != audit.Pass && primary == 0 {
			t.Fatalf("%s: %s with only informational codes", r.name, r.check.State)
		}
	}
}

// Record kinds the generator can choose.
const (
	lcThread byte = iota
	lcTurn
	lcEnd
	lcFail
	lcStreamErr
	lcUnknown
	lcItem
	lcKinds
)

var (
	lcEvents = []string{"item.started", "item.updated", "item.completed"}
	// codex's own ids and others (kept apart from them by the lifecycle:
	// item_01 is not item_1)
	lcIDs       = []string{"item_0", "item_1", "item_2", "item_3", "item_01", "m"}
	lcItemTypes = []string{"agent_message", "reasoning", "command_execution", "file_change",
		"mcp_tool_call", "collab_tool_call", "web_search", "todo_list", "error", "plan"}
	lcStatuses = []string{"in_progress", "completed", "failed", "declined", "paused"}
	lcServers  = []string{"cairn-memory", "cairn_memory", "other-memory", "cairn-memory-v2"}
	lcTools    = []string{"memory_search", "memory_get", "memory_list", "memory_store",
		"memory_update", "memory_delete", "memory_search_v2", "run_shell"}
	// lcArgs: arguments written differently; lcArgClass groups those that
	// are equal as JSON values (key order, number spelling).
	lcArgs = []string{
		`{"scope":"project","query":"q"}`,
		`{"query":"q"}`,
		`{"scope":"global","query":"q"}`,
		`null`,
		`{"query":"q","scope":"project"}`,
		`{"scope":"project","query":"q","limit":1.0}`,
		`{ "limit" : 10e-1 , "query":"\u0071","scope":"project" }`,
		`{"scope":"\u0070roject"}`,
	}
	lcArgClass   = []int{0, 1, 2, 3, 0, 5, 5, 7}
	lcArgProject = []bool{true, false, false, false, true, true, true, true}
	// lcResults: MCP results; lcResultShape says which hold a search result.
	lcResults = []string{
		`null`,
		`{"content":[],"structured_content":{"mode":"substring","count":0,"results":[]}}`,
		`{"content":[{"type":"text","text":"{\"mode\":\"semantic\",\"count\":2,\"results\":[{\"id\":\"m\"}]}"}],"structured_content":null}`,
		`{"content":[{"type":"text","text":"no memories"}],"structured_content":null}`,
		`{"content":[],"structured_content":{"mode":"fuzzy","count":1,"results":[]}}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"{\"mode\":\"substring\",\"count\":0,\"results\":[]}"}],"structured_content":null}`,
		`{"content":[],"structured_content":{"mode":"substring","count":-1,"results":[]}}`,
		`{"content":[{"type":"text","text":"{\"mode\":\"substring\",\"count\":1,\"count\":2,\"results\":[]}"}],"structured_content":"x"}`,
	}
	lcResultShape = []bool{false, true, true, false, false, true, false, false}
)

// lcGen turns the fuzzer's bytes into records; once they run out, it ends.
type lcGen struct {
	b []byte
	i int
}

func (g *lcGen) done() bool { return g.i >= len(g.b) }

func (g *lcGen) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return g.b[g.i-1]
}

func (g *lcGen) pick(n int) int { return int(g.next()) % n }

// lcRec is what the model needs to know of a generated record.
type lcRec struct {
	kind                byte
	event               int // item records: index in lcEvents
	id, typ             string
	status              int // -1: the type has no status
	server, tool, args  int
	result              int
	errored             bool
	extra               bool // carries a member outside the contract
	completedUsageShort bool
}

// record builds the next record from the choices.
func (g *lcGen) record() (string, lcRec) {
	r := lcRec{kind: g.next() % lcKinds, status: -1}
	extra := g.next()
	r.extra = extra%13 == 1
	x := ""
	if r.extra {
		x = `,"zz_extra":1`
	}
	switch r.kind {
	case lcThread:
		return `{"type":"thread.started","thread_id":"019e-t"` + x + `}`, r
	case lcTurn:
		return `{"type":"turn.started"` + x + `}`, r
	case lcEnd:
		if extra%3 == 0 {
			return `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":1}` + x + `}`, r
		}
		return `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}` + x + `}`, r
	case lcFail:
		return `{"type":"turn.failed","error":{"message":"boom"}` + x + `}`, r
	case lcStreamErr:
		return `{"type":"error","message":"Reconnecting... 1/5"` + x + `}`, r
	case lcUnknown:
		r.extra = false // an unknown record's members are its own
		return `{"type":"item.plan.delta","delta":"x","zz_extra":1}`, r
	}
	r.event = g.pick(len(lcEvents))
	r.id = lcIDs[g.pick(len(lcIDs))]
	r.typ = lcItemTypes[g.pick(len(lcItemTypes))]
	st := g.pick(len(lcStatuses))
	r.server, r.tool, r.args = g.pick(len(lcServers)), g.pick(len(lcTools)), g.pick(len(lcArgs))
	r.result = g.pick(len(lcResults))
	r.errored = g.next()%4 == 1
	var item string
	status := func() string {
		r.status = st
		return `,"status":"` + lcStatuses[st] + `"`
	}
	switch r.typ {
	case "agent_message", "reasoning", "plan":
		item = `,"text":"t"`
	case "command_execution":
		item = `,"command":"/bin/bash -lc 'ls'","aggregated_output":"","exit_code":null` + status()
	case "file_change":
		item = `,"changes":[{"path":"/w/a.go","kind":"update"}]` + status()
	case "mcp_tool_call":
		errv := `null`
		if r.errored {
			errv = `{"message":"tool call error"}`
		}
		item = `,"server":"` + lcServers[r.server] + `","tool":"` + lcTools[r.tool] +
			`","arguments":` + lcArgs[r.args] + `,"result":` + lcResults[r.result] + `,"error":` + errv + status()
	case "collab_tool_call":
		item = `,"tool":"spawn_agent","sender_thread_id":"t0","receiver_thread_ids":["t1"],"prompt":null,"agents_states":{"t1":{"status":"running","message":null}}` + status()
	case "web_search":
		item = `,"id":"ws_1","query":"q","action":{"type":"search","query":"q"}`
	case "todo_list":
		item = `,"items":[{"text":"step","completed":false}]`
	case "error":
		item = `,"message":"config warning"`
	}
	return `{"type":"` + lcEvents[r.event] + `","item":{"id":"` + r.id + `","type":"` + r.typ + `"` + item + x + `}}`, r
}

// lcSeedFromFixture maps a real export to generator choices, record by
// record, by its record and item types; ids and payloads come from the
// generator's pools.
func lcSeedFromFixture(b []byte) []byte {
	out := []byte{0}
	ids := map[string]byte{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		s := string(line)
		has := func(sub string) bool { return strings.Contains(s, sub) }
		switch {
		case has(`"type":"thread.started"`):
			out = append(out, lcThread, 0)
		case has(`"type":"turn.started"`):
			out = append(out, lcTurn, 0)
		case has(`"type":"turn.completed"`):
			out = append(out, lcEnd, 2)
		case has(`"type":"turn.failed"`):
			out = append(out, lcFail, 0)
		case strings.HasPrefix(s, `{"type":"error"`):
			out = append(out, lcStreamErr, 0)
		case has(`"type":"item.`):
			ev := byte(0)
			switch {
			case has(`"type":"item.updated"`):
				ev = 1
			case has(`"type":"item.completed"`):
				ev = 2
			}
			i := strings.Index(s, `"id":"`)
			id := s[i+6:]
			id = id[:strings.IndexByte(id, '"')]
			if _, ok := ids[id]; !ok {
				ids[id] = byte(len(ids) % len(lcIDs))
			}
			typ := byte(0)
			for k, name := range lcItemTypes {
				if has(`"type":"` + name + `"`) {
					typ = byte(k)
				}
			}
			st := byte(1)
			switch {
			case has(`"status":"in_progress"`):
				st = 0
			case has(`"status":"failed"`):
				st = 2
			}
			tool := byte(0)
			for k, name := range lcTools {
				if has(`"tool":"` + name + `"`) {
					tool = byte(k)
				}
			}
			res := byte(0)
			if has(`"structured_content":{`) {
				res = 1
			} else if has(`"text":"{`) {
				res = 2
			}
			errored := byte(0)
			if has(`"error":{`) {
				errored = 1
			}
			out = append(out, lcItem, 0, ev, ids[id], typ, st, 0, tool, 0, res, errored)
		default:
			out = append(out, lcUnknown, 0)
		}
	}
	return out
}

// lcModel is the reference reading of SPEC §4.2–§4.4 and §6 for the
// generated records.
type lcModel struct {
	capture bool

	turn   int // 0 none, 1 pre-turn, 2 open, 3 done
	failed bool
	items  map[string]*lcItemState

	counts   audit.Counts
	evidence map[audit.Code]bool
	// first call, and whether the first call cannot be established
	haveFirst, orderUnknown bool
	first                   lcCall
	pending                 map[string]lcCall
	searchOK, searchMissing bool
	searchError, searchOdd  bool
	destructive, captured   bool
}

type lcItemState struct {
	done     bool
	identity string
}

type lcCall struct {
	tool    audit.Tool
	project bool
}

func newLCModel(capture bool) *lcModel {
	return &lcModel{capture: capture, items: map[string]*lcItemState{},
		evidence: map[audit.Code]bool{}, pending: map[string]lcCall{}}
}

func (r lcRec) identity() string {
	s := r.typ
	if r.typ == "mcp_tool_call" {
		s += fmt.Sprintf("|%d|%d|%d", r.server, r.tool, lcArgClass[r.args])
	}
	return s
}

func isCallType(t string) bool {
	switch t {
	case "command_execution", "file_change", "mcp_tool_call", "collab_tool_call", "web_search", "plan":
		return true
	}
	return false
}

func completionOnly(t string) bool {
	return t == "agent_message" || t == "reasoning" || t == "error"
}

func hasStatus(t string, st int) bool {
	switch t {
	case "command_execution", "mcp_tool_call":
		return st <= 3
	case "file_change", "collab_tool_call":
		return st <= 2
	}
	return false
}

// apply returns the code that rejects r, or 0 after taking it into account.
func (m *lcModel) apply(r lcRec) audit.Code {
	// The turn FSM (SPEC §4.2).
	next := m.turn
	switch {
	case m.turn == 3:
		return audit.EventAfterTerminalTurn
	case r.kind == lcThread:
		if m.turn != 0 {
			return audit.ThreadStartedMisplaced
		}
		next = 1
	case r.kind == lcTurn:
		if m.turn == 2 {
			return audit.MultipleTurns
		}
		next = 2
	case r.kind == lcEnd || r.kind == lcFail:
		if m.turn != 2 {
			return audit.EventOutsideTurn
		}
		next = 3
	case r.kind == lcItem && !(r.event == 2 && r.typ == "error"):
		if m.turn != 2 {
			return audit.EventOutsideTurn
		}
	default: // stream errors, unknown records, completed error items
		if m.turn == 0 {
			next = 1
		}
	}
	// An item.started of a type that exists only at completion is outside
	// the contract: an unknown record, judged as a whole (SPEC §4.3).
	if r.kind == lcItem && r.event == 0 && completionOnly(r.typ) {
		m.turn = next
		m.counts.UnknownRecords++
		m.evidence[audit.UnknownRecord] = true
		if !m.haveFirst {
			m.orderUnknown = true
		}
		return 0
	}
	// The item FSM (SPEC §4.3).
	var from *lcItemState
	if r.kind == lcItem {
		from = m.items[r.id]
		switch r.event {
		case 0:
			if from != nil {
				return audit.DuplicateItemID
			}
		case 1:
			if from == nil || from.done {
				return audit.OrphanUpdate
			}
		case 2:
			if from != nil && from.done {
				return audit.DuplicateItemID
			}
		}
		if from != nil && from.identity != r.identity() {
			return audit.ItemMismatch
		}
	}
	m.turn = next
	if r.kind == lcFail {
		m.failed = true
	}
	// An item of an unknown type is judged as a whole (unknown_item_type):
	// its members are its own, like an unknown record's.
	if r.extra && r.typ != "plan" || r.status >= 0 && !hasStatus(r.typ, r.status) {
		m.evidence[audit.UnknownField] = true
	}
	switch r.kind {
	case lcStreamErr:
		m.counts.StreamErrors++
	case lcUnknown:
		m.counts.UnknownRecords++
		m.evidence[audit.UnknownRecord] = true
		if !m.haveFirst {
			m.orderUnknown = true
		}
	case lcItem:
		m.item(r, from)
	}
	return 0
}

func (m *lcModel) item(r lcRec, from *lcItemState) {
	absent := from == nil
	switch {
	case absent:
		m.items[r.id] = &lcItemState{identity: r.identity(), done: r.event == 2}
	case r.event == 2:
		from.done = true
	}
	if !isCallType(r.typ) {
		if r.event == 2 {
			switch r.typ {
			case "agent_message":
				m.counts.Narration++
			case "reasoning":
				m.counts.Reasoning++
			}
		}
		return
	}
	if absent {
		// A start, or a completion with no start: codex 0.125 prints a
		// start for every known call type, so the latter is terminal-only.
		m.call(r, r.event == 2 && r.typ != "plan")
	}
	if r.event == 2 {
		m.result(r)
	}
}

func (m *lcModel) call(r lcRec, terminalOnly bool) {
	c := lcCall{}
	if r.typ == "mcp_tool_call" {
		if r.server <= 1 && r.tool <= 5 {
			c.tool = audit.CairnMemory.Bare([]byte(lcTools[r.tool]))
		}
		c.project = lcArgProject[r.args] // it matters only for a search
	}
	m.counts.Calls++
	if !m.haveFirst {
		m.haveFirst = true
		m.first = c
		if r.typ == "plan" {
			m.orderUnknown = true
		}
	}
	if terminalOnly {
		m.evidence[audit.TerminalOnlyCall] = true
		m.orderUnknown = true
	}
	if r.typ == "plan" {
		m.evidence[audit.UnknownItemType] = true
	}
	switch audit.CairnMemory.Class(c.tool) {
	case 0:
		m.counts.OpaqueCalls++
	case audit.Read:
		m.counts.MemoryCalls++
		if c.tool == audit.MemorySearch && c.project {
			m.counts.ProjectSearches++
		}
	case audit.Capture:
		m.counts.MemoryCalls++
		m.counts.MutationAttempts++
		m.captured = true
	case audit.Destructive:
		m.counts.MemoryCalls++
		m.counts.MutationAttempts++
		m.destructive = true
	}
	m.pending[r.id] = c
}

func (m *lcModel) result(r lcRec) {
	c := m.pending[r.id]
	delete(m.pending, r.id)
	search := c.tool == audit.MemorySearch && c.project
	st := r.status
	switch {
	case st == 0: // in_progress at completion: no final result
		m.incomplete(c)
	case !search:
	case st == 2 || st == 3 || r.typ == "mcp_tool_call" && r.errored:
		m.searchError = true
	case st == 4:
		m.searchOdd = true // a status outside the contract
	case lcResultShape[r.result]:
		m.searchOK = true
	default:
		m.searchOdd = true
	}
}

func (m *lcModel) incomplete(c lcCall) {
	m.counts.IncompleteCalls++
	m.evidence[audit.CallIncomplete] = true
	if c.tool == audit.MemorySearch && c.project {
		m.searchMissing = true
	}
}

// absent is SPEC §6's absence rule: a fail only when the turn completed and
// nothing unknown was seen.
func (m *lcModel) absent() audit.Verdict {
	var cut []audit.Code
	for _, c := range []audit.Code{audit.TurnFailed, audit.TurnIncomplete, audit.UnknownRecord, audit.UnknownItemType} {
		if m.evidence[c] {
			cut = append(cut, c)
		}
	}
	if len(cut) > 0 {
		return lcCheck(audit.Inconclusive, cut...)
	}
	return lcCheck(audit.Fail, audit.ProjectSearchAbsent)
}

func (m *lcModel) finish() (audit.Checks, audit.Counts) {
	for id, c := range m.pending {
		delete(m.pending, id)
		m.incomplete(c)
	}
	switch {
	case m.turn != 3:
		m.evidence[audit.TurnIncomplete] = true
	case m.failed:
		m.evidence[audit.TurnFailed] = true
	}
	var ch audit.Checks
	ch.EvidenceComplete = lcCheck(audit.Pass)
	if len(m.evidence) > 0 {
		var codes []audit.Code
		for c := range m.evidence {
			codes = append(codes, c)
		}
		ch.EvidenceComplete = lcCheck(audit.Inconclusive, codes...)
	}
	switch {
	case m.orderUnknown:
		ch.MemoryFirst = lcCheck(audit.Inconclusive, audit.DispatchOrderUnknown)
	case !m.haveFirst:
		ch.MemoryFirst = m.absent()
	case m.first.tool != audit.MemorySearch:
		ch.MemoryFirst = lcCheck(audit.Fail, audit.ToolBeforeProjectSearch)
	case !m.first.project:
		ch.MemoryFirst = lcCheck(audit.Fail, audit.FirstSearchNotProjectScoped)
	default:
		ch.MemoryFirst = lcCheck(audit.Pass)
	}
	switch {
	case m.counts.ProjectSearches == 0:
		ch.RetrievalResult = m.absent()
	case m.searchOK:
		ch.RetrievalResult = lcCheck(audit.Pass)
	default:
		var codes []audit.Code
		if m.searchMissing {
			codes = append(codes, audit.SearchResultMissing)
		}
		if m.searchError {
			codes = append(codes, audit.SearchResultError)
		}
		if m.searchOdd {
			codes = append(codes, audit.SearchResultUninterpretable)
		}
		ch.RetrievalResult = lcCheck(audit.Inconclusive, codes...)
	}
	var codes []audit.Code
	state := audit.Pass
	if m.destructive {
		codes = append(codes, audit.DestructiveMutation)
	}
	if m.captured && !m.capture {
		codes = append(codes, audit.DirectMutationUnauthorized)
	}
	switch {
	case len(codes) > 0:
		state = audit.Fail
	case m.counts.OpaqueCalls > 0:
		state = audit.Inconclusive
		codes = append(codes, audit.OpaqueToolEffects)
	}
	if m.captured && m.capture {
		codes = append(codes, audit.CaptureAuthorizationAsserted)
	}
	ch.DirectWriteBoundary = lcCheck(state, codes...)
	return ch, m.counts
}

func lcCheck(s audit.State, codes ...audit.Code) audit.Verdict {
	if codes == nil {
		codes = []audit.Code{}
	}
	slices.SortFunc(codes, func(a, b audit.Code) int { return strings.Compare(a.String(), b.String()) })
	return audit.Verdict{State: s, Codes: codes}
}

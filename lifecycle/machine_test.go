package lifecycle

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// turnWant is one cell of the turn FSM: the next state, or the code that
// rejects the event (and leaves the state as it was).
type turnWant struct {
	next TurnState
	code audit.Code
}

// wantTurnTable is SPEC §4.2 written out cell by cell: optional
// thread.started first and at most once; configuration-warning error items
// (and top-level error records, which are counted, not judged) allowed
// before turn.started; exactly one turn.started; items inside the turn;
// exactly one terminal record; nothing after it. Unknown records are
// inconclusive, never invalid, so the turn FSM takes them where it takes
// error records. A turn end before turn.started is event_outside_turn.
var wantTurnTable = map[TurnState]map[TurnEvent]turnWant{
	TurnNone: {
		EvThreadStarted: {next: TurnPre},
		EvTurnStarted:   {next: TurnOpen},
		EvItem:          {code: audit.EventOutsideTurn},
		EvErrorItem:     {next: TurnPre},
		EvStreamError:   {next: TurnPre},
		EvTurnEnd:       {code: audit.EventOutsideTurn},
		EvUnknown:       {next: TurnPre},
	},
	TurnPre: {
		EvThreadStarted: {code: audit.ThreadStartedMisplaced},
		EvTurnStarted:   {next: TurnOpen},
		EvItem:          {code: audit.EventOutsideTurn},
		EvErrorItem:     {next: TurnPre},
		EvStreamError:   {next: TurnPre},
		EvTurnEnd:       {code: audit.EventOutsideTurn},
		EvUnknown:       {next: TurnPre},
	},
	TurnOpen: {
		EvThreadStarted: {code: audit.ThreadStartedMisplaced},
		EvTurnStarted:   {code: audit.MultipleTurns},
		EvItem:          {next: TurnOpen},
		EvErrorItem:     {next: TurnOpen},
		EvStreamError:   {next: TurnOpen},
		EvTurnEnd:       {next: TurnDone},
		EvUnknown:       {next: TurnOpen},
	},
	TurnDone: {
		EvThreadStarted: {code: audit.EventAfterTerminalTurn},
		EvTurnStarted:   {code: audit.EventAfterTerminalTurn},
		EvItem:          {code: audit.EventAfterTerminalTurn},
		EvErrorItem:     {code: audit.EventAfterTerminalTurn},
		EvStreamError:   {code: audit.EventAfterTerminalTurn},
		EvTurnEnd:       {code: audit.EventAfterTerminalTurn},
		EvUnknown:       {code: audit.EventAfterTerminalTurn},
	},
}

func (w turnWant) String() string {
	if w.code != 0 {
		return "rejected with " + w.code.String()
	}
	return "→ " + w.next.String()
}

// TestTurnTable walks every (state, event) pair of the turn FSM.
func TestTurnTable(t *testing.T) {
	for s := TurnState(0); s < numTurnStates; s++ {
		for e := TurnEvent(0); e < numTurnEvents; e++ {
			t.Run(s.String()+"/"+e.String(), func(t *testing.T) {
				want, ok := wantTurnTable[s][e]
				if !ok {
					t.Fatalf("the test's table has no cell for (%s, %s)", s, e)
				}
				turn := Turn{State: s}
				code := turn.Step(e)
				got := turnWant{next: turn.State, code: code}
				if code != 0 {
					got.next = 0
				}
				if got != want {
					t.Errorf("Step(%s) in %s: got %s, want %s", e, s, got, want)
				}
				if code != 0 && turn.State != s {
					t.Errorf("Step(%s) in %s was rejected but moved the state to %s", e, s, turn.State)
				}
			})
		}
	}
	if len(wantTurnTable) != int(numTurnStates) {
		t.Errorf("the test's table has %d states, the FSM %d", len(wantTurnTable), numTurnStates)
	}
}

// Records for the turn FSM's events.
const (
	recThread     = `{"type":"thread.started","thread_id":"t"}`
	recTurn       = `{"type":"turn.started"}`
	recCompleted  = `{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}`
	recFailed     = `{"type":"turn.failed","error":{"message":"boom"}}`
	recStreamErr  = `{"type":"error","message":"Reconnecting... 1/5"}`
	recUnknown    = `{"type":"turn.aborted"}`
	recWarning    = `{"type":"item.completed","item":{"id":"w","type":"error","message":"config warning"}}`
	recStartCmd   = `{"type":"item.started","item":{"id":"z","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`
	recAgentMsg   = `{"type":"item.completed","item":{"id":"m","type":"agent_message","text":"hi"}}`
	recTodoUpdate = `{"type":"item.updated","item":{"id":"z","type":"todo_list","items":[]}}`
)

// snapshot is a deep copy of a machine's state, to check that a rejected
// record changed nothing.
type snapshot struct {
	Turn  Turn
	Open  map[stream.Key]open
	Done  doneSet
	Items int
}

func snap(m *Machine) snapshot {
	done := m.done
	done.bits = slices.Clone(done.bits)
	done.other.slots = slices.Clone(done.other.slots)
	return snapshot{m.turn, maps.Clone(m.open), done, m.items}
}

// feed applies the records in order and fails the test if one is rejected.
func feed(t *testing.T, m *Machine, lines ...string) {
	t.Helper()
	for i, line := range lines {
		rec, code := decodeLine(t, line)
		if code != 0 {
			t.Fatalf("setup record %d: Decode(%s) = %s", i+1, line, code)
		}
		if _, code := m.Apply(rec); code != 0 {
			t.Fatalf("setup record %d: Apply(%s) = %s, want ok", i+1, line, code)
		}
	}
}

// applyOne applies one more record and checks that a rejection left the
// machine unchanged.
func applyOne(t *testing.T, m *Machine, line string) (Step, audit.Code) {
	t.Helper()
	rec, code := decodeLine(t, line)
	if code != 0 {
		t.Fatalf("Decode(%s) = %s", line, code)
	}
	before := snap(m)
	step, code := m.Apply(rec)
	if code != 0 {
		if after := snap(m); !reflect.DeepEqual(before, after) {
			t.Errorf("Apply(%s) was rejected with %s but changed the machine:\n got %+v\nwant %+v", line, code, after, before)
		}
		if step != (Step{}) {
			t.Errorf("Apply(%s) was rejected with %s but returned step %+v", line, code, step)
		}
	}
	return step, code
}

// TestMachineTurnTable walks every (state, event) pair of the turn FSM
// through Machine.Apply, with real records.
func TestMachineTurnTable(t *testing.T) {
	reach := map[TurnState][]string{
		TurnNone: nil,
		TurnPre:  {recThread},
		TurnOpen: {recThread, recTurn},
		TurnDone: {recThread, recTurn, recCompleted},
	}
	events := map[TurnEvent][]string{
		EvThreadStarted: {recThread},
		EvTurnStarted:   {recTurn},
		EvItem:          {recStartCmd, recAgentMsg},
		EvErrorItem:     {recWarning},
		EvStreamError:   {recStreamErr},
		EvTurnEnd:       {recCompleted, recFailed},
		EvUnknown:       {recUnknown},
	}
	for s := TurnState(0); s < numTurnStates; s++ {
		for e := TurnEvent(0); e < numTurnEvents; e++ {
			for _, line := range events[e] {
				t.Run(fmt.Sprintf("%s/%s/%s", s, e, line), func(t *testing.T) {
					want := wantTurnTable[s][e]
					m := NewMachine()
					feed(t, m, reach[s]...)
					_, code := applyOne(t, m, line)
					if code != want.code {
						t.Fatalf("in %s, Apply(%s) = %s, want %s", s, line, codeOrOK(code), want)
					}
					if code == 0 && m.turn.State != want.next {
						t.Errorf("in %s, Apply(%s) moved to %s, want %s", s, line, m.turn.State, want)
					}
				})
			}
		}
	}
	if len(events) != int(numTurnEvents) || len(reach) != int(numTurnStates) {
		t.Errorf("the test covers %d events and %d states; the FSM has %d and %d", len(events), len(reach), numTurnEvents, numTurnStates)
	}
}

// TestMachineTurnSequences checks whole streams against SPEC §4.2.
func TestMachineTurnSequences(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		code  audit.Code // the last record's code
	}{
		{"minimal", []string{recThread, recTurn, recCompleted}, 0},
		{"without thread.started", []string{recTurn, recAgentMsg, recCompleted}, 0},
		{"warnings before the turn", []string{recThread, recWarning, strings.ReplaceAll(recWarning, `"w"`, `"w2"`), recTurn}, 0},
		{"stream errors inside the turn", []string{recThread, recTurn, recStreamErr, recStreamErr, recFailed}, 0},
		{"thread.started twice", []string{recThread, recThread}, audit.ThreadStartedMisplaced},
		{"thread.started after a warning", []string{recWarning, recThread}, audit.ThreadStartedMisplaced},
		{"thread.started after a stream error", []string{recStreamErr, recThread}, audit.ThreadStartedMisplaced},
		{"thread.started after an unknown record", []string{recUnknown, recThread}, audit.ThreadStartedMisplaced},
		{"thread.started inside the turn", []string{recThread, recTurn, recThread}, audit.ThreadStartedMisplaced},
		{"item before turn.started", []string{recThread, recStartCmd}, audit.EventOutsideTurn},
		{"agent message before turn.started", []string{recThread, recAgentMsg}, audit.EventOutsideTurn},
		{"started error item before turn.started", []string{recThread, `{"type":"item.started","item":{"id":"w","type":"error","message":"x"}}`}, audit.EventOutsideTurn},
		{"update before turn.started", []string{recThread, recTodoUpdate}, audit.EventOutsideTurn},
		{"turn.completed before turn.started", []string{recThread, recCompleted}, audit.EventOutsideTurn},
		{"turn.failed first", []string{recFailed}, audit.EventOutsideTurn},
		{"second turn.started", []string{recThread, recTurn, recAgentMsg, recTurn}, audit.MultipleTurns},
		{"second turn after the first ended", []string{recThread, recTurn, recCompleted, recTurn}, audit.EventAfterTerminalTurn},
		{"item after turn.completed", []string{recTurn, recCompleted, recAgentMsg}, audit.EventAfterTerminalTurn},
		{"stream error after turn.failed", []string{recTurn, recFailed, recStreamErr}, audit.EventAfterTerminalTurn},
		{"unknown record after the turn", []string{recTurn, recCompleted, recUnknown}, audit.EventAfterTerminalTurn},
		{"second terminal record", []string{recTurn, recCompleted, recFailed}, audit.EventAfterTerminalTurn},
		{"concatenated runs", []string{recThread, recTurn, recCompleted, recThread}, audit.EventAfterTerminalTurn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMachine()
			n := len(tc.lines)
			feed(t, m, tc.lines[:n-1]...)
			if _, code := applyOne(t, m, tc.lines[n-1]); code != tc.code {
				t.Errorf("after %q, Apply(%s) = %s, want %s", tc.lines[:n-1], tc.lines[n-1], codeOrOK(code), codeOrOK(tc.code))
			}
		})
	}
}

// itemWant is one cell of the item FSM.
type itemWant struct {
	next ItemState
	code audit.Code
}

// wantItemTable is SPEC §4.3: absent → started → (updated)* → completed; a
// start for an id already seen or a second completion is
// duplicate_item_id; an update for an id never started or already
// completed is orphan_update. A completion with no start is accepted here
// (agent_message, reasoning and error items only ever complete); whether it
// is a terminal-only call is the normalizer's judgement.
var wantItemTable = map[ItemState]map[ItemEvent]itemWant{
	Absent: {
		EvStart:    {next: Started},
		EvUpdate:   {code: audit.OrphanUpdate},
		EvComplete: {next: Done},
	},
	Started: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {next: Updated},
		EvComplete: {next: Done},
	},
	Updated: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {next: Updated},
		EvComplete: {next: Done},
	},
	Done: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {code: audit.OrphanUpdate},
		EvComplete: {code: audit.DuplicateItemID},
	},
}

func (w itemWant) String() string {
	if w.code != 0 {
		return "rejected with " + w.code.String()
	}
	return "→ " + w.next.String()
}

// itemStateOf reads the state the machine holds for the item it.
func itemStateOf(m *Machine, it *Item) ItemState {
	if o, ok := m.open[it.Key]; ok {
		return o.state
	}
	if m.done.has(it) {
		return Done
	}
	return Absent
}

// TestMachineItemTable walks every (state, event) pair of the item FSM,
// for a todo list (the type codex updates) and an MCP call (whose identity
// includes server, tool and arguments), reaching each state by records.
func TestMachineItemTable(t *testing.T) {
	items := map[string]string{
		"todo_list": `{"id":"x","type":"todo_list","items":[{"text":"a","completed":false}]}`,
		"mcp":       `{"id":"x","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q"},"result":null,"error":null,"status":"in_progress"}`,
	}
	eventRec := map[ItemEvent]string{EvStart: "item.started", EvUpdate: "item.updated", EvComplete: "item.completed"}
	reach := []struct {
		name   string
		state  ItemState
		events []ItemEvent
	}{
		{"absent", Absent, nil},
		{"started", Started, []ItemEvent{EvStart}},
		{"updated", Updated, []ItemEvent{EvStart, EvUpdate}},
		{"updated twice", Updated, []ItemEvent{EvStart, EvUpdate, EvUpdate}},
		{"completed", Done, []ItemEvent{EvStart, EvComplete}},
		{"completed after update", Done, []ItemEvent{EvStart, EvUpdate, EvComplete}},
		{"completed only", Done, []ItemEvent{EvComplete}},
	}
	for typ, item := range items {
		for _, r := range reach {
			for e := ItemEvent(0); e < numItemEvents; e++ {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, r.name, e), func(t *testing.T) {
					want, ok := wantItemTable[r.state][e]
					if !ok {
						t.Fatalf("the test's table has no cell for (%s, %s)", r.state, e)
					}
					m := NewMachine()
					feed(t, m, recThread, recTurn, recAgentMsg) // the agent message takes seq 0
					for _, ev := range r.events {
						feed(t, m, wrap(eventRec[ev], item))
					}
					rec, _ := decodeLine(t, wrap(eventRec[e], item))
					if got := itemStateOf(m, &rec.Item); got != r.state {
						t.Fatalf("setup reached %s, want %s", got, r.state)
					}
					step, code := applyOne(t, m, wrap(eventRec[e], item))
					if code != want.code {
						t.Fatalf("%s in %s = %s, want %s", e, r.state, codeOrOK(code), want)
					}
					if code != 0 {
						return
					}
					if got := itemStateOf(m, &rec.Item); got != want.next {
						t.Errorf("%s in %s moved to %s, want %s", e, r.state, got, want)
					}
					if wantStep := (Step{Event: e, From: r.state, Seq: 1}); step != wantStep {
						t.Errorf("%s in %s returned step %+v, want %+v", e, r.state, step, wantStep)
					}
					if m.turn.State != TurnOpen {
						t.Errorf("%s in %s left the turn in %s, want %s", e, r.state, m.turn.State, TurnOpen)
					}
				})
			}
		}
	}
	for s := ItemState(0); s < numItemStates; s++ {
		if len(wantItemTable[s]) != int(numItemEvents) {
			t.Errorf("the test's table has %d events for %s, the FSM %d", len(wantItemTable[s]), s, numItemEvents)
		}
	}
}

// mcpItem returns an mcp_tool_call item with id c.
func mcpItem(server, tool, args, status string) string {
	result := `null`
	if status != "in_progress" {
		result = `{"content":[{"type":"text","text":"{}"}],"structured_content":null}`
	}
	return `{"id":"c","type":"mcp_tool_call","server":"` + server + `","tool":"` + tool + `","arguments":` + args +
		`,"result":` + result + `,"error":null,"status":"` + status + `"}`
}

// TestMachineIdentity checks SPEC §4.3's identity: id and type, and for an
// MCP call server, tool and arguments compared as JSON values; the payload
// (status, result, error, output) may change.
func TestMachineIdentity(t *testing.T) {
	const srv, tool = "cairn-memory", "memory_search"
	args := `{"scope":"project","query":"q","limit":1}`
	start := mcpItem(srv, tool, args, "in_progress")
	cmd := `{"id":"c","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}`
	tests := []struct {
		name  string
		start string
		later string // the item at update or completion
		code  audit.Code
	}{
		{"same", start, mcpItem(srv, tool, args, "completed"), 0},
		{"key order", start, mcpItem(srv, tool, `{"limit":1,"query":"q","scope":"project"}`, "completed"), 0},
		{"whitespace", start, mcpItem(srv, tool, "{ \"scope\" : \"project\" ,\t\"query\":\"q\",\r\n\"limit\": 1 }", "completed"), 0},
		{"1.0 and 1", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":1.0}`, "completed"), 0},
		{"1e0 and 1", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":1e0}`, "completed"), 0},
		{"10e-1 and 1", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":10E-1}`, "completed"), 0},
		{"escaped string", start, mcpItem(srv, tool, `{"scope":"pro\u006aect","query":"\u0071","limit":1}`, "completed"), 0},
		{"nested key order", mcpItem(srv, tool, `{"a":{"x":1,"y":[{"p":1,"q":2}]}}`, "in_progress"), mcpItem(srv, tool, `{"a":{"y":[{"q":2,"p":1}],"x":1}}`, "completed"), 0},
		{"null arguments", mcpItem(srv, tool, `null`, "in_progress"), mcpItem(srv, tool, `null`, "failed"), 0},
		{"escaped server and tool", start, mcpItem(`cairn\u002dmemory`, `memory\u005fsearch`, args, "completed"), 0},
		{"payload changes", start, `{"id":"c","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":` + args + `,"result":null,"error":{"message":"x"},"status":"failed"}`, 0},
		{"command text is payload", cmd, strings.Replace(cmd, `"ls"`, `"rm -rf /tmp/x"`, 1), 0},
		{"web_search second id is not identity", `{"id":"c","type":"web_search","id":"","query":"","action":{"type":"other"}}`, `{"id":"c","type":"web_search","id":"ws_9","query":"q","action":{"type":"search","query":"q"}}`, 0},

		{"argument value changed", start, mcpItem(srv, tool, `{"scope":"project","query":"other","limit":1}`, "completed"), audit.ItemMismatch},
		{"argument scope changed", start, mcpItem(srv, tool, `{"scope":"global","query":"q","limit":1}`, "completed"), audit.ItemMismatch},
		{"argument added", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":1,"mode":"semantic"}`, "completed"), audit.ItemMismatch},
		{"argument removed", start, mcpItem(srv, tool, `{"scope":"project","query":"q"}`, "completed"), audit.ItemMismatch},
		{"number changed", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":1.5}`, "completed"), audit.ItemMismatch},
		{"number became string", start, mcpItem(srv, tool, `{"scope":"project","query":"q","limit":"1"}`, "completed"), audit.ItemMismatch},
		{"null became object", mcpItem(srv, tool, `null`, "in_progress"), mcpItem(srv, tool, `{}`, "completed"), audit.ItemMismatch},
		{"array order", mcpItem(srv, tool, `{"ids":[1,2]}`, "in_progress"), mcpItem(srv, tool, `{"ids":[2,1]}`, "completed"), audit.ItemMismatch},
		{"server changed", start, mcpItem("cairn_memory", tool, args, "completed"), audit.ItemMismatch},
		{"tool changed", start, mcpItem(srv, "memory_delete", args, "completed"), audit.ItemMismatch},
		{"type changed from mcp", start, strings.Replace(cmd, `"in_progress"`, `"completed"`, 1), audit.ItemMismatch},
		{"type changed from command", cmd, `{"id":"c","type":"file_change","changes":[],"status":"completed"}`, audit.ItemMismatch},
		{"type changed to an unknown type", cmd, `{"id":"c","type":"plan"}`, audit.ItemMismatch},
		{"type changed from an unknown type", `{"id":"c","type":"plan"}`, strings.Replace(cmd, `"in_progress"`, `"completed"`, 1), audit.ItemMismatch},
		{"unknown type changed", `{"id":"c","type":"plan"}`, `{"id":"c","type":"plan_v2"}`, audit.ItemMismatch},
		{"unknown type kept", `{"id":"c","type":"plan","x":1}`, `{"id":"c","type":"pl\u0061n","x":2}`, 0},
		{"escaped known type", cmd, strings.Replace(strings.Replace(cmd, `"in_progress"`, `"completed"`, 1), `command_execution`, `command\u005fexecution`, 1), 0},
	}
	for _, tc := range tests {
		for _, path := range []struct {
			name  string
			setup []string
			rec   string
		}{
			{"completion", []string{"item.started"}, "item.completed"},
			{"update", []string{"item.started"}, "item.updated"},
			{"completion after update", []string{"item.started", "item.updated"}, "item.completed"},
		} {
			t.Run(tc.name+"/"+path.name, func(t *testing.T) {
				m := NewMachine()
				feed(t, m, recThread, recTurn)
				for _, r := range path.setup {
					feed(t, m, wrap(r, tc.start))
				}
				later := wrap(path.rec, tc.later)
				if _, code := applyOne(t, m, later); code != tc.code {
					t.Fatalf("after %s %s, Apply(%s) = %s, want %s", strings.Join(path.setup, ", "), tc.start, later, codeOrOK(code), codeOrOK(tc.code))
				}
				if tc.code != 0 && path.rec == "item.completed" {
					// The rejected record changed nothing: the item can still complete as started.
					if _, code := applyOne(t, m, wrap("item.completed", tc.start)); code != 0 {
						t.Errorf("after a rejected %s, completing %s = %s, want ok", later, tc.start, code)
					}
				}
			})
		}
	}
}

// TestMachineErrorItemMismatch checks that an error item completing an id
// started as another type is a mismatch, not a pre-turn warning.
func TestMachineErrorItemMismatch(t *testing.T) {
	m := NewMachine()
	feed(t, m, recThread, recTurn, recStartCmd)
	line := `{"type":"item.completed","item":{"id":"z","type":"error","message":"x"}}`
	if _, code := applyOne(t, m, line); code != audit.ItemMismatch {
		t.Errorf("after starting command z, Apply(%s) = %s, want %s", line, codeOrOK(code), audit.ItemMismatch)
	}
}

func TestMachineItemSequences(t *testing.T) {
	const (
		startX    = `{"type":"item.started","item":{"id":"x","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`
		completeX = `{"type":"item.completed","item":{"id":"x","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}`
		startT    = `{"type":"item.started","item":{"id":"t","type":"todo_list","items":[]}}`
		updateT   = `{"type":"item.updated","item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":true}]}}`
		completeT = `{"type":"item.completed","item":{"id":"t","type":"todo_list","items":[]}}`
		msgX      = `{"type":"item.completed","item":{"id":"x","type":"agent_message","text":"hi"}}`
		updateY   = `{"type":"item.updated","item":{"id":"y","type":"todo_list","items":[]}}`
		warnX     = `{"type":"item.completed","item":{"id":"x","type":"error","message":"w"}}`
	)
	tests := []struct {
		name  string
		lines []string // after thread.started; the last is checked
		code  audit.Code
	}{
		{"started twice", []string{recTurn, startX, startX}, audit.DuplicateItemID},
		{"started after completion", []string{recTurn, startX, completeX, startX}, audit.DuplicateItemID},
		{"completed twice", []string{recTurn, startX, completeX, completeX}, audit.DuplicateItemID},
		{"completion-only item completed twice", []string{recTurn, msgX, msgX}, audit.DuplicateItemID},
		{"completion-only id started later", []string{recTurn, msgX, startX}, audit.DuplicateItemID},
		{"started after updates", []string{recTurn, startT, updateT, updateT, startT}, audit.DuplicateItemID},
		{"pre-turn warning id reused in the turn", []string{warnX, recTurn, startX}, audit.DuplicateItemID},
		{"pre-turn warning id completed again", []string{warnX, recTurn, warnX}, audit.DuplicateItemID},
		{"update never started", []string{recTurn, updateY}, audit.OrphanUpdate},
		{"update of another id", []string{recTurn, startT, updateY}, audit.OrphanUpdate},
		{"update after completion", []string{recTurn, startT, completeT, updateT}, audit.OrphanUpdate},
		{"update after completion-only", []string{recTurn, completeT, updateT}, audit.OrphanUpdate},
		{"updates then completion", []string{recTurn, startT, updateT, updateT, completeT}, 0},
		{"interleaved items", []string{recTurn, startT, startX, updateT, completeX, updateT, completeT}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMachine()
			lines := append([]string{recThread}, tc.lines...)
			n := len(lines)
			feed(t, m, lines[:n-1]...)
			if _, code := applyOne(t, m, lines[n-1]); code != tc.code {
				t.Errorf("after %q, Apply(%s) = %s, want %s", lines[:n-1], lines[n-1], codeOrOK(code), codeOrOK(tc.code))
			}
		})
	}
}

// TestMachineStartOfCompletionOnlyType checks SPEC §4.3: an item.started
// of a type that exists only at completion is outside the contract (an
// unknown record) and leaves the item FSM alone; before turn.started it is
// still event_outside_turn, the row nearer the top of §4.2.
func TestMachineStartOfCompletionOnlyType(t *testing.T) {
	for _, item := range []string{
		`{"id":"x","type":"agent_message","text":"hi"}`,
		`{"id":"x","type":"reasoning","text":"r"}`,
		`{"id":"x","type":"error","message":"w"}`,
	} {
		start := `{"type":"item.started","item":` + item + `}`
		complete := `{"type":"item.completed","item":` + item + `}`
		t.Run(item, func(t *testing.T) {
			m := NewMachine()
			feed(t, m, recThread, recTurn)
			step, code := applyOne(t, m, start)
			if code != 0 || !step.Outside {
				t.Fatalf("Apply(%s) = %+v, %s; want an outside step", start, step, codeOrOK(code))
			}
			// The id was not taken: its completion is the item's only record.
			step, code = applyOne(t, m, complete)
			if code != 0 || step.Outside || step.From != Absent || step.Event != EvComplete {
				t.Errorf("Apply(%s) after the start = %+v, %s; want a completion from absent", complete, step, codeOrOK(code))
			}
			m = NewMachine()
			feed(t, m, recThread)
			if _, code := applyOne(t, m, start); code != audit.EventOutsideTurn {
				t.Errorf("Apply(%s) before turn.started = %s, want event_outside_turn", start, codeOrOK(code))
			}
		})
	}
	m := NewMachine()
	feed(t, m, recThread, recTurn)
	if step, code := applyOne(t, m, `{"type":"item.started","item":{"id":"p","type":"plan","text":"x"}}`); code != 0 || step.Outside {
		t.Errorf("an unknown item type's start = %+v, %s; want an item step", step, codeOrOK(code))
	}
}

// TestMachineParallelCalls checks that calls open at the same time are
// correlated by id, each with its own identity and number.
func TestMachineParallelCalls(t *testing.T) {
	call := func(rec, id, query, status string) string {
		return wrap(rec, strings.Replace(mcpItem("cairn-memory", "memory_search", `{"scope":"project","query":"`+query+`"}`, status), `"id":"c"`, `"id":"`+id+`"`, 1))
	}
	steps := []struct {
		line string
		code audit.Code
		step Step
	}{
		{recAgentMsg, 0, Step{Event: EvComplete, From: Absent, Seq: 0}},
		{call("item.started", "a", "alpha", "in_progress"), 0, Step{Event: EvStart, From: Absent, Seq: 1}},
		{call("item.started", "b", "beta", "in_progress"), 0, Step{Event: EvStart, From: Absent, Seq: 2}},
		{call("item.completed", "a", "beta", "completed"), audit.ItemMismatch, Step{}}, // b's arguments under a's id
		{call("item.completed", "b", "alpha", "completed"), audit.ItemMismatch, Step{}},
		{call("item.completed", "b", "beta", "completed"), 0, Step{Event: EvComplete, From: Started, Seq: 2}},
		{call("item.started", "c", "gamma", "in_progress"), 0, Step{Event: EvStart, From: Absent, Seq: 3}},
		{call("item.completed", "a", "alpha", "failed"), 0, Step{Event: EvComplete, From: Started, Seq: 1}},
		{call("item.completed", "b", "beta", "completed"), audit.DuplicateItemID, Step{}},
		{call("item.completed", "c", "gamma", "completed"), 0, Step{Event: EvComplete, From: Started, Seq: 3}},
	}
	m := NewMachine()
	feed(t, m, recThread, recTurn)
	for i, s := range steps {
		step, code := applyOne(t, m, s.line)
		if code != s.code || step != s.step {
			t.Errorf("record %d: Apply(%s) = %+v, %s; want %+v, %s", i+1, s.line, step, codeOrOK(code), s.step, codeOrOK(s.code))
		}
	}
	if len(m.open) != 0 {
		t.Errorf("after every call completed, %d items are still open, want 0", len(m.open))
	}
}

func TestMachineEnd(t *testing.T) {
	tests := []struct {
		name  string
		lines []string // every record, rejected ones included
		want  audit.Code
	}{
		{"empty stream", nil, audit.TurnIncomplete},
		{"thread.started only", []string{recThread}, audit.TurnIncomplete},
		{"interrupted turn", []string{recThread, recTurn, recStartCmd}, audit.TurnIncomplete},
		{"completed", []string{recThread, recTurn, recCompleted}, 0},
		{"failed", []string{recThread, recTurn, recFailed}, audit.TurnFailed},
		{"failed with stream errors", []string{recThread, recTurn, recStreamErr, recFailed}, audit.TurnFailed},
		{"rejected turn.failed then completed", []string{recThread, recFailed, recTurn, recCompleted}, 0},
		{"rejected turn.completed then interrupted", []string{recThread, recCompleted, recTurn}, audit.TurnIncomplete},
		{"failed then rejected turn.completed", []string{recTurn, recFailed, recCompleted}, audit.TurnFailed},
		{"completed then rejected turn.failed", []string{recTurn, recCompleted, recFailed}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMachine()
			for _, line := range tc.lines {
				rec, code := decodeLine(t, line)
				if code != 0 {
					t.Fatalf("Decode(%s) = %s", line, code)
				}
				m.Apply(rec) // rejections are part of the case
			}
			if got := m.End(); got != tc.want {
				t.Errorf("End() after %q = %s, want %s", tc.lines, codeOrOK(got), codeOrOK(tc.want))
			}
		})
	}
}

func TestStateNames(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{TurnNone.String(), "none"},
		{TurnOpen.String(), "open"},
		{TurnState(99).String(), "TurnState(99)"},
		{EvTurnEnd.String(), "turn end"},
		{TurnEvent(99).String(), "TurnEvent(99)"},
		{Absent.String(), "absent"},
		{Done.String(), "completed"},
		{ItemState(99).String(), "ItemState(99)"},
		{EvUpdate.String(), "item.updated"},
		{ItemEvent(99).String(), "ItemEvent(99)"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("String() = %q, want %q", tc.got, tc.want)
			}
		})
	}
}

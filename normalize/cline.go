package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The Cline CLI contract (SPEC §19): the stdout of cline --json PROMPT, as
// the Cline CLI 3.0.x prints it (reference/cline-json.md).
//
// How this file reads a stream. Records are one of three rows of
// clineRecords (hook_event, agent_event, run_result), closed over their
// members; an agent_event's event is one row of clineEvents, picked by its
// type and, for content_*, its contentType (clineEventRows). The checker
// locates the record's members and its event's (Locate.Child); read takes
// them once into a table by name (clineName), and check holds that table
// to the row with bit masks, so no member is looked up twice. Checked
// dispatches by type: hook runs the agent frames (the main agent, and the
// sub-agents nested under an open spawn_agent / team_* call: clineFrame;
// push, settle, unattributed), event a tool call's start and end (call,
// result: clineCall per toolCallId digest), and runResult ends the run.
// State kept: the frames, the calls, whether the main agent started and
// whether run_result came.

// clineName is a member name of some row (clineNames); cnOther is any
// other. A record's members are read once, by name, into Cline.vals.
type clineName uint8

const (
	cnOther clineName = iota
	cnType
	cnTS
	cnHookEventName
	cnAgentID
	cnTaskID
	cnParentAgentID
	cnEvent
	cnFinishReason
	cnIterations
	cnUsage
	cnAggregateUsage
	cnDurationMs
	cnModel
	cnText
	cnIteration
	cnHadToolCalls
	cnToolCallCount
	cnContentType
	cnAccumulated
	cnToolName
	cnToolCallID
	cnInput
	cnUpdate
	cnOutput
	cnError
	cnInputTokens
	cnOutputTokens
	cnTotalInputTokens
	cnTotalOutputTokens
	cnTotalCost
	cnErrorClass
	cnRecoverable
	cnReason
	numClineNames
)

// clineNames are the names, by clineName.
var clineNames = [numClineNames]string{"", "type", "ts", "hookEventName", "agentId", "taskId", "parentAgentId", "event",
	"finishReason", "iterations", "usage", "aggregateUsage", "durationMs", "model", "text",
	"iteration", "hadToolCalls", "toolCallCount", "contentType", "accumulated",
	"toolName", "toolCallId", "input", "update", "output", "error",
	"inputTokens", "outputTokens", "totalInputTokens", "totalOutputTokens", "totalCost",
	"errorClass", "recoverable", "reason"}

// clineNameOf is the clineName of a member name (TestClineRowsFit holds it
// to clineNames).
func clineNameOf(b []byte) clineName {
	switch string(b) {
	case "type":
		return cnType
	case "ts":
		return cnTS
	case "hookEventName":
		return cnHookEventName
	case "agentId":
		return cnAgentID
	case "taskId":
		return cnTaskID
	case "parentAgentId":
		return cnParentAgentID
	case "event":
		return cnEvent
	case "finishReason":
		return cnFinishReason
	case "iterations":
		return cnIterations
	case "usage":
		return cnUsage
	case "aggregateUsage":
		return cnAggregateUsage
	case "durationMs":
		return cnDurationMs
	case "model":
		return cnModel
	case "text":
		return cnText
	case "iteration":
		return cnIteration
	case "hadToolCalls":
		return cnHadToolCalls
	case "toolCallCount":
		return cnToolCallCount
	case "contentType":
		return cnContentType
	case "accumulated":
		return cnAccumulated
	case "toolName":
		return cnToolName
	case "toolCallId":
		return cnToolCallID
	case "input":
		return cnInput
	case "update":
		return cnUpdate
	case "output":
		return cnOutput
	case "error":
		return cnError
	case "inputTokens":
		return cnInputTokens
	case "outputTokens":
		return cnOutputTokens
	case "totalInputTokens":
		return cnTotalInputTokens
	case "totalOutputTokens":
		return cnTotalOutputTokens
	case "totalCost":
		return cnTotalCost
	case "errorClass":
		return cnErrorClass
	case "recoverable":
		return cnRecoverable
	case "reason":
		return cnReason
	}
	return cnOther
}

// clineMember is a member of a row: its name and the JSON type it must
// have (0: any value, free-form); nullable also allows null.
type clineMember struct {
	name     clineName
	kind     stream.Type
	nullable bool
}

// clineRow is a record type, or an event type (with its contentType for
// content_*): its place, its members besides type, the required ones, and
// open when members beyond its list are allowed (the usage event's token
// counters). allowed is the set of its members, type included (init).
type clineRow struct {
	place    string
	content  string // the contentType of a content_* event, else ""
	members  []clineMember
	required []clineName
	open     bool
	allowed  uint64
}

// The places of this format (SPEC §19), for findings and errors.
const (
	clineHook        = "hook_event"
	clineAgent       = "agent_event"
	clineEvent       = "agent_event.event"
	clineEventType   = "agent_event.event.type"
	clineStart       = "agent_event.content_start"
	clineUpdate      = "agent_event.content_update"
	clineEnd         = "agent_event.content_end"
	clineError       = "agent_event.error"
	clineErrorObject = "agent_event.error.error"
	clineRunResult   = "run_result"
	clineContentTool = "tool"
	clineContentText = "text"
	clineSpawn       = "spawn_agent"
	clineTeamPrefix  = "team_"
)

var (
	clineTS      = clineMember{cnTS, stream.String, false}
	clineText    = clineMember{cnText, stream.String, false}
	clineTool    = clineMember{cnToolName, stream.String, false}
	clineCallID  = clineMember{cnToolCallID, stream.String, false}
	clineKind    = clineMember{cnContentType, stream.String, false}
	clineIter    = clineMember{cnIteration, stream.Number, false}
	clineAnyUse  = clineMember{cnUsage, 0, false}
	clineToolReq = []clineName{cnContentType, cnToolName, cnToolCallID}
)

// The record types, by their index in clineRecords.
const (
	recHook = iota
	recAgent
	recRunResult
)

// clineRecords are the record types; type is read before them.
var clineRecords = []clineRow{
	recHook: {place: clineHook, members: []clineMember{clineTS, {cnHookEventName, stream.String, false},
		{cnAgentID, stream.String, false}, {cnTaskID, stream.String, false}, {cnParentAgentID, stream.String, true}},
		required: []clineName{cnHookEventName}},
	recAgent: {place: clineAgent, members: []clineMember{clineTS, {cnEvent, stream.Object, false}},
		required: []clineName{cnEvent}},
	recRunResult: {place: clineRunResult, members: []clineMember{clineTS, {cnFinishReason, stream.String, false},
		{cnIterations, stream.Number, false}, clineAnyUse, {cnAggregateUsage, 0, false}, {cnDurationMs, stream.Number, false},
		{cnModel, 0, false}, clineText},
		required: []clineName{cnFinishReason}},
}

// The event types, by their index in clineEvents (content_* by
// contentType).
const (
	evIterationStart = iota
	evIterationEnd
	evStartText
	evStartTool
	evUpdateTool
	evEndText
	evEndTool
	evUsage
	evError
	evDone
	evNone = -1
)

// clineEvents are the event types of an agent_event; content_* rows are
// one per contentType.
var clineEvents = []clineRow{
	evIterationStart: {place: "agent_event.iteration_start", members: []clineMember{clineIter}},
	evIterationEnd: {place: "agent_event.iteration_end", members: []clineMember{clineIter,
		{cnHadToolCalls, stream.Bool, false}, {cnToolCallCount, stream.Number, false}}},
	evStartText: {place: clineStart, content: clineContentText, members: []clineMember{clineKind,
		clineText, {cnAccumulated, stream.String, false}}},
	evStartTool: {place: clineStart, content: clineContentTool, members: []clineMember{clineKind,
		clineTool, clineCallID, {cnInput, 0, false}}, required: clineToolReq},
	evUpdateTool: {place: clineUpdate, content: clineContentTool, members: []clineMember{clineKind,
		clineTool, clineCallID, {cnUpdate, 0, false}}},
	evEndText: {place: clineEnd, content: clineContentText, members: []clineMember{clineKind, clineText}},
	evEndTool: {place: clineEnd, content: clineContentTool, members: []clineMember{clineKind,
		clineTool, clineCallID, {cnOutput, 0, false}, {cnError, 0, false}, {cnDurationMs, stream.Number, false}},
		required: clineToolReq},
	// Token accounting, free-form like the usage members (SPEC §19): the
	// CLI adds cache and cost counters as the provider reports them.
	evUsage: {place: "agent_event.usage", open: true, members: []clineMember{
		{cnInputTokens, stream.Number, false}, {cnOutputTokens, stream.Number, false},
		{cnTotalInputTokens, stream.Number, false}, {cnTotalOutputTokens, stream.Number, false},
		{cnTotalCost, stream.Number, false}}},
	evError: {place: clineError, members: []clineMember{{cnError, stream.Object, false},
		{cnErrorClass, stream.String, false}, clineIter, {cnRecoverable, stream.Bool, false}}},
	evDone: {place: "agent_event.done", members: []clineMember{{cnReason, stream.String, false},
		clineText, {cnIterations, stream.Number, false}, clineAnyUse}},
}

func init() {
	for _, rows := range [][]clineRow{clineRecords, clineEvents} {
		for i := range rows {
			rows[i].allowed = 1 << cnType
			for _, m := range rows[i].members {
				rows[i].allowed |= 1 << m.name
			}
		}
	}
}

// clineEventRows are an event type's rows: its one row, or its content
// rows by contentType (evNone where it has none); ok false for a type
// outside the reference.
func clineEventRows(typ []byte) (one, text, tool int, ok bool) {
	switch string(typ) {
	case "iteration_start":
		return evIterationStart, evNone, evNone, true
	case "iteration_end":
		return evIterationEnd, evNone, evNone, true
	case "content_start":
		return evNone, evStartText, evStartTool, true
	case "content_update":
		return evNone, evNone, evUpdateTool, true
	case "content_end":
		return evNone, evEndText, evEndTool, true
	case "usage":
		return evUsage, evNone, evNone, true
	case "error":
		return evError, evNone, evNone, true
	case "done":
		return evDone, evNone, evNone, true
	}
	return evNone, evNone, evNone, false
}

// clineToolMembers are the members that make an event a tool's: an event
// of another contentType that carries one is never read as text (SPEC v4
// §13's rule, kept here: a call is never narration).
const clineToolMembers = 1<<cnToolName | 1<<cnToolCallID | 1<<cnInput | 1<<cnOutput | 1<<cnError | 1<<cnUpdate

// clineOutputMembers are the members of a tool's output that its result
// is read from (fieldsOf).
var clineOutputMembers = []string{"isError", "error", "structuredContent", "content"}

// ClinePlaces lists every place a Cline finding or error may name.
func ClinePlaces() []string {
	places := []string{"type", clineEventType}
	seen := map[string]bool{"type": true, clineEventType: true}
	for _, rows := range [][]clineRow{clineRecords, clineEvents} {
		for _, r := range rows {
			if !seen[r.place] {
				seen[r.place] = true
				places = append(places, r.place)
			}
			for _, m := range r.members {
				if p := r.place + "." + clineNames[m.name]; !seen[p] {
					seen[p] = true
					places = append(places, p)
				}
			}
		}
	}
	return places
}

// clineCall is what is kept per toolCallId digest: never the id itself.
type clineCall struct {
	ref   int
	tool  audit.Tool // its catalog tool: a search's result is read
	name  stream.Key // its toolName: a content_end must name the same
	frame int        // the serial of the frame it was made in (0: none)
	spawn bool       // spawn_agent or team_*: may open a sub-agent
	ended bool
}

// clineFrame is an agent whose records are being read: the main agent
// (frames[0]) or a sub-agent started by an open spawning call of the
// frame below it. lost marks a sub-agent that could not be attributed
// (SPEC §19): its calls, and those of agents nested in it, are sub-agent
// calls.
type clineFrame struct {
	id     stream.Key
	serial int // which agent_start opened it
	spawns int // spawning calls made in this frame and not yet ended
	lost   bool
	failed bool // its agent_error was read
}

// Cline feeds the records of a cline --json stream, one at a time, to the
// engine (SPEC §19).
type Cline struct {
	record
	calls  map[stream.Key]*clineCall
	refs   int
	frames []clineFrame
	serial int // frames opened

	started bool // the main agent's agent_start was read
	ended   bool // run_result was read
	text    textJSON
	// have and vals are the members of the object being read (the record,
	// then its event): vals[n] is the value of name n when have holds n.
	have uint64
	vals [numClineNames][]byte
}

// NewCline returns a Cline CLI front end that feeds e.
func NewCline(e *audit.Engine) *Cline {
	return &Cline{record: newRecord(e), calls: map[stream.Key]*clineCall{}}
}

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (c *Cline) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	c.n = n
	if c.ended {
		// SPEC §19: any record after run_result, whatever its type.
		return c.invalid(audit.EventAfterTerminalTurn, "")
	}
	unknown := c.read(line, v.Root)
	typ := c.get(cnType)
	if stream.TypeOf(typ) != stream.String {
		return c.violation("type")
	}
	var rec int
	switch string(stream.Unquote(typ)) {
	case "hook_event":
		rec = recHook
	case "agent_event":
		rec = recAgent
	case "run_result":
		rec = recRunResult
	default:
		return c.add(audit.Event{Kind: audit.EventUnknown})
	}
	row := &clineRecords[rec]
	if err := c.check(row, unknown); err != nil {
		return err
	}
	if !c.started && !(rec == recHook && c.mainStart()) {
		// The main agent's agent_start comes first: a stream that lacks
		// it lacks its beginning.
		return c.invalid(audit.EventOutsideTurn, row.place)
	}
	switch rec {
	case recHook:
		return c.hook()
	case recAgent:
		return c.event(line, v.Child)
	}
	return c.runResult()
}

// read reads the members of the object located by spans into have and
// vals, and reports whether it has a member no row has.
func (c *Cline) read(b []byte, spans []stream.Span) (unknown bool) {
	c.have = 0
	for i := range spans {
		name, value := spans[i].In(b)
		n := clineNameOf(name)
		if n == cnOther {
			unknown = true
			continue
		}
		c.have |= 1 << n
		c.vals[n] = value
	}
	return unknown
}

// get is the value of the member n of the object read, nil when absent.
func (c *Cline) get(n clineName) []byte {
	if c.have&(1<<n) == 0 {
		return nil
	}
	return c.vals[n]
}

// check holds the object read to row: a member of the wrong type, or a
// required one missing, is schema_violation at ROW.MEMBER; a member
// outside the row (unknown: one no row has) unknown_field at the row,
// unless the row is open.
func (c *Cline) check(row *clineRow, unknown bool) error {
	for _, m := range row.members {
		if v := c.get(m.name); v != nil && m.kind != 0 {
			if t := stream.TypeOf(v); t != m.kind && !(m.nullable && t == stream.Null) {
				return c.violation(row.place + "." + clineNames[m.name])
			}
		}
	}
	for _, req := range row.required {
		if c.have&(1<<req) == 0 {
			return c.violation(row.place + "." + clineNames[req])
		}
	}
	if !row.open && (unknown || c.have&^row.allowed != 0) {
		c.note(audit.UnknownField, row.place)
	}
	return nil
}

// mainStart reports whether the hook_event read is the main agent's
// agent_start: parentAgentId null or absent.
func (c *Cline) mainStart() bool {
	parent := c.get(cnParentAgentID)
	return stream.TextIs(c.get(cnHookEventName), "agent_start") && (parent == nil || stream.TypeOf(parent) == stream.Null)
}

// hook runs a hook_event: agent_start and agent_end nest the agents,
// agent_error of the main agent fails the turn; tool_call and tool_result
// say nothing of the call (no name, no id), but their agent must be the
// one whose records are being read.
func (c *Cline) hook() error {
	parent := c.get(cnParentAgentID)
	main := parent == nil || stream.TypeOf(parent) == stream.Null
	id := stream.KeyOf(stream.Unquote(c.get(cnAgentID)))
	switch string(stream.Unquote(c.get(cnHookEventName))) {
	case "agent_start":
		if main {
			if c.started {
				return c.invalid(audit.MultipleTurns, clineHook)
			}
			c.started = true
			c.push(clineFrame{id: id})
			break
		}
		pk := stream.KeyOf(stream.Unquote(parent))
		c.settle(pk)
		top := c.top()
		attributed := top != nil && !top.lost && top.id == pk && top.spawns > 0
		if !attributed {
			c.unattributed()
		}
		c.push(clineFrame{id: id, lost: !attributed})
	case "agent_end":
		c.settle(id)
		k := len(c.frames) - 1
		for k >= 0 && c.frames[k].id != id {
			k--
		}
		if k != len(c.frames)-1 {
			// An agent ends that is not the one being read: agents
			// interleave, or one ends that never started.
			c.unattributed()
		}
		if k >= 0 {
			c.frames = c.frames[:k]
		}
	case "agent_error":
		c.settle(id)
		switch top := c.top(); {
		case top != nil && top.id != id:
			c.unattributed()
		case top != nil:
			top.failed = true // its last record: it may print no agent_end
		}
		if main {
			c.note(audit.TurnFailed, clineHook)
		}
	case "tool_call", "tool_result":
		c.settle(id)
		if top := c.top(); top != nil && top.id != id {
			c.unattributed()
		}
	default:
		return c.add(audit.Event{Kind: audit.EventUnknown, Where: clineHook})
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: clineHook})
}

// push opens the frame f, numbered.
func (c *Cline) push(f clineFrame) {
	c.serial++
	f.serial = c.serial
	c.frames = append(c.frames, f)
}

// settle closes the failed agents above the one whose record comes, id: an
// agent that failed (agent_error) prints no agent_end.
func (c *Cline) settle(id stream.Key) {
	for top := c.top(); top != nil && top.failed && top.id != id; top = c.top() {
		c.frames = c.frames[:len(c.frames)-1]
	}
}

// top is the frame whose records are being read, nil when none is.
func (c *Cline) top() *clineFrame {
	if len(c.frames) == 0 {
		return nil
	}
	return &c.frames[len(c.frames)-1]
}

// unattributed notes, at the record being read, a nesting of agents that
// cannot be attributed: whose calls the records after it are is not known.
func (c *Cline) unattributed() {
	c.note(audit.SubagentEvidenceMissing, clineHook)
	c.engine.HideOrder(c.n, clineHook)
}

// event runs an agent_event, whose event's members the checker located in
// spans.
func (c *Cline) event(b []byte, spans []stream.Span) error {
	unknown := c.read(b, spans)
	typ := c.get(cnType)
	if stream.TypeOf(typ) != stream.String {
		return c.violation(clineEventType)
	}
	one, text, tool, ok := clineEventRows(stream.Unquote(typ))
	if !ok {
		return c.add(audit.Event{Kind: audit.EventUnknown, Where: clineAgent})
	}
	k := one
	if one == evNone {
		place := clineEvents[max(text, tool)].place
		contentType := c.get(cnContentType)
		switch {
		case stream.TypeOf(contentType) != stream.String:
			return c.violation(place + ".contentType")
		case stream.TextIs(contentType, clineContentText):
			k = text
		case stream.TextIs(contentType, clineContentTool):
			k = tool
		}
		// A content of another type, or a text, that carries a tool's
		// members is never read as something else.
		if k != tool && c.have&clineToolMembers != 0 {
			return c.violation(place + ".contentType")
		}
		if k == evNone {
			return c.add(audit.Event{Kind: audit.EventUnknown, Where: clineAgent})
		}
	}
	row := &clineEvents[k]
	if err := c.check(row, unknown); err != nil {
		return err
	}
	switch k {
	case evStartTool:
		return c.call()
	case evEndTool:
		return c.result()
	case evEndText:
		return c.add(audit.Event{Kind: audit.EventNarration, Where: clineEnd})
	case evError:
		if err := c.errorObject(c.get(cnError)); err != nil {
			return err
		}
		// An error event restates failed calls (they are error results)
		// or an API error (agent_error and run_result tell the turn's
		// fate): a stream error, never a turn failure of its own.
		return c.add(audit.Event{Kind: audit.EventStreamError, Where: clineError})
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: row.place})
}

// errorObject checks an error event's error (nil when absent): closed over
// name, message and stack, strings.
func (c *Cline) errorObject(v []byte) error {
	unknown, bad := false, false
	stream.Members(v, func(n, value []byte) bool {
		switch string(n) {
		case "name", "message", "stack":
			bad = bad || stream.TypeOf(value) != stream.String
		default:
			unknown = true
		}
		return true
	})
	if bad {
		return c.violation(clineErrorObject)
	}
	if unknown {
		c.note(audit.UnknownField, clineErrorObject)
	}
	return nil
}

// call is a tool's content_start: a call at its position, made by the
// agent whose records are being read.
func (c *Cline) call() error {
	id := c.get(cnToolCallID)
	if len(id) <= len(`""`) {
		return c.violation(clineStart + ".toolCallId")
	}
	k := stream.KeyOf(stream.Unquote(id))
	if _, dup := c.calls[k]; dup {
		return c.invalid(audit.DuplicateCallID, clineStart+".toolCallId")
	}
	name := stream.Unquote(c.get(cnToolName))
	// S__T exactly (SPEC §19, §16.6); any other name is opaque.
	tool := c.catalog.Resolve(audit.SpellCline, name)
	c.refs++
	call := &clineCall{ref: c.refs, tool: tool, name: stream.KeyOf(name),
		spawn: string(name) == clineSpawn || len(name) > len(clineTeamPrefix) && string(name[:len(clineTeamPrefix)]) == clineTeamPrefix}
	c.calls[k] = call
	sub := len(c.frames) > 1
	switch top := c.top(); {
	case top == nil:
		// A call after the main agent ended: whose it is is not known.
		c.unattributed()
		sub = true
	case call.spawn:
		call.frame = top.serial
		top.spawns++
	}
	for i := range c.frames {
		sub = sub || c.frames[i].lost
	}
	return c.add(audit.Event{Kind: audit.EventCall, Ref: call.ref, Tool: tool, SubAgent: sub,
		ProjectScoped: scoped(c.catalog, tool, c.get(cnInput)), Where: clineStart})
}

// result is a tool's content_end: its call's result, an error result when
// it has error, or its output says isError or has error (SPEC §19).
func (c *Cline) result() error {
	call, ok := c.calls[stream.KeyOf(stream.Unquote(c.get(cnToolCallID)))]
	switch {
	case !ok:
		return c.invalid(audit.OrphanResult, clineEnd+".toolCallId")
	case call.ended:
		return c.invalid(audit.DuplicateResult, clineEnd+".toolCallId")
	case call.name != stream.KeyOf(stream.Unquote(c.get(cnToolName))):
		return c.invalid(audit.ItemMismatch, clineEnd+".toolName")
	}
	call.ended = true
	for k := range c.frames {
		if f := &c.frames[k]; call.frame != 0 && f.serial == call.frame {
			// The spawning call returned: the agents it started are done.
			f.spawns--
			for _, above := range c.frames[k+1:] {
				if !above.failed {
					c.unattributed()
				}
			}
			c.frames = c.frames[:k+1]
			break
		}
	}
	ev := audit.Event{Kind: audit.EventResult, Ref: call.ref, Where: clineEnd}
	var ov [4][]byte
	if output := c.get(cnOutput); stream.TypeOf(output) == stream.Object {
		fieldsOf(output, clineOutputMembers, ov[:])
	}
	isError, outErr, structured, content := ov[0], ov[1], ov[2], ov[3]
	switch {
	case c.get(cnError) != nil || string(isError) == "true" || outErr != nil:
		ev.Outcome = audit.Failed
	case !c.catalog.IsSearch(call.tool):
	case stream.TypeOf(structured) == stream.Object:
		ev.Retrieval = retrieves(c.catalog, call.tool, structured)
	default:
		ev.Retrieval = retrieves(c.catalog, call.tool, c.text.object(firstTextBlock(content)))
	}
	return c.add(ev)
}

// runResult ends the run: a finishReason other than completed is a failed
// turn (one outside the reference is also an unknown value).
func (c *Cline) runResult() error {
	switch string(stream.Unquote(c.get(cnFinishReason))) {
	case "completed":
	case "error":
		c.note(audit.TurnFailed, clineRunResult)
	default:
		c.note(audit.UnknownField, clineRunResult)
		c.note(audit.TurnFailed, clineRunResult)
	}
	c.ended = true
	return c.add(audit.Event{Kind: audit.EventCounted, Where: clineRunResult})
}

// End reports the end of input: no run_result is turn_incomplete (SIGINT
// ends the stream there, and the CLI exits 0).
func (c *Cline) End() error {
	if !c.ended {
		c.engine.Note(audit.TurnIncomplete, -1, "")
	}
	return nil
}

// NewClineChecker returns the JSON checker a Cline stream's records must
// pass: no repeated member name anywhere. It locates the record's members
// and its event's (clineReads).
func NewClineChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Child: "event", Reads: clineReads}}
}

// clineReads reports whether a member of this name is one of any row's,
// record or event: past the first members of an object, only those are
// located, and the first other one.
func clineReads(name []byte) bool { return clineNameOf(name) != cnOther }

// ReadCline runs a cline --json stream (SPEC §19) through the engine.
func ReadCline(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewClineChecker(), engine, "cline", NewCline(engine))
}

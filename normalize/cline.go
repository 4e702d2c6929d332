package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/stream"
)

// The Cline CLI contract (SPEC §19): the stdout of cline --json PROMPT, as
// the Cline CLI 3.0.x prints it (reference/cline-json.md).
//
// How this file reads a stream. Records are one of three rows of
// clineRecords (hook_event, agent_event, run_result), closed over their
// members; an agent_event's event is one row of clineEvents, picked by its
// type and, for content_*, its contentType. The checker locates the
// record's members and those of its event (Locate.Child), so a record is
// never walked twice. Checked dispatches by type: hook runs the agent
// frames (the main agent and the sub-agents nested under an open
// spawn_agent / team_* call, clineFrame), event a tool call's start and
// end (call, result: clineCall per toolCallId digest), and runResult
// ends the run. State kept: the frames, the calls, whether the main agent
// started and whether run_result came.

// clineMember is a member of a row: its name and the JSON type it must
// have (0: any value, free-form); nullable also allows null.
type clineMember struct {
	name     string
	kind     stream.Type
	nullable bool
}

// clineRow is a record type, or an event type (with its contentType for
// content_*): its place, its members, the required ones, and open when
// members beyond its list are allowed (the usage event's token counters).
type clineRow struct {
	place    string
	typ      string // the record type, or the event type
	content  string // the contentType of a content_* event, else ""
	members  []clineMember
	required []string
	open     bool
}

// The places of this format (SPEC §19), for findings and errors.
const (
	clineHook         = "hook_event"
	clineAgent        = "agent_event"
	clineEvent        = "agent_event.event"
	clineEventType    = "agent_event.event.type"
	clineStart        = "agent_event.content_start"
	clineUpdate       = "agent_event.content_update"
	clineEnd          = "agent_event.content_end"
	clineError        = "agent_event.error"
	clineErrorObject  = "agent_event.error.error"
	clineRunResult    = "run_result"
	clineContentTool  = "tool"
	clineContentText  = "text"
	clineSpawn        = "spawn_agent"
	clineTeamPrefix   = "team_"
	clineCompleted    = "completed"
	clineFinishError  = "error"
	clineMainAgentEnd = "agent_end"
)

var (
	clineTS      = clineMember{"ts", stream.String, false}
	clineText    = clineMember{"text", stream.String, false}
	clineTool    = clineMember{"toolName", stream.String, false}
	clineCallID  = clineMember{"toolCallId", stream.String, false}
	clineKind    = clineMember{"contentType", stream.String, false}
	clineEvType  = clineMember{"type", stream.String, false}
	clineIter    = clineMember{"iteration", stream.Number, false}
	clineAnyUse  = clineMember{"usage", 0, false}
	clineToolReq = []string{"contentType", "toolName", "toolCallId"}
)

// clineRecords are the record types; type is read before them.
var clineRecords = []clineRow{
	{place: clineHook, typ: "hook_event", members: []clineMember{clineTS, {"hookEventName", stream.String, false},
		{"agentId", stream.String, false}, {"taskId", stream.String, false}, {"parentAgentId", stream.String, true}},
		required: []string{"hookEventName"}},
	{place: clineAgent, typ: "agent_event", members: []clineMember{clineTS, {"event", stream.Object, false}},
		required: []string{"event"}},
	{place: clineRunResult, typ: "run_result", members: []clineMember{clineTS, {"finishReason", stream.String, false},
		{"iterations", stream.Number, false}, clineAnyUse, {"aggregateUsage", 0, false}, {"durationMs", stream.Number, false},
		{"model", 0, false}, clineText},
		required: []string{"finishReason"}},
}

// clineEvents are the event types of an agent_event; content_* rows are
// one per contentType.
var clineEvents = []clineRow{
	{place: "agent_event.iteration_start", typ: "iteration_start", members: []clineMember{clineEvType, clineIter}},
	{place: "agent_event.iteration_end", typ: "iteration_end", members: []clineMember{clineEvType, clineIter,
		{"hadToolCalls", stream.Bool, false}, {"toolCallCount", stream.Number, false}}},
	{place: clineStart, typ: "content_start", content: clineContentText, members: []clineMember{clineEvType, clineKind,
		clineText, {"accumulated", stream.String, false}}},
	{place: clineStart, typ: "content_start", content: clineContentTool, members: []clineMember{clineEvType, clineKind,
		clineTool, clineCallID, {"input", 0, false}}, required: clineToolReq},
	{place: clineUpdate, typ: "content_update", content: clineContentTool, members: []clineMember{clineEvType, clineKind,
		clineTool, clineCallID, {"update", 0, false}}},
	{place: clineEnd, typ: "content_end", content: clineContentText, members: []clineMember{clineEvType, clineKind, clineText}},
	{place: clineEnd, typ: "content_end", content: clineContentTool, members: []clineMember{clineEvType, clineKind,
		clineTool, clineCallID, {"output", 0, false}, {"error", 0, false}, {"durationMs", stream.Number, false}},
		required: clineToolReq},
	// Token accounting, free-form like the usage members (SPEC §19): the
	// CLI adds cache and cost counters as the provider reports them.
	{place: "agent_event.usage", typ: "usage", open: true, members: []clineMember{clineEvType,
		{"inputTokens", stream.Number, false}, {"outputTokens", stream.Number, false},
		{"totalInputTokens", stream.Number, false}, {"totalOutputTokens", stream.Number, false},
		{"totalCost", stream.Number, false}}},
	{place: clineError, typ: "error", members: []clineMember{clineEvType, {"error", stream.Object, false},
		{"errorClass", stream.String, false}, clineIter, {"recoverable", stream.Bool, false}}},
	{place: "agent_event.done", typ: "done", members: []clineMember{clineEvType, {"reason", stream.String, false},
		clineText, {"iterations", stream.Number, false}, clineAnyUse}},
}

// clineHooks are the hookEventNames of the reference.
var clineHooks = []string{"agent_start", clineMainAgentEnd, "agent_error", "tool_call", "tool_result"}

// clineToolMembers are the members that make an event a tool's: an event
// of another contentType that carries one is never read as text (SPEC v4
// §13's rule, kept here: a call is never narration).
var clineToolMembers = []string{"toolName", "toolCallId", "input", "output", "error", "update"}

// clineErrorMembers are the members of an error event's error object.
var clineErrorMembers = []string{"name", "message", "stack"}

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
				if p := r.place + "." + m.name; !seen[p] && m.name != "type" {
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
	tool  audit.Tool    // its catalog tool: a search's result is read
	name  lifecycle.Key // its toolName: a content_end must name the same
	frame int           // the serial of the frame it was made in (0: none)
	spawn bool          // spawn_agent or team_*: may open a sub-agent
	ended bool
}

// clineFrame is an agent whose records are being read: the main agent
// (frames[0]) or a sub-agent started by an open spawning call of the
// frame below it. lost marks a sub-agent that could not be attributed
// (SPEC §19): its calls, and those of agents nested in it, are sub-agent
// calls.
type clineFrame struct {
	id     lifecycle.Key
	serial int // which agent_start opened it
	spawns int // spawning calls made in this frame and not yet ended
	lost   bool
	failed bool // its agent_error was read
}

// Cline feeds the records of a cline --json stream, one at a time, to the
// engine (SPEC §19).
type Cline struct {
	record
	calls  map[lifecycle.Key]*clineCall
	refs   int
	frames []clineFrame
	serial int // frames opened

	started bool // the main agent's agent_start was read
	ended   bool // run_result was read
	text    textJSON
	values  [8][]byte // the members of the row being read, by index
}

// NewCline returns a Cline CLI front end that feeds e.
func NewCline(e *audit.Engine) *Cline {
	return &Cline{record: newRecord(e), calls: map[lifecycle.Key]*clineCall{}}
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
	typ := member(line, v.Root, "type")
	if stream.TypeOf(typ) != stream.String {
		return c.violation("type")
	}
	var row *clineRow
	for i := range clineRecords {
		if stream.TextIs(typ, clineRecords[i].typ) {
			row = &clineRecords[i]
		}
	}
	if row == nil {
		return c.add(audit.Event{Kind: audit.EventUnknown})
	}
	if err := c.members(line, v.Root, row, "type"); err != nil {
		return err
	}
	if !c.started && !(row.place == clineHook && c.mainStart(row)) {
		// The main agent's agent_start comes first: a stream that lacks
		// it lacks its beginning.
		return c.invalid(audit.EventOutsideTurn, row.place)
	}
	switch row.place {
	case clineHook:
		return c.hook(row)
	case clineAgent:
		return c.event(line, v.Child)
	}
	return c.runResult(row)
}

// members reads the members of the object located by spans into c.values
// by their index in row, skipping skip: a member outside the row is
// unknown_field (unless the row is open), one of the wrong type or a
// required one missing schema_violation.
func (c *Cline) members(b []byte, spans []stream.Span, row *clineRow, skip string) error {
	clear(c.values[:])
	unknown := false
	for i := range spans {
		name, value := spans[i].In(b)
		if string(name) == skip {
			continue
		}
		k := row.index(name)
		if k < 0 {
			unknown = true
			continue
		}
		m := &row.members[k]
		if t := stream.TypeOf(value); m.kind != 0 && t != m.kind && !(m.nullable && t == stream.Null) {
			return c.violation(row.place + "." + m.name)
		}
		c.values[k] = value
	}
	for _, req := range row.required {
		if c.values[row.index([]byte(req))] == nil {
			return c.violation(row.place + "." + req)
		}
	}
	if unknown && !row.open {
		c.note(audit.UnknownField, row.place)
	}
	return nil
}

func (r *clineRow) index(name []byte) int {
	for i := range r.members {
		if string(name) == r.members[i].name {
			return i
		}
	}
	return -1
}

// value is the member name of the row being read, nil when absent.
func (c *Cline) value(row *clineRow, name string) []byte {
	return c.values[row.index([]byte(name))]
}

// mainStart reports whether the hook_event being read (row) is the main
// agent's agent_start: parentAgentId null or absent.
func (c *Cline) mainStart(row *clineRow) bool {
	parent := c.value(row, "parentAgentId")
	return stream.TextIs(c.value(row, "hookEventName"), "agent_start") && (parent == nil || stream.TypeOf(parent) == stream.Null)
}

// hook runs a hook_event: agent_start and agent_end nest the agents,
// agent_error of the main agent fails the turn; tool_call and tool_result
// say nothing of the call (no name, no id), but their agent must be the
// one whose records are being read.
func (c *Cline) hook(row *clineRow) error {
	name := c.value(row, "hookEventName")
	known := false
	for _, h := range clineHooks {
		known = known || stream.TextIs(name, h)
	}
	if !known {
		return c.add(audit.Event{Kind: audit.EventUnknown, Where: clineHook})
	}
	id := lifecycle.KeyOf(stream.Unquote(c.value(row, "agentId")))
	parent := c.value(row, "parentAgentId")
	main := parent == nil || stream.TypeOf(parent) == stream.Null
	switch stream.Text(name) {
	case "agent_start":
		if main {
			if c.started {
				return c.invalid(audit.MultipleTurns, clineHook)
			}
			c.started = true
			c.push(clineFrame{id: id})
			break
		}
		pk := lifecycle.KeyOf(stream.Unquote(parent))
		c.settle(pk)
		top := c.top()
		attributed := top != nil && !top.lost && top.id == pk && top.spawns > 0
		if !attributed {
			c.unattributed()
		}
		c.push(clineFrame{id: id, lost: !attributed})
	case clineMainAgentEnd:
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
	default: // agent_error, tool_call, tool_result
		c.settle(id)
		top := c.top()
		switch {
		case top != nil && top.id != id:
			c.unattributed()
		case top != nil && stream.TextIs(name, "agent_error"):
			top.failed = true // its last record: it may print no agent_end
		}
		if main && stream.TextIs(name, "agent_error") {
			c.note(audit.TurnFailed, clineHook)
		}
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
func (c *Cline) settle(id lifecycle.Key) {
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
	typ := member(b, spans, "type")
	if stream.TypeOf(typ) != stream.String {
		return c.violation(clineEventType)
	}
	contentType := member(b, spans, "contentType")
	var row, typed *clineRow // the event's row; the first row of its type
	for i := range clineEvents {
		r := &clineEvents[i]
		if !stream.TextIs(typ, r.typ) {
			continue
		}
		if typed == nil {
			typed = r
		}
		if r.content == "" {
			row = r
			break
		}
		if stream.TypeOf(contentType) != stream.String {
			return c.violation(r.place + ".contentType")
		}
		if stream.TextIs(contentType, r.content) {
			row = r
			break
		}
	}
	if row == nil {
		// An event type, or a contentType, outside the reference; a
		// content of another type that carries a tool's members is never
		// read as something else.
		if typed != nil && toolMembers(b, spans) {
			return c.violation(typed.place + ".contentType")
		}
		return c.add(audit.Event{Kind: audit.EventUnknown, Where: clineAgent})
	}
	if row.content == clineContentText && toolMembers(b, spans) {
		return c.violation(row.place + ".contentType")
	}
	if err := c.members(b, spans, row, ""); err != nil {
		return err
	}
	switch {
	case row.place == clineStart && row.content == clineContentTool:
		return c.call(row)
	case row.place == clineEnd && row.content == clineContentTool:
		return c.result(row)
	case row.place == clineEnd:
		return c.add(audit.Event{Kind: audit.EventNarration, Where: clineEnd})
	case row.place == clineError:
		if err := c.errorObject(c.value(row, "error")); err != nil {
			return err
		}
		// An error event restates failed calls (they are error results)
		// or an API error (agent_error and run_result tell the turn's
		// fate): a stream error, never a turn failure of its own.
		return c.add(audit.Event{Kind: audit.EventStreamError, Where: clineError})
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: row.place})
}

// toolMembers reports whether the event located by spans has a member
// that only a tool's content has.
func toolMembers(b []byte, spans []stream.Span) bool {
	for _, m := range clineToolMembers {
		if member(b, spans, m) != nil {
			return true
		}
	}
	return false
}

// errorObject checks an error event's error (nil when absent): closed over
// name, message and stack, strings.
func (c *Cline) errorObject(v []byte) error {
	unknown, bad := false, false
	stream.Members(v, func(n, value []byte) bool {
		switch string(n) {
		case clineErrorMembers[0], clineErrorMembers[1], clineErrorMembers[2]:
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
func (c *Cline) call(row *clineRow) error {
	id := c.value(row, "toolCallId")
	if len(id) <= len(`""`) {
		return c.violation(clineStart + ".toolCallId")
	}
	k := lifecycle.KeyOf(stream.Unquote(id))
	if _, dup := c.calls[k]; dup {
		return c.invalid(audit.DuplicateCallID, clineStart+".toolCallId")
	}
	name := stream.Unquote(c.value(row, "toolName"))
	// S__T exactly (SPEC §19, §16.6); any other name is opaque.
	tool := c.catalog.Resolve(audit.SpellCline, name)
	c.refs++
	call := &clineCall{ref: c.refs, tool: tool, name: lifecycle.KeyOf(name),
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
		ProjectScoped: scoped(c.catalog, tool, c.value(row, "input")), Where: clineStart})
}

// result is a tool's content_end: its call's result, an error result when
// it has error, or its output says isError or has error (SPEC §19).
func (c *Cline) result(row *clineRow) error {
	call, ok := c.calls[lifecycle.KeyOf(stream.Unquote(c.value(row, "toolCallId")))]
	switch {
	case !ok:
		return c.invalid(audit.OrphanResult, clineEnd+".toolCallId")
	case call.ended:
		return c.invalid(audit.DuplicateResult, clineEnd+".toolCallId")
	case call.name != lifecycle.KeyOf(stream.Unquote(c.value(row, "toolName"))):
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
	if output := c.value(row, "output"); stream.TypeOf(output) == stream.Object {
		fieldsOf(output, clineOutputMembers, ov[:])
	}
	isError, outErr, structured, content := ov[0], ov[1], ov[2], ov[3]
	switch {
	case c.value(row, "error") != nil || string(isError) == "true" || outErr != nil:
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
func (c *Cline) runResult(row *clineRow) error {
	reason := c.value(row, "finishReason")
	switch {
	case stream.TextIs(reason, clineCompleted):
	case stream.TextIs(reason, clineFinishError):
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
func clineReads(name []byte) bool {
	if string(name) == "type" {
		return true
	}
	for _, rows := range [][]clineRow{clineRecords, clineEvents} {
		for i := range rows {
			if rows[i].index(name) >= 0 {
				return true
			}
		}
	}
	return false
}

// ReadCline runs a cline --json stream (SPEC §19) through the engine.
func ReadCline(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewClineChecker(), engine, "cline", NewCline(engine))
}

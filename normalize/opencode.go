package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The OpenCode contract (SPEC §13): the stdout of opencode run --format
// json PROMPT of OpenCode 1.3.2 through 1.18.33 (reference/opencode-json.md).
// Each tool_use record is a call and its final state at once, printed when
// the call finished: the calls of one step come in completion order.

// The places of this format (SPEC §13).
const (
	ocToolUse    = "tool_use"
	ocState      = "tool_use.part.state"
	ocStepFinish = "step_finish"
	ocError      = "error"
	ocText       = "text"
	ocInvalid    = "invalid" // the CLI's stand-in for a call of a tool it did not offer
	ocTask       = "task"    // a sub-agent in a child session, whose parts are not printed
)

// ocStateMembers are the members of a tool part's state (SPEC §13), with
// the attachments that 1.3.2 adds to every completed MCP call
// (testdata/opencode/real/1.3.2).
var ocStateMembers = []string{"status", "input", "output", "title", "metadata", "time", "error", "attachments"}

// OpenCodePlaces lists every place an OpenCode run's finding or error may
// name.
func OpenCodePlaces() []string {
	places := []string{"type", "sessionID", "part", ocToolUse, "tool_use.part.tool", "tool_use.part.callID",
		ocState, "tool_use.part.state.status", "tool_use.part.state.input", ocStepFinish, "step_finish.part.reason",
		ocError, ocText, "step_start", "reasoning"}
	for _, r := range ocPartRecords {
		places = append(places, r.record+".part.type")
	}
	return places
}

// ocPartRecords are the run's record types that hold a part, each with
// the part type it must hold (SPEC v4 §13).
var ocPartRecords = []struct{ record, part string }{
	{"step_start", "step-start"}, {"step_finish", "step-finish"}, {"text", "text"},
	{"reasoning", "reasoning"}, {ocToolUse, "tool"},
}

// ocPart is what the run and the export read of a part: its type, a tool
// part's members, and a step-finish's reason.
type ocPart struct{ typ, tool, callID, state, reason []byte }

// set keeps the member name's value if it is one ocPart reads.
func (p *ocPart) set(name, value []byte) {
	switch string(name) {
	case "type":
		p.typ = value
	case "tool":
		p.tool = value
	case "callID":
		p.callID = value
	case "state":
		p.state = value
	case "reason":
		p.reason = value
	}
}

// readOCPart reads a part by walking its members (an export message's
// parts when there are more than its Document locates). Every member is
// visited: a text part's tool members are looked for too.
func readOCPart(v []byte) ocPart {
	var p ocPart
	stream.Members(v, func(n, value []byte) bool {
		p.set(n, value)
		return true
	})
	return p
}

// locatedOCPart reads a part its checker located (a run record's part,
// Locate.Child, or an export's, Locate.Elements): no second walk of its
// members, whose text can be long.
func locatedOCPart(line []byte, part []stream.Span) ocPart {
	var p ocPart
	for i := range part {
		p.set(part[i].In(line))
	}
	return p
}

// looksLikeTool reports whether a part that is not a tool part carries
// a tool part's members: a tool part is never read as anything else
// (SPEC v4 §13).
func (p ocPart) looksLikeTool() bool { return p.tool != nil || p.callID != nil || p.state != nil }

// ocReason is what a step_finish's reason says of the run.
type ocReason uint8

const (
	ocReasonOther     ocReason = iota // another final reason: a failed run
	ocReasonStop                      // the run ended normally
	ocReasonToolCalls                 // another step should have followed
)

// ocCall is a call of the current step, kept until the step ends: what the
// engine needs of it, never its id, name or arguments.
type ocCall struct {
	record int
	call   audit.Event
	result audit.Event
}

// OpenCode feeds the records of an opencode run --format json stream, one
// at a time, to the engine (SPEC §13).
type OpenCode struct {
	ocParts
	session stream.Key
	started bool // a record was read: session is set

	step       []ocCall // the calls of the open step
	earlier    bool     // a step with calls ended before the open one
	lastFinish bool     // the last record was a step_finish
	lastReason ocReason // that step_finish's reason
	errored    int      // the record of the first error record, 0 for none
}

// ocParts reads the tool parts both OpenCode inputs hold: the record being
// read, the call ids seen (a digest each, never the id) and the call refs
// handed out.
type ocParts struct {
	record
	refs    int
	callIDs map[stream.Key]struct{}
	text    textJSON
}

func newOCParts(e *audit.Engine) ocParts {
	return ocParts{record: newRecord(e), callIDs: map[stream.Key]struct{}{}}
}

// NewOpenCode returns an OpenCode run front end that feeds e.
func NewOpenCode(e *audit.Engine) *OpenCode {
	return &OpenCode{ocParts: newOCParts(e)}
}

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (o *OpenCode) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	o.n = n
	typ, session := member(line, v.Root, "type"), member(line, v.Root, "sessionID")
	if stream.TypeOf(typ) != stream.String {
		return o.violation("type")
	}
	t := string(stream.Unquote(typ))
	switch t {
	case "step_start", "step_finish", "text", "reasoning", ocToolUse, ocError:
	default:
		o.lastFinish = false
		return o.add(audit.Event{Kind: audit.EventUnknown})
	}
	if stream.TypeOf(session) != stream.String {
		return o.violation("sessionID")
	}
	if k := stream.KeyOf(stream.Unquote(session)); !o.started {
		o.session, o.started = k, true
	} else if k != o.session {
		// Two runs in one file, or a child session's records.
		return o.invalid(audit.MultipleTurns, "sessionID")
	}
	o.lastFinish = t == "step_finish"
	if t == ocError {
		if stream.TypeOf(member(line, v.Root, "error")) != stream.Object {
			return o.violation(ocError)
		}
		if o.errored == 0 {
			o.errored = n
		}
		return o.add(audit.Event{Kind: audit.EventStreamError, Where: ocError})
	}
	part := member(line, v.Root, "part")
	if stream.TypeOf(part) != stream.Object {
		return o.violation("part")
	}
	p := locatedOCPart(line, v.Child)
	for _, r := range ocPartRecords {
		if r.record != t {
			continue
		}
		// The part's type is its record's, and only a tool part has a
		// tool part's members: a tool part is never narration.
		if !stream.TextIs(p.typ, r.part) || t != ocToolUse && p.looksLikeTool() {
			return o.violation(t + ".part.type")
		}
	}
	switch t {
	case "step_start":
		if err := o.endStep(); err != nil {
			return err
		}
		return o.add(audit.Event{Kind: audit.EventCounted})
	case "step_finish":
		return o.stepFinish(p.reason)
	case "text":
		return o.add(audit.Event{Kind: audit.EventNarration, Where: ocText})
	case "reasoning":
		return o.add(audit.Event{Kind: audit.EventReasoning})
	}
	return o.toolUse(p)
}

// stepFinish ends the open step and notes why the model stopped
// (reason): the last step's reason tells End whether the run finished.
func (o *OpenCode) stepFinish(reason []byte) error {
	if stream.TypeOf(reason) != stream.String {
		return o.violation("step_finish.part.reason")
	}
	o.lastReason = ocReasonOther
	switch {
	case stream.TextIs(reason, "stop"):
		o.lastReason = ocReasonStop
	case stream.TextIs(reason, "tool-calls"):
		o.lastReason = ocReasonToolCalls
	}
	if err := o.endStep(); err != nil {
		return err
	}
	return o.add(audit.Event{Kind: audit.EventCounted, Where: ocStepFinish})
}

// toolUse takes a tool part in its final state: a call of the open step
// and its result, given to the engine when the step ends.
func (o *OpenCode) toolUse(p ocPart) error {
	call, result, err := o.toolPart(p, "tool_use.part", ocToolUse)
	if err != nil {
		return err
	}
	o.step = append(o.step, ocCall{record: o.n, call: call, result: result})
	return nil
}

// toolPart reads a tool part at the place part (its members at part.tool,
// part.callID and part.state), a call at the place where: its call and
// result under a new ref, without their record. A call id seen before is
// duplicate_call_id.
func (o *ocParts) toolPart(p ocPart, part, where string) (audit.Event, audit.Event, error) {
	tool, id, state := p.tool, p.callID, p.state
	switch {
	case stream.TypeOf(tool) != stream.String:
		return audit.Event{}, audit.Event{}, o.violation(part + ".tool")
	case stream.TypeOf(id) != stream.String || len(id) <= 2:
		return audit.Event{}, audit.Event{}, o.violation(part + ".callID")
	case stream.TypeOf(state) != stream.Object:
		return audit.Event{}, audit.Event{}, o.violation(part + ".state")
	}
	k := stream.KeyOf(stream.Unquote(id))
	if _, dup := o.callIDs[k]; dup {
		return audit.Event{}, audit.Event{}, o.invalid(audit.DuplicateCallID, part+".callID")
	}
	o.callIDs[k] = struct{}{}
	call, result, err := o.callOf(stream.Unquote(tool), state, where, part+".state")
	o.refs++
	call.Ref, result.Ref = o.refs, o.refs
	return call, result, err
}

// callOf reads a tool part's state, at the place stateAt, into a call
// placed at callAt and its result (both without their record and ref).
func (o *ocParts) callOf(tool, state []byte, callAt, stateAt string) (audit.Event, audit.Event, error) {
	var status, input, output, errMsg []byte
	unknown := false
	stream.Members(state, func(n, v []byte) bool {
		switch string(n) {
		case "status":
			status = v
		case "input":
			input = v
		case "output":
			output = v
		case "error":
			errMsg = v
		default:
			unknown = !contains(ocStateMembers, string(n)) || unknown
		}
		return true
	})
	if stream.TypeOf(status) != stream.String {
		return audit.Event{}, audit.Event{}, o.violation(stateAt + ".status")
	}
	if unknown {
		o.engine.Note(audit.UnknownField, o.n, stateAt)
	}
	call := audit.Event{Kind: audit.EventCall, Where: callAt}
	switch string(tool) {
	case ocInvalid:
		// The CLI refused a call of a tool it did not offer and replaced
		// the input: the tool the model named, its arguments unknown. Only
		// a search's verdict depends on them (its scope); another call
		// decides what it decides by its name.
		o.engine.Note(audit.CallInputUnknown, o.n, callAt)
		if named := field(input, "tool"); stream.TypeOf(named) == stream.String {
			call.Tool = o.catalog.Resolve(audit.SpellJoined, stream.Unquote(named))
		}
		if o.catalog.IsSearch(call.Tool) || call.Tool == audit.NoTool && stream.TypeOf(field(input, "tool")) != stream.String {
			call.InputUnknown = audit.CallInputUnknown
		}
	case ocTask:
		call.HidesCalls = true
	default:
		if stream.TypeOf(input) != stream.Object {
			return audit.Event{}, audit.Event{}, o.violation(stateAt + ".input")
		}
		// S_T, exactly (SPEC §13, §16.6); any other name is opaque.
		call.Tool = o.catalog.Resolve(audit.SpellJoined, tool)
		call.ProjectScoped = scoped(o.catalog, call.Tool, input)
	}
	result := audit.Event{Kind: audit.EventResult, Where: stateAt}
	switch {
	case stream.TextIs(status, "completed"):
		if o.catalog.IsSearch(call.Tool) {
			result.Retrieval = retrieves(o.catalog, call.Tool, o.text.outputObject(output))
		}
	case stream.TextIs(status, "error"):
		result.Outcome = audit.Failed
	case stream.TextIs(status, "pending"), stream.TextIs(status, "running"):
		result.Outcome = audit.Unfinished
	default:
		o.engine.Note(audit.UnknownField, o.n, stateAt)
		result.Outcome = audit.Unrecognized
	}
	if errMsg != nil {
		// An error is an error result, in a completed state too (SPEC v4
		// §13): never a success.
		result.Outcome = audit.Failed
	}
	return call, result, nil
}

// endStep gives the engine the open step's calls. One call is ordered;
// several were printed in completion order, so each is terminal-only,
// and when they are the run's first calls the first is not established —
// unless every one is a project-scoped memory_search, when any order
// passes memory_first alike.
func (o *OpenCode) endStep() error {
	calls := o.step
	o.step = o.step[:0]
	if len(calls) == 0 {
		return nil
	}
	if len(calls) > 1 {
		allSearches := true
		for _, c := range calls {
			if !o.catalog.IsSearch(c.call.Tool) || !c.call.ProjectScoped || c.call.InputUnknown != 0 {
				allSearches = false
			}
		}
		for _, c := range calls {
			o.engine.Note(audit.TerminalOnlyCall, c.record, ocToolUse)
		}
		if !o.earlier && !allSearches {
			o.engine.HideOrder(calls[0].record, ocToolUse)
		}
	}
	o.earlier = true
	for _, c := range calls {
		c.call.Record, c.result.Record = c.record, c.record
		if err := o.add(c.call); err != nil {
			return err
		}
		if err := o.add(c.result); err != nil {
			return err
		}
	}
	return nil
}

// End reports the end of input (SPEC §13): a run is complete when its last
// record is a step_finish with reason stop and no error record came; an
// error record or another final reason is a failed run; ending elsewhere
// (mid-step, after a tool-calls step) an incomplete one. A call still
// running when the run died is never printed, so an unfinished run cannot
// pass direct_write_boundary.
func (o *OpenCode) End() error {
	if err := o.endStep(); err != nil {
		return err
	}
	switch {
	case o.errored > 0:
		o.engine.Note(audit.TurnFailed, o.errored, ocError)
		o.engine.CutWriteBoundary(audit.TurnFailed)
	case o.lastFinish && o.lastReason == ocReasonStop:
	case o.lastFinish && o.lastReason == ocReasonOther:
		o.engine.Note(audit.TurnFailed, o.n, ocStepFinish)
		o.engine.CutWriteBoundary(audit.TurnFailed)
	default:
		o.engine.Note(audit.TurnIncomplete, -1, "")
		o.engine.CutWriteBoundary(audit.TurnIncomplete)
	}
	return nil
}

// NewOpenCodeChecker returns the JSON checker an OpenCode run's records
// must pass: no repeated member name anywhere. It locates the record
// members the front end reads, and those of the record's part.
func NewOpenCodeChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Child: "part", Reads: func(name []byte) bool {
		switch string(name) {
		case "type", "sessionID", "part", "error", // the record's
			"tool", "callID", "state", "reason": // its part's (ocPart.set)
			return true
		}
		return false
	}}}
}

// ReadOpenCode runs an opencode run --format json stream (SPEC §13)
// through the engine.
func ReadOpenCode(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewOpenCodeChecker(), engine, "opencode", NewOpenCode(engine))
}

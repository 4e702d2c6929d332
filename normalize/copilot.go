package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The GitHub Copilot CLI contract (SPEC §17): the stdout of copilot -p
// PROMPT --output-format json of @github/copilot 1.0.x
// (reference/copilot-json.md).
//
// How this file reads a stream. Checked takes each record: its type
// picks a row of copilotRecords (judged: the envelope and data closed
// over their members, by members), copilotBenign (counted, never
// decoded) or neither (unknown_record). Per judged type: message reads
// narration and the toolRequests it keeps until they start; execStart is
// a call at its position (a sub-agent's when its parentToolCallId names a
// task call); execComplete its result; servers the availability;
// session.error, agent.interrupted, abort and result the end of the run
// (result, End). State: one copilotCall per toolCallId (digests only, never
// the id), whether the run was interrupted or failed, and the first
// result's sessionId digest.

// copilotRecord is a judged record type: its name (also its place) and
// the members of its data (of the record itself for result), each with
// the JSON type it must have; required lists those that must be there.
type copilotRecord struct {
	name     string
	members  []copilotMember
	required []string
}

type copilotMember struct {
	name string
	kind stream.Type // 0: any JSON value (free-form or not read)
}

// The judged record types, and places of this format (SPEC §17).
const (
	cpMessage   = "assistant.message"
	cpStart     = "tool.execution_start"
	cpComplete  = "tool.execution_complete"
	cpSubagent  = "subagent.started"
	cpServers   = "session.mcp_servers_loaded"
	cpError     = "session.error"
	cpInterrupt = "agent.interrupted"
	cpAbort     = "abort"
	cpResult    = "result"

	cpRequest     = "assistant.message.data.toolRequests[]"
	cpRequestID   = "assistant.message.data.toolRequests[].toolCallId"
	cpRequestName = "assistant.message.data.toolRequests[].name"
	cpStartID     = "tool.execution_start.data.toolCallId"
	cpCompleteID  = "tool.execution_complete.data.toolCallId"
	cpCallError   = "tool.execution_complete.data.error"
	cpServer      = "session.mcp_servers_loaded.data.servers[]"

	cpTask = "task" // the tool that runs a sub-agent, whose records are printed
)

// copilotRecords are the judged types, closed over the members the
// reference lists and the real 1.0.x binaries printed (their data;
// result's own members; testdata/copilot/real).
var copilotRecords = []copilotRecord{
	{cpMessage, []copilotMember{{"messageId", 0}, {"content", stream.String}, {"toolRequests", stream.Array},
		{"model", 0}, {"turnId", 0}, {"parentToolCallId", stream.String}, {"apiCallId", 0}, {"interactionId", 0},
		{"originatingMessageId", 0}, {"rte", 0}, {"outputTokens", 0}}, nil},
	{cpStart, []copilotMember{{"toolCallId", stream.String}, {"toolName", stream.String}, {"arguments", 0},
		{"turnId", 0}, {"model", 0}, {"toolTitle", 0}, {"parentToolCallId", stream.String}, {"shellToolInfo", 0},
		{"mcpServerName", 0}, {"mcpToolName", 0}, {"mcpConfigServerName", 0}, {"mcpTransport", 0},
		{"mcpConfigSource", 0}, {"rte", 0}}, []string{"toolCallId", "toolName"}},
	{cpComplete, []copilotMember{{"toolCallId", stream.String}, {"success", stream.Bool}, {"result", 0},
		{"error", 0}, {"model", 0}, {"turnId", 0}, {"interactionId", 0}, {"rte", 0}, {"toolTelemetry", 0},
		{"shellExecution", 0}, {"parentToolCallId", stream.String}}, []string{"toolCallId", "success"}},
	{cpSubagent, []copilotMember{{"toolCallId", stream.String}, {"agentName", 0}, {"agentDisplayName", 0},
		{"agentDescription", 0}, {"agentType", 0}, {"executionMode", 0}, {"model", 0}, {"taskModelSource", 0},
		{"modelSelectionSource", 0}, {"resumable", 0}}, []string{"toolCallId"}},
	{cpServers, []copilotMember{{"servers", stream.Array}}, []string{"servers"}},
	{cpError, []copilotMember{{"errorType", 0}, {"message", 0}, {"statusCode", 0}, {"originatingMessageId", 0}}, nil},
	{cpInterrupt, []copilotMember{{"activity", 0}, {"turn", 0}, {"elapsedMs", 0}, {"cancelPhase", 0},
		{"toolCallIds", 0}, {"toolNames", 0}, {"safeToolNames", 0}, {"model", 0}, {"apiEndpoint", 0},
		{"transport", 0}, {"outputTtftMs", 0}}, nil},
	{cpAbort, []copilotMember{{"reason", 0}}, nil},
	{cpResult, []copilotMember{{"sessionId", stream.String}, {"exitCode", stream.Number}, {"usage", 0},
		{"timestamp", stream.String}}, []string{"exitCode"}},
}

// copilotEnvelope are the members of every record but result: data holds
// the type's own.
var copilotEnvelope = []string{"type", "data", "id", "timestamp", "parentId", "ephemeral", "agentId"}

// copilotRequestMembers are a toolRequests entry's members;
// copilotServerMembers a servers entry's; copilotErrorMembers a failed
// call's error's.
var (
	copilotRequestMembers = []string{"toolCallId", "name", "arguments", "type", "intentionSummary", "toolTitle",
		"mcpServerName", "mcpToolName"}
	copilotServerMembers = []string{"name", "status", "error", "serverMetadata", "transport"}
	copilotErrorMembers  = []string{"message", "code"}
)

// copilotBenign are the other record types the CLI prints: counted, never
// decoded (model.call_failure counts as a stream error).
var copilotBenign = []string{
	"session.mcp_server_status_changed", "session.mcp_server_tools_loaded", "session.skills_loaded",
	"session.tools_updated", "session.info", "session.background_tasks_changed", "user.message",
	"assistant.turn_start", "assistant.turn_end", "assistant.message_start", "assistant.message_delta",
	"assistant.tool_call_delta", "model.call_start", "model.call_finished", "model.call_final_result",
	cpCallFailure, "assistant.turn_retry", "tool.execution_partial_result", "tool.shell_output",
	"subagent.configured", "subagent.completed", "assistant.idle",
}

const cpCallFailure = "model.call_failure"

// CopilotPlaces lists every place a Copilot CLI finding or error may name.
func CopilotPlaces() []string {
	places := []string{"type", cpRequest, cpRequestID, cpRequestName, cpCallError, cpServer,
		cpServer + ".name", cpServer + ".status"}
	for _, r := range copilotRecords {
		places = append(places, r.name)
		prefix := r.name + ".data."
		if r.name == cpResult {
			prefix = r.name + "."
		} else {
			places = append(places, r.name+".data")
		}
		for _, m := range r.members {
			places = append(places, prefix+m.name)
		}
	}
	return places
}

// copilotCall is what is kept per toolCallId: never the id itself.
type copilotCall struct {
	ref       int
	tool      audit.Tool // its catalog tool: a search's result is read
	request   int        // the record of its toolRequests entry, 0: none
	started   bool
	completed bool
	task      bool // a task call: the records naming it are its sub-agent's
}

// Copilot feeds the records of a copilot --output-format json stream, one
// at a time, to the engine (SPEC §17).
type Copilot struct {
	record
	calls map[stream.Key]*copilotCall
	refs  int

	ended       bool       // result seen
	session     stream.Key // result's sessionId
	complete    bool       // result with exitCode 0, nothing cut or failed before
	cut, failed bool       // agent.interrupted or abort; session.error
	sawServers  bool       // the first session.mcp_servers_loaded was read
	text        textJSON
	values      [16][]byte // the record's data members, by their index in its row
}

// NewCopilot returns a Copilot CLI front end that feeds e.
func NewCopilot(e *audit.Engine) *Copilot {
	return &Copilot{record: newRecord(e), calls: map[stream.Key]*copilotCall{}}
}

// unknownField notes a member outside the contract in the object at where
// (the engine keeps the first record of each place).
func (c *Copilot) unknownField(where string) { c.note(audit.UnknownField, where) }

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (c *Copilot) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	c.n = n
	typ := member(line, v.Root, "type")
	if stream.TypeOf(typ) != stream.String {
		return c.violation("type")
	}
	t := stream.Unquote(typ)
	row := copilotRow(t)
	if c.ended {
		// SPEC §17: result is the terminal record; another run's result
		// is a second session.
		if row != nil && row.name == cpResult {
			if id := member(line, v.Root, "sessionId"); stream.TypeOf(id) == stream.String &&
				stream.KeyOf(stream.Unquote(id)) != c.session {
				return c.invalid(audit.MultipleTurns, cpResult)
			}
		}
		return c.invalid(audit.EventAfterTerminalTurn, "")
	}
	if row == nil {
		for _, b := range copilotBenign {
			if string(t) == b {
				if b == cpCallFailure {
					return c.add(audit.Event{Kind: audit.EventStreamError})
				}
				return c.add(audit.Event{Kind: audit.EventCounted})
			}
		}
		return c.add(audit.Event{Kind: audit.EventUnknown})
	}
	if row.name == cpResult {
		if err := c.members(row, line, v.Root, row.name); err != nil {
			return err
		}
		return c.result(row)
	}
	if err := c.envelope(row, line, v.Root); err != nil {
		return err
	}
	if err := c.members(row, line, v.Child, row.name+".data"); err != nil {
		return err
	}
	switch row.name {
	case cpMessage:
		return c.message(row)
	case cpStart:
		return c.execStart(row)
	case cpComplete:
		return c.execComplete(row)
	case cpSubagent:
		return c.subagent(row)
	case cpServers:
		return c.servers(row)
	case cpError:
		c.failed = true
		c.note(audit.TurnFailed, cpError)
		return c.add(audit.Event{Kind: audit.EventStreamError, Where: cpError})
	}
	// agent.interrupted, abort: the run was cut (the CLI still ends it
	// with exitCode 0).
	c.cut = true
	c.note(audit.TurnIncomplete, row.name)
	return c.add(audit.Event{Kind: audit.EventCounted, Where: row.name})
}

func copilotRow(typ []byte) *copilotRecord {
	for i := range copilotRecords {
		if string(typ) == copilotRecords[i].name {
			return &copilotRecords[i]
		}
	}
	return nil
}

// envelope checks a judged record's own members: data must be an object
// (the checker located its members as the record's Child).
func (c *Copilot) envelope(row *copilotRecord, line []byte, root []stream.Span) error {
	hasData := false
	for i := range root {
		name, value := root[i].In(line)
		switch string(name) {
		case "data":
			if stream.TypeOf(value) != stream.Object {
				return c.violation(row.name + ".data")
			}
			hasData = true
		case "type", "id", "timestamp", "parentId", "ephemeral", "agentId":
		default:
			c.unknownField(row.name)
		}
	}
	if !hasData {
		return c.violation(row.name + ".data")
	}
	return nil
}

// members reads the members of the object at where — the record's data,
// located by the checker as its Child, or result itself — into c.values
// by their index in row: a member outside the row is unknown_field, one of
// the wrong type or a required one missing schema_violation.
func (c *Copilot) members(row *copilotRecord, line []byte, spans []stream.Span, where string) error {
	clear(c.values[:])
	prefix := where + "."
	for i := range spans {
		name, value := spans[i].In(line)
		if row.name == cpResult && string(name) == "type" {
			continue
		}
		k := row.index(name)
		if k < 0 {
			c.unknownField(where)
			continue
		}
		if m := row.members[k]; m.kind != 0 && stream.TypeOf(value) != m.kind {
			return c.violation(prefix + m.name)
		}
		c.values[k] = value
	}
	for _, req := range row.required {
		if c.values[row.index([]byte(req))] == nil {
			return c.violation(prefix + req)
		}
	}
	return nil
}

func (r *copilotRecord) index(name []byte) int {
	for i, m := range r.members {
		if string(name) == m.name {
			return i
		}
	}
	return -1
}

// value is the record's member name, nil when absent.
func (c *Copilot) value(row *copilotRecord, name string) []byte {
	return c.values[row.index([]byte(name))]
}

// parent reads the record's parentToolCallId: whether it belongs to a
// sub-agent. A sub-agent no task call started (its parent was never seen,
// or is another tool) may have acted before the main agent's first call.
func (c *Copilot) parent(row *copilotRecord) bool {
	p := c.value(row, "parentToolCallId")
	if p == nil {
		return false
	}
	if call := c.calls[stream.KeyOf(stream.Unquote(p))]; call == nil || !call.task || !call.started {
		c.engine.HideOrder(c.n, row.name)
	}
	return true
}

// message is the model's message: its text is narration, its toolRequests
// the calls it asked for, each of which must start in a complete run.
func (c *Copilot) message(row *copilotRecord) error {
	c.parent(row)
	var err error
	if requests := c.value(row, "toolRequests"); requests != nil {
		stream.Elements(requests, func(e []byte) bool {
			err = c.request(e)
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	if content := c.value(row, "content"); len(content) > len(`""`) {
		return c.add(audit.Event{Kind: audit.EventNarration, Where: cpMessage})
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: cpMessage})
}

// request takes one toolRequests entry: its id is kept until its call
// starts.
func (c *Copilot) request(e []byte) error {
	if stream.TypeOf(e) != stream.Object {
		return c.violation(cpRequest)
	}
	var v [2][]byte
	fieldsOf(e, copilotRequestMembers[:2], v[:])
	id, name := v[0], v[1]
	switch {
	case stream.TypeOf(id) != stream.String || len(id) <= 2:
		return c.violation(cpRequestID)
	case stream.TypeOf(name) != stream.String:
		return c.violation(cpRequestName)
	}
	if !closedOver(e, copilotRequestMembers) {
		c.unknownField(cpRequest)
	}
	k := stream.KeyOf(stream.Unquote(id))
	call := c.calls[k]
	switch {
	case call == nil:
		c.calls[k] = &copilotCall{request: c.n}
	case call.request != 0:
		return c.invalid(audit.DuplicateCallID, cpRequestID)
	default:
		call.request = c.n // printed after its start
	}
	return nil
}

// closedOver reports whether every member of the object v is one of names.
func closedOver(v []byte, names []string) bool {
	ok := true
	stream.Members(v, func(n, _ []byte) bool {
		for _, name := range names {
			if string(n) == name {
				return true
			}
		}
		ok = false
		return false
	})
	return ok
}

// execStart is a call's dispatch, at its position (starts come in the
// model's order).
func (c *Copilot) execStart(row *copilotRecord) error {
	id := c.value(row, "toolCallId")
	if len(id) <= 2 {
		return c.violation(cpStartID)
	}
	k := stream.KeyOf(stream.Unquote(id))
	call := c.calls[k]
	switch {
	case call == nil:
		call = &copilotCall{}
		c.calls[k] = call
	case call.started:
		return c.invalid(audit.DuplicateCallID, cpStartID)
	}
	sub := c.parent(row)
	name := stream.Unquote(c.value(row, "toolName"))
	c.refs++
	call.ref, call.started, call.task = c.refs, true, string(name) == cpTask
	// SERVER-TOOL, exactly (SPEC §17, §16.6): mcpServerName and
	// mcpToolName never override the name the call was made with.
	call.tool = c.catalog.Resolve(audit.SpellCopilot, name)
	return c.add(audit.Event{Kind: audit.EventCall, Ref: call.ref, Tool: call.tool, SubAgent: sub,
		ProjectScoped: scoped(c.catalog, call.tool, c.value(row, "arguments")), Where: cpStart})
}

// execComplete is a call's result: success false is an error result;
// a search's value is result.structuredContent when that is an object,
// else the first text of result.contents[] (never result.content or
// detailedContent, display strings that join text and JSON).
func (c *Copilot) execComplete(row *copilotRecord) error {
	c.parent(row)
	call := c.calls[stream.KeyOf(stream.Unquote(c.value(row, "toolCallId")))]
	switch {
	case call == nil || !call.started:
		return c.invalid(audit.OrphanResult, cpCompleteID)
	case call.completed:
		return c.invalid(audit.DuplicateResult, cpCompleteID)
	}
	call.completed = true
	if errObj := c.value(row, "error"); errObj != nil && stream.TypeOf(errObj) != stream.Null {
		if stream.TypeOf(errObj) != stream.Object {
			return c.violation(cpCallError)
		}
		if !closedOver(errObj, copilotErrorMembers) {
			c.unknownField(cpCallError)
		}
	}
	ev := audit.Event{Kind: audit.EventResult, Ref: call.ref, Where: cpComplete}
	switch {
	case string(c.value(row, "success")) != "true":
		ev.Outcome = audit.Failed
	case c.catalog.IsSearch(call.tool):
		ev.Retrieval = retrieves(c.catalog, call.tool, c.resultValue(c.value(row, "result")))
	}
	return c.add(ev)
}

// copilotResultMembers are the members of a call's result that hold the
// MCP server's own result.
var copilotResultMembers = []string{"structuredContent", "contents"}

// resultValue is a successful call's value: structuredContent when it is
// an object, else the JSON object the first text block of contents holds
// (nil when neither).
func (c *Copilot) resultValue(result []byte) []byte {
	if stream.TypeOf(result) != stream.Object {
		return nil
	}
	var v [2][]byte
	fieldsOf(result, copilotResultMembers, v[:])
	if stream.TypeOf(v[0]) == stream.Object {
		return v[0]
	}
	if stream.TypeOf(v[1]) != stream.Array {
		return nil
	}
	return c.text.object(firstTextBlock(v[1]))
}

// subagent is a task call's sub-agent starting: one that no task call
// started may have acted before the main agent's first call.
func (c *Copilot) subagent(row *copilotRecord) error {
	call := c.calls[stream.KeyOf(stream.Unquote(c.value(row, "toolCallId")))]
	if call == nil || !call.task || !call.started {
		c.engine.HideOrder(c.n, cpSubagent)
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: cpSubagent})
}

// servers reads the first list of MCP servers: when it names no memory
// server connected, the memory tools were not available to the agent.
func (c *Copilot) servers(row *copilotRecord) error {
	available, bad, unknown := false, false, false
	stream.Elements(c.value(row, "servers"), func(e []byte) bool {
		var v [2][]byte
		fieldsOf(e, copilotServerMembers[:2], v[:])
		name, status := v[0], v[1]
		if stream.TypeOf(e) != stream.Object || stream.TypeOf(name) != stream.String || stream.TypeOf(status) != stream.String {
			bad = true
			return false
		}
		unknown = unknown || !closedOver(e, copilotServerMembers)
		if c.catalog.IsServer(stream.Unquote(name)) && stream.TextIs(status, "connected") {
			available = true
		}
		return true
	})
	if bad {
		return c.violation(cpServer)
	}
	if unknown {
		c.unknownField(cpServer)
	}
	if !c.sawServers {
		c.sawServers = true
		if !available {
			c.engine.Unavailable(c.n, cpServers)
		}
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: cpServers})
}

// result ends the run: a non-zero exitCode is a failed run; exitCode 0
// after an interruption or an error is not a complete one.
func (c *Copilot) result(row *copilotRecord) error {
	code := c.value(row, "exitCode")
	if !stream.IsInteger(code) {
		return c.violation("result.exitCode")
	}
	if id := c.value(row, "sessionId"); id != nil {
		c.session = stream.KeyOf(stream.Unquote(id))
	}
	c.ended = true
	switch {
	case string(code) != "0" && string(code) != "-0":
		c.note(audit.TurnFailed, cpResult)
	case !c.cut && !c.failed:
		c.complete = true
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: cpResult})
}

// End reports the end of input: no result is turn_incomplete; in a
// complete run, a toolRequests entry whose call never started is
// call_incomplete (at the first such entry).
func (c *Copilot) End() error {
	if !c.ended {
		c.engine.Note(audit.TurnIncomplete, -1, "")
		return nil
	}
	if !c.complete {
		return nil
	}
	first := 0
	for _, call := range c.calls {
		if call.request != 0 && !call.started && (first == 0 || call.request < first) {
			first = call.request
		}
	}
	if first != 0 {
		c.engine.Note(audit.CallIncomplete, first, cpRequest)
	}
	return nil
}

// NewCopilotChecker returns the JSON checker a Copilot CLI stream's records
// must pass: no repeated member name anywhere. It locates the record's
// members and its data's (copilotReads), and the first other one of each,
// which is enough to note it unknown.
func NewCopilotChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Child: "data", Reads: copilotReads}}
}

// copilotReads reports whether a member of this name, of a record or of
// its data, is one of any judged type's.
func copilotReads(name []byte) bool {
	for _, e := range copilotEnvelope {
		if string(name) == e {
			return true
		}
	}
	for i := range copilotRecords {
		if copilotRecords[i].index(name) >= 0 {
			return true
		}
	}
	return false
}

// ReadCopilot runs a copilot --output-format json stream (SPEC §17)
// through the engine.
func ReadCopilot(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewCopilotChecker(), engine, "copilot", NewCopilot(engine))
}

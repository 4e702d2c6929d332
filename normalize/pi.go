package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The Pi JSON-mode contract (SPEC §12): the stdout of pi --mode json
// PROMPT, as the Pi coding agent 1.3.0 through 1.6.0 (built-in MCP) and
// 0.86.x (pi-mcp-adapter) print it (reference/pi-json.md).

// piBenign are the record types of the pinned union that carry no
// evidence: counted, never decoded (agent_end.messages and
// turn_end.toolResults repeat earlier records, and may be the largest
// lines of a stream).
var piBenign = []string{
	"turn_start", "turn_end", "message_start", "message_update", "tool_execution_update",
	"auto_retry_start", "entry_appended", "compaction_start", "compaction_end",
	"summarization_retry_scheduled", "summarization_retry_attempt_start", "summarization_retry_finished",
	"queue_update", "session_info_changed", "thinking_level_changed",
}

// piSessionEntries are the entry types of Pi's session files, which are
// not this format.
var piSessionEntries = []string{"model_change", "thinking_level_change", "message", "context_edit"}

// The places of this format (SPEC §12).
const (
	piSession       = "session"
	piSettled       = "agent_settled"
	piRetryEnd      = "auto_retry_end"
	piAssistant     = "message_end.assistant"
	piToolCall      = "message_end.assistant.toolCall"
	piExecStart     = "tool_execution_start"
	piExecEnd       = "tool_execution_end"
	piSystem        = "message_end.system"
	piMessage       = "message_end.message"
	piAgentStart    = "agent_start"
	piCodemode      = "codemode"    // the script container: bookkeeping
	piToolSearch    = "tool_search" // tool discovery
	piAdapterProxy  = "mcp"         // pi-mcp-adapter's proxy: opaque
	piAdapterScript = "mcpScript"   // pi-mcp-adapter's script tool, whose calls are never printed
	piStopLength    = "length"
	piStopError     = "error"
	piStopAborted   = "aborted"
)

// PiPlaces lists every place a Pi finding or error may name.
func PiPlaces() []string {
	return []string{
		"type", piSession, "session.version", "session.id", piAgentStart,
		piSettled, "agent_settled.aborted", piRetryEnd, "auto_retry_end.success",
		piMessage, "message_end.message.role", piAssistant, "message_end.assistant.content",
		"message_end.assistant.content[]", "message_end.assistant.stopReason",
		piToolCall, "message_end.assistant.toolCall.id", "message_end.assistant.toolCall.name",
		"message_end.assistant.toolCall.arguments",
		piExecStart, "tool_execution_start.toolCallId", "tool_execution_start.toolName",
		"tool_execution_start.args", "tool_execution_start.parentToolCallId",
		piExecEnd, "tool_execution_end.toolCallId", "tool_execution_end.toolName",
		"tool_execution_end.result", "tool_execution_end.isError",
		piSystem, "message_end.system.toolsAdded",
	}
}

// piKind is what a call id names.
type piKind uint8

const (
	piCall      piKind = iota // a call the checks judge
	piContainer               // codemode: bookkeeping, its nested calls ordinary
	piDiscovery               // tool_search
)

// piCallState is what is kept per call id: digests, never the id, name or
// arguments.
type piCallState struct {
	ref        int
	kind       piKind
	tool       audit.Tool // its catalog tool: a search's result is read
	name, args stream.Key
	fromBlock  bool // a toolCall block; false for a nested call
	sub        bool // a sub-agent's call
	started    bool
	ended      bool
}

// Pi feeds the records of a pi --mode json stream, one at a time, to the
// engine (SPEC §12).
type Pi struct {
	record
	calls map[stream.Key]*piCallState
	refs  int

	attempt    bool // between agent_start and agent_end
	settled    bool // agent_settled seen
	sawSystem  bool // the first system message was read
	lastFailed int  // the record of the last assistant message if it ended in error or aborted, else 0
	text       textJSON
}

// NewPi returns a Pi front end that feeds e.
func NewPi(e *audit.Engine) *Pi {
	return &Pi{record: newRecord(e), calls: map[stream.Key]*piCallState{}}
}

// member returns the value of the member name of the record (nil when
// absent).
func member(line []byte, root []stream.Span, name string) []byte {
	for i := range root {
		if n, v := root[i].In(line); string(n) == name {
			return v
		}
	}
	return nil
}

// field returns the value of the member name of the checked object v.
// fieldsOf is field for several names in one walk of v: vals[k] is the
// value of the member names[k] (nil when absent). It stops once every name
// is found; a checked value holds a name at most once.
func fieldsOf(v []byte, names []string, vals [][]byte) {
	clear(vals)
	left := len(names)
	stream.Members(v, func(n, value []byte) bool {
		for k, name := range names {
			if vals[k] == nil && string(n) == name {
				vals[k] = value
				left--
				break
			}
		}
		return left > 0
	})
}

// The members of a message, of a tool result and of the MCP result in it
// that Pi reads (fieldsOf).
var (
	piMessageMembers = []string{"content", "stopReason"}
	piResultMembers  = []string{"structuredContent", "content"}
	piMCPMembers     = []string{"structuredContent", "isError"}
)

func field(v []byte, name string) []byte {
	var out []byte
	stream.Members(v, func(n, value []byte) bool {
		if string(n) == name {
			out = value
			return false
		}
		return true
	})
	return out
}

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (p *Pi) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	p.n = n
	typ := member(line, v.Root, "type")
	if stream.TypeOf(typ) != stream.String {
		return p.violation("type")
	}
	t := string(stream.Unquote(typ))
	if n == 1 && t != piSession {
		return p.invalid(audit.EventOutsideTurn, "")
	}
	if contains(piBenign, t) {
		return p.add(audit.Event{Kind: audit.EventCounted})
	}
	if p.settled {
		// SPEC §12: only benign records may follow agent_settled.
		return p.invalid(audit.EventAfterTerminalTurn, "")
	}
	switch t {
	case piSession:
		return p.session(line, v.Root)
	case "agent_start":
		if p.attempt {
			return p.invalid(audit.EventOutsideTurn, piAgentStart)
		}
		p.attempt = true
		return p.add(audit.Event{Kind: audit.EventCounted})
	case "agent_end":
		p.attempt = false
		return p.add(audit.Event{Kind: audit.EventCounted})
	case piSettled:
		return p.agentSettled(line, v.Root)
	case piRetryEnd:
		success := member(line, v.Root, "success")
		if stream.TypeOf(success) != stream.Bool {
			return p.violation("auto_retry_end.success")
		}
		if string(success) == "false" {
			p.note(audit.TurnFailed, piRetryEnd)
		}
		return p.add(audit.Event{Kind: audit.EventCounted})
	case "message_end":
		return p.messageEnd(line, v.Root)
	case piExecStart:
		if !p.attempt {
			return p.invalid(audit.EventOutsideTurn, piExecStart)
		}
		return p.execStart(line, v.Root)
	case piExecEnd:
		if !p.attempt {
			return p.invalid(audit.EventOutsideTurn, piExecEnd)
		}
		return p.execEnd(line, v.Root)
	}
	if contains(piSessionEntries, t) {
		// A session file's entries: not this format (SPEC §12).
		return p.invalid(audit.EventOutsideTurn, "")
	}
	return p.add(audit.Event{Kind: audit.EventUnknown})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// session is the header: record 1, once.
func (p *Pi) session(line []byte, root []stream.Span) error {
	if p.n != 1 {
		return p.invalid(audit.ThreadStartedMisplaced, piSession)
	}
	if stream.TypeOf(member(line, root, "version")) != stream.Number {
		return p.violation("session.version")
	}
	if stream.TypeOf(member(line, root, "id")) != stream.String {
		return p.violation("session.id")
	}
	return p.add(audit.Event{Kind: audit.EventCounted, Where: piSession})
}

// agentSettled ends the run; aborted (absent before 1.1) says it was cut.
func (p *Pi) agentSettled(line []byte, root []stream.Span) error {
	aborted := member(line, root, "aborted")
	if aborted != nil && stream.TypeOf(aborted) != stream.Bool {
		return p.violation("agent_settled.aborted")
	}
	if string(aborted) == "true" {
		p.note(audit.TurnFailed, piSettled)
	}
	p.settled = true
	return p.add(audit.Event{Kind: audit.EventCounted, Where: piSettled})
}

func (p *Pi) messageEnd(line []byte, root []stream.Span) error {
	msg := member(line, root, "message")
	if stream.TypeOf(msg) != stream.Object {
		return p.violation(piMessage)
	}
	role := field(msg, "role")
	if stream.TypeOf(role) != stream.String {
		return p.violation("message_end.message.role")
	}
	switch {
	case stream.TextIs(role, "assistant"):
		if !p.attempt {
			return p.invalid(audit.EventOutsideTurn, piAssistant)
		}
		return p.assistant(msg)
	case stream.TextIs(role, "system"):
		return p.system(msg)
	}
	// The prompt, tool results (never read: SPEC §12) and other roles.
	return p.add(audit.Event{Kind: audit.EventCounted})
}

// system reads the first system message's declared tools: when it names
// none of the memory tools, and no tool that could reach them, the memory
// server was not available.
func (p *Pi) system(msg []byte) error {
	if !p.sawSystem {
		p.sawSystem = true
		if tools := field(msg, "toolsAdded"); tools != nil {
			if stream.TypeOf(tools) != stream.Array {
				return p.violation("message_end.system.toolsAdded")
			}
			memory, hidden, bad := false, false, false
			stream.Elements(tools, func(e []byte) bool {
				name := field(e, "name")
				if stream.TypeOf(e) != stream.Object || stream.TypeOf(name) != stream.String {
					bad = true
					return false
				}
				n := stream.Unquote(name)
				switch {
				case p.tool(n) != audit.NoTool:
					memory = true
				case p.reaches(n):
					hidden = true
				}
				return true
			})
			if bad {
				return p.violation("message_end.system.toolsAdded")
			}
			if !memory && !hidden {
				p.engine.Unavailable(p.n, piSystem)
			}
		}
	}
	return p.add(audit.Event{Kind: audit.EventCounted, Where: piSystem})
}

func (p *Pi) assistant(msg []byte) error {
	var cv [2][]byte
	fieldsOf(msg, piMessageMembers, cv[:])
	content, stop := cv[0], cv[1]
	switch {
	case stream.TypeOf(content) != stream.Array:
		return p.violation("message_end.assistant.content")
	case stream.TypeOf(stop) != stream.String:
		return p.violation("message_end.assistant.stopReason")
	}
	cut := false
	switch s := string(stream.Unquote(stop)); s {
	case "stop", "toolUse":
		p.lastFailed = 0
	case piStopLength:
		p.lastFailed = 0
		cut = true // a call's input may be cut off
	case piStopError, piStopAborted:
		p.lastFailed = p.n
	default:
		p.lastFailed = 0
		p.note(audit.UnknownField, piAssistant)
	}
	calls := 0
	var err error
	stream.Elements(content, func(block []byte) bool {
		var isCall bool
		isCall, err = p.block(block, cut)
		if isCall {
			calls++
		}
		return err == nil
	})
	if err == nil && cut && calls > 0 {
		p.note(audit.MessageAborted, piAssistant)
	}
	return err
}

// block takes one content block of an assistant message; cut says the
// message stopped at its length limit. It reports whether the block was a
// call.
func (p *Pi) block(block []byte, cut bool) (bool, error) {
	if stream.TypeOf(block) != stream.Object {
		return false, p.violation("message_end.assistant.content[]")
	}
	var typ, id, name, args []byte
	unknown := false
	stream.Members(block, func(n, v []byte) bool {
		switch string(n) {
		case "type":
			typ = v
		case "id":
			id = v
		case "name":
			name = v
		case "arguments":
			args = v
		default:
			unknown = true
		}
		return true
	})
	if stream.TypeOf(typ) != stream.String {
		return false, p.violation("message_end.assistant.content[]")
	}
	switch stream.Text(typ) {
	case "text":
		return false, p.add(audit.Event{Kind: audit.EventNarration, Where: piAssistant})
	case "thinking":
		return false, p.add(audit.Event{Kind: audit.EventReasoning, Where: piAssistant})
	case "toolCall":
	default:
		p.refs++
		return true, p.add(audit.Event{Kind: audit.EventCall, Ref: p.refs, UnknownType: true, NoResult: true,
			InputUnknown: abortedCode(cut), Where: piAssistant})
	}
	if unknown {
		p.note(audit.UnknownField, piToolCall)
	}
	switch {
	case stream.TypeOf(id) != stream.String || len(id) <= 2:
		return true, p.violation("message_end.assistant.toolCall.id")
	case stream.TypeOf(name) != stream.String:
		return true, p.violation("message_end.assistant.toolCall.name")
	case stream.TypeOf(args) != stream.Object:
		return true, p.violation("message_end.assistant.toolCall.arguments")
	}
	k := stream.KeyOf(stream.Unquote(id))
	if _, dup := p.calls[k]; dup {
		return true, p.invalid(audit.DuplicateCallID, "message_end.assistant.toolCall.id")
	}
	tool := stream.Unquote(name)
	c := &piCallState{kind: piKindOf(tool), name: stream.KeyOf(tool), args: stream.ValueKey(args), fromBlock: true}
	p.calls[k] = c
	return true, p.call(c, tool, args, cut, piToolCall)
}

// reaches reports whether a declared tool may reach the memory tools
// without them being declared: codemode's scripts, tool_search's deferred
// tools, and pi-mcp-adapter's proxy, script tool and per-server
// namespace proxy (mcp__SERVER).
func (p *Pi) reaches(name []byte) bool {
	switch string(name) {
	case piCodemode, piToolSearch, piAdapterProxy, piAdapterScript:
		return true
	}
	prefix := audit.SpellMCP.Prefix
	return len(name) > len(prefix) && string(name[:len(prefix)]) == prefix && p.catalog.IsServer(name[len(prefix):])
}

func piKindOf(tool []byte) piKind {
	switch string(tool) {
	case piCodemode:
		return piContainer
	case piToolSearch:
		return piDiscovery
	}
	return piCall
}

// call gives the engine the event of a new call c named tool, at where.
func (p *Pi) call(c *piCallState, tool, args []byte, cut bool, where string) error {
	if c.kind == piDiscovery {
		return p.add(audit.Event{Kind: audit.EventDiscovery, Where: where})
	}
	p.refs++
	c.ref = p.refs
	c.tool = p.tool(tool)
	if c.kind == piContainer {
		// Bookkeeping whose lifecycle is still judged: never started or
		// never ended, it is call_incomplete (SPEC v4 §12).
		return p.add(audit.Event{Kind: audit.EventBookkeeping, Ref: c.ref, Where: where})
	}
	// mcpScript's calls are never printed: the stream does not hold them.
	ev := audit.Event{Kind: audit.EventCall, Ref: c.ref, Tool: c.tool, SubAgent: c.sub,
		HidesCalls: string(tool) == piAdapterScript, Where: where}
	if cut {
		ev.InputUnknown = audit.MessageAborted
	} else {
		ev.ProjectScoped = scoped(p.catalog, c.tool, args)
	}
	return p.add(ev)
}

// tool is the catalog tool a Pi tool name names: exactly mcp__S__T
// (built-in MCP), or pi-mcp-adapter's direct S_T (SPEC §12, §16.6); any
// other name is an opaque call.
func (p *Pi) tool(name []byte) audit.Tool {
	if t := p.catalog.Resolve(audit.SpellMCP, name); t != audit.NoTool {
		return t
	}
	return p.catalog.Resolve(audit.SpellJoined, name)
}

// execStart is a call's dispatch: the start of a toolCall, or a nested
// call made by a running tool.
func (p *Pi) execStart(line []byte, root []stream.Span) error {
	id, name, args := member(line, root, "toolCallId"), member(line, root, "toolName"), member(line, root, "args")
	parent := member(line, root, "parentToolCallId")
	switch {
	case stream.TypeOf(id) != stream.String || len(id) <= 2:
		return p.violation("tool_execution_start.toolCallId")
	case stream.TypeOf(name) != stream.String:
		return p.violation("tool_execution_start.toolName")
	case stream.TypeOf(args) != stream.Object:
		return p.violation("tool_execution_start.args")
	case parent != nil && stream.TypeOf(parent) != stream.String:
		return p.violation("tool_execution_start.parentToolCallId")
	}
	k := stream.KeyOf(stream.Unquote(id))
	tool := stream.Unquote(name)
	if c, ok := p.calls[k]; ok {
		switch {
		case c.started:
			return p.invalid(audit.DuplicateCallID, "tool_execution_start.toolCallId")
		case !c.fromBlock:
			return p.invalid(audit.DuplicateCallID, "tool_execution_start.toolCallId")
		case c.name != stream.KeyOf(tool) || c.args != stream.ValueKey(args):
			return p.invalid(audit.ItemMismatch, piExecStart)
		}
		c.started = true
		return p.add(audit.Event{Kind: audit.EventCounted, Where: piExecStart})
	}
	var by *piCallState
	if parent != nil {
		by = p.calls[stream.KeyOf(stream.Unquote(parent))]
	}
	if by == nil || !by.started || by.ended {
		// Neither a toolCall nor the call of a running tool.
		return p.invalid(audit.OrphanUpdate, piExecStart)
	}
	// A codemode script's calls are the model's own; any other tool's
	// are a sub-agent's.
	c := &piCallState{kind: piKindOf(tool), started: true, sub: by.sub || by.kind != piContainer}
	p.calls[k] = c
	return p.call(c, tool, args, false, piExecStart)
}

// execEnd is a call's result.
func (p *Pi) execEnd(line []byte, root []stream.Span) error {
	id, result, isError := member(line, root, "toolCallId"), member(line, root, "result"), member(line, root, "isError")
	switch {
	case stream.TypeOf(id) != stream.String:
		return p.violation("tool_execution_end.toolCallId")
	case stream.TypeOf(member(line, root, "toolName")) != stream.String:
		return p.violation("tool_execution_end.toolName")
	case stream.TypeOf(result) != stream.Object:
		return p.violation("tool_execution_end.result")
	case stream.TypeOf(isError) != stream.Bool:
		return p.violation("tool_execution_end.isError")
	}
	c, ok := p.calls[stream.KeyOf(stream.Unquote(id))]
	switch {
	case !ok || !c.started:
		return p.invalid(audit.OrphanResult, "tool_execution_end.toolCallId")
	case c.ended:
		return p.invalid(audit.DuplicateResult, "tool_execution_end.toolCallId")
	}
	c.ended = true
	if c.kind != piCall {
		if c.kind == piContainer {
			p.engine.Settle(c.ref) // codemode's result is not judged
		}
		return p.add(audit.Event{Kind: audit.EventCounted, Where: piExecEnd})
	}
	ev := audit.Event{Kind: audit.EventResult, Ref: c.ref, Where: piExecEnd}
	// The MCP CallToolResult, whole, is result.structuredContent; its own
	// structuredContent is the tool's object (reference/pi-json.md).
	var rv, mv [2][]byte
	fieldsOf(result, piResultMembers, rv[:])
	mcp, content := rv[0], rv[1]
	fieldsOf(mcp, piMCPMembers, mv[:])
	inner, mcpError := mv[0], mv[1]
	switch {
	case string(isError) == "true" || stream.TypeOf(mcp) == stream.Object && string(mcpError) == "true":
		ev.Outcome = audit.Failed
	case !p.catalog.IsSearch(c.tool):
	case stream.TypeOf(mcp) == stream.Object && stream.TypeOf(inner) == stream.Object:
		ev.Retrieval = retrieves(p.catalog, c.tool, inner)
	default:
		ev.Retrieval = retrieves(p.catalog, c.tool, p.text.object(firstTextBlock(content)))
	}
	return p.add(ev)
}

// End reports the end of input: no agent_settled is turn_incomplete; a
// last assistant message that ended in error or aborted is turn_failed
// (Pi exits 0 after an API failure: only the stream tells).
func (p *Pi) End() error {
	if !p.settled {
		p.engine.Note(audit.TurnIncomplete, -1, "")
	}
	if p.lastFailed > 0 {
		p.engine.Note(audit.TurnFailed, p.lastFailed, piAssistant)
	}
	return nil
}

// NewPiChecker returns the JSON checker a Pi stream's records must pass: no
// repeated member name anywhere. It locates the record members the front
// end reads (piReads): a record of two million others costs a few spans.
func NewPiChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Reads: piReads}}
}

func piReads(name []byte) bool {
	switch string(name) {
	case "type", "version", "id", "aborted", "success", "message",
		"toolCallId", "toolName", "args", "parentToolCallId", "result", "isError":
		return true
	}
	return false
}

// ReadPi runs a pi --mode json stream (SPEC §12) through the engine.
func ReadPi(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewPiChecker(), engine, "pi", NewPi(engine))
}

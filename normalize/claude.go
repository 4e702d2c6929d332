package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/stream"
)

// The Claude Code stream-json contract (SPEC §9): the stdout of
// claude -p --output-format stream-json --verbose, as the CLI of
// @anthropic-ai/claude-code 2.1.332 prints it (reference/claude-stream-json.md),
// whose record types are the SDKMessage union of
// @anthropic-ai/claude-agent-sdk 0.3.332.

// claudeBenign are the record types of the pinned SDKMessage union that carry
// no tool-call evidence besides system (whose subtypes are below): counted,
// never decoded further.
var claudeBenign = []string{
	"stream_event", // SDKPartialAssistantMessage: never a call, not even a partial tool_use
	"tool_progress", "tool_use_summary", "auth_status", "rate_limit_event",
	"prompt_suggestion", "conversation_reset",
}

// claudeBenignSystem are the system subtypes of the pinned union besides
// init; api_retry is counted as a stream error.
var claudeBenignSystem = []string{
	"api_retry", "status", "compact_boundary", "permission_denied", "thinking_tokens",
	"task_started", "task_progress", "task_updated", "task_notification", "background_tasks_changed",
	"hook_started", "hook_progress", "hook_response", "notification", "informational",
	"control_request_progress", "model_refusal_fallback", "model_refusal_no_fallback",
	"local_command_output", "plugin_install", "session_state_changed", "worker_shutting_down",
	"commands_changed", "files_persisted", "memory_recall", "elicitation_complete",
	"mirror_error", "session_writes_lost",
}

// Places of this format (SPEC §7.1, §9), for findings and errors.
const (
	claudeInit       = "init"
	claudeAssistant  = "assistant"
	claudeUser       = "user"
	claudeResult     = "result"
	claudeToolUse    = "assistant.tool_use"
	claudeCaller     = "assistant.tool_use.caller"
	claudeToolResult = "user.tool_result"
)

// ClaudePlaces lists every place a Claude Code finding or error may name.
func ClaudePlaces() []string {
	return append([]string{
		"type", "system", "system.subtype", claudeInit, "init.mcp_servers", "init.mcp_servers[]",
		claudeAssistant, "assistant.message", "assistant.message.content", "assistant.message.content[]",
		"assistant.parent_tool_use_id", claudeToolUse, "assistant.tool_use.id", "assistant.tool_use.name",
		"assistant.tool_use.input", claudeCaller, "assistant.server_tool_use",
		claudeUser, "user.message", "user.message.content", "user.message.content[]",
		claudeToolResult, "user.tool_result.tool_use_id", "user.tool_result.content", "user.tool_result.is_error",
		claudeResult, "result.subtype", "result.is_error", "result.terminal_reason",
	}, claudeBenign...)
}

// claudeCall is what is kept per tool_use id.
type claudeCall struct {
	ref       int
	tool      audit.Tool // its catalog tool: a search's result is read
	result    bool
	discovery bool // ToolSearch: its result is not judged
	agent     bool // Agent or Task: the only calls that start a sub-agent
}

// Claude feeds the records of a Claude Code stream, one at a time, to the
// engine (SPEC §9). It keeps per call only a digest of its id and what its
// result needs; never ids, names or payloads.
type Claude struct {
	record
	calls map[lifecycle.Key]claudeCall
	refs  int // call refs handed out

	open      int  // turns opened by init and not yet closed by result
	sawInit   bool // a first init was seen
	text      textJSON
	unknownAt map[string]bool // places of unknown fields noted for this record
}

// NewClaude returns a Claude Code front end that feeds e.
func NewClaude(e *audit.Engine) *Claude {
	return &Claude{record: newRecord(e), calls: map[lifecycle.Key]claudeCall{}, unknownAt: map[string]bool{}}
}

// unknownField notes a member outside the contract in the object at where,
// once per record and place.
func (c *Claude) unknownField(where string) {
	if !c.unknownAt[where] {
		c.unknownAt[where] = true
		c.note(audit.UnknownField, where)
	}
}

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (c *Claude) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	c.n = n
	clear(c.unknownAt)
	var typ, subtype []byte
	for i := range v.Root {
		name, value := v.Root[i].In(line)
		switch string(name) {
		case "type":
			typ = value
		case "subtype":
			subtype = value
		}
	}
	if stream.TypeOf(typ) != stream.String {
		return c.violation("type")
	}
	t := stream.Unquote(typ)
	switch string(t) {
	case "system":
		return c.system(line, v.Root, subtype)
	case "assistant", "user", "result":
		if c.open == 0 {
			return c.invalid(audit.EventOutsideTurn, string(t))
		}
		if err := c.superseded(line, v.Root, string(t)); err != nil {
			return err
		}
		switch string(t) {
		case "assistant":
			return c.assistant(line, v.Root)
		case "user":
			return c.user(line, v.Root)
		}
		return c.result(line, v.Root)
	}
	for _, b := range claudeBenign {
		if string(t) == b {
			return c.add(audit.Event{Kind: audit.EventCounted, Where: b})
		}
	}
	return c.add(audit.Event{Kind: audit.EventUnknown})
}

// superseded notes message_superseded for a record whose supersedes names
// earlier records.
func (c *Claude) superseded(line []byte, root []stream.Span, where string) error {
	for i := range root {
		if name, value := root[i].In(line); string(name) == "supersedes" {
			switch stream.TypeOf(value) {
			case stream.Null:
			case stream.Array:
				if !emptyArray(value) {
					c.note(audit.MessageSuperseded, where)
				}
			default:
				c.note(audit.MessageSuperseded, where)
			}
		}
	}
	return nil
}

func emptyArray(v []byte) bool {
	empty := true
	stream.Elements(v, func([]byte) bool { empty = false; return false })
	return empty
}

func (c *Claude) system(line []byte, root []stream.Span, subtype []byte) error {
	if stream.TypeOf(subtype) != stream.String {
		return c.violation("system.subtype")
	}
	st := stream.Unquote(subtype)
	if string(st) == "init" {
		return c.init(line, root)
	}
	for _, b := range claudeBenignSystem {
		if string(st) == b {
			kind := audit.EventCounted
			if b == "api_retry" {
				kind = audit.EventStreamError
			}
			return c.add(audit.Event{Kind: kind, Where: "system"})
		}
	}
	return c.add(audit.Event{Kind: audit.EventUnknown})
}

// init opens a turn; the first one says whether the memory server was
// available.
func (c *Claude) init(line []byte, root []stream.Span) error {
	var servers []byte
	for i := range root {
		if name, value := root[i].In(line); string(name) == "mcp_servers" {
			servers = value
		}
	}
	if stream.TypeOf(servers) != stream.Array {
		return c.violation("init.mcp_servers")
	}
	available, bad := false, false
	stream.Elements(servers, func(e []byte) bool {
		var name, status []byte
		stream.Members(e, func(n, v []byte) bool {
			switch string(n) {
			case "name":
				name = v
			case "status":
				status = v
			}
			return true
		})
		if stream.TypeOf(e) != stream.Object || stream.TypeOf(name) != stream.String || stream.TypeOf(status) != stream.String {
			bad = true
			return false
		}
		if c.catalog.IsServer(stream.Unquote(name)) {
			switch stream.Text(status) {
			case "failed", "needs-auth", "disabled":
			default: // connected, pending or another status
				available = true
			}
		}
		return true
	})
	if bad {
		return c.violation("init.mcp_servers[]")
	}
	if !c.sawInit {
		c.sawInit = true
		if !available {
			c.engine.Unavailable(c.n, claudeInit)
		}
	}
	c.open++
	return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeInit})
}

// result closes a turn.
func (c *Claude) result(line []byte, root []stream.Span) error {
	var subtype, isError, reason []byte
	for i := range root {
		name, value := root[i].In(line)
		switch string(name) {
		case "subtype":
			subtype = value
		case "is_error":
			isError = value
		case "terminal_reason":
			reason = value
		}
	}
	switch {
	case stream.TypeOf(subtype) != stream.String:
		return c.violation("result.subtype")
	case stream.TypeOf(isError) != stream.Bool:
		return c.violation("result.is_error")
	case reason != nil && stream.TypeOf(reason) != stream.String:
		return c.violation("result.terminal_reason")
	}
	c.open--
	if !stream.TextIs(subtype, "success") || string(isError) == "true" ||
		reason != nil && !stream.TextIs(reason, "completed") {
		c.note(audit.TurnFailed, claudeResult)
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeResult})
}

// message finds the record's message.content and parent_tool_use_id.
func message(line []byte, root []stream.Span) (content, parent []byte, hasParent bool) {
	for i := range root {
		name, value := root[i].In(line)
		switch string(name) {
		case "message":
			stream.Members(value, func(n, v []byte) bool {
				if string(n) == "content" {
					content = v
					return false
				}
				return true
			})
			if stream.TypeOf(value) != stream.Object {
				content = nil
			}
		case "parent_tool_use_id":
			parent, hasParent = value, true
		}
	}
	return content, parent, hasParent
}

func (c *Claude) assistant(line []byte, root []stream.Span) error {
	content, parent, hasParent := message(line, root)
	if stream.TypeOf(content) != stream.Array {
		return c.violation("assistant.message.content")
	}
	if !hasParent || stream.TypeOf(parent) != stream.String && stream.TypeOf(parent) != stream.Null {
		return c.violation("assistant.parent_tool_use_id")
	}
	sub := stream.TypeOf(parent) == stream.String
	if sub {
		if call := c.calls[lifecycle.KeyOf(stream.Unquote(parent))]; !call.agent {
			// A sub-agent no Agent or Task call started (its parent was
			// never seen, or is another tool): its calls may have come
			// before the main agent's first one.
			c.engine.HideOrder(c.n, claudeAssistant)
		}
	}
	// Member order is not significant: both flags are read first.
	aborted, apiError := false, false
	for i := range root {
		name, value := root[i].In(line)
		switch string(name) {
		case "aborted":
			aborted = string(value) == "true"
		case "is_api_error_message":
			apiError = string(value) == "true"
		}
	}
	if aborted {
		c.note(audit.MessageAborted, claudeAssistant)
	}
	var err error
	stream.Elements(content, func(block []byte) bool {
		err = c.assistantBlock(block, sub, aborted, apiError)
		return err == nil
	})
	return err
}

// assistantBlock takes one content block of an assistant record; aborted
// says the record was cut off, so a call's input is unknown; apiError that
// it is the CLI's own notice of an API error, whose text is a stream error
// rather than narration. Neither flag hides a block (SPEC §9).
func (c *Claude) assistantBlock(block []byte, sub, aborted, apiError bool) error {
	if stream.TypeOf(block) != stream.Object {
		return c.violation("assistant.message.content[]")
	}
	var typ, id, name, input, caller []byte
	unknown := false
	stream.Members(block, func(n, v []byte) bool {
		switch string(n) {
		case "type":
			typ = v
		case "id":
			id = v
		case "name":
			name = v
		case "input":
			input = v
		case "caller":
			caller = v
		default:
			unknown = true
		}
		return true
	})
	if stream.TypeOf(typ) != stream.String {
		return c.violation("assistant.message.content[]")
	}
	switch stream.Text(typ) {
	case "text":
		if apiError {
			return c.add(audit.Event{Kind: audit.EventStreamError, Where: claudeAssistant})
		}
		return c.add(audit.Event{Kind: audit.EventNarration, Where: claudeAssistant})
	case "thinking", "redacted_thinking":
		return c.add(audit.Event{Kind: audit.EventReasoning, Where: claudeAssistant})
	case "server_tool_use":
		// A tool the API runs (web search): an opaque call, no result of
		// its own in the stream.
		return c.add(audit.Event{Kind: audit.EventCall, Ref: c.nextRef(), SubAgent: sub, NoResult: true,
			InputUnknown: abortedCode(aborted), Where: "assistant.server_tool_use"})
	case "tool_use":
	default:
		return c.add(audit.Event{Kind: audit.EventCall, Ref: c.nextRef(), SubAgent: sub, UnknownType: true, NoResult: true,
			InputUnknown: abortedCode(aborted), Where: claudeAssistant})
	}
	if unknown {
		c.unknownField(claudeToolUse)
	}
	switch {
	case stream.TypeOf(id) != stream.String || len(id) <= 2:
		return c.violation("assistant.tool_use.id")
	case stream.TypeOf(name) != stream.String:
		return c.violation("assistant.tool_use.name")
	case input == nil:
		return c.violation("assistant.tool_use.input")
	}
	programmatic, ok := callerProgrammatic(caller)
	if !ok {
		return c.violation(claudeCaller)
	}
	k := lifecycle.KeyOf(stream.Unquote(id))
	if _, dup := c.calls[k]; dup {
		return c.invalid(audit.DuplicateCallID, "assistant.tool_use.id")
	}
	tool := stream.Unquote(name)
	if string(tool) == "ToolSearch" {
		// Tool discovery: the model loads a tool's definition; no call.
		c.calls[k] = claudeCall{discovery: true}
		return c.add(audit.Event{Kind: audit.EventDiscovery, Where: claudeToolUse})
	}
	ref := c.nextRef()
	memory := c.catalog.Resolve(audit.SpellMCP, tool)
	c.calls[k] = claudeCall{ref: ref, tool: memory, agent: string(tool) == "Agent" || string(tool) == "Task"}
	// A program's call (code execution), like a sub-agent's, is not the
	// main agent's own: memory_first does not look at it.
	ev := audit.Event{Kind: audit.EventCall, Ref: ref, SubAgent: sub || programmatic, Where: claudeToolUse, Tool: memory}
	switch {
	case aborted:
		ev.InputUnknown = audit.MessageAborted // the record was cut off: so was its input
	case unparsed(input):
		// The message was cut off (max_tokens): the call's input is unknown.
		c.note(audit.MessageAborted, claudeToolUse)
		ev.InputUnknown = audit.MessageAborted
	default:
		ev.ProjectScoped = scoped(c.catalog, memory, input)
	}
	return c.add(ev)
}

// callerProgrammatic reads a tool_use's caller (nil when absent): whether
// a program the model ran made the call (caller.type not "direct"), and
// false for ok when caller is not an object with a string type. Its other
// members (the API names the calling tool) are not judged.
func callerProgrammatic(caller []byte) (programmatic, ok bool) {
	if caller == nil {
		return false, true
	}
	var typ []byte
	stream.Members(caller, func(n, v []byte) bool {
		if string(n) == "type" {
			typ = v
			return false
		}
		return true
	})
	if stream.TypeOf(caller) != stream.Object || stream.TypeOf(typ) != stream.String {
		return false, false
	}
	return !stream.TextIs(typ, "direct"), true
}

// abortedCode is MessageAborted when a call's message was cut off, else 0.
func abortedCode(aborted bool) audit.Code {
	if aborted {
		return audit.MessageAborted
	}
	return 0
}

func (c *Claude) nextRef() int {
	c.refs++
	return c.refs
}

// unparsed reports whether a tool_use input is the CLI's wrapper for input
// it could not parse: an object whose only member is __unparsedToolInput.
func unparsed(input []byte) bool {
	members, wrapped := 0, false
	stream.Members(input, func(n, _ []byte) bool {
		members++
		wrapped = string(n) == "__unparsedToolInput"
		return members == 1
	})
	return members == 1 && wrapped
}

func (c *Claude) user(line []byte, root []stream.Span) error {
	content, _, _ := message(line, root)
	switch stream.TypeOf(content) {
	case stream.String:
		// A prompt or a notice the CLI added: counted only.
		return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeUser})
	case stream.Array:
	default:
		return c.violation("user.message.content")
	}
	results := 0
	stream.Elements(content, func(block []byte) bool {
		if isBlock(block, "tool_result") {
			results++
		}
		return true
	})
	var structured []byte
	if results == 1 {
		structured = structuredContent(line, root)
	}
	var err error
	stream.Elements(content, func(block []byte) bool {
		err = c.userBlock(block, structured)
		return err == nil
	})
	return err
}

func isBlock(block []byte, typ string) bool {
	is := false
	stream.Members(block, func(n, v []byte) bool {
		if string(n) == "type" {
			is = stream.TextIs(v, typ)
			return false
		}
		return true
	})
	return is
}

// structuredContent is the record's tool_use_result.structuredContent when
// that is an object (an MCP call's structured result), else nil.
func structuredContent(line []byte, root []stream.Span) []byte {
	var sc []byte
	for i := range root {
		if name, value := root[i].In(line); string(name) == "tool_use_result" {
			stream.Members(value, func(n, v []byte) bool {
				if string(n) == "structuredContent" {
					sc = v
					return false
				}
				return true
			})
		}
	}
	if stream.TypeOf(sc) != stream.Object {
		return nil
	}
	return sc
}

func (c *Claude) userBlock(block []byte, structured []byte) error {
	if stream.TypeOf(block) != stream.Object {
		return c.violation("user.message.content[]")
	}
	var typ, id, content, isError []byte
	unknown := false
	stream.Members(block, func(n, v []byte) bool {
		switch string(n) {
		case "type":
			typ = v
		case "tool_use_id":
			id = v
		case "content":
			content = v
		case "is_error":
			isError = v
		default:
			unknown = true
		}
		return true
	})
	if stream.TypeOf(typ) != stream.String {
		return c.violation("user.message.content[]")
	}
	switch stream.Text(typ) {
	case "text":
		return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeUser})
	case "tool_result":
	default:
		return c.add(audit.Event{Kind: audit.EventCall, Ref: c.nextRef(), UnknownType: true, NoResult: true, Where: claudeUser})
	}
	if unknown {
		c.unknownField(claudeToolResult)
	}
	switch {
	case stream.TypeOf(id) != stream.String:
		return c.violation("user.tool_result.tool_use_id")
	case content == nil:
		return c.violation("user.tool_result.content")
	case isError != nil && stream.TypeOf(isError) != stream.Bool:
		return c.violation("user.tool_result.is_error")
	}
	k := lifecycle.KeyOf(stream.Unquote(id))
	call, ok := c.calls[k]
	switch {
	case !ok:
		return c.invalid(audit.OrphanResult, "user.tool_result.tool_use_id")
	case call.result:
		return c.invalid(audit.DuplicateResult, "user.tool_result.tool_use_id")
	}
	call.result = true
	c.calls[k] = call
	if call.discovery {
		return nil // a ToolSearch result changes nothing
	}
	ev := audit.Event{Kind: audit.EventResult, Ref: call.ref, Where: claudeToolResult}
	switch {
	case string(isError) == "true":
		ev.Outcome = audit.Failed
	case !c.catalog.IsSearch(call.tool):
	case structured != nil:
		ev.Retrieval = retrieves(c.catalog, call.tool, structured)
	case stream.TypeOf(content) == stream.String:
		ev.Retrieval = retrieves(c.catalog, call.tool, c.text.object(content))
	case stream.TypeOf(content) == stream.Array:
		ev.Retrieval = retrieves(c.catalog, call.tool, c.text.object(firstTextBlock(content)))
	}
	return c.add(ev)
}

// End reports the end of input: a turn still open, or none at all, is
// turn_incomplete.
func (c *Claude) End() error {
	if c.open > 0 || !c.sawInit {
		c.engine.Note(audit.TurnIncomplete, -1, "")
	}
	return nil
}

// NewClaudeChecker returns the JSON checker a Claude Code stream's records
// must pass: no repeated member name anywhere. It locates the record's
// members that the front end reads (claudeReads).
func NewClaudeChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Reads: claudeReads}}
}

// claudeReads reports whether the front end reads a record member of this
// name: every other one is ignored, so that a record of two million
// members is not located member by member (SPEC §1).
func claudeReads(name []byte) bool {
	switch string(name) {
	case "type", "subtype", "supersedes", "mcp_servers", "message", "parent_tool_use_id",
		"aborted", "is_api_error_message", "tool_use_result", "is_error", "terminal_reason":
		return true
	}
	return false
}

// ReadClaude runs a Claude Code stream-json stream (SPEC §9) through the
// engine.
func ReadClaude(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewClaudeChecker(), engine, "claude-code", NewClaude(engine))
}

package normalize

import (
	"bytes"
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The Claude Code stream-json contract (SPEC §9): the stdout of
// claude -p --output-format stream-json --verbose, as the CLI of
// @anthropic-ai/claude-code 2.1.332 prints it (reference/claude-stream-json.md),
// whose record types are the SDKMessage union of
// @anthropic-ai/claude-agent-sdk 0.3.332. Qwen Code prints a dialect of
// it (SPEC §18), read by this reader with the differences its
// claudeDialect names (qwen.go).
//
// Layout: Checked dispatches a record by type — system (init, the benign
// subtypes, a dialect's background tasks), assistant (assistantBlock: a
// call, text, reasoning), user (userBlock: a result) and result (the end
// of a turn). State: the open turns, one claudeCall per tool_use id (a
// digest of the id: its ref, catalog tool, whether it had its result,
// whether it discovers or starts a sub-agent), and a dialect's pending
// API-error texts. The dialect value is the only thing that differs
// between Claude Code's stream and Qwen Code's.

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

// A claudeDialect is one CLI's variant of the stream-json Claude Code
// prints: Claude Code's own (SPEC §9) or Qwen Code's (§18). The reader is
// one; the row of the format table picks the dialect.
type claudeDialect struct {
	harness   string
	spelling  audit.Spelling // of an MCP tool's name (SPEC §16.6)
	discovery string         // the tool that only loads definitions (ToolSearch)
	agents    []string       // the tools that start a sub-agent
	// down are the init.mcp_servers statuses that say the memory server
	// was not available.
	down []string
	// version is the init member that the dialect's CLI always prints
	// (required, a string); foreign one that only another dialect's
	// prints: such an init is not this format's (SPEC §18).
	version, foreign string
	// caller: a tool_use may hold caller (Claude Code's programmatic
	// calls). structured: a result's value may be the record's
	// tool_use_result.structuredContent.
	caller, structured bool
	// qwen holds Qwen Code's differences (qwen.go): the tool_call bridge,
	// results on their first line, one block type a record, API-error
	// texts, background sub-agents.
	qwen bool
}

// claudeCode is Claude Code's own dialect (SPEC §9).
var claudeCode = &claudeDialect{
	harness: "claude-code", spelling: audit.SpellMCP, discovery: "ToolSearch", agents: []string{"Agent", "Task"},
	down: []string{"failed", "needs-auth", "disabled"}, foreign: "qwen_code_version",
	caller: true, structured: true,
}

// claudeCall is what is kept per tool_use id.
type claudeCall struct {
	ref       int
	tool      audit.Tool // its catalog tool: a search's result is read
	result    bool
	discovery bool // ToolSearch: its result is not judged
	agent     bool // Agent or Task: the only calls that start a sub-agent
	// background: a sub-agent the CLI ran in the background (SPEC §18);
	// its calls are not in the stream.
	background bool
}

// Claude feeds the records of a Claude Code stream, one at a time, to the
// engine (SPEC §9). It keeps per call only a digest of its id and what its
// result needs; never ids, names or payloads.
type Claude struct {
	record
	d     *claudeDialect
	calls map[stream.Key]claudeCall
	refs  int // call refs handed out

	open      int  // turns opened by init and not yet closed by result
	sawInit   bool // a first init was seen
	text      textJSON
	unknownAt map[string]bool // places of unknown fields noted for this record
	// foreign: an init of another dialect was seen (SPEC §18): the input's
	// harness is not this dialect's.
	foreign bool
	// agentsRunning counts the calls that started a sub-agent in the
	// foreground and have no result yet.
	agentsRunning int
	// loc is what the checker located in the record: its members, its
	// message's (Child: empty when it located none), and the message's
	// content blocks with theirs (Elements).
	loc stream.Located
	// contentAt is where in the record message found the content member's
	// value, when the checker located it (-1 otherwise).
	contentAt int
	// blockType is the type of the assistant record's first block (a
	// Qwen Code record holds one type).
	blockType []byte
	// apiErrors are the records of assistant texts that read as the
	// CLI's API-error notice, not yet known to come before a failed
	// result (Qwen Code, SPEC §18).
	apiErrors []int
}

// NewClaude returns a Claude Code front end that feeds e.
func NewClaude(e *audit.Engine) *Claude { return newClaudeReader(e, claudeCode) }

func newClaudeReader(e *audit.Engine, d *claudeDialect) *Claude {
	return &Claude{record: newRecord(e), d: d, calls: map[stream.Key]claudeCall{}, unknownAt: map[string]bool{}}
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
	c.loc = v.Located
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
		if c.d.qwen {
			if err := c.settleAPIErrors(line, v.Root, string(t)); err != nil {
				return err
			}
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
	if c.d.qwen && (string(st) == "task_started" || string(st) == "task_notification") {
		return c.task(line, root)
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
	var servers, version []byte
	foreign := false
	for i := range root {
		name, value := root[i].In(line)
		switch {
		case string(name) == "mcp_servers":
			servers = value
		case c.d.version != "" && string(name) == c.d.version:
			version = value
		case c.d.foreign != "" && string(name) == c.d.foreign:
			foreign = true
		}
	}
	if foreign {
		// Another CLI's init (a Qwen Code stream given as Claude Code's):
		// it opens no turn of this format, and the input is not this
		// dialect's harness (SPEC §18).
		c.foreign = true
		return c.add(audit.Event{Kind: audit.EventUnknown})
	}
	if stream.TypeOf(servers) != stream.Array {
		return c.violation("init.mcp_servers")
	}
	if c.d.version != "" && stream.TypeOf(version) != stream.String {
		return c.violation("init." + c.d.version)
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
		if c.catalog.IsServer(stream.Unquote(name)) && !c.isDown(status) {
			available = true // connected, pending or another status
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

// isDown reports whether an mcp_servers status (a JSON string) says the
// server was not available.
func (c *Claude) isDown(status []byte) bool {
	for _, s := range c.d.down {
		if stream.TextIs(status, s) {
			return true
		}
	}
	return false
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
	if c.d.qwen && string(isError) == "true" && c.agentRunning() {
		// A failed foreground sub-agent's own result (SPEC §18): the
		// turn goes on.
		return c.add(audit.Event{Kind: audit.EventStreamError, Where: claudeResult})
	}
	c.open--
	if !stream.TextIs(subtype, "success") || string(isError) == "true" ||
		reason != nil && !stream.TextIs(reason, "completed") {
		c.note(audit.TurnFailed, claudeResult)
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeResult})
}

// message finds the record's message.content and parent_tool_use_id:
// content from the message's members the checker located, when it did,
// else by a walk of the message.
func (c *Claude) message(line []byte, root []stream.Span) (content, parent []byte, hasParent bool) {
	child := c.loc.Child
	c.contentAt = -1
	for i := range child {
		if name, value := child[i].In(line); string(name) == "content" {
			content, c.contentAt = value, int(child[i].ValueStart)
		}
	}
	for i := range root {
		name, value := root[i].In(line)
		switch string(name) {
		case "message":
			if len(child) > 0 {
				continue
			}
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
	content, parent, hasParent := c.message(line, root)
	if stream.TypeOf(content) != stream.Array {
		return c.violation("assistant.message.content")
	}
	if !hasParent || stream.TypeOf(parent) != stream.String && stream.TypeOf(parent) != stream.Null {
		return c.violation("assistant.parent_tool_use_id")
	}
	sub := stream.TypeOf(parent) == stream.String
	if sub {
		if call := c.calls[stream.KeyOf(stream.Unquote(parent))]; !call.agent {
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
	c.blockType = nil
	return c.eachBlock(line, content, func(b contentBlock) error {
		return c.assistantBlock(b, sub, aborted, apiError)
	})
}

// contentBlock is an element of a message's content array: its value, and
// its members as the checker located them, or, when it did not, walk set
// (they are found by walking the value).
type contentBlock struct {
	value, line []byte
	members     []stream.Span
	walk        bool
}

// each calls fn with each member of the block, an object.
func (b *contentBlock) each(fn func(name, value []byte)) {
	if b.walk {
		stream.Members(b.value, func(n, v []byte) bool {
			fn(n, v)
			return true
		})
		return
	}
	for i := range b.members {
		fn(b.members[i].In(b.line))
	}
}

// eachBlock calls fn with each element of content, the record's checked
// message.content array: as the checker located them
// (Locate.ChildElements), or by walking the array where it did not (it
// located none of an array longer than it locates, or the message was not
// located), until fn returns an error.
func (c *Claude) eachBlock(line, content []byte, fn func(b contentBlock) error) error {
	els := c.loc.Elements
	// The located elements are content's when the first one is in it.
	inside := len(els) > 0 && c.contentAt >= 0 &&
		int(els[0].ValueStart) > c.contentAt && int(els[0].ValueStart) < c.contentAt+len(content)
	if c.loc.ElementsCut || !inside {
		var err error
		stream.Elements(content, func(v []byte) bool {
			err = fn(contentBlock{value: v, walk: true})
			return err == nil
		})
		return err
	}
	for k := range els {
		if err := fn(contentBlock{value: els[k].Value(line), line: line, members: c.loc.MembersOf(k)}); err != nil {
			return err
		}
	}
	return nil
}

// assistantBlock takes one content block of an assistant record; aborted
// says the record was cut off, so a call's input is unknown; apiError that
// it is the CLI's own notice of an API error, whose text is a stream error
// rather than narration. Neither flag hides a block (SPEC §9).
func (c *Claude) assistantBlock(block contentBlock, sub, aborted, apiError bool) error {
	if stream.TypeOf(block.value) != stream.Object {
		return c.violation("assistant.message.content[]")
	}
	var typ, id, name, input, caller, text []byte
	unknown := false
	block.each(func(n, v []byte) {
		switch string(n) {
		case "type":
			typ = v
		case "text":
			text = v
		case "id":
			id = v
		case "name":
			name = v
		case "input":
			input = v
		case "caller":
			if !c.d.caller {
				unknown = true
			}
			caller = v
		default:
			unknown = true
		}
	})
	if stream.TypeOf(typ) != stream.String {
		return c.violation("assistant.message.content[]")
	}
	if c.d.qwen && !c.oneBlockType(typ) {
		return c.violation("assistant.message.content")
	}
	switch stream.Text(typ) {
	case "text":
		if apiError {
			return c.add(audit.Event{Kind: audit.EventStreamError, Where: claudeAssistant})
		}
		if c.d.qwen && !sub && bytes.HasPrefix(text, qwenAPIError) {
			// Narration, or the CLI's notice of an API error when a failed
			// result follows: the next record says (settleAPIErrors).
			c.apiErrors = append(c.apiErrors, c.n)
			return nil
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
	if unknown || text != nil {
		c.unknownField(claudeToolUse)
	}
	return c.toolUse(id, name, input, caller, sub, aborted)
}

// toolUse is an assistant's tool_use block, its members read: a call, of
// the main agent unless sub or the caller is a program, or tool discovery.
func (c *Claude) toolUse(id, name, input, caller []byte, sub, aborted bool) error {
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
	k := stream.KeyOf(stream.Unquote(id))
	if _, dup := c.calls[k]; dup {
		return c.invalid(audit.DuplicateCallID, "assistant.tool_use.id")
	}
	tool, args, bridged := stream.Unquote(name), input, false
	if c.d.qwen {
		tool, args, bridged = c.bridged(tool, input)
	}
	if string(tool) == c.d.discovery {
		// Tool discovery: the model loads a tool's definition; no call.
		c.calls[k] = claudeCall{discovery: true}
		return c.add(audit.Event{Kind: audit.EventDiscovery, Where: claudeToolUse})
	}
	ref := c.nextRef()
	memory := c.catalog.Resolve(c.d.spelling, tool)
	agent := c.startsAgent(tool)
	if agent {
		c.agentsRunning++
	}
	c.calls[k] = claudeCall{ref: ref, tool: memory, agent: agent}
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
	case bridged && args == nil:
		// A bridge call whose target or arguments are not there: which
		// tool it called, with what, is unknown (SPEC §18).
		ev.InputUnknown = audit.CallInputUnknown
	default:
		ev.ProjectScoped = scoped(c.catalog, memory, args)
	}
	return c.add(ev)
}

// startsAgent reports whether a call of tool starts a sub-agent.
func (c *Claude) startsAgent(tool []byte) bool {
	for _, a := range c.d.agents {
		if string(tool) == a {
			return true
		}
	}
	return false
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
	content, _, _ := c.message(line, root)
	switch stream.TypeOf(content) {
	case stream.String:
		// A prompt or a notice the CLI added: counted only.
		return c.add(audit.Event{Kind: audit.EventCounted, Where: claudeUser})
	case stream.Array:
	default:
		return c.violation("user.message.content")
	}
	var structured []byte
	if c.d.structured {
		results := 0
		c.eachBlock(line, content, func(b contentBlock) error {
			if b.is("tool_result") {
				results++
			}
			return nil
		})
		if results == 1 {
			structured = structuredContent(line, root)
		}
	}
	return c.eachBlock(line, content, func(b contentBlock) error {
		return c.userBlock(b, structured)
	})
}

// is reports whether the block's type is typ.
func (b *contentBlock) is(typ string) bool {
	is := false
	b.each(func(n, v []byte) {
		if string(n) == "type" {
			is = stream.TextIs(v, typ)
		}
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

func (c *Claude) userBlock(block contentBlock, structured []byte) error {
	if stream.TypeOf(block.value) != stream.Object {
		return c.violation("user.message.content[]")
	}
	var typ, id, content, isError []byte
	unknown := false
	block.each(func(n, v []byte) {
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
	case content == nil && !c.d.qwen: // Qwen Code leaves out an empty one
		return c.violation("user.tool_result.content")
	case isError != nil && stream.TypeOf(isError) != stream.Bool:
		return c.violation("user.tool_result.is_error")
	}
	k := stream.KeyOf(stream.Unquote(id))
	call, ok := c.calls[k]
	switch {
	case !ok:
		return c.invalid(audit.OrphanResult, "user.tool_result.tool_use_id")
	case call.result:
		return c.invalid(audit.DuplicateResult, "user.tool_result.tool_use_id")
	}
	call.result = true
	c.calls[k] = call
	if call.agent && !call.background {
		c.agentsRunning--
	}
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
	case c.d.qwen:
		ev.Retrieval = retrieves(c.catalog, call.tool, c.qwenValue(content))
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
	if err := c.narrateAPIErrors(); err != nil {
		return err
	}
	if c.open > 0 || !c.sawInit {
		c.engine.Note(audit.TurnIncomplete, -1, "")
	}
	return nil
}

// NewClaudeChecker returns the JSON checker a Claude Code stream's records
// must pass: no repeated member name anywhere. It locates the record's
// members that the front end reads (claudeReads).
func NewClaudeChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Child: "message", ChildElements: "content", Reads: claudeReads}}
}

// claudeReads reports whether the front end reads a member of this name
// of a record, its message or a content block: every other one is
// ignored, so that an object of two million members is not located
// member by member (SPEC §1).
func claudeReads(name []byte) bool {
	switch string(name) {
	case "type", "subtype", "supersedes", "mcp_servers", "message", "parent_tool_use_id",
		"aborted", "is_api_error_message", "tool_use_result", "is_error", "terminal_reason",
		"qwen_code_version", "content",
		"text", "id", "name", "input", "caller", "tool_use_id": // a block's
		return true
	}
	return false
}

// ReadClaude runs a Claude Code stream-json stream (SPEC §9) through the
// engine.
func ReadClaude(r io.Reader, rules audit.Rules) Input {
	return readClaudeDialect(r, rules, NewClaudeChecker(), claudeCode)
}

// readClaudeDialect runs a stream of dialect d, checked by ch, through
// the engine. An input that showed another dialect's init names no
// harness: it is not d's CLI's (SPEC §18).
func readClaudeDialect(r io.Reader, rules audit.Rules, ch *stream.Checker, d *claudeDialect) Input {
	engine := audit.NewEngine(rules)
	c := newClaudeReader(engine, d)
	in := readRecords(r, ch, engine, d.harness, c)
	if c.foreign {
		in.Harness = ""
	}
	return in
}

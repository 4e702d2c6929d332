package normalize

import (
	"bytes"
	"io"
	"slices"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The Qwen Code stream-json contract (SPEC §18): the stdout of
// qwen -p PROMPT --output-format stream-json of @qwen-code/qwen-code
// (reference/qwen-json.md), a dialect of Claude Code's (§9) read by the
// Claude reader (claude.go) with the differences of qwenCode.
//
// Layout: this file holds only what differs. bridged reads a tool_call
// (the CLI's bridge to a deferred tool) as a call of its target; task
// marks a background sub-agent from system task_started and
// task_notification; qwenValue reads a result's first line; apiErrorText,
// settleAPIErrors and narrateAPIErrors hold an "[API Error: …]" text
// until the next record says whether a failed result follows. State kept
// beyond the Claude reader's: the pending API-error texts' records, and
// which sub-agent calls run in the foreground.

// qwenCode is Qwen Code's dialect (SPEC §18).
var qwenCode = &claudeDialect{
	harness: "qwen-code", spelling: audit.SpellQwen, discovery: "tool_search", agents: []string{"agent"},
	down:    []string{"failed", "needs-auth", "disabled", "disconnected"},
	version: "qwen_code_version", qwen: true,
}

// qwenBridge is the CLI's own tool that calls a deferred tool by name.
const qwenBridge = "tool_call"

// qwenAPIError is how the CLI's notice of a failed model request begins
// (its parseAndFormatApiError): "[API Error: <status> <message>]", with a
// rate-limit hint after the bracket for a 429. A text block's text
// member, as written, begins so.
var qwenAPIError = []byte(`"[API Error: `)

// QwenPlaces lists every place a Qwen Code finding or error may name: the
// Claude Code reader's, but for a tool_use's caller (Qwen Code prints
// none), and the init's version.
func QwenPlaces() []string {
	places := slices.DeleteFunc(ClaudePlaces(), func(p string) bool { return p == claudeCaller })
	return append(places, "init.qwen_code_version")
}

// bridged reads a tool_use of tool with input: a tool_call whose
// input.name is a string and input.arguments an object is a call of the
// tool input.name with those arguments (SPEC §18). For a tool_call
// without them, args is nil: its target and arguments are unknown.
func (c *Claude) bridged(tool, input []byte) (name, args []byte, bridged bool) {
	if string(tool) != qwenBridge {
		return tool, input, false
	}
	var target, arguments []byte
	stream.Members(input, func(n, v []byte) bool {
		switch string(n) {
		case "name":
			target = v
		case "arguments":
			arguments = v
		}
		return true
	})
	if stream.TypeOf(input) != stream.Object || stream.TypeOf(target) != stream.String ||
		stream.TypeOf(arguments) != stream.Object {
		return tool, nil, true
	}
	return stream.Unquote(target), arguments, true
}

// task takes a system task_started or task_notification: it names the
// call whose sub-agent runs in the background, and whose calls the stream
// does not print (SPEC §18). One that names no earlier call, or whose
// data cannot be read, may be such a sub-agent too; one naming a call of
// another tool (a monitor's) hides none.
func (c *Claude) task(line []byte, root []stream.Span) error {
	var id []byte
	for i := range root {
		if name, value := root[i].In(line); string(name) == "data" {
			stream.Members(value, func(n, v []byte) bool {
				if string(n) == "tool_use_id" {
					id = v
					return false
				}
				return true
			})
		}
	}
	hides := true
	if stream.TypeOf(id) == stream.String {
		k := stream.KeyOf(stream.Unquote(id))
		if call, ok := c.calls[k]; ok {
			hides = call.agent
			if call.agent && !call.background {
				if !call.result {
					c.agentsRunning--
				}
				call.background = true
				c.calls[k] = call
			}
		}
	}
	if hides {
		c.note(audit.SubagentEvidenceMissing, "system")
	}
	return c.add(audit.Event{Kind: audit.EventCounted, Where: "system"})
}

// agentRunning reports whether a sub-agent started in the foreground has
// not ended: a failed result then is the sub-agent's own, which the CLI
// prints when it fails or is cancelled (SPEC §18).
func (c *Claude) agentRunning() bool { return c.agentsRunning > 0 }

// qwenValue is the value of a result's content (a checked JSON value, nil
// when absent): when it is a string whose first line is exactly one JSON
// object (the CLI's rendering of MCP structured content, before the text
// content), that object; otherwise content read as SPEC §5 reads a tool
// result.
func (c *Claude) qwenValue(content []byte) []byte {
	x := &c.text
	if stream.TypeOf(content) != stream.String {
		return x.outputObject(content)
	}
	var ok bool
	x.doc, ok = stream.AppendUnquote(x.doc[:0], content)
	if !ok {
		return nil
	}
	if i := bytes.IndexByte(x.doc, '\n'); i >= 0 {
		if line := x.doc[:i]; x.checker.Check(line) == 0 && stream.TypeOf(line) == stream.Object {
			return line
		}
	}
	if x.checker.Check(x.doc) != 0 || stream.TypeOf(x.doc) != stream.Object {
		return nil
	}
	return x.doc
}

// oneBlockType reports whether a block of type typ (a JSON string) has
// the type of its record's first block, as every assistant record Qwen
// Code prints (SPEC §18).
func (c *Claude) oneBlockType(typ []byte) bool {
	if c.blockType == nil {
		c.blockType = typ
		return true
	}
	return bytes.Equal(typ, c.blockType)
}

// settleAPIErrors takes the next assistant, user or result record (of
// type t) after API-error texts: right before the run's result they are
// the CLI's notice of a failed model request and count in stream_errors
// (SPEC §18); before anything else, as narration. Qwen Code 0.21 follows
// the notice with a success result (exit 0): the turn still failed, and
// is turn_failed.
func (c *Claude) settleAPIErrors(line []byte, root []stream.Span, t string) error {
	if len(c.apiErrors) == 0 {
		return nil
	}
	if t != claudeResult {
		return c.narrateAPIErrors()
	}
	failed := false
	for i := range root {
		switch name, value := root[i].In(line); string(name) {
		case "is_error":
			failed = failed || string(value) == "true"
		case "subtype":
			failed = failed || !stream.TextIs(value, "success")
		}
	}
	if !failed {
		c.note(audit.TurnFailed, claudeResult)
	}
	return c.flushAPIErrors(audit.EventStreamError)
}

// narrateAPIErrors counts the pending API-error texts as narration: no
// failed result came right after them.
func (c *Claude) narrateAPIErrors() error { return c.flushAPIErrors(audit.EventNarration) }

func (c *Claude) flushAPIErrors(kind audit.EventKind) error {
	for _, n := range c.apiErrors {
		if err := c.add(audit.Event{Kind: kind, Record: n, Where: claudeAssistant}); err != nil {
			return err
		}
	}
	c.apiErrors = c.apiErrors[:0]
	return nil
}

// NewQwenChecker returns the JSON checker a Qwen Code stream's records
// must pass, locating the members the reader reads.
func NewQwenChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Child: "message", ChildElements: "content", Reads: qwenReads}}
}

// qwenReads reports whether the Qwen Code reader reads a record member of
// this name: the Claude reader's, and a system task's data.
func qwenReads(name []byte) bool { return string(name) == "data" || claudeReads(name) }

// NewQwen returns a Qwen Code front end that feeds e.
func NewQwen(e *audit.Engine) *Claude { return newClaudeReader(e, qwenCode) }

// ReadQwen runs a Qwen Code stream-json stream (SPEC §18) through the
// engine.
func ReadQwen(r io.Reader, rules audit.Rules) Input {
	return readClaudeDialect(r, rules, NewQwenChecker(), qwenCode)
}

package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The document opencode export SESSION prints (SPEC §13):
// {"info": Session, "messages": [{"info": Message, "parts": [Part, …]}, …]},
// streamed one message at a time (never held whole). Messages and their
// parts are in issue order, and every part state is there, so every call is
// ordered; its record is the message's 0-based index.

// The places of the export (SPEC §13).
const (
	oxInfo        = "info"
	oxMessage     = "messages[]"
	oxMessageInfo = "messages[].info"
	oxParts       = "messages[].parts"
	oxPart        = "messages[].parts[]"
	oxState       = "messages[].parts[].state"
)

// oxBenignParts are the part types of OpenCode's message parts that carry
// no call: counted only.
var oxBenignParts = []string{"step-start", "step-finish", "patch", "snapshot", "file", "agent", "retry", "compaction", "subtask"}

// OpenCodeExportPlaces lists every place an export's finding or error may
// name.
func OpenCodeExportPlaces() []string {
	return []string{oxInfo, "info.parentID", "messages", oxMessage, oxMessageInfo, "messages[].info.role",
		oxParts, oxPart, "messages[].parts[].type", "messages[].parts[].tool", "messages[].parts[].callID",
		oxState, "messages[].parts[].state.status", "messages[].parts[].state.input"}
}

// OpenCodeExport feeds an export's messages, one at a time, to the engine.
type OpenCodeExport struct {
	ocParts  // its record is the 0-based index of the message being read
	sawInfo  bool
	last     int  // the index of the last message, -1 before one
	complete bool // the last message ended the run normally
	failed   bool // the last message has an error
}

// NewOpenCodeExport returns an export front end that feeds e.
func NewOpenCodeExport(e *audit.Engine) *OpenCodeExport {
	return &OpenCodeExport{ocParts: newOCParts(e), last: -1}
}

// add gives the engine ev at the message being read (message 0 included,
// unlike record.add's JSONL lines).
func (x *OpenCodeExport) add(ev audit.Event) error {
	ev.Record = x.n
	if code := x.engine.Add(ev); code != 0 {
		return audit.Invalid(code, x.n, nil)
	}
	return nil
}

// Member takes a top-level member other than messages.
func (x *OpenCodeExport) Member(name, v []byte) error {
	if string(name) != oxInfo {
		return nil // the session document is open (SPEC §13 closes the states)
	}
	if stream.TypeOf(v) != stream.Object {
		return audit.InvalidAt(audit.SchemaViolation, -1, oxInfo, nil)
	}
	x.sawInfo = true
	if parent := field(v, "parentID"); parent != nil && stream.TypeOf(parent) != stream.Null {
		// A sub-agent's session: its parent's calls, and so the first
		// call, are in another export.
		x.engine.HideFirst(audit.SubagentEvidenceMissing, -1, oxInfo)
	}
	return nil
}

// Engine returns the engine the export feeds.
func (x *OpenCodeExport) Engine() *audit.Engine { return x.engine }

// Harness is the export's harness.
func (x *OpenCodeExport) Harness() string { return "opencode" }

// oxLocate is what the document's checker locates in each message, as it
// checks it, so that Event need not walk the message for them: its info
// and parts, info's role, error, time and finish, time's completed, and
// the parts themselves with their members (a part's type, and a tool
// part's tool, callID, state and reason).
var oxLocate = stream.Locate{Child: "info", Grandchild: "time", Elements: "parts", Reads: func(name []byte) bool {
	switch string(name) {
	case "info", "parts", "role", "error", "time", "finish", "completed",
		"type", "tool", "callID", "state", "reason":
		return true
	}
	return false
}}

// Event takes the message at 0-based index i, its members located by the
// document's checker (oxLocate).
func (x *OpenCodeExport) Event(v []byte, loc stream.Located, i int) error {
	x.n = i
	if stream.TypeOf(v) != stream.Object {
		return x.invalid(audit.SchemaViolation, oxMessage)
	}
	info, parts := member(v, loc.Root, "info"), member(v, loc.Root, "parts")
	switch {
	case stream.TypeOf(info) != stream.Object:
		return x.invalid(audit.SchemaViolation, oxMessageInfo)
	case stream.TypeOf(parts) != stream.Array:
		return x.invalid(audit.SchemaViolation, oxParts)
	}
	role, errObj, finish := member(v, loc.Child, "role"), member(v, loc.Child, "error"), member(v, loc.Child, "finish")
	if stream.TypeOf(role) != stream.String {
		return x.invalid(audit.SchemaViolation, "messages[].info.role")
	}
	assistant := stream.TextIs(role, "assistant")
	x.last = i
	x.complete, x.failed = false, false
	if assistant {
		x.failed = errObj != nil && stream.TypeOf(errObj) != stream.Null
		completed := member(v, loc.Grandchild, "completed") // info.time's
		x.complete = !x.failed && stream.TextIs(finish, "stop") &&
			completed != nil && stream.TypeOf(completed) != stream.Null
	} else if !stream.TextIs(role, "user") {
		x.engine.Note(audit.UnknownField, i, oxMessageInfo)
	}
	if loc.ElementsCut {
		// More parts than the checker locates: walked.
		var err error
		stream.Elements(parts, func(p []byte) bool {
			err = x.part(p, readOCPart(p), assistant)
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	for k := range loc.Elements {
		if err := x.part(loc.Elements[k].Value(v), locatedOCPart(v, loc.MembersOf(k)), assistant); err != nil {
			return err
		}
	}
	return x.add(audit.Event{Kind: audit.EventCounted, Where: oxMessageInfo})
}

// part takes one part, v, its members read (p).
func (x *OpenCodeExport) part(v []byte, p ocPart, assistant bool) error {
	if stream.TypeOf(v) != stream.Object {
		return x.invalid(audit.SchemaViolation, "messages[].parts[].type")
	}
	if stream.TypeOf(p.typ) != stream.String {
		return x.invalid(audit.SchemaViolation, "messages[].parts[].type")
	}
	t := string(stream.Unquote(p.typ))
	if t != "tool" && p.looksLikeTool() {
		// A tool part is never read as anything else (SPEC v4 §13).
		return x.invalid(audit.SchemaViolation, "messages[].parts[].type")
	}
	switch {
	case t == "text":
		if assistant {
			return x.add(audit.Event{Kind: audit.EventNarration, Where: oxPart})
		}
		return x.add(audit.Event{Kind: audit.EventCounted, Where: oxPart})
	case t == "reasoning":
		return x.add(audit.Event{Kind: audit.EventReasoning, Where: oxPart})
	case contains(oxBenignParts, t):
		return x.add(audit.Event{Kind: audit.EventCounted, Where: oxPart})
	case t != "tool":
		return x.add(audit.Event{Kind: audit.EventUnknown, Where: oxPart})
	}
	call, result, err := x.toolPart(p, oxPart, oxPart)
	if err != nil {
		return err
	}
	if err := x.add(call); err != nil {
		return err
	}
	return x.add(result)
}

// End reports the end of the document: the run is complete when the last
// message is an assistant message with finish stop, a time.completed and
// no error; an error is a failed run; anything else an incomplete one.
func (x *OpenCodeExport) End(hasMessages bool) (*audit.Engine, error) {
	switch {
	case !hasMessages:
		return nil, audit.InvalidAt(audit.SchemaViolation, -1, "messages", nil)
	case !x.sawInfo:
		return nil, audit.InvalidAt(audit.SchemaViolation, -1, oxInfo, nil)
	case x.complete:
	case x.failed:
		x.engine.Note(audit.TurnFailed, x.last, oxMessageInfo)
	default:
		x.engine.Note(audit.TurnIncomplete, -1, "")
	}
	return x.engine, nil
}

// ReadOpenCodeExport streams an opencode export document (SPEC §13)
// through the engine.
func ReadOpenCodeExport(r io.Reader, rules audit.Rules) Input {
	return readDocument(r, "messages", NewOpenCodeExport(audit.NewEngine(rules)), &oxLocate)
}

package normalize

import (
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// The Gemini CLI stream-json contract (SPEC §11): the stdout of
// gemini -p PROMPT --output-format stream-json, as Gemini CLI 0.56.0
// through 0.61.0 prints it (reference/gemini-json.md).

// geminiRecord is one of the six record types: its name (also its place),
// and the members it may have, each with the JSON type it must have.
// Every record has type; the required members are listed in required.
type geminiRecord struct {
	name     string
	members  []geminiMember
	required []string
}

type geminiMember struct {
	name string
	kind stream.Type // 0: any JSON value (free-form)
}

// The places of this format (SPEC §11), for findings and errors.
const (
	geminiInit        = "init"
	geminiMessage     = "message"
	geminiToolUse     = "tool_use"
	geminiToolResult  = "tool_result"
	geminiResultError = "tool_result.error"
	geminiError       = "error"
	geminiResult      = "result"
	geminiRunError    = "result.error"
)

var geminiRecords = []geminiRecord{
	{geminiInit, []geminiMember{{"timestamp", stream.String}, {"session_id", stream.String}, {"model", stream.String}},
		[]string{"session_id"}},
	{geminiMessage, []geminiMember{{"timestamp", stream.String}, {"role", stream.String}, {"content", stream.String}, {"delta", stream.Bool}},
		[]string{"role", "content"}},
	{geminiToolUse, []geminiMember{{"timestamp", stream.String}, {"tool_name", stream.String}, {"tool_id", stream.String}, {"parameters", stream.Object}},
		[]string{"tool_name", "tool_id", "parameters"}},
	{geminiToolResult, []geminiMember{{"timestamp", stream.String}, {"tool_id", stream.String}, {"status", stream.String}, {"output", stream.String}, {"error", stream.Object}},
		[]string{"tool_id", "status"}},
	{geminiError, []geminiMember{{"timestamp", stream.String}, {"severity", stream.String}, {"message", stream.String}},
		[]string{"severity", "message"}},
	{geminiResult, []geminiMember{{"timestamp", stream.String}, {"status", stream.String}, {"error", stream.Object}, {"stats", stream.Object}},
		[]string{"status"}},
}

// geminiBookkeeping is the CLI's own status tool, which its system prompt
// asks the model to call first: neither a call nor an effect (SPEC §11).
const geminiBookkeeping = "update_topic"

// geminiSubagent runs a sub-agent whose calls the stream does not print.
const geminiSubagent = "invoke_agent"

// GeminiPlaces lists every place a Gemini CLI finding or error may name.
func GeminiPlaces() []string {
	places := []string{"type", geminiResultError, geminiRunError}
	for _, r := range geminiRecords {
		places = append(places, r.name)
		for _, m := range r.members {
			places = append(places, r.name+"."+m.name)
		}
	}
	return places
}

// geminiCall is what is kept per tool_id: never the id itself.
type geminiCall struct {
	ref         int
	result      bool
	bookkeeping bool       // update_topic: its result is not judged
	tool        audit.Tool // its catalog tool: a search's result is read, and its tool_not_registered proves unavailability
}

// Gemini feeds the records of a Gemini CLI stream-json stream, one at a
// time, to the engine (SPEC §11).
type Gemini struct {
	record
	calls map[stream.Key]geminiCall
	refs  int

	started, ended bool // init and result seen
	text           textJSON
	values         [8][]byte // the record's members, by their index in its row
}

// NewGemini returns a Gemini CLI front end that feeds e.
func NewGemini(e *audit.Engine) *Gemini {
	return &Gemini{record: newRecord(e), calls: map[stream.Key]geminiCall{}}
}

// Checked takes the record on 1-based line n, checked by a stream.Checker
// with the verdict v. An invalid record returns an *audit.InputError;
// nothing after it may be fed.
func (g *Gemini) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	g.n = n
	if g.ended {
		// SPEC §11: any record after result, whatever its type.
		return g.invalid(audit.EventAfterTerminalTurn, "")
	}
	var typ []byte
	for i := range v.Root {
		// The checker let no name come twice: the first type is the one.
		if name, value := v.Root[i].In(line); string(name) == "type" {
			typ = value
			break
		}
	}
	if stream.TypeOf(typ) != stream.String {
		return audit.InvalidAt(audit.SchemaViolation, n, "type", nil)
	}
	row := geminiRow(stream.Unquote(typ))
	if row == nil {
		return g.add(audit.Event{Kind: audit.EventUnknown})
	}
	switch {
	case row.name == geminiInit && g.started:
		return g.invalid(audit.MultipleTurns, geminiInit)
	case row.name != geminiInit && !g.started:
		return g.invalid(audit.EventOutsideTurn, row.name)
	}
	if err := g.members(line, v.Root, row); err != nil {
		return err
	}
	switch row.name {
	case geminiInit:
		g.started = true
		return g.add(audit.Event{Kind: audit.EventCounted, Where: geminiInit})
	case geminiMessage:
		return g.message(row)
	case geminiToolUse:
		return g.toolUse(row)
	case geminiToolResult:
		return g.toolResult(row)
	case geminiError:
		return g.add(audit.Event{Kind: audit.EventStreamError, Where: geminiError})
	}
	return g.result(row)
}

func geminiRow(typ []byte) *geminiRecord {
	for i := range geminiRecords {
		if string(typ) == geminiRecords[i].name {
			return &geminiRecords[i]
		}
	}
	return nil
}

// members reads the record's top-level members into g.values by their
// index in row: a member outside the row is unknown_field, one of the
// wrong type or a required one missing schema_violation.
func (g *Gemini) members(line []byte, root []stream.Span, row *geminiRecord) error {
	clear(g.values[:])
	unknown := false
	for i := range root {
		name, value := root[i].In(line)
		if string(name) == "type" {
			continue
		}
		i := row.index(name)
		if i < 0 {
			unknown = true
			continue
		}
		if k := row.members[i].kind; k != 0 && stream.TypeOf(value) != k {
			return g.invalid(audit.SchemaViolation, row.name+"."+row.members[i].name)
		}
		g.values[i] = value
	}
	for _, req := range row.required {
		if g.values[row.index([]byte(req))] == nil {
			return g.invalid(audit.SchemaViolation, row.name+"."+req)
		}
	}
	if unknown {
		g.engine.Note(audit.UnknownField, g.n, row.name)
	}
	return nil
}

func (r *geminiRecord) index(name []byte) int {
	for i, m := range r.members {
		if string(name) == m.name {
			return i
		}
	}
	return -1
}

// value is the record's member name, nil when absent.
func (g *Gemini) value(row *geminiRecord, name string) []byte {
	return g.values[row.index([]byte(name))]
}

func (g *Gemini) message(row *geminiRecord) error {
	switch role := g.value(row, "role"); {
	case stream.TextIs(role, "assistant"):
		return g.add(audit.Event{Kind: audit.EventNarration, Where: geminiMessage})
	case !stream.TextIs(role, "user"):
		g.engine.Note(audit.UnknownField, g.n, geminiMessage)
	}
	return g.add(audit.Event{Kind: audit.EventCounted, Where: geminiMessage})
}

func (g *Gemini) toolUse(row *geminiRecord) error {
	id := g.value(row, "tool_id")
	if len(id) <= 2 {
		return g.invalid(audit.SchemaViolation, "tool_use.tool_id")
	}
	k := stream.KeyOf(stream.Unquote(id))
	if _, dup := g.calls[k]; dup {
		return g.invalid(audit.DuplicateCallID, "tool_use.tool_id")
	}
	name := stream.Unquote(g.value(row, "tool_name"))
	g.refs++
	if string(name) == geminiBookkeeping {
		// Still a call that must get its result (SPEC v4 §11).
		g.calls[k] = geminiCall{ref: g.refs, bookkeeping: true}
		return g.add(audit.Event{Kind: audit.EventBookkeeping, Ref: g.refs, Where: geminiToolUse})
	}
	// mcp_S_T, exactly (SPEC §11, §16.6); any other name is opaque.
	tool := g.catalog.Resolve(audit.SpellGemini, name)
	g.calls[k] = geminiCall{ref: g.refs, tool: tool}
	params := g.value(row, "parameters")
	return g.add(audit.Event{Kind: audit.EventCall, Ref: g.refs, Tool: tool,
		ProjectScoped: scoped(g.catalog, tool, params), HidesCalls: string(name) == geminiSubagent, Where: geminiToolUse})
}

func (g *Gemini) toolResult(row *geminiRecord) error {
	k := stream.KeyOf(stream.Unquote(g.value(row, "tool_id")))
	call, ok := g.calls[k]
	switch {
	case !ok:
		return g.invalid(audit.OrphanResult, "tool_result.tool_id")
	case call.result:
		return g.invalid(audit.DuplicateResult, "tool_result.tool_id")
	}
	call.result = true
	g.calls[k] = call

	status, errObj := g.value(row, "status"), g.value(row, "error")
	success := stream.TextIs(status, "success")
	if !success && !stream.TextIs(status, "error") {
		g.engine.Note(audit.UnknownField, g.n, geminiToolResult)
	}
	var errType []byte
	if errObj != nil {
		var err error
		if errType, err = g.errorObject(errObj, geminiResultError); err != nil {
			return err
		}
	}
	if call.bookkeeping {
		// update_topic's result ends its call, and is not judged.
		g.engine.Settle(call.ref)
		return nil
	}
	if g.catalog.IsSearch(call.tool) && stream.TextIs(errType, "tool_not_registered") {
		// The CLI had not declared the memory tools to the model.
		g.engine.Unavailable(g.n, geminiResultError)
	}
	ev := audit.Event{Kind: audit.EventResult, Ref: call.ref, Where: geminiToolResult}
	switch {
	case errObj != nil:
		ev.Outcome, ev.Where = audit.Failed, geminiResultError
	case !success:
		ev.Outcome = audit.Failed
	case g.catalog.IsSearch(call.tool):
		ev.Retrieval = retrieves(g.catalog, call.tool, g.text.object(g.value(row, "output")))
	}
	return g.add(ev)
}

// errorObject checks an error member at where, closed over type and
// message (strings), and returns its type (nil when absent).
func (g *Gemini) errorObject(v []byte, where string) ([]byte, error) {
	var typ, msg []byte
	unknown := false
	stream.Members(v, func(n, value []byte) bool {
		switch string(n) {
		case "type":
			typ = value
		case "message":
			msg = value
		default:
			unknown = true
		}
		return true
	})
	// A type or message that is not a string is the error object's
	// violation: where is the place (SPEC §11's vocabulary names no
	// member of an error).
	if typ != nil && stream.TypeOf(typ) != stream.String || msg != nil && stream.TypeOf(msg) != stream.String {
		return nil, g.invalid(audit.SchemaViolation, where)
	}
	if unknown {
		g.engine.Note(audit.UnknownField, g.n, where)
	}
	return typ, nil
}

// result ends the run: a status other than success, or an error, is a
// failed turn.
func (g *Gemini) result(row *geminiRecord) error {
	status, errObj := g.value(row, "status"), g.value(row, "error")
	if errObj != nil {
		if _, err := g.errorObject(errObj, geminiRunError); err != nil {
			return err
		}
	}
	switch {
	case !stream.TextIs(status, "success") && !stream.TextIs(status, "error"):
		g.engine.Note(audit.UnknownField, g.n, geminiResult)
		g.engine.Note(audit.TurnFailed, g.n, geminiResult)
	case !stream.TextIs(status, "success") || errObj != nil:
		g.engine.Note(audit.TurnFailed, g.n, geminiResult)
	}
	g.ended = true
	return g.add(audit.Event{Kind: audit.EventCounted, Where: geminiResult})
}

// End reports the end of input: no result is turn_incomplete (the CLI
// prints none when interrupted, and exits 0).
func (g *Gemini) End() error {
	if !g.ended {
		g.engine.Note(audit.TurnIncomplete, -1, "")
	}
	return nil
}

// NewGeminiChecker returns the JSON checker a Gemini CLI stream's records
// must pass: no repeated member name anywhere. It locates the members of
// the record types (geminiReads), and the first other one, which is enough
// to note it unknown.
func NewGeminiChecker() *stream.Checker {
	return &stream.Checker{Locate: stream.Locate{Reads: geminiReads}}
}

// geminiReads reports whether a record member of this name is one of any
// record type's.
func geminiReads(name []byte) bool {
	if string(name) == "type" {
		return true
	}
	for i := range geminiRecords {
		if geminiRecords[i].index(name) >= 0 {
			return true
		}
	}
	return false
}

// ReadGemini runs a Gemini CLI stream-json stream (SPEC §11) through the
// engine.
func ReadGemini(r io.Reader, rules audit.Rules) Input {
	engine := audit.NewEngine(rules)
	return readRecords(r, NewGeminiChecker(), engine, "gemini-cli", NewGemini(engine))
}

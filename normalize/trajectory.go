package normalize

import (
	"slices"
	"time"

	json "github.com/goccy/go-json"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// Harnesses are the trajectory harnesses of SPEC §5, in a fixed order.
var Harnesses = []string{"claude-code", "opencode", "pi"}

// memoryTool finds a memory tool by its exact name as the harness
// Harnesses[h] spells it: the bare catalog name for every harness, plus
// the harness's native MCP spelling for the catalog's servers (Claude Code
// and Pi: mcp__SERVER__TOOL; OpenCode: SERVER_TOOL). Never by suffix.
func (t *Trajectory) memoryTool(h int, name []byte) audit.Tool {
	if tool := t.catalog.Bare(name); tool != audit.NoTool {
		return tool
	}
	switch Harnesses[h] {
	case "claude-code", "pi": // Pi 0.99+ names MCP tools itself (SPEC §5)
		return t.catalog.Resolve(audit.SpellMCP, name)
	case "opencode":
		return t.catalog.Resolve(audit.SpellJoined, name)
	}
	return audit.NoTool
}

// callState is what is kept per call id: its ref, its catalog tool as each
// harness names it, and whether its result arrived.
type callState struct {
	ref    int
	tools  [3]audit.Tool // by the harness's index in Harnesses
	result bool
}

// Trajectory maps a normalized trajectory (SPEC §5), streamed part by part,
// to events. The harness may arrive after the events, and tool names mean
// different tools per harness, so it feeds one engine per harness and the
// report uses the one the document names.
type Trajectory struct {
	engines map[string]*audit.Engine
	catalog *audit.Catalog

	harness string
	seen    map[string]bool // required top-level members seen
	lastSeq int64
	haveSeq bool
	calls   map[stream.Key]callState
	capture bool
	text    textJSON
	seq     int64 // scratch for the event being decoded
	// lastUnknown is the last place an unknown field was noted at: a
	// document with a million unknown members notes its place once, not a
	// million times.
	lastUnknown struct {
		record int
		where  string
		set    bool
	}
}

// NewTrajectory returns a trajectory normalizer that judges by rules.
func NewTrajectory(rules audit.Rules) *Trajectory {
	t := &Trajectory{
		engines: map[string]*audit.Engine{},
		seen:    map[string]bool{},
		calls:   map[stream.Key]callState{},
	}
	for _, h := range Harnesses {
		t.engines[h] = audit.NewEngine(rules)
	}
	t.catalog = t.engines[Harnesses[0]].Catalog()
	return t
}

// Harness is the document's harness once known and supported, else "".
func (t *Trajectory) Harness() string { return t.harness }

// Engine is the engine of the document's harness (or, before it is known,
// one of them: their counts agree).
func (t *Trajectory) Engine() *audit.Engine {
	if t.harness != "" {
		return t.engines[t.harness]
	}
	return t.engines[Harnesses[0]]
}

// invalid rejects the document with code at record (-1: none) and where, a
// place of SPEC §5 ("capture.truncated", "events[]", "tool_result.payload").
func invalid(code audit.Code, record int, where string) error {
	return audit.InvalidAt(code, record, where, nil)
}

// each applies f to every engine.
func (t *Trajectory) each(f func(h string, e *audit.Engine) audit.Code) audit.Code {
	return t.eachAt(func(h int, e *audit.Engine) audit.Code { return f(Harnesses[h], e) })
}

// eachAt applies f to every engine, with its harness's index in Harnesses.
func (t *Trajectory) eachAt(f func(h int, e *audit.Engine) audit.Code) audit.Code {
	for h, name := range Harnesses {
		if code := f(h, t.engines[name]); code != 0 {
			return code
		}
	}
	return 0
}

func (t *Trajectory) note(code audit.Code, record int, where string) {
	t.each(func(_ string, e *audit.Engine) audit.Code { e.Note(code, record, where); return 0 })
}

// unknownField notes a member outside the contract in the object at where
// ("" for the document itself), at record.
func (t *Trajectory) unknownField(record int, where string) {
	u := &t.lastUnknown
	if u.set && u.record == record && u.where == where {
		return // the engines keep the first record of a place only
	}
	u.record, u.where, u.set = record, where, true
	t.note(audit.UnknownField, record, where)
}

func (t *Trajectory) add(ev audit.Event) audit.Code {
	return t.each(func(_ string, e *audit.Engine) audit.Code { return e.Add(ev) })
}

// topMembers are the document's members (SPEC §5).
var topMembers = []string{"schema_version", "session_id", "harness", "project_root", "started_at", "ended_at", "events", "capture"}

// Member takes a top-level member other than the events array. Its name
// is only read: an unknown one is not kept, not even as a string.
func (t *Trajectory) Member(raw, v []byte) error {
	name := "" // the member of the contract raw names, if any
	for _, m := range topMembers {
		if string(raw) == m {
			name = m
			break
		}
	}
	var ok bool
	switch name {
	case "schema_version":
		if !stream.IsInteger(v) {
			return invalid(audit.SchemaViolation, -1, name)
		}
		if string(v) != "1" {
			return invalid(audit.UnsupportedSchemaVersion, -1, name)
		}
		ok = true
	case "session_id", "project_root":
		ok = stream.TypeOf(v) == stream.String
	case "harness":
		if stream.TypeOf(v) != stream.String {
			return invalid(audit.SchemaViolation, -1, name)
		}
		h := stream.Text(v)
		for _, s := range Harnesses {
			if s == h {
				t.harness = h
			}
		}
		if t.harness == "" {
			return invalid(audit.UnsupportedHarness, -1, name)
		}
		ok = true
	case "started_at", "ended_at":
		ok = isTimestamp(v)
	case "events":
		// Reached only when `events` is not an array.
		return invalid(audit.SchemaViolation, -1, name)
	case "capture":
		return t.captureMember(v)
	default:
		t.unknownField(-1, "")
		return nil
	}
	if !ok {
		return invalid(audit.SchemaViolation, -1, name)
	}
	t.seen[name] = true
	return nil
}

// isTimestamp reports whether v is a string holding an RFC 3339 date-time
// (section 5.6): time.Parse alone also takes a comma before the fraction
// and refuses the lower-case "t" and "z" that RFC 3339 allows.
func isTimestamp(v []byte) bool {
	if stream.TypeOf(v) != stream.String {
		return false
	}
	s := stream.Text(v)
	// full-date "T" partial-time: YYYY-MM-DDTHH:MM:SS
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	rest := s[19:]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
		isDigits(rest[1:3]) && isDigits(rest[4:6]) && rest[1:3] <= "23" && rest[4:6] <= "59":
	default:
		return false
	}
	// The calendar and clock ranges, leap seconds aside (RFC 3339 allows
	// second 60; time.Parse does not).
	date := s[:10] + "T" + s[11:17] + "00Z"
	_, err := time.Parse(time.RFC3339, date)
	return err == nil && s[17:19] <= "60"
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (t *Trajectory) captureMember(v []byte) error {
	if stream.TypeOf(v) != stream.Object {
		return invalid(audit.SchemaViolation, -1, "capture")
	}
	// Members are matched by their exact names: a JSON decoder that folds
	// case would take "Captured_At" for the required "captured_at".
	var capturedAt, reasoningBlocks, unknownRecords, truncated []byte
	stream.Members(v, func(name, value []byte) bool {
		switch string(name) {
		case "captured_at":
			capturedAt = value
		case "omitted_reasoning_blocks":
			reasoningBlocks = value
		case "omitted_unknown_records":
			unknownRecords = value
		case "truncated":
			truncated = value
		default:
			t.unknownField(-1, "capture")
		}
		return true
	})
	reasoning, ok1 := count(reasoningBlocks)
	unknown, ok2 := count(unknownRecords)
	switch {
	case !isTimestamp(capturedAt):
		return invalid(audit.SchemaViolation, -1, "capture.captured_at")
	case !ok1:
		return invalid(audit.SchemaViolation, -1, "capture.omitted_reasoning_blocks")
	case !ok2:
		return invalid(audit.SchemaViolation, -1, "capture.omitted_unknown_records")
	case stream.TypeOf(truncated) != stream.Bool:
		return invalid(audit.SchemaViolation, -1, "capture.truncated")
	}
	t.each(func(_ string, e *audit.Engine) audit.Code {
		e.AddReasoning(reasoning)
		e.AddUnknownRecords(unknown)
		if unknown > 0 {
			e.Note(audit.UnknownRecordsOmitted, -1, "capture.omitted_unknown_records")
		}
		if string(truncated) == "true" {
			e.Note(audit.CaptureTruncated, -1, "capture.truncated")
		}
		return 0
	})
	t.capture = true
	return nil
}

// count decodes a JSON integer ≥ 0 that fits an int.
func count(v []byte) (int, bool) {
	if !nonNegativeInteger(v) {
		return 0, false
	}
	var n int
	if err := json.Unmarshal(v, &n); err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// event is the decoded envelope of one element of `events`.
type event struct {
	sequence, kind, payload []byte
}

// Event takes the element at index i of `events` (nothing is located in
// it: the trajectory's decoder walks its members).
func (t *Trajectory) Event(v []byte, _ stream.Located, i int) error {
	if stream.TypeOf(v) != stream.Object {
		return invalid(audit.SchemaViolation, i, "events[]")
	}
	var ev event
	stream.Members(v, func(name, value []byte) bool {
		switch string(name) {
		case "sequence":
			ev.sequence = value
		case "kind":
			ev.kind = value
		case "payload":
			ev.payload = value
		default:
			t.unknownField(i, "events[]")
		}
		return true
	})
	switch {
	case !stream.IsInteger(ev.sequence):
		return invalid(audit.SchemaViolation, i, whereSequence)
	case stream.TypeOf(ev.kind) != stream.String:
		return invalid(audit.SchemaViolation, i, "events[].kind")
	case stream.TypeOf(ev.payload) != stream.Object:
		return invalid(audit.SchemaViolation, i, "events[].payload")
	}
	// Decoded into the normalizer's own field: a local would escape to
	// the heap through Unmarshal, once per event.
	if err := json.Unmarshal(ev.sequence, &t.seq); err != nil {
		return audit.InvalidAt(audit.SchemaViolation, i, whereSequence, err)
	}
	seq := t.seq
	switch {
	case !t.haveSeq:
		if seq != 0 {
			t.note(audit.SequenceGap, i, whereSequence)
		}
	case seq <= t.lastSeq:
		return invalid(audit.SequenceOutOfOrder, i, whereSequence)
	case seq != t.lastSeq+1:
		t.note(audit.SequenceGap, i, whereSequence)
	}
	t.haveSeq, t.lastSeq = true, seq

	var code audit.Code
	switch stream.Text(ev.kind) {
	case "tool_invocation":
		return t.invocation(ev.payload, i)
	case "tool_result":
		return t.result(ev.payload, i)
	case "model_output", "user_input":
		kind, where := audit.EventCounted, "user_input.payload"
		if stream.TextIs(ev.kind, "model_output") {
			kind, where = audit.EventNarration, "model_output.payload"
		}
		var text []byte
		stream.Members(ev.payload, func(name, value []byte) bool {
			if string(name) == "text" {
				text = value
			} else {
				t.unknownField(i, where)
			}
			return true
		})
		if stream.TypeOf(text) != stream.String {
			return invalid(audit.SchemaViolation, i, where+".text")
		}
		code = t.add(audit.Event{Kind: kind, Record: i})
	default:
		code = t.add(audit.Event{Kind: audit.EventUnknown, Record: i})
	}
	if code != 0 {
		return invalid(code, i, "")
	}
	return nil
}

const whereSequence = "events[].sequence"

func callKey(id []byte) stream.Key { return stream.KeyOf(stream.Unquote(id)) }

func (t *Trajectory) invocation(p []byte, i int) error {
	var id, tool, input []byte
	stream.Members(p, func(name, value []byte) bool {
		switch string(name) {
		case "call_id":
			id = value
		case "tool_name":
			tool = value
		case "input":
			input = value
		default:
			t.unknownField(i, "tool_invocation.payload")
		}
		return true
	})
	switch {
	case stream.TypeOf(id) != stream.String:
		return invalid(audit.SchemaViolation, i, "tool_invocation.payload.call_id")
	case stream.TypeOf(tool) != stream.String:
		return invalid(audit.SchemaViolation, i, "tool_invocation.payload.tool_name")
	case stream.TypeOf(input) != stream.Object:
		return invalid(audit.SchemaViolation, i, "tool_invocation.payload.input")
	}
	k := callKey(id)
	if _, dup := t.calls[k]; dup {
		return invalid(audit.DuplicateCallID, i, "tool_invocation.payload.call_id")
	}
	c := callState{ref: i}
	name := stream.Unquote(tool)
	for h := range Harnesses {
		c.tools[h] = t.memoryTool(h, name)
	}
	t.calls[k] = c
	code := t.eachAt(func(h int, e *audit.Engine) audit.Code {
		return e.Add(audit.Event{Kind: audit.EventCall, Ref: i, Tool: c.tools[h], ProjectScoped: scoped(t.catalog, c.tools[h], input),
			Record: i, Where: "tool_invocation"})
	})
	if code != 0 {
		return invalid(code, i, "")
	}
	return nil
}

func (t *Trajectory) result(p []byte, i int) error {
	var id, isError, output []byte
	stream.Members(p, func(name, value []byte) bool {
		switch string(name) {
		case "call_id":
			id = value
		case "is_error":
			isError = value
		case "output":
			output = value
		default:
			t.unknownField(i, "tool_result.payload")
		}
		return true
	})
	switch {
	case stream.TypeOf(id) != stream.String:
		return invalid(audit.SchemaViolation, i, "tool_result.payload.call_id")
	case stream.TypeOf(isError) != stream.Bool:
		return invalid(audit.SchemaViolation, i, "tool_result.payload.is_error")
	case output == nil:
		return invalid(audit.SchemaViolation, i, "tool_result.payload.output")
	}
	k := callKey(id)
	c, ok := t.calls[k]
	switch {
	case !ok:
		return invalid(audit.OrphanResult, i, "tool_result.payload.call_id")
	case c.result:
		return invalid(audit.DuplicateResult, i, "tool_result.payload.call_id")
	}
	c.result = true
	t.calls[k] = c
	ev := audit.Event{Kind: audit.EventResult, Ref: c.ref, Record: i, Where: "tool_result"}
	if string(isError) == "true" {
		ev.Outcome = audit.Failed
	}
	// The output's value (SPEC §5), read once when a harness's tool is a
	// search: an object, a string holding one JSON object, or an array of
	// content blocks whose first text block holds one.
	var value []byte
	if ev.Outcome == audit.OK && slices.ContainsFunc(c.tools[:], t.catalog.IsSearch) {
		value = t.text.outputObject(output)
	}
	code := t.eachAt(func(h int, e *audit.Engine) audit.Code {
		ev.Retrieval = retrieves(t.catalog, c.tools[h], value)
		return e.Add(ev)
	})
	if code != 0 {
		return invalid(code, i, "")
	}
	return nil
}

// End ends the document: required members must all have been seen. It
// returns the engine whose checks the report uses.
func (t *Trajectory) End(hasEvents bool) (*audit.Engine, error) {
	for _, name := range []string{"schema_version", "session_id", "harness", "project_root", "started_at", "ended_at"} {
		if !t.seen[name] {
			return nil, invalid(audit.SchemaViolation, -1, name)
		}
	}
	switch {
	case !t.capture:
		return nil, invalid(audit.SchemaViolation, -1, "capture")
	case !hasEvents:
		return nil, invalid(audit.SchemaViolation, -1, "events")
	}
	return t.Engine(), nil
}

// TrajectoryPlaces lists every place a trajectory finding or error may name
// (SPEC §5's members and paths), for tests and tools that check a report.
func TrajectoryPlaces() []string {
	return []string{
		"schema_version", "session_id", "harness", "project_root", "started_at", "ended_at", "events", "capture",
		"capture.captured_at", "capture.omitted_reasoning_blocks", "capture.omitted_unknown_records", "capture.truncated",
		"events[]", whereSequence, "events[].kind", "events[].payload",
		"tool_invocation", "tool_invocation.payload", "tool_invocation.payload.call_id",
		"tool_invocation.payload.tool_name", "tool_invocation.payload.input",
		"tool_result", "tool_result.payload", "tool_result.payload.call_id",
		"tool_result.payload.is_error", "tool_result.payload.output",
		"model_output.payload", "model_output.payload.text", "user_input.payload", "user_input.payload.text",
	}
}

package normalize

import (
	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/stream"
)

// Codex feeds the records of a codex exec --json stream, one at a time,
// through the JSON checks, the record decoder and the lifecycle FSMs, and
// gives the check engine the normalized events (SPEC §4.4).
type Codex struct {
	engine  *audit.Engine
	catalog *audit.Catalog
	checker stream.Checker
	decoder lifecycle.Decoder
	machine *lifecycle.Machine
	rec     lifecycle.Record
	text    textJSON
	n       int // the record being read
	// failedAt is the line of turn.failed, 0 before it.
	failedAt int
}

// NewCodex returns a normalizer that feeds e.
func NewCodex(e *audit.Engine) *Codex {
	return &Codex{
		engine:  e,
		catalog: e.Catalog(),
		checker: *NewChecker(),
		machine: lifecycle.NewMachine(),
	}
}

// record takes the record on 1-based line n, checking it first (for tests;
// the front end reads checked records). An invalid record returns an
// *audit.InputError; nothing after it may be fed.
func (c *Codex) record(line []byte, n int) error {
	code := c.checker.Check(line)
	return c.Checked(line, n, stream.Verdict{Code: code, Cause: c.checker.Cause(), Located: c.checker.Located})
}

// NewChecker returns the JSON checker that a codex exec stream's records
// must pass, for a reader that checks records ahead (stream.Prefetch).
func NewChecker() *stream.Checker { return &stream.Checker{Locate: lifecycle.Locate} }

// Checked is Record for a record already checked by a NewChecker: v is the
// checker's verdict on line, the record on line n.
func (c *Codex) Checked(line []byte, n int, v stream.Verdict) error {
	if v.Code != 0 {
		return audit.Invalid(v.Code, n, v.Cause)
	}
	c.n = n
	rec := &c.rec
	if code := c.decoder.DecodeChecked(line, &v.Located, rec); code != 0 {
		if c.machine.Ended() {
			// SPEC §4.2: whatever its type; the type may be unreadable.
			return audit.Invalid(audit.EventAfterTerminalTurn, n, nil)
		}
		return audit.InvalidAt(code, n, rec.Where, nil)
	}
	step, code := c.machine.Apply(rec)
	switch code {
	case 0:
	case audit.DuplicateItemID, audit.OrphanUpdate, audit.ItemMismatch:
		return audit.InvalidAt(code, n, rec.Place(), nil)
	default: // the turn FSM's codes
		return audit.InvalidAt(code, n, rec.Type.String(), nil)
	}
	if !step.Outside {
		for _, where := range rec.Unknown {
			c.engine.Note(audit.UnknownField, n, where)
		}
	}
	switch rec.Type {
	case lifecycle.UnknownRecord:
		code = c.engine.Add(audit.Event{Kind: audit.EventUnknown, Record: n})
	case lifecycle.StreamError:
		code = c.engine.Add(audit.Event{Kind: audit.EventStreamError, Record: n})
	case lifecycle.TurnFailed:
		c.failedAt = n
	case lifecycle.ItemStarted, lifecycle.ItemUpdated, lifecycle.ItemCompleted:
		if step.Outside {
			code = c.engine.Add(audit.Event{Kind: audit.EventUnknown, Record: n, Where: rec.Type.String()})
			break
		}
		code = c.item(step)
	}
	if code != 0 {
		return audit.Invalid(code, n, nil)
	}
	return nil
}

func (c *Codex) item(step lifecycle.Step) audit.Code {
	it := &c.rec.Item
	if !it.Type.IsCall() {
		if step.Event != lifecycle.EvComplete {
			return 0
		}
		kind := audit.EventCounted
		switch it.Type {
		case lifecycle.AgentMessage:
			kind = audit.EventNarration
		case lifecycle.Reasoning:
			kind = audit.EventReasoning
		}
		return c.engine.Add(audit.Event{Kind: kind, Record: c.n, Where: c.rec.Place()})
	}
	switch step.Event {
	case lifecycle.EvStart:
		return c.engine.Add(c.call(step, false))
	case lifecycle.EvComplete:
		if step.From == lifecycle.Absent {
			if code := c.engine.Add(c.call(step, it.Type.HasStart())); code != 0 {
				return code
			}
		}
		return c.engine.Add(c.result(step))
	}
	return 0 // an update is never an extra call
}

func (c *Codex) call(step lifecycle.Step, terminalOnly bool) audit.Event {
	it := &c.rec.Item
	ev := audit.Event{Kind: audit.EventCall, Ref: step.Seq, TerminalOnly: terminalOnly,
		Record: c.n, Where: c.rec.Place()}
	switch it.Type {
	case lifecycle.UnknownItem:
		ev.UnknownType = true
	case lifecycle.McpToolCall:
		// Server and tool are apart in a Codex item (SPEC §16.6).
		ev.Tool = c.catalog.Lookup(it.Server, it.Tool)
		ev.ProjectScoped = scoped(c.catalog, ev.Tool, it.Arguments)
	}
	return ev
}

func (c *Codex) result(step lifecycle.Step) audit.Event {
	it := &c.rec.Item
	ev := audit.Event{Kind: audit.EventResult, Ref: step.Seq, Record: c.n, Where: c.rec.Place()}
	// The place that decided the outcome: the error, else a result object,
	// else the status.
	errored := it.Error != nil && stream.TypeOf(it.Error) != stream.Null
	switch {
	case errored:
		ev.Where = it.Type.ErrorPlace()
	case it.Type == lifecycle.McpToolCall && stream.TypeOf(it.Result) == stream.Object &&
		it.Status != lifecycle.InProgress && it.Status != lifecycle.OtherStatus:
		ev.Where = it.Type.ResultPlace()
	case it.Type.StatusPlace() != "":
		ev.Where = it.Type.StatusPlace()
	}
	switch it.Status {
	case lifecycle.InProgress:
		ev.Outcome = audit.Unfinished
		return ev
	case lifecycle.Failed, lifecycle.Declined:
		ev.Outcome = audit.Failed
	case lifecycle.OtherStatus:
		ev.Outcome = audit.Unrecognized
	}
	if errored {
		ev.Outcome = audit.Failed
	}
	if it.Type == lifecycle.McpToolCall && ev.Outcome == audit.OK {
		// The item's server and tool are its start's (the FSM holds them).
		if tool := c.catalog.Lookup(it.Server, it.Tool); c.catalog.IsSearch(tool) {
			ev.Retrieval = retrieves(c.catalog, tool, c.value(it))
		}
	}
	return ev
}

// value is an MCP result's value: the structured content when it is an
// object, else the first text block of the content, parsed as JSON (SPEC
// §4.4); nil when it holds none.
func (c *Codex) value(it *lifecycle.Item) []byte {
	if stream.TypeOf(it.Result) != stream.Object {
		return nil
	}
	if stream.TypeOf(it.StructuredContent) == stream.Object {
		return it.StructuredContent
	}
	return c.text.object(firstTextBlock(it.Content))
}

// End reports the end of input to the engine.
func (c *Codex) End() error {
	switch code := c.machine.End(); code {
	case audit.TurnFailed:
		c.engine.Note(code, c.failedAt, lifecycle.TurnFailed.String())
	case 0:
	default: // no terminal record: the input as a whole
		c.engine.Note(code, -1, "")
	}
	return nil
}

package lifecycle

import (
	"fmt"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// TurnState is the state of the turn FSM (SPEC §4.2).
type TurnState uint8

const (
	TurnNone TurnState = iota // nothing seen yet
	TurnPre                   // after thread.started or pre-turn notices
	TurnOpen                  // after turn.started
	TurnDone                  // after turn.completed or turn.failed
	numTurnStates
)

var turnStateNames = [numTurnStates]string{"none", "pre-turn", "open", "done"}

func (s TurnState) String() string {
	if s < numTurnStates {
		return turnStateNames[s]
	}
	return fmt.Sprintf("TurnState(%d)", uint8(s))
}

// TurnEvent is what a record means to the turn FSM.
type TurnEvent uint8

const (
	EvThreadStarted TurnEvent = iota
	EvTurnStarted
	EvItem      // an item record, other than a completed error item
	EvErrorItem // item.completed of an `error` item: allowed before the turn
	EvStreamError
	EvTurnEnd
	EvUnknown
	numTurnEvents
)

var turnEventNames = [numTurnEvents]string{"thread.started", "turn.started", "item", "error item", "error", "turn end", "unknown record"}

func (e TurnEvent) String() string {
	if e < numTurnEvents {
		return turnEventNames[e]
	}
	return fmt.Sprintf("TurnEvent(%d)", uint8(e))
}

type turnStep struct {
	next TurnState
	code audit.Code // non-zero: the event is rejected with this code
}

// turnTable is the turn FSM: every (state, event) pair is listed.
var turnTable = [numTurnStates][numTurnEvents]turnStep{
	TurnNone: {
		EvThreadStarted: {next: TurnPre},
		EvTurnStarted:   {next: TurnOpen},
		EvItem:          {code: audit.EventOutsideTurn},
		EvErrorItem:     {next: TurnPre},
		EvStreamError:   {next: TurnPre},
		EvTurnEnd:       {code: audit.EventOutsideTurn},
		EvUnknown:       {next: TurnPre},
	},
	TurnPre: {
		EvThreadStarted: {code: audit.ThreadStartedMisplaced},
		EvTurnStarted:   {next: TurnOpen},
		EvItem:          {code: audit.EventOutsideTurn},
		EvErrorItem:     {next: TurnPre},
		EvStreamError:   {next: TurnPre},
		EvTurnEnd:       {code: audit.EventOutsideTurn},
		EvUnknown:       {next: TurnPre},
	},
	TurnOpen: {
		EvThreadStarted: {code: audit.ThreadStartedMisplaced},
		EvTurnStarted:   {code: audit.MultipleTurns},
		EvItem:          {next: TurnOpen},
		EvErrorItem:     {next: TurnOpen},
		EvStreamError:   {next: TurnOpen},
		EvTurnEnd:       {next: TurnDone},
		EvUnknown:       {next: TurnOpen},
	},
	TurnDone: {
		EvThreadStarted: {code: audit.EventAfterTerminalTurn},
		EvTurnStarted:   {code: audit.EventAfterTerminalTurn},
		EvItem:          {code: audit.EventAfterTerminalTurn},
		EvErrorItem:     {code: audit.EventAfterTerminalTurn},
		EvStreamError:   {code: audit.EventAfterTerminalTurn},
		EvTurnEnd:       {code: audit.EventAfterTerminalTurn},
		EvUnknown:       {code: audit.EventAfterTerminalTurn},
	},
}

// Turn is the turn FSM. A rejected event leaves it unchanged.
type Turn struct {
	State  TurnState
	Failed bool // ended with turn.failed
}

// Step applies e and returns the rejecting code, or 0.
func (t *Turn) Step(e TurnEvent) audit.Code {
	s := turnTable[t.State][e]
	if s.code != 0 {
		return s.code
	}
	t.State = s.next
	return 0
}

// ItemState is the state of one item (SPEC §4.3).
type ItemState uint8

const (
	Absent ItemState = iota
	Started
	Updated
	Done
	numItemStates
)

var itemStateNames = [numItemStates]string{"absent", "started", "updated", "completed"}

func (s ItemState) String() string {
	if s < numItemStates {
		return itemStateNames[s]
	}
	return fmt.Sprintf("ItemState(%d)", uint8(s))
}

// ItemEvent is an item record's lifecycle event.
type ItemEvent uint8

const (
	EvStart ItemEvent = iota
	EvUpdate
	EvComplete
	numItemEvents
)

var itemEventNames = [numItemEvents]string{"item.started", "item.updated", "item.completed"}

func (e ItemEvent) String() string {
	if e < numItemEvents {
		return itemEventNames[e]
	}
	return fmt.Sprintf("ItemEvent(%d)", uint8(e))
}

type itemStep struct {
	next  ItemState
	code  audit.Code
	check bool // the record must keep the item's identity
}

// itemTable is the per-item FSM: every (state, event) pair is listed.
var itemTable = [numItemStates][numItemEvents]itemStep{
	Absent: {
		EvStart:    {next: Started},
		EvUpdate:   {code: audit.OrphanUpdate},
		EvComplete: {next: Done}, // terminal-only: judged by the caller
	},
	Started: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {next: Updated, check: true},
		EvComplete: {next: Done, check: true},
	},
	Updated: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {next: Updated, check: true},
		EvComplete: {next: Done, check: true},
	},
	Done: {
		EvStart:    {code: audit.DuplicateItemID},
		EvUpdate:   {code: audit.OrphanUpdate},
		EvComplete: {code: audit.DuplicateItemID},
	},
}

// Step is what an accepted record did, for the normalizer.
type Step struct {
	Event ItemEvent
	From  ItemState // the item's state before the record
	Seq   int       // the item's number in order of first appearance
	// Outside is set for an item record the contract does not have: an
	// item.started of a type that exists only at completion (SPEC §4.3).
	// It is an unknown record; the item FSM did not see it.
	Outside bool
}

// open is what is kept for an item in flight.
type open struct {
	identity stream.Key
	state    ItemState
	seq      int
}

// Machine runs both FSMs over a codex exec stream. It keeps, per item in
// flight, the identity digest; per finished item, only its id digest.
type Machine struct {
	turn  Turn
	open  map[stream.Key]open
	done  doneSet
	items int
}

// NewMachine returns a machine at the start of a stream.
func NewMachine() *Machine {
	return &Machine{open: make(map[stream.Key]open, 16)}
}

// Apply runs rec through the FSMs. For item records it returns the item's
// step. A rejected record (non-zero code) leaves the machine unchanged.
func (m *Machine) Apply(rec *Record) (Step, audit.Code) {
	ev, isItem := turnEventOf(rec)
	turn := m.turn
	if code := turn.Step(ev); code != 0 {
		return Step{}, code
	}
	if !isItem {
		m.turn = turn
		if rec.Type == TurnFailed {
			m.turn.Failed = true
		}
		return Step{}, 0
	}
	it := &rec.Item
	if rec.Type == ItemStarted && !it.Type.HasStart() && it.Type != UnknownItem {
		m.turn = turn
		return Step{Outside: true}, 0
	}
	var ie ItemEvent
	switch rec.Type {
	case ItemStarted:
		ie = EvStart
	case ItemUpdated:
		ie = EvUpdate
	default:
		ie = EvComplete
	}
	o, inFlight := m.open[it.Key]
	from := o.state
	if !inFlight {
		from = Absent
		if m.done.has(it) {
			from = Done
		}
	}
	s := itemTable[from][ie]
	if s.code != 0 {
		return Step{}, s.code
	}
	if s.check && o.identity != it.Identity {
		return Step{}, audit.ItemMismatch
	}
	m.turn = turn
	step := Step{Event: ie, From: from, Seq: o.seq}
	if from == Absent {
		step.Seq = m.items
		m.items++
	}
	switch s.next {
	case Done:
		if inFlight {
			delete(m.open, it.Key)
		}
		m.done.add(it)
	default:
		m.open[it.Key] = open{identity: it.Identity, state: s.next, seq: step.Seq}
	}
	return step, 0
}

func turnEventOf(rec *Record) (TurnEvent, bool) {
	switch rec.Type {
	case ThreadStarted:
		return EvThreadStarted, false
	case TurnStarted:
		return EvTurnStarted, false
	case TurnCompleted, TurnFailed:
		return EvTurnEnd, false
	case StreamError:
		return EvStreamError, false
	case ItemStarted, ItemUpdated, ItemCompleted:
		if rec.Type == ItemCompleted && rec.Item.Type == ErrorItem {
			return EvErrorItem, true
		}
		return EvItem, true
	}
	return EvUnknown, false
}

// Ended reports whether the terminal turn record was seen: any record after
// it is event_after_terminal_turn, whatever else is wrong with it.
func (m *Machine) Ended() bool { return m.turn.State == TurnDone }

// End reports what the end of input means for the turn: TurnIncomplete,
// TurnFailed or 0.
func (m *Machine) End() audit.Code {
	switch {
	case m.turn.State != TurnDone:
		return audit.TurnIncomplete
	case m.turn.Failed:
		return audit.TurnFailed
	}
	return 0
}

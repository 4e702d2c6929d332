package lifecycle

import (
	"fmt"
	"slices"

	"github.com/cairn-audit/cairn/stream"
)

// The Codex contract as data (SPEC §4, reference/codex-exec-events.md): one
// descriptor row per record type, item type and status, as http2 keeps its
// frame names and parsers. A new Codex release that adds a member or a type
// is one row here, plus captures of the real binary in testdata/codex/real.

// RecordType is the top-level `type` of a codex exec record.
type RecordType uint8

const (
	UnknownRecord RecordType = iota
	ThreadStarted
	TurnStarted
	TurnCompleted
	TurnFailed
	ItemStarted
	ItemUpdated
	ItemCompleted
	StreamError // a top-level `error` record
	numRecordTypes
)

// recordDesc describes a record type: its name and its members besides
// type and item.
type recordDesc struct {
	name    string
	members fields
}

var recordTypes = [numRecordTypes]recordDesc{
	UnknownRecord: {},
	ThreadStarted: {"thread.started", fields{nThreadID: tString}},
	TurnStarted:   {"turn.started", fields{}},
	TurnCompleted: {"turn.completed", fields{nUsage: tObject}},
	TurnFailed:    {"turn.failed", fields{nError: tObject}},
	ItemStarted:   {"item.started", fields{}},
	ItemUpdated:   {"item.updated", fields{}},
	ItemCompleted: {"item.completed", fields{}},
	StreamError:   {"error", fields{nMessage: tString}},
}

// String is the record type's name in the contract; "" for UnknownRecord,
// whose name is the input's and never reported.
func (t RecordType) String() string {
	if t < numRecordTypes {
		return recordTypes[t].name
	}
	return fmt.Sprintf("RecordType(%d)", uint8(t))
}

// recordTypeOf is the record type named t, or UnknownRecord.
func recordTypeOf(t []byte) RecordType {
	return recordTypeIndex.find(t, UnknownRecord)
}

// ItemType is an item's `type`.
type ItemType uint8

const (
	UnknownItem ItemType = iota
	AgentMessage
	Reasoning
	CommandExecution
	FileChange
	McpToolCall
	CollabToolCall
	WebSearch
	TodoList
	ErrorItem
	numItemTypes
)

// itemDesc describes an item type.
type itemDesc struct {
	name     string
	members  fields   // besides id and type
	statuses []Status // the values its status may take; nil: it has none
	// call: its items are tool calls, effects that are dispatched and
	// complete.
	call bool
	// started: codex prints an item.started for it; an item of a type
	// without one exists only at item.completed (or, for todo_list, from its
	// first plan update).
	started bool
}

var itemTypes = [numItemTypes]itemDesc{
	// An unknown item is judged as a whole (an opaque call), its members
	// are its own; its dispatch order is unknown anyway.
	UnknownItem:  {call: true},
	AgentMessage: {name: "agent_message", members: fields{nText: tString}},
	Reasoning:    {name: "reasoning", members: fields{nText: tString}},
	CommandExecution: {name: "command_execution",
		members: fields{nCommand: tString, nAggregatedOutput: tString,
			nExitCode: tInteger | tNull, nStatus: tString},
		statuses: []Status{InProgress, Completed, Failed, Declined},
		call:     true, started: true},
	FileChange: {name: "file_change",
		members:  fields{nChanges: tArray, nStatus: tString},
		statuses: []Status{InProgress, Completed, Failed},
		call:     true, started: true},
	McpToolCall: {name: "mcp_tool_call",
		members: fields{nServer: tString, nTool: tString, nArguments: tAny,
			nResult: tObject | tNull, nError: tObject | tNull, nStatus: tString},
		statuses: []Status{InProgress, Completed, Failed, Declined},
		call:     true, started: true},
	CollabToolCall: {name: "collab_tool_call",
		members: fields{nTool: tString, nSenderThreadID: tString,
			nReceiverThreadIDs: tArray, nPrompt: tString | tNull,
			nAgentsStates: tObject, nStatus: tString},
		statuses: []Status{InProgress, Completed, Failed},
		call:     true, started: true},
	WebSearch: {name: "web_search",
		// results (free-form) come with searches the client runs
		// (codex 0.157+).
		members: fields{nQuery: tString, nAction: tObject, nResults: tArray},
		call:    true, started: true},
	TodoList:  {name: "todo_list", members: fields{nItems: tArray}, started: true},
	ErrorItem: {name: "error", members: fields{nMessage: tString}},
}

// String is the item type's name in the contract; "" for UnknownItem.
func (t ItemType) String() string {
	if t < numItemTypes {
		return itemTypes[t].name
	}
	return fmt.Sprintf("ItemType(%d)", uint8(t))
}

// itemTypeOf is the item type named t, or UnknownItem.
func itemTypeOf(t []byte) ItemType {
	return itemTypeIndex.find(t, UnknownItem)
}

// IsCall reports whether items of this type are tool calls: effects that
// are dispatched and complete. Unknown item types count as (opaque) calls.
func (t ItemType) IsCall() bool { return itemTypes[t].call }

// HasStart reports whether codex prints an item.started for this type: a
// call of such a type seen only at completion cannot prove when it was
// dispatched.
func (t ItemType) HasStart() bool { return itemTypes[t].started }

// hasStatusValue reports whether s is one of t's status values.
func hasStatusValue(t ItemType, s Status) bool {
	for _, v := range itemTypes[t].statuses {
		if v == s {
			return true
		}
	}
	return false
}

// Status is an item's `status`.
type Status uint8

const (
	NoStatus Status = iota
	InProgress
	Completed
	Failed
	Declined
	OtherStatus // a value outside the contract
	numStatuses
)

var statusNames = [numStatuses]string{
	InProgress: "in_progress",
	Completed:  "completed",
	Failed:     "failed",
	Declined:   "declined",
}

// String is the status's name in the contract; "" for NoStatus and
// OtherStatus.
func (s Status) String() string {
	if s < numStatuses {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// statusOf is the status named s, or OtherStatus.
func statusOf(s []byte) Status {
	return statusIndex.find(s, OtherStatus)
}

// nameIndex finds a name among the rows of a table: slot h holds 1 + the
// row of a name whose hash (nameHash) is h, or of a later one's that met
// it (open addressing), 0 none. A lookup is one hash and, nearly always,
// at most one comparison, where a walk of the rows compared with each.
type nameIndex[T ~uint8] struct {
	slots [64]uint8
	names []string // by row
}

func nameHash(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	return (len(s)*7 + int(s[0])*3 + int(s[len(s)-1])) & 63
}

// indexOf indexes the rows from first on by their names.
func indexOf[T ~uint8](first T, names []string) *nameIndex[T] {
	x := &nameIndex[T]{names: names}
	for i := int(first); i < len(names); i++ {
		h := nameHash([]byte(names[i]))
		for x.slots[h] != 0 {
			h = (h + 1) & 63
		}
		x.slots[h] = uint8(i) + 1
	}
	return x
}

// find is the row named s, or none.
func (x *nameIndex[T]) find(s []byte, none T) T {
	for h := nameHash(s); x.slots[h] != 0; h = (h + 1) & 63 {
		if i := x.slots[h] - 1; x.names[i] == string(s) {
			return T(i)
		}
	}
	return none
}

var (
	recordTypeIndex = indexOf(ThreadStarted, rowNames(recordTypes[:], func(d recordDesc) string { return d.name }))
	itemTypeIndex   = indexOf(AgentMessage, rowNames(itemTypes[:], func(d itemDesc) string { return d.name }))
	statusIndex     = indexOf(InProgress, statusNames[:OtherStatus])
)

func rowNames[D any](rows []D, name func(D) string) []string {
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = name(r)
	}
	return names
}

// Locate is what the decoder reads without walking a record again: an
// item's members and an MCP result's. An item may name id twice: the
// web_search quirk of SPEC §4.1, which DecodeChecked allows for that type
// only.
var Locate = stream.Locate{Child: "item", Grandchild: "result", TwiceInChild: "id", Reads: reads}

// reads reports whether the decoder reads a member of this name in a
// record, an item or a result: any name of the contract. Of the others it
// only notes that there is one (an unknown field at that object's place).
func reads(name []byte) bool {
	switch string(name) {
	case "type", "item", "id":
		return true
	}
	return nameOf(name) != noName
}

// The closed objects inside records and items, and the enums of members
// that are not statuses.
var (
	usageFields = fields{
		nInputTokens: tInteger, nCachedInputTokens: tInteger,
		nOutputTokens: tInteger, nReasoningOutputTokens: tInteger,
	}
	messageFields = fields{nMessage: tString}
	changeFields  = fields{nPath: tString, nKind: tString}
	todoFields    = fields{nText: tString, nCompleted: tBool}
	// A result's _meta is MCP protocol metadata, free-form (codex 0.132+).
	mcpResultFields = fields{nContent: tArray, nStructuredContent: tAny, nMeta: tObject}
	changeKinds     = []string{"add", "delete", "update"}
	collabTools     = []string{"spawn_agent", "send_input", "wait", "close_agent"}
)

// memberNames are the contract's member names by number (nameOf in
// reverse), for the places findings and errors name.
var memberNames = [numNames]string{
	nThreadID:              "thread_id",
	nUsage:                 "usage",
	nError:                 "error",
	nMessage:               "message",
	nText:                  "text",
	nCommand:               "command",
	nAggregatedOutput:      "aggregated_output",
	nExitCode:              "exit_code",
	nStatus:                "status",
	nChanges:               "changes",
	nServer:                "server",
	nTool:                  "tool",
	nArguments:             "arguments",
	nResult:                "result",
	nSenderThreadID:        "sender_thread_id",
	nReceiverThreadIDs:     "receiver_thread_ids",
	nPrompt:                "prompt",
	nAgentsStates:          "agents_states",
	nQuery:                 "query",
	nAction:                "action",
	nItems:                 "items",
	nInputTokens:           "input_tokens",
	nCachedInputTokens:     "cached_input_tokens",
	nOutputTokens:          "output_tokens",
	nReasoningOutputTokens: "reasoning_output_tokens",
	nPath:                  "path",
	nKind:                  "kind",
	nCompleted:             "completed",
	nContent:               "content",
	nStructuredContent:     "structured_content",
	nMeta:                  "_meta",
	nResults:               "results",
}

// Places in the contract's vocabulary (SPEC §7.1) that findings and errors
// name: a record or item type, or a path to a member or closed object.
const (
	whereResult     = "mcp_tool_call.result"
	whereChange     = "file_change.changes[]"
	whereChangeKind = "file_change.changes[].kind"
	whereTodo       = "todo_list.items[]"
)

// recordPaths and itemPaths name each declared member of a record or item
// type ("turn.completed.usage", "mcp_tool_call.server"); itemIDPaths name an
// item's id ("item.id" for an unknown item type).
var (
	recordPaths [numRecordTypes][numNames]string
	itemPaths   [numItemTypes][numNames]string
	itemIDPaths [numItemTypes]string
)

func init() {
	for t := range recordTypes {
		for n, ft := range recordTypes[t].members {
			if ft != 0 {
				recordPaths[t][n] = recordTypes[t].name + "." + memberNames[n]
			}
		}
	}
	for t := range itemTypes {
		itemIDPaths[t] = "item.id"
		if t != int(UnknownItem) {
			itemIDPaths[t] = itemTypes[t].name + ".id"
		}
		for n, ft := range itemTypes[t].members {
			if ft != 0 {
				itemPaths[t][n] = itemTypes[t].name + "." + memberNames[n]
			}
		}
	}
}

// Place names the record in the contract's vocabulary: its item's type for
// an item record of a known item type, else its record type ("" for an
// unknown record type, whose name is the input's).
func (r *Record) Place() string {
	switch r.Type {
	case ItemStarted, ItemUpdated, ItemCompleted:
		if r.Item.Type != UnknownItem {
			return r.Item.Type.String()
		}
	}
	return r.Type.String()
}

// StatusPlace, ErrorPlace and ResultPlace name an item type's status, error
// and result members ("mcp_tool_call.status"), or "" when it has none.
func (t ItemType) StatusPlace() string { return itemPaths[t][nStatus] }
func (t ItemType) ErrorPlace() string  { return itemPaths[t][nError] }
func (t ItemType) ResultPlace() string { return itemPaths[t][nResult] }

// Places lists every place a Codex finding or error may name: the
// contract's vocabulary, for tests and tools that check a report.
func Places() []string {
	ps := []string{"type", "item.type", "item.id", whereResult, whereChange, whereChangeKind, whereTodo}
	for t := range recordTypes {
		if t == int(UnknownRecord) {
			continue
		}
		ps = append(ps, recordTypes[t].name, recordTypes[t].name+".item")
		for _, p := range recordPaths[t] {
			if p != "" {
				ps = append(ps, p)
			}
		}
	}
	for t := range itemTypes {
		if t != int(UnknownItem) {
			ps = append(ps, itemTypes[t].name, itemIDPaths[t])
		}
		for _, p := range itemPaths[t] {
			if p != "" {
				ps = append(ps, p)
			}
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

package audit

import (
	"errors"
	"fmt"
)

// Code is one entry of the fixed vocabulary of SPEC §8. Its String is the
// spec's code; everything a user reads about an input is chosen by Code.
type Code uint8

// Kind groups codes the way SPEC §8 does.
type Kind uint8

const (
	KindInvalid       Kind = iota + 1 // exit 2, no check evaluated
	KindEvidence                      // inconclusive: what the input lets us see
	KindCheck                         // inconclusive: a check's own verdict
	KindFail                          // an observed violation
	KindInformational                 // reported, changes no state
	KindLimitation                    // what no run can certify
	KindUsage                         // exit 2 before any input: a catalog that cannot be used (SPEC §16)
)

// The codes, in the order of SPEC §8.
const (
	_ Code = iota

	// invalid: input safety
	InputNotFound
	InputSymlink
	InputNotRegular
	InputUnreadable
	InputTooLarge
	InputChanged
	EmptyInput
	InputBOM
	InputUTF16
	InputNotUTF8

	// invalid: structure
	BlankRecord
	MalformedJSON
	DuplicateKey
	NestingTooDeep
	SchemaViolation
	TooManyRecords
	TooManyEvents

	// invalid: Codex lifecycle
	ThreadStartedMisplaced
	EventOutsideTurn
	MultipleTurns
	EventAfterTerminalTurn
	DuplicateItemID
	OrphanUpdate
	ItemMismatch

	// invalid: trajectory and Claude Code calls
	UnsupportedSchemaVersion
	UnsupportedHarness
	SequenceOutOfOrder
	DuplicateCallID
	OrphanResult
	DuplicateResult

	// inconclusive: evidence
	TurnIncomplete
	TurnFailed
	UnknownRecord
	UnknownField
	UnknownItemType
	CallIncomplete
	TerminalOnlyCall
	SequenceGap
	UnknownRecordsOmitted
	CaptureTruncated
	MessageAborted
	MessageSuperseded
	CallInputUnknown
	SubagentEvidenceMissing

	// inconclusive: checks
	DispatchOrderUnknown
	SearchResultMissing
	SearchResultError
	SearchResultUninterpretable
	OpaqueToolEffects
	MemoryServerUnavailable

	// fail
	ToolBeforeProjectSearch
	FirstSearchNotProjectScoped
	ProjectSearchAbsent
	DestructiveMutation
	DirectMutationUnauthorized
	UndeclaredMemoryTool

	// informational
	CaptureAuthorizationAsserted

	// limitations
	TaskQualityNotCertified
	IndirectEffectsNotCertified
	InputNotAuthenticated
	CaptureAuthorizationAssertedByCaller
	ProjectScopeAssertedByCatalog

	// usage (exit 2, no report)
	CatalogUnreadable
	CatalogInvalid

	numCodes
)

// A codeSet holds every code in 128 bits: a 128th code must not compile.
var _ [128 - int(numCodes)]struct{}

// codeInfo is the fixed text of a code: its name, kind, a one-line meaning
// and what to do next. It is the only text about an input cairn prints.
type codeInfo struct {
	name    string
	kind    Kind
	meaning string
	next    string
}

var codeTable = [numCodes]codeInfo{
	InputNotFound:   {"input_not_found", KindInvalid, "the input path does not exist", "check the path; use - to read standard input"},
	InputSymlink:    {"input_symlink", KindInvalid, "the input file, or a directory on its path as written, is a symbolic link", "pass the physical path of a regular file (for example from realpath)"},
	InputNotRegular: {"input_not_regular", KindInvalid, "the input is not a regular file (a directory, FIFO, device or socket)", "save the export to a regular file, or pipe it on standard input with -"},
	InputUnreadable: {"input_unreadable", KindInvalid, "the input could not be opened or read", "check the file's permissions and that the disk is readable"},
	InputTooLarge:   {"input_too_large", KindInvalid, "the input is larger than " + MaxBytesText, "export a single task-aligned turn; split larger sessions"},
	InputChanged:    {"input_changed", KindInvalid, "the file changed while it was being read", "audit a closed copy that nothing is still writing to"},
	EmptyInput:      {"empty_input", KindInvalid, "the input is empty (0 bytes)", "check that the export command wrote its output where cairn reads it"},
	InputBOM:        {"input_bom", KindInvalid, "the input starts with a UTF-8 byte-order mark", "re-export without a byte-order mark (plain UTF-8)"},
	InputUTF16:      {"input_utf16", KindInvalid, "the input looks like UTF-16 (a UTF-16 byte-order mark or NUL bytes), as Windows PowerShell 5 redirection writes it", "re-export as UTF-8: redirect from cmd.exe, Git Bash or WSL, or with > in PowerShell 7.4 or later"},
	InputNotUTF8:    {"input_not_utf8", KindInvalid, "the input is not valid UTF-8", "re-export the session as UTF-8 without transcoding or truncating it"},

	BlankRecord:     {"blank_record", KindInvalid, "a JSONL record is empty or whitespace only (only one terminal newline is allowed)", "remove blank lines; do not edit exports by hand"},
	MalformedJSON:   {"malformed_json", KindInvalid, "a record is not exactly one well-formed JSON object", "re-export the session; a truncated or hand-edited line cannot be audited"},
	DuplicateKey:    {"duplicate_key", KindInvalid, "an object names the same member twice, so parsers could disagree on what it says", "re-export the session; only the known web_search id quirk is accepted"},
	NestingTooDeep:  {"nesting_too_deep", KindInvalid, "JSON is nested deeper than " + MaxDepthText + " levels", "re-export the session; real exports are never nested this deep"},
	SchemaViolation: {"schema_violation", KindInvalid, "a field the audit depends on is missing or of the wrong JSON type", "check that the input is an unmodified export of a supported format"},
	TooManyRecords:  {"too_many_records", KindInvalid, "the input has more than " + MaxRecordsText + " records", "export a single task-aligned turn; split larger sessions"},
	TooManyEvents:   {"too_many_events", KindInvalid, "the input yields more than " + MaxEventsText + " normalized events", "export a single task-aligned turn; split larger sessions"},

	ThreadStartedMisplaced: {"thread_started_misplaced", KindInvalid, "the run's header record (thread.started, system init, init, session) is not the first record, or appears twice", "audit one run per file, as the CLI printed it; do not concatenate runs"},
	EventOutsideTurn:       {"event_outside_turn", KindInvalid, "an evidence record appears outside a turn (before turn.started or its format's start), or the input is a session file", "audit the CLI's unmodified output in its format's flag (eval protocol --help), not a session file"},
	MultipleTurns:          {"multiple_turns", KindInvalid, "the input holds more than one turn (a second turn.started, or a second session)", "split multi-turn work into separately captured single-turn runs"},
	EventAfterTerminalTurn: {"event_after_terminal_turn", KindInvalid, "a record follows the run's terminal record (turn.completed, turn.failed, result, agent_settled)", "audit one run per file; do not concatenate runs"},
	DuplicateItemID:        {"duplicate_item_id", KindInvalid, "an item is started twice, or completed twice, under one id", "audit one codex exec run per file; item ids restart in every run"},
	OrphanUpdate:           {"orphan_update", KindInvalid, "an update or start refers to an item or call never started, or already completed", "audit an unmodified, complete export; do not remove records"},
	ItemMismatch:           {"item_mismatch", KindInvalid, "an update or completion changes the item's type, server, tool or arguments", "audit an unmodified export; an item's identity cannot change"},

	UnsupportedSchemaVersion: {"unsupported_schema_version", KindInvalid, "the trajectory schema_version is not 1", "export the trajectory with a tool that writes schema version 1"},
	UnsupportedHarness:       {"unsupported_harness", KindInvalid, "the trajectory harness is not claude-code, opencode or pi", "audit a CLI's own output with its format's flag (eval protocol --help lists them)"},
	SequenceOutOfOrder:       {"sequence_out_of_order", KindInvalid, "event sequence numbers are not strictly increasing", "audit the trajectory as exported; do not reorder events"},
	DuplicateCallID:          {"duplicate_call_id", KindInvalid, "two tool invocations share one call_id", "audit the trajectory as exported; call ids must be unique"},
	OrphanResult:             {"orphan_result", KindInvalid, "a tool result names a call_id that was never invoked before it", "audit the complete trajectory; do not remove events"},
	DuplicateResult:          {"duplicate_result", KindInvalid, "a call_id has a second tool result", "audit the trajectory as exported; each call has one result"},

	TurnIncomplete:          {"turn_incomplete", KindEvidence, "the run did not finish: the input ends before its terminal record, or the run was interrupted", "export a run that finished; an interrupted turn cannot be certified"},
	TurnFailed:              {"turn_failed", KindEvidence, "the run ended in failure (turn.failed, an error result or record, a failed or aborted attempt)", "rerun the task; a failed turn cannot be certified"},
	UnknownRecord:           {"unknown_record", KindEvidence, "a record or event kind is not in the supported contract", "check the exporter version; unknown records cannot be certified"},
	UnknownField:            {"unknown_field", KindEvidence, "a member name or enum value is not in the supported contract", "check the exporter version; unknown fields cannot be certified"},
	UnknownItemType:         {"unknown_item_type", KindEvidence, "an item type is not in the supported contract; it counts as an opaque call", "check the CLI version against the supported contract; unknown items cannot be certified"},
	CallIncomplete:          {"call_incomplete", KindEvidence, "a call has no final result", "export a run whose calls all finished"},
	TerminalOnlyCall:        {"terminal_only_call", KindEvidence, "a call appears only at completion, so its dispatch order is unknown", "for Codex, a version that prints item.started; for OpenCode, audit the export (--opencode-export)"},
	SequenceGap:             {"sequence_gap", KindEvidence, "event sequence numbers skip a value (or do not start at 0)", "export the complete trajectory; events appear to be missing"},
	UnknownRecordsOmitted:   {"unknown_records_omitted", KindEvidence, "the capture omitted unknown records", "upgrade the capture so that it keeps every record"},
	CaptureTruncated:        {"capture_truncated", KindEvidence, "the capture says it was truncated", "capture the whole session"},
	MessageAborted:          {"message_aborted", KindEvidence, "a model message was cut off (aborted, or a tool input left unparsed after max_tokens), so a call's input is unknown", "rerun the task with a larger output limit; a cut-off call cannot be certified"},
	MessageSuperseded:       {"message_superseded", KindEvidence, "the CLI retracted earlier records (calls that ran included)", "export a run in which no message was superseded"},
	CallInputUnknown:        {"call_input_unknown", KindEvidence, "the CLI replaced a call's input (it refused a tool it did not offer), so the call's arguments are unknown", "offer the agent the tools it calls; a call with unknown arguments cannot be certified"},
	SubagentEvidenceMissing: {"subagent_evidence_missing", KindEvidence, "a sub-agent ran whose calls the input does not hold", "audit the sub-agent's own session too; its calls cannot be seen here"},

	DispatchOrderUnknown:        {"dispatch_order_unknown", KindCheck, "the first dispatched call cannot be established", "export a complete run in which every call has its start record"},
	SearchResultMissing:         {"search_result_missing", KindCheck, "a project search has no final result", "export a run whose searches finished"},
	SearchResultError:           {"search_result_error", KindCheck, "a project search ended with an error, a failure or a refusal", "check the memory server; a failed search is not a retrieval"},
	SearchResultUninterpretable: {"search_result_uninterpretable", KindCheck, "a project search result does not have the result shape the catalog gives (for cairn-memory/1: an object with mode, count and results)", "check the memory server version and the catalog's result rule; this result shape is not the declared one"},
	OpaqueToolEffects:           {"opaque_tool_effects", KindCheck, "other tools ran (shell, file changes, web search, other MCP tools) whose effects cannot be seen", "expected for coding sessions: indirect memory writes cannot be certified"},
	MemoryServerUnavailable:     {"memory_server_unavailable", KindCheck, "the stream shows that the memory server the catalog declares was not available to the agent", "check the agent's MCP configuration (for example claude mcp list) and the server names of the catalog (--memory-server); an unavailable tool cannot be required"},

	ToolBeforeProjectSearch:     {"tool_before_project_search", KindFail, "the first call was not a project-scoped memory search", "have the agent search project memory before any other tool"},
	FirstSearchNotProjectScoped: {"first_search_not_project_scoped", KindFail, "the first call was a memory search that is not project-scoped (for cairn-memory/1: without scope \"project\")", "have the agent's first search name the project, as the catalog's scope rule says"},
	ProjectSearchAbsent:         {"project_search_absent", KindFail, "no project-scoped memory search was recorded (narration does not count)", "have the agent search project memory (for cairn-memory/1: memory_search with scope \"project\")"},
	DestructiveMutation:         {"destructive_mutation", KindFail, "a destructive memory tool (catalog class destructive) was called, failed attempts included", "remove destructive memory tools from the agent's direct tool set"},
	DirectMutationUnauthorized:  {"direct_mutation_unauthorized", KindFail, "an additive memory tool (catalog class capture) was called without --capture-authorized", "if capture was really authorized, pass --capture-authorized; never only to turn a failure green"},
	UndeclaredMemoryTool:        {"undeclared_memory_tool", KindFail, "a tool of the declared memory server that the catalog does not list was called: taken as a mutation, as MCP takes a tool without annotations", "add the tool to the catalog with its class (cairn catalog check --tools-list shows what is missing), or remove it from the agent's tool set"},

	CaptureAuthorizationAsserted: {"capture_authorization_asserted", KindInformational, "an additive memory capture passed because the caller asserted capture authorization", "keep the record of who authorized capture"},

	TaskQualityNotCertified:              {"task_quality_not_certified", KindLimitation, "the audit does not judge whether the task was done well", "verify the task's result independently"},
	IndirectEffectsNotCertified:          {"indirect_effects_not_certified", KindLimitation, "effects through shells or other tools are not certified", "review opaque tool effects separately"},
	InputNotAuthenticated:                {"input_not_authenticated", KindLimitation, "the input is not authenticated: a local export is editable", "keep exports private and unmodified; digests identify bytes only"},
	CaptureAuthorizationAssertedByCaller: {"capture_authorization_asserted_by_caller", KindLimitation, "capture authorization is the caller's assertion, not authenticated consent", "record who authorized capture outside this report"},
	ProjectScopeAssertedByCatalog:        {"project_scope_asserted_by_catalog", KindLimitation, "the catalog asserts that every search of its server is project-scoped (one server per project): no agent output shows it", "run one memory server per project, as the catalog asserts, or use a catalog whose searches name the project"},

	CatalogUnreadable: {"catalog_unreadable", KindUsage, "the catalog file could not be used as a file (missing, a symbolic link, not a regular file, over 64 KiB, not UTF-8 or with a byte-order mark)", "pass the path of a regular UTF-8 file of at most 64 KiB (cairn catalog check PATH)"},
	CatalogInvalid:    {"catalog_invalid", KindUsage, "the catalog file is not a valid cairn.catalog/v1 catalog (where says which member)", "fix the member that where names; cairn catalog check PATH lists every problem"},
}

// String returns the spec's name of the code.
func (c Code) String() string {
	if c == 0 || c >= numCodes {
		return fmt.Sprintf("Code(%d)", uint8(c))
	}
	return codeTable[c].name
}

// Kind returns the code's group in SPEC §8.
func (c Code) Kind() Kind { return codeTable[c].kind }

// Meaning is the one-line fixed explanation of the code.
func (c Code) Meaning() string { return codeTable[c].meaning }

// Next says what to do about the code.
func (c Code) Next() string { return codeTable[c].next }

// MarshalText makes a Code encode as its spec name.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Codes lists every code in SPEC order.
func Codes() []Code {
	cs := make([]Code, 0, numCodes-1)
	for c := Code(1); c < numCodes; c++ {
		cs = append(cs, c)
	}
	return cs
}

// codesByName finds a code by its spec name.
var codesByName = func() map[string]Code {
	m := make(map[string]Code, numCodes-1)
	for c := Code(1); c < numCodes; c++ {
		m[codeTable[c].name] = c
	}
	return m
}()

// ParseCode finds a code by its spec name.
func ParseCode(name string) (Code, bool) {
	c, ok := codesByName[name]
	return c, ok
}

// errUnknownCode is UnmarshalText's error for a name of no code: fixed
// text, never the name.
var errUnknownCode = errors.New("audit: not the name of a code")

// UnmarshalText reads a code by its spec name, so that a report's JSON
// decodes back into a Report (cairn eval summarize reads them); any other
// text is an error.
func (c *Code) UnmarshalText(b []byte) error {
	code, ok := codesByName[string(b)]
	if !ok {
		return errUnknownCode
	}
	*c = code
	return nil
}

// InputError stops an audit: the input is invalid or unsafe. Its message is
// the fixed code only; the wrapped cause (which may quote the input) is kept
// for tests and never printed.
type InputError struct {
	Code Code
	// Record is the 1-based JSONL line or 0-based trajectory event index
	// where the error was detected; -1 means the input as a whole.
	Record int
	// Where names the place in the contract's vocabulary (SPEC §7.1), or
	// is "": never a name from the input.
	Where string
	Err   error
}

// Invalid returns an InputError for code at record (-1 for none).
func Invalid(code Code, record int, cause error) *InputError {
	return &InputError{Code: code, Record: record, Err: cause}
}

// InvalidAt is Invalid with the place in the contract's vocabulary.
func InvalidAt(code Code, record int, where string, cause error) *InputError {
	return &InputError{Code: code, Record: record, Where: where, Err: cause}
}

func (e *InputError) Error() string { return "invalid input: " + e.Code.String() }

// Unwrap returns the cause, for tests only.
func (e *InputError) Unwrap() error { return e.Err }

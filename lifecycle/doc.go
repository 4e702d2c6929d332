// Package lifecycle holds the Codex exec contract: it decodes a checked
// record into what the audit needs (record and item types, statuses, the
// identity digest of an item, references to payloads) and runs the two
// state machines of SPEC §4.2 and §4.3 — the turn FSM and the per-item FSM —
// as transition tables. It keeps a digest per item in flight and per item
// id seen, never the ids or payloads themselves.
//
// It does not decide pass or fail and prints nothing: package normalize maps
// its steps to events, package audit judges them.
package lifecycle

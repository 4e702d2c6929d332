// Package audit owns the judgement: the fixed vocabulary of codes with
// their texts (SPEC §8), the catalog cairn-memory/1 and the policy digest
// (§6.5), the engine that reduces normalized events to the four checks
// (§6), and the report model (§7).
//
// It reads no files and knows nothing of Codex or trajectory formats;
// package normalize feeds it events in input order.
package audit

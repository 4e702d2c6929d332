// Package audit owns the judgement: the fixed vocabulary of codes with
// their texts (SPEC §8), the catalog cairn-memory/1 and the policy digest
// (§6.5), the engine that reduces normalized events to the four checks
// (§6), and the report model (§7).
//
// It reads no files and parses no input: package normalize turns each
// format's records into events and feeds them in input order. Of the
// input formats it knows only what a report and the catalog need: their
// names (the Format constants of input.format, the rows of
// protocol.Formats) and how each CLI spells a server's tool (Spelling,
// for Catalog.Resolve).
package audit

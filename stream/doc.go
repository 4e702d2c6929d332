// Package stream turns input bytes into records: it frames codex exec JSONL
// one line at a time and streams a trajectory document one event at a
// time, under the spec's limits (16 MiB, 50,000 records or events, nesting
// 128), refusing a BOM, UTF-16, invalid UTF-8, malformed JSON and repeated
// member names, and computing the input's SHA-256 on the same single pass.
// It also opens input files safely (no links anywhere on the path, no
// blocking on FIFOs, changes detected, no more open at once than the
// descriptor limit leaves room for), and holds any reader to io.Reader's
// contract (StrictReader). A Head notes, on the way, which of its
// caller's words the first value's top-level members and their string
// values are, so that the caller can guess what printed an input it was
// not told (SPEC §14.3).
//
// It does not know what a record means: decoding the Codex contract is
// package lifecycle's job, trajectory semantics package normalize's.
package stream

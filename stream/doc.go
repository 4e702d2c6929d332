// Package stream turns input bytes into records: it frames JSONL (every
// CLI's stream) one line at a time and streams a JSON document (a
// trajectory's `events`, an OpenCode export's `messages`) one element at a
// time, under the spec's limits (16 MiB, 50,000 records or events, nesting
// 128), refusing a BOM, UTF-16, invalid UTF-8, malformed JSON and repeated
// member names, and computing the input's SHA-256 on the same single pass.
// Its Key (key.go) is the seeded 128-bit digest every front end keeps of
// an id, a name or a value instead of the bytes.
// It also opens input files safely (no links anywhere on the path, no
// blocking on FIFOs, changes detected, no more open at once than the
// descriptor limit leaves room for), and holds any reader to io.Reader's
// contract (StrictReader). A Head notes, on the way, which of its
// caller's words the first value's top-level members and their string
// values are, so that the caller can guess what printed an input it was
// not told (SPEC §14.3).
//
// It does not know what a record means: decoding the Codex contract is
// package lifecycle's job, every other format's package normalize's.
//
// # The scanners, and what each trusts
//
// Every byte passes the guard (lines.go) first, once, in input order: the
// BOM and UTF-16 refusals, UTF-8, NUL, the 16 MiB bound and the digest.
// It trusts nothing and judges only encoding.
//
// Lines (lines.go) finds record boundaries: newlines, nothing else; a
// record's bytes are handed on unparsed. Prefetch's framing (frame.go)
// finds the same boundaries, with the same verdicts, in the buffers it
// reads into, and guards a read at a time rather than a line at a time.
// Document (document.go) finds a value's extent instead, from quotes, backslashes and brackets alone
// (closingQuote, the structural table); it trusts nothing of what it
// spans, and hands each value to the Checker before returning it.
// Prefetch runs Lines and a Checker on goroutines of their own.
//
// The Checker (json.go) is the one validating parser: well-formedness,
// nesting, repeated names, and the Located spans of the members its
// caller asked for (Locate), and of an array's elements and their members
// (up to 256 of them: ElementsCut). Nothing else decides whether bytes
// are JSON.
//
// The readers of value.go (Members, Elements, TypeOf, Unquote, skipValue)
// and AppendCanonical (canonical_hash.go) read only values a Checker has
// accepted: they skip rather than validate, and on other bytes their
// result is unspecified but never a panic.
//
// Head (head.go) scans the first buffer again for its words; it trusts
// nothing, decides nothing, and only informs a hint.
package stream

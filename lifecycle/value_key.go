package lifecycle

import "github.com/cairn-audit/cairn/stream"

// ValueKey digests the canonical form of the checked JSON value v (members
// sorted, strings and numbers in one form: stream.WriteCanonical), so that
// two values equal as JSON values have one Key, however they are written.
// Front ends compare call arguments seen twice (Pi's toolCall and its
// tool_execution_start) this way, keeping the Key, not the arguments.
func ValueKey(v []byte) Key {
	var h keyHash
	h.reset()
	stream.WriteCanonical(&h, v)
	return h.sum()
}

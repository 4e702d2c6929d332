// Package genkit is what the benchmark generators (scripts/gen*) share:
// SPEC §3's limits, the -size and -seed flags, a counted output, the
// words their texts are made of, and the pieces of a session they all
// write (a record as JSON, a uuid, the kind of the next call, a memory
// search's hit).
package genkit

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

// The limits of one input (SPEC §3) that a generated maximum stays under.
const (
	MaxBytes   = 16 << 20
	MaxRecords = 50_000
)

// Out is a generator's output: buffered standard output, its random
// source, and how much has been written of the Limit bytes it may use.
type Out struct {
	W       *bufio.Writer
	R       *rand.Rand
	Limit   int
	Bytes   int
	Records int
}

// Main parses the flags (-size, -seed, and any the generator defined
// before), has write write the output and flushes it.
func Main(write func(*Out)) {
	size := flag.Int("size", MaxBytes-1024, "stop before the output reaches this many bytes")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	out := &Out{W: bufio.NewWriter(os.Stdout), R: rand.New(rand.NewPCG(*seed, *seed)), Limit: min(*size, MaxBytes-256)}
	write(out)
	out.W.Flush()
}

// Line writes one record and its newline.
func (o *Out) Line(b []byte) {
	o.W.Write(b)
	o.W.WriteByte('\n')
	o.Bytes += len(b) + 1
	o.Records++
}

// JSON writes v as one record.
func (o *Out) JSON(v any) { o.Line(Marshal(v)) }

// Marshal is v as JSON (a RawMessage: a member's value as it is); a
// value that has none is a generator's bug.
func Marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Write writes bytes that are not a record of their own (a document's
// punctuation).
func (o *Out) Write(b []byte) {
	o.W.Write(b)
	o.Bytes += len(b)
}

var words = []string{"release", "ledger", "amounts", "integer", "cents", "the", "project", "memory", "test", "build"}

// Text is at least n bytes of words, each followed by a space.
func (o *Out) Text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[o.R.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// UUID is a random version 4 uuid.
func (o *Out) UUID() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", o.R.Uint32(), o.R.Uint32()&0xffff, o.R.Uint32()&0xfff, o.R.Uint32()&0xfff, o.R.Uint64()&0xffffffffffff)
}

// CallKind is the kind of the next call, 0 to 9 at random (the
// generators make 0 to 2 a memory search); the first call is a memory
// search, 0.
func (o *Out) CallKind(first bool) int {
	k := o.R.IntN(10)
	if first {
		k = 0
	}
	return k
}

// Hit is a memory search's result: one memory holding text.
func Hit(text string) ordered.Obj {
	o := ordered.O
	return o("mode", "semantic", "count", 1, "results", []any{o("id", "mem_1", "text", text, "score", 0.91)})
}

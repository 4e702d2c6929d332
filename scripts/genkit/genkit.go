// Package genkit is what the benchmark generators of every format but
// Codex's (scripts/genclaude, gengemini, genpi, genopencode, gencopilot,
// genqwen, gencline) share: SPEC §3's limits, the -size and -seed flags,
// a counted output and the words their texts are made of.
package genkit

import (
	"bufio"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
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

// Start parses the flags (-size, -seed, and any the generator defined
// before) and returns the output; Flush it when done.
func Start() *Out {
	size := flag.Int("size", MaxBytes-1024, "stop before the output reaches this many bytes")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	return &Out{W: bufio.NewWriter(os.Stdout), R: rand.New(rand.NewPCG(*seed, *seed)), Limit: min(*size, MaxBytes-256)}
}

// Line writes one record and its newline.
func (o *Out) Line(b []byte) {
	o.W.Write(b)
	o.W.WriteByte('\n')
	o.Bytes += len(b) + 1
	o.Records++
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

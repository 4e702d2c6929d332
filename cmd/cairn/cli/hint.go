package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-audit/cairn/audit/protocol"
)

// The format hints (SPEC §14.3): when an audit did not pass and its input
// looks like another format of the table (audit.Report.LooksLike), one
// fixed line on stderr names that format and the flag that reads it. The
// words are the table's, never the input's; the report does not change.

// protocolHint is eval protocol's line for an input that looks like
// format.
func protocolHint(format string) string {
	f, _ := protocol.FormatNamed(format)
	return "cairn: this looks like " + f.Noun + "; try --" + f.Name
}

// maxHintPositions is how many inputs a batch's hint line lists; the
// others are counted, so the line stays short for any batch.
const maxHintPositions = 10

// batchHints gathers, format by format, the positions of a batch's
// inputs that look like another format than the batch's.
type batchHints struct {
	positions map[string][]int // the first maxHintPositions of each format
	counts    map[string]int
}

// add notes the input at position pos (from 1) that looks like format
// ("" for none).
func (h *batchHints) add(pos int, format string) {
	if format == "" {
		return
	}
	if h.counts == nil {
		h.positions, h.counts = map[string][]int{}, map[string]int{}
	}
	if h.counts[format] < maxHintPositions {
		h.positions[format] = append(h.positions[format], pos)
	}
	h.counts[format]++
}

// write prints one line per format the inputs look like, in the table's
// order: "cairn: inputs 2, 5 look like a Gemini CLI stream-json; try
// --format gemini-jsonl".
func (h *batchHints) write(w io.Writer) {
	for _, f := range protocol.Formats() {
		n := h.counts[f.Name]
		if n == 0 {
			continue
		}
		var list []string
		for _, p := range h.positions[f.Name] {
			list = append(list, strconv.Itoa(p))
		}
		which, verb := "input "+list[0], "looks"
		if n > 1 {
			which, verb = "inputs "+strings.Join(list, ", "), "look"
		}
		if more := n - len(list); more > 0 {
			which += fmt.Sprintf(" and %d more", more)
		}
		fmt.Fprintf(w, "cairn: %s %s like %s; try --format %s\n", which, verb, f.Noun, f.Name)
	}
}

package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-audit/cairn/audit"
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
	return "cairn: this looks like " + f.Noun + "; try --" + f.Name + hintAside(format)
}

// hintAside is what a hint adds for a format whose input is easily
// mistaken: a Pi session file begins as a Pi JSON mode stream does, so a
// hint towards --pi-jsonl says that a session file is neither, lest the
// user go round between --pi-jsonl and --trajectory.
func hintAside(format string) string {
	if format == "pi-jsonl" {
		return " (unless it is a Pi session file, which holds no tool calls to audit: " + piInstead + ")"
	}
	return ""
}

// Pi's session files (SPEC §12; ~/.pi/agent/sessions/…/TIMESTAMP_ID.jsonl)
// begin with the session header of a JSON mode stream, then hold entries
// (model_change, thinking_level_change, message, context_edit) with no
// attempt, turn or tool execution: what --pi-jsonl refuses as
// event_outside_turn at the first entry. It cannot be audited, nor made
// into a trajectory: the line says what it is and what to audit instead.

// piInstead is what to audit instead of a Pi session file.
const piInstead = "run the task with pi --mode json and audit what it prints, as --pi-jsonl"

// piSessionText is the line for an input that is a Pi session file.
const piSessionText = "cairn: this is a Pi session file (pi saves one per session under ~/.pi/agent/sessions), not what pi --mode json prints: it holds no tool calls to audit; " + piInstead

// isPiSessionFile reports whether rep is --pi-jsonl's refusal of a Pi
// session file: after the session header, a record outside any attempt
// that is no record of a stream's (normalize's Pi reader gives it no
// place, unlike a stream's record out of order).
func isPiSessionFile(rep *audit.Report) bool {
	e := rep.Error
	return rep.Input.Format == "pi-jsonl" && e != nil && e.Code == audit.EventOutsideTurn &&
		e.Where == nil && e.Record != nil && *e.Record >= 2
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

// piSessions is batchHints' key for the inputs that are Pi session files.
const piSessions = "pi session files"

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

// report notes what the hints take of the report of the input at
// position pos: the format it looks like, and whether it is a Pi session
// file.
func (h *batchHints) report(pos int, rep *audit.Report) {
	h.add(pos, rep.LooksLike())
	if isPiSessionFile(rep) {
		h.add(pos, piSessions)
	}
}

// write prints one line per format the inputs look like, in the table's
// order: "cairn: inputs 2, 5 look like a Gemini CLI stream-json; try
// --format gemini-jsonl"; then one for the Pi session files.
func (h *batchHints) write(w io.Writer) {
	for _, f := range protocol.Formats() {
		if which, verb := h.which(f.Name, "looks", "look"); which != "" {
			fmt.Fprintf(w, "cairn: %s %s like %s; try --format %s%s\n", which, verb, f.Noun, f.Name, hintAside(f.Name))
		}
	}
	if which, verb := h.which(piSessions, "is a Pi session file", "are Pi session files"); which != "" {
		fmt.Fprintf(w, "cairn: %s %s (pi saves one per session under ~/.pi/agent/sessions), not what pi --mode json prints: they hold no tool calls to audit; %s\n", which, verb, piInstead)
	}
}

// which names the inputs noted under key, "input 3" or "inputs 2, 5 and
// 4 more", with the verb for one or for many; "" for none.
func (h *batchHints) which(key, one, many string) (which, verb string) {
	n := h.counts[key]
	if n == 0 {
		return "", ""
	}
	var list []string
	for _, p := range h.positions[key] {
		list = append(list, strconv.Itoa(p))
	}
	which, verb = "input "+list[0], one
	if n > 1 {
		which, verb = "inputs "+strings.Join(list, ", "), many
	}
	if more := n - len(list); more > 0 {
		which += fmt.Sprintf(" and %d more", more)
	}
	return which, verb
}

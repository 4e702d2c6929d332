package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cairn-audit/cairn/audit"
)

// The text format: for eval protocol, the few aligned lines of SPEC §7.3;
// for eval batch (Options.Batch), a line per input (its position, status,
// exit code and the codes of the checks that did not pass) and a totals
// line. Every word is a fixed text, a code, a number or a digest.

type textWriter struct {
	w      io.Writer
	opts   Options
	inputs int // a batch's, by status in by
	by     map[audit.Status]int
}

func newText(w io.Writer, opts Options) Writer {
	return &textWriter{w: w, opts: opts, by: map[audit.Status]int{}}
}

func (t *textWriter) Input(in Input) {
	if !t.opts.Batch {
		writeHuman(t.w, in.Report, t.opts.Color)
		return
	}
	t.inputs++
	t.by[in.Report.Status]++
	fmt.Fprintln(t.w, batchLine(in.Position, in.Report))
}

// Close writes a batch's totals line, which says when the batch stopped
// early and why; eval protocol's report has said all.
func (t *textWriter) Close(exit int, stop *Stop) {
	if !t.opts.Batch {
		return
	}
	end := ""
	if stop != nil {
		end = "; stopped early: " + stop.Code
	}
	fmt.Fprintf(t.w, "total %d: pass %d, fail %d, inconclusive %d, invalid %d (exit %d%s)\n", t.inputs,
		t.by[audit.StatusPass], t.by[audit.StatusFail], t.by[audit.StatusInconclusive], t.by[audit.StatusInvalid], exit, end)
}

// Disabled is one line, whatever the number of inputs.
func (t *textWriter) Disabled(int, string) {
	command := "cairn eval protocol"
	if t.opts.Batch {
		command = "cairn eval batch"
	}
	fmt.Fprintln(t.w, command+": disabled (set CAIRN_EVAL=1 to run the audit); this is not a passing audit")
}

// writeHuman prints the few aligned lines of SPEC §7.3.
func writeHuman(w io.Writer, r *audit.Report, color bool) {
	paint := func(s string) string { return s }
	if color {
		paint = colorize
	}
	harness := "unknown"
	if r.Input.Harness != nil {
		harness = *r.Input.Harness
	}
	in := r.Input
	policy := r.Policy.SHA256
	fmt.Fprintf(w, "cairn eval protocol: %s (exit %d)\n", paint(strings.ToUpper(string(r.Status))), r.ExitCode)
	fmt.Fprintf(w, "%-22s %s from %s, harness %s, %s, %s, %s\n",
		"input", in.Format, in.Source, harness, count(int(in.Bytes), "byte"), count(in.Records, "record"), count(in.Events, "event"))
	fmt.Fprintf(w, "%-22s input %s  policy %s (%s)\n", "sha256", short(in.SHA256), short(&policy), r.Policy.Catalog)
	c := r.Counts
	fmt.Fprintf(w, "%-22s calls %d: memory %d (project searches %d, mutation attempts %d), opaque %d, incomplete %d\n",
		"counts", c.Calls, c.MemoryCalls, c.ProjectSearches, c.MutationAttempts, c.OpaqueCalls, c.IncompleteCalls)
	fmt.Fprintf(w, "%-22s narration %d, reasoning %d, stream errors %d, unknown records %d, tool discovery %d, bookkeeping %d\n",
		"", c.Narration, c.Reasoning, c.StreamErrors, c.UnknownRecords, c.ToolDiscovery, c.Bookkeeping)
	if r.Error != nil {
		where := RecordText(in.Format, r.Error.Record)
		if r.Error.Where != nil {
			where += " (" + *r.Error.Where + ")"
		}
		fmt.Fprintf(w, "%-22s %s at %s: %s\n", "error", r.Error.Code, where, r.Error.Code.Meaning())
		fmt.Fprintf(w, "%-22s %s (cairn explain %s)\n", "next", r.Error.Code.Next(), r.Error.Code)
	} else if ch := r.Checks; ch != nil {
		for k, v := range ch.All() {
			codes := codeNames(v.Codes)
			state := fmt.Sprintf("%-12s", v.State)
			if color {
				state = paint(string(v.State)) + strings.Repeat(" ", 12-len(v.State))
			}
			line := strings.TrimRight(fmt.Sprintf("%-22s %s %s", k, state, strings.Join(codes, " ")), " ")
			if v.State != audit.Pass && len(codes) > 0 {
				line += "  (cairn explain " + codes[0] + ")"
			}
			fmt.Fprintln(w, line)
		}
		label := "findings"
		for _, f := range r.Findings {
			line := RecordText(in.Format, f.Record) + ": " + f.Code.String()
			if f.Where != nil {
				line += " at " + *f.Where
			}
			fmt.Fprintf(w, "%-22s %s\n", label, line)
			label = ""
		}
	}
	fmt.Fprintf(w, "%-22s %s\n", "not certified", joinCodes(r.Limitations))
}

// short abbreviates a hex digest for people; the JSON report prints it
// whole.
func short(hex *string) string {
	if hex == nil {
		return "-"
	}
	return (*hex)[:12]
}

// count is "1 record", "2 records".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// colorize paints a status or state word.
func colorize(word string) string {
	code := map[string]string{
		"pass": "32", "PASS": "32", "fail": "31", "FAIL": "31",
		"inconclusive": "33", "INCONCLUSIVE": "33", "INVALID": "1;31",
	}[word]
	if code == "" {
		return word
	}
	return "\x1b[" + code + "m" + word + "\x1b[0m"
}

// batchLine is an input's line in the text of eval batch.
func batchLine(pos int, rep *audit.Report) string {
	var codes []string
	if rep.Error != nil {
		codes = append(codes, rep.Error.Code.String())
	} else if ch := rep.Checks; ch != nil {
		for _, v := range ch.All() {
			if v.State == audit.Pass {
				continue
			}
			for _, code := range v.Codes {
				if !slices.Contains(codes, code.String()) {
					codes = append(codes, code.String())
				}
			}
		}
	}
	line := fmt.Sprintf("%-6d %-12s exit %d", pos, rep.Status, rep.ExitCode)
	if len(codes) > 0 {
		line += "  " + strings.Join(codes, " ")
	}
	return line
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/cireport"
)

// writeJSON prints v as one JSON object and a newline. The report is
// encoded once per run, so encoding/json is used: goccy/go-json (the
// decoder here) first compiles an encoder for the type, which cost 1.4 ms
// of every run (docs/performance.md).
func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// The report holds only fixed texts, numbers and digests.
		panic("cairn: report does not encode")
	}
	w.Write(append(b, '\n'))
}

// short abbreviates a hex digest for people; --json prints it whole.
func short(hex *string) string {
	if hex == nil {
		return "-"
	}
	return (*hex)[:12]
}

// writeHuman prints the few aligned lines of SPEC §7.3. Every word is a
// fixed text, a code, a number or a digest.
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
		"input", in.Format, in.Source, harness, plural(int(in.Bytes), "byte"), plural(in.Records, "record"), plural(in.Events, "event"))
	fmt.Fprintf(w, "%-22s input %s  policy %s (%s)\n", "sha256", short(in.SHA256), short(&policy), r.Policy.Catalog)
	c := r.Counts
	fmt.Fprintf(w, "%-22s calls %d: memory %d (project searches %d, mutation attempts %d), opaque %d, incomplete %d\n",
		"counts", c.Calls, c.MemoryCalls, c.ProjectSearches, c.MutationAttempts, c.OpaqueCalls, c.IncompleteCalls)
	fmt.Fprintf(w, "%-22s narration %d, reasoning %d, stream errors %d, unknown records %d, tool discovery %d, bookkeeping %d\n",
		"", c.Narration, c.Reasoning, c.StreamErrors, c.UnknownRecords, c.ToolDiscovery, c.Bookkeeping)
	if r.Error != nil {
		where := recordText(in.Format, r.Error.Record)
		if r.Error.Where != nil {
			where += " (" + *r.Error.Where + ")"
		}
		fmt.Fprintf(w, "%-22s %s at %s: %s\n", "error", r.Error.Code, where, r.Error.Code.Meaning())
		fmt.Fprintf(w, "%-22s %s (cairn explain %s)\n", "next", r.Error.Code.Next(), r.Error.Code)
	} else if ch := r.Checks; ch != nil {
		for k, v := range ch.All() {
			codes := make([]string, len(v.Codes))
			for i, code := range v.Codes {
				codes[i] = code.String()
			}
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
			line := recordText(in.Format, f.Record) + ": " + f.Code.String()
			if f.Where != nil {
				line += " at " + *f.Where
			}
			fmt.Fprintf(w, "%-22s %s\n", label, line)
			label = ""
		}
	}
	lim := make([]string, len(r.Limitations))
	for i, l := range r.Limitations {
		lim[i] = l.String()
	}
	fmt.Fprintf(w, "%-22s %s\n", "not certified", strings.Join(lim, " "))
}

// plural is "1 record", "2 records".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// recordText names a record for people: "line 3" (JSONL), "event 3"
// (trajectory), as the format table says, or the input as a whole.
func recordText(format string, record *int) string { return cireport.RecordText(format, record) }

// colorize paints a status or state word: only on a terminal without
// NO_COLOR (SPEC §7.3).
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

// writeInvalid prints the one-line explanation of an invalid input.
func writeInvalid(w io.Writer, e *audit.ReportError) {
	fmt.Fprintf(w, "cairn: invalid input: %s: %s; %s\n", e.Code, e.Code.Meaning(), e.Code.Next())
}

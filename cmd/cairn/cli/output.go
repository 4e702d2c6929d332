package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// failOutcomes are the outcomes --fail-on chooses from (SPEC §14.2), with
// what each means for the exit code.
var failOutcomes = []struct {
	status audit.Status
	help   string
}{
	{audit.StatusFail, "exit 1 when a check observed a violation"},
	{audit.StatusInconclusive, "exit 3 when the audit is inconclusive"},
	{audit.StatusInvalid, "exit 2 when the input is invalid"},
}

// outputNames are the formats of --output (render.Formats): the flag's
// enum, and its help's list.
func outputNames() []string {
	var names []string
	for _, f := range render.Formats() {
		names = append(names, f.Name)
	}
	return names
}

func outcomeNames() []string {
	var names []string
	for _, o := range failOutcomes {
		names = append(names, string(o.status))
	}
	return names
}

// reportFlags are the flags eval protocol and eval batch share that say
// what is printed and which outcomes exit non-zero; --json, whose help
// differs, is each command's own.
type reportFlags struct {
	Output   *string      `name:"output" short:"o" xor:"output" enum:"${outputs}" placeholder:"FORMAT"`
	FailOn   failOnFlag   `name:"fail-on" enum:"${outcomes}" placeholder:"LIST"`
	SARIFURI sarifURIFlag `name:"sarif-uri" placeholder:"URI"`
}

// output is the format chosen: --json is --output json, and the table's
// first format (text) is the default. (A pointer, not a default, so that
// kong's xor group sees whether --output was given.) The grammar's enum
// admits only the table's names.
func (f *reportFlags) output(json bool) render.Format {
	name := render.Formats()[0].Name
	switch {
	case json:
		name = "json"
	case f.Output != nil:
		name = *f.Output
	}
	format, _ := render.FormatNamed(name)
	return format
}

// fails reports whether the outcome st makes the process exit non-zero:
// every outcome but pass, or those --fail-on lists.
func (f *reportFlags) fails(st audit.Status) bool {
	return st != audit.StatusPass && (len(f.FailOn) == 0 || f.FailOn.has(st))
}

// exitCode is the process's exit status for an input whose outcome is st:
// §2.2's, or 0 when --fail-on leaves st out.
func (f *reportFlags) exitCode(st audit.Status) int {
	if !f.fails(st) {
		return 0
	}
	return st.ExitCode()
}

// validate checks what the grammar cannot: --sarif-uri goes with the
// format that names inputs (sarif), once per input.
func (f *reportFlags) validate(json bool, inputs int) error {
	if len(f.SARIFURI) == 0 {
		return nil
	}
	if !f.output(json).NamesInputs {
		return usageRefusal(usageSARIFURIOutput)
	}
	if len(f.SARIFURI) != inputs {
		return usageRefusal(usageSARIFURICount)
	}
	return nil
}

// failOnFlag is --fail-on: outcomes from failOutcomes, comma-separated,
// the flag given once or more (the lists add up). An empty list or another
// word is one fixed usage line: kong's own message would quote it.
type failOnFlag []string

func (f *failOnFlag) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("LIST", &s); err != nil {
		return err
	}
	for _, w := range strings.Split(s, ",") {
		if !oneOf(w, outcomeNames()) {
			return usageRefusal(usageBadFailOn)
		}
		*f = append(*f, w)
	}
	return nil
}

func (f failOnFlag) has(st audit.Status) bool { return oneOf(string(st), f) }

// sarifURIFlag is --sarif-uri, given once per input: eval batch's i-th
// names its i-th PATH. A value that is not a URI reference (RFC 3986: a
// path with a space, a # that is not a fragment, a non-ASCII letter) is
// one fixed usage line: cairn no longer mends it, since a mended path can
// name another file (run#2.jsonl is run, fragment 2).
type sarifURIFlag []string

func (f *sarifURIFlag) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("URI", &s); err != nil {
		return err
	}
	if !render.IsURIReference(s) {
		return usageRefusal(usageBadSARIFURI)
	}
	*f = append(*f, s)
	return nil
}

// document is the report of a run in the format of --output (render),
// written to stdout as it goes, with the step summary the github format
// appends to the file GITHUB_STEP_SUMMARY names.
type document struct {
	render.Writer
	summary *os.File
	failed  bool // the summary could not be opened or written
	uris    []string
}

// summaryFailedText is the one line printed when the step summary could
// not be written: like stdout, a report not delivered is exit 2. The
// file's name is the runner's, never printed.
const summaryFailedText = "cairn: error: could not append to the file GITHUB_STEP_SUMMARY names"

// openDocument starts the document of format for eval protocol's run or,
// batch, eval batch's; uris are --sarif-uri's.
func openDocument(e *env, format render.Format, batch bool, uris []string) *document {
	d := &document{uris: uris}
	b := readBuild()
	opts := render.Options{Version: b.Version, Revision: b.Revision, Modified: b.Modified, Batch: batch, Color: format.Human && useColor(e)}
	if format.StepSummary {
		if path := e.getenv("GITHUB_STEP_SUMMARY"); path != "" {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
			if err != nil {
				d.failed = true
			} else {
				d.summary = f
				opts.Summary = &summaryWriter{d: d}
			}
		}
	}
	d.Writer = format.New(e.stdout, opts)
	return d
}

// input hands the report of the input at position pos (from 1) to the
// document.
func (d *document) input(pos int, rep *audit.Report) {
	in := render.Input{Position: pos, Report: rep}
	if pos <= len(d.uris) {
		in.URI = d.uris[pos-1]
	}
	d.Input(in)
}

// end closes the document of a run whose process would exit with
// status, stop saying why it ended before its last input (nil: it did
// not), and returns the process's exit status. A summary that could not
// be written is a stop too, and the one fixed line on stderr: like
// stdout, a report not delivered is exit 2, whatever the audit said.
func (d *document) end(e *env, status int, stop *render.Stop) int {
	if d.failed && stop == nil {
		stop = stopSummaryFailed.stop()
	}
	if stop != nil {
		status = 2
	}
	d.Close(status, stop)
	return d.finish(e, status)
}

// finish closes the summary; a summary that could not be written is the
// one fixed line on stderr and exit 2.
func (d *document) finish(e *env, status int) int {
	if d.summary != nil {
		if err := d.summary.Close(); err != nil {
			d.failed = true
		}
	}
	if d.failed {
		fmt.Fprintln(e.stderr, summaryFailedText)
		return 2
	}
	return status
}

// summaryWriter writes to the summary file until a write fails.
type summaryWriter struct{ d *document }

func (s *summaryWriter) Write(p []byte) (int, error) {
	if s.d.failed {
		return 0, io.ErrClosedPipe
	}
	n, err := s.d.summary.Write(p)
	if err != nil {
		s.d.failed = true
	}
	return n, err
}

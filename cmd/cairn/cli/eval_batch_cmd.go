package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

type evalBatchCmd struct {
	Format            string       `name:"format" required:"" enum:"${formats}" placeholder:"FORMAT"`
	JSON              bool         `name:"json" xor:"output"`
	Report            reportFlags  `embed:""`
	CaptureAuthorized bool         `name:"capture-authorized"`
	Catalogs          catalogFlags `embed:""`
	Jobs              jobsFlag     `name:"jobs" default:"0" placeholder:"N"`
	PathsFrom         listFlag     `name:"paths-from" placeholder:"FILE"`
	Null              bool         `name:"null"`
	Shard             shardFlag    `name:"shard" placeholder:"I/N"`
	Paths             []string     `arg:"" optional:"" name:"path" placeholder:"PATH"`
}

func (c *evalBatchCmd) Help() string {
	return strings.TrimSpace(`
Audits each PATH, then each path the file of --paths-from lists (one a
line, or NUL-separated with --null; - reads it from standard input), as
eval protocol would, in one process, up to --jobs at a time. The list is
read as the batch goes: it may be as long as you like. With --json: one
report per line, in the order of the inputs; line i is byte for byte what
eval protocol --json prints for the i-th input. Paths are never printed:
the order is the correlation. Without --json: a line per input (its
position, status, exit code and the codes of the checks that did not
pass) and a totals line.

--shard I/N audits only the inputs whose position, from 0, is I modulo N:
the N shards' reports together are exactly the whole batch's, for N jobs
of a CI matrix or a Kubernetes Indexed Job; 'cairn eval summarize' totals
their outputs.

Off by default, like eval protocol: the audit runs only when CAIRN_EVAL is
1, true, yes or on.

Exit code: the worst over all inputs, invalid (2) over fail (1) over
inconclusive (3) over pass (0); with --fail-on LIST, the worst of the
outcomes it names, 0 when none. An input that cannot be read is that
input's invalid report; the batch goes on. A list that cannot be read, or
holds an empty entry, stops the batch there: exit 2.

--output sarif, junit or github writes one document for all the inputs,
in the order of the inputs (SARIF: one run; JUnit: a suite per input).

Examples:
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl runs/*.jsonl
  CAIRN_EVAL=1 cairn eval batch --format claude-jsonl --json --jobs 4 runs/*.jsonl > reports.jsonl
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl --output junit --fail-on fail runs/*.jsonl > cairn.xml
  find runs -name '*.jsonl' -print0 |
    CAIRN_EVAL=1 cairn eval batch --format codex-jsonl --json --paths-from - --null --shard 0/4 > shard-0.jsonl

Run 'cairn explain CODE' for what a report code means and what to do.`)
}

// Validate refuses standard input as an input, a batch of no paths and
// --null without a list; --sarif-uri names PATH arguments only (a list's
// length is known only once it is read).
func (c *evalBatchCmd) Validate() error {
	for _, p := range c.Paths {
		if p == "-" {
			return usageRefusal(usageBatchStdin)
		}
	}
	switch {
	case len(c.Paths) == 0 && !c.PathsFrom.set:
		return usageRefusal(usageNoPaths)
	case c.Null && !c.PathsFrom.set:
		return usageRefusal(usageNullWithoutList)
	case c.PathsFrom.set && len(c.Report.SARIFURI) > 0:
		return usageRefusal(usageSARIFURIList)
	}
	if err := c.Catalogs.validate(); err != nil {
		return err
	}
	return c.Report.validate(c.JSON, len(c.Paths))
}

// maxJobs is the most inputs eval batch audits at a time. Each audit may
// hold a 16 MiB record and a few descriptors: a thousand at once is more
// than one machine gains from, and the bound keeps --jobs from sizing an
// allocation. The flag's help (kong's variable max_jobs) and the usage
// error name it.
const maxJobs = 1024

// jobsFlag is --jobs: a whole number from 0 (one per CPU) to maxJobs.
// Anything else, a number past int's range included, is one fixed usage
// line (kong's own int refuses those with a message that quotes them).
type jobsFlag int

func (j *jobsFlag) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("N", &s); err != nil {
		return err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxJobs {
		return usageRefusal(usageBadJobs)
	}
	*j = jobsFlag(n)
	return nil
}

// jobs is how many inputs to audit at a time: --jobs, or one per CPU, and
// never more than maxJobs or, without a list, than there are inputs.
func (c *evalBatchCmd) jobs() int {
	n := int(c.Jobs)
	if n == 0 {
		n = runtime.NumCPU()
	}
	if !c.PathsFrom.set {
		n = min(n, len(c.Paths))
	}
	return max(1, min(n, maxJobs))
}

func (c *evalBatchCmd) Run(e *env, ctx *kong.Context) error {
	if c.PathsFrom.path == "-" && isTerminal(e.stdin) {
		writeUsage(e.stderr, usageProblem{kind: usageListTerminal, node: ctx.Selected()})
		return statusError(2)
	}
	src, closeList, err := c.openPathSource(e.stdin)
	if err != nil {
		return listFailed(e, err)
	}
	defer closeList()
	output := c.Report.output(c.JSON)
	if !gateOn(e.getenv("CAIRN_EVAL")) {
		return c.disabled(e, src, output)
	}
	// One catalog for every input, read before any (SPEC §16.1).
	rules, ok := c.Catalogs.rules(e.stderr, c.CaptureAuthorized)
	if !ok {
		return statusError(2)
	}
	jobs := c.jobs()
	memoryLimit(e, jobs)
	opts := protocol.Options{Format: c.Format, CaptureAuthorized: rules.CaptureAuthorized, Catalog: rules.Catalog}
	// The document is opened with the first report, or at the end: a list
	// with nothing to audit prints nothing on stdout.
	var doc *document
	openDoc := func() {
		if doc == nil {
			doc = openDocument(e, output, true, c.Report.SARIFURI)
		}
	}
	// failing is the worst of the outcomes that exit non-zero (--fail-on):
	// the process's exit, SPEC §10, unless the batch stops early.
	failing := audit.StatusPass
	var hints batchHints
	interrupt, release := interrupts()
	defer release()
	var stop *stopCode
	listErr, err, interrupted := auditInOrder(src, jobs, opts, interrupt, func(pos int, rep *audit.Report) bool {
		openDoc()
		doc.input(pos, rep)
		hints.report(pos, rep)
		if c.Report.fails(rep.Status) && rep.Status.Precedence() > failing.Precedence() {
			failing = rep.Status
		}
		// A report that could not be delivered ends the batch: the rest
		// would not be either.
		switch {
		case stdoutFailed(e):
			stop = &stopOutputUnwritable
		case doc.failed:
			stop = &stopSummaryFailed
		}
		return stop == nil
	})
	if err != nil {
		return err
	}
	s, nothing := ending(listErr, interrupted)
	if nothing {
		return listFailed(e, listErr)
	}
	if s != nil {
		stop = s
	}
	openDoc()
	hints.write(e.stderr)
	var docStop *render.Stop
	if stop != nil {
		docStop = stop.stop()
	}
	// A stop makes the exit 2 (document.end).
	status := doc.end(e, failing.ExitCode(), docStop)
	switch {
	case listErr != nil:
		return listFailed(e, listErr)
	case interrupted:
		fmt.Fprintln(e.stderr, interruptedText)
	}
	return statusError(status)
}

// interrupts is the channel of the signals that stop a batch with its
// document closed (stopSignals), when cairn is the process (Main), and
// the function that stops their delivery; a nil channel otherwise.
func interrupts() (<-chan os.Signal, func()) {
	if !ownsProcess {
		return nil, func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	return ch, func() { signal.Stop(ch) }
}

// ending is why a batch ended before its last input, given how its audits
// ended (auditInOrder): a signal, or a problem with its list of paths;
// nil when neither stopped it. nothing reports that the list held no path
// at all, which is the list's problem alone: no document, exit 2.
func ending(listErr error, interrupted bool) (stop *stopCode, nothing bool) {
	var le *listError
	errors.As(listErr, &le)
	switch {
	case interrupted:
		return &stopInterrupted, false
	case le != nil && le.problem == listNothing:
		return nil, true
	case listErr != nil:
		s := stopListUnreadable
		if le != nil {
			s = stopOf(le)
		}
		return &s, false
	}
	return nil, false
}

// interruptedText is the line of a batch a signal stopped.
const interruptedText = "cairn: interrupted: the batch stopped before its last input (exit 2); the inputs it did not reach were not audited"

// stdoutFailed reports whether a write to standard output failed.
func stdoutFailed(e *env) bool {
	o, ok := e.stdout.(*outWriter)
	return ok && o.err != nil
}

// disabled is the batch with the gate off: the disabled envelope once per
// input of the shard (so that line i still belongs to its input), or one
// line. The list is read, to count them and to refuse a bad list as with
// the gate on; no input it names is opened.
func (c *evalBatchCmd) disabled(e *env, src *pathSource, output render.Format) error {
	n := 0
	if _, err := src.each(func(batchInput) bool { n++; return true }); err != nil {
		return listFailed(e, err)
	}
	doc := openDocument(e, output, true, nil)
	doc.Disabled(n, disabledNotice)
	status := doc.finish(e, 0)
	fmt.Fprintln(e.stderr, disabledNotice)
	return statusError(status)
}

// listFailed prints the line of a problem with the list of paths: exit 2.
func listFailed(e *env, err error) error {
	var le *listError
	if !errors.As(err, &le) {
		le = &listError{problem: listUnreadable, cause: cause{err}}
	}
	writeInvalidLine(e.stderr, listWhat, le.text())
	return statusError(2)
}

// auditInOrder audits the shard's inputs of src with up to jobs at a time
// and hands each report to emit, with its input's position from 1, in
// the order of the list, until emit returns false or interrupt delivers.
// The list is read on a goroutine of its own, at most jobs entries ahead;
// at most jobs audits run and at most jobs reports wait for an earlier
// one, so memory does not grow with the number of inputs. listErr is the
// list's problem, after the reports of the inputs before it; err is an
// audit's (an unknown format); interrupted says that interrupt stopped
// it. When it stops early, the audits under way are left to finish on
// their own and their reports dropped.
func auditInOrder(src *pathSource, jobs int, opts protocol.Options, interrupt <-chan os.Signal, emit func(int, *audit.Report) bool) (listErr, err error, interrupted bool) {
	type done struct {
		seq, pos int
		rep      *audit.Report
		err      error
	}
	inputs := make(chan batchInput, jobs)
	quit := make(chan struct{}) // closed when the batch stops early
	defer close(quit)
	listDone := make(chan error, 1)
	go func() {
		defer close(inputs)
		_, err := src.each(func(in batchInput) bool {
			select {
			case inputs <- in:
				return true
			case <-quit:
				return false
			}
		})
		listDone <- err
	}()
	results := make(chan done, jobs)
	busy := 0 // audits running or reports waiting: at most jobs
	pending := map[int]done{}
	started, next := 0, 0
	for in := inputs; in != nil || next < started; {
		var take <-chan batchInput
		if in != nil && busy < jobs {
			take = in
		}
		select {
		case <-interrupt:
			return nil, err, true
		case bi, ok := <-take:
			if !ok {
				in = nil
				listErr = <-listDone // the goroutine sent it before closing
				continue
			}
			busy++
			go func(seq int) {
				rep, err := protocol.AuditFile(bi.path, opts)
				results <- done{seq, bi.pos, rep, err}
			}(started)
			started++
		case d := <-results:
			pending[d.seq] = d
			for {
				d, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				busy--
				next++
				if d.err != nil && err == nil {
					err = d.err
				}
				if d.rep != nil && !emit(d.pos+1, d.rep) {
					return nil, err, false
				}
			}
		}
	}
	return listErr, err, false
}

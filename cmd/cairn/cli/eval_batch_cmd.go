package cli

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

type evalBatchCmd struct {
	Format            string      `name:"format" required:"" enum:"${formats}" placeholder:"FORMAT" help:"The format of every input: ${format_list}."`
	JSON              bool        `name:"json" xor:"output" help:"Print one JSON report per line, in the order of the paths, each exactly what eval protocol --json prints; the same as --output json."`
	Report            reportFlags `embed:""`
	CaptureAuthorized bool        `name:"capture-authorized" help:"Assert that memory capture was authorized (an assertion, not authenticated consent)."`
	Jobs              jobsFlag    `name:"jobs" default:"0" placeholder:"N" help:"Audit this many inputs at a time, at most ${max_jobs} (0: one per CPU)."`
	Paths             []string    `arg:"" name:"path" placeholder:"PATH" help:"The files to audit (not -)."`
}

func (c *evalBatchCmd) Help() string {
	return strings.TrimSpace(`
Audits each PATH as eval protocol would, in one process, up to --jobs at a
time. With --json: one report per line, in the order of the paths; line i
is byte for byte what eval protocol --json prints for the i-th path. Paths
are never printed: the order is the correlation. Without --json: a line per
input (its position, status, exit code and the codes of the checks that did
not pass) and a totals line.

Off by default, like eval protocol: the audit runs only when CAIRN_EVAL is
1, true, yes or on.

Exit code: the worst over all inputs, invalid (2) over fail (1) over
inconclusive (3) over pass (0); with --fail-on LIST, the worst of the
outcomes it names, 0 when none. An input that cannot be read is that
input's invalid report; the batch goes on.

--output sarif, junit or github writes one document for all the inputs,
in the order of the paths (SARIF: one run; JUnit: a suite per input).

Examples:
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl runs/*.jsonl
  CAIRN_EVAL=1 cairn eval batch --format claude-jsonl --json --jobs 4 runs/*.jsonl > reports.jsonl
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl --output junit --fail-on fail runs/*.jsonl > cairn.xml

Run 'cairn explain CODE' for what a report code means and what to do.`)
}

// Validate refuses standard input.
func (c *evalBatchCmd) Validate() error {
	for _, p := range c.Paths {
		if p == "-" {
			return usageRefusal(usageBatchStdin)
		}
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
// never more than there are inputs or maxJobs.
func (c *evalBatchCmd) jobs() int {
	n := int(c.Jobs)
	if n == 0 {
		n = runtime.NumCPU()
	}
	return max(1, min(n, maxJobs, len(c.Paths)))
}

func (c *evalBatchCmd) Run(e *env) error {
	output := c.Report.output(c.JSON)
	if !gateOn(e.getenv("CAIRN_EVAL")) {
		status := 0
		switch output {
		case "json":
			for range c.Paths {
				writeJSON(e.stdout, audit.DisabledReport())
			}
		case "text":
			fmt.Fprintln(e.stdout, "cairn eval batch: disabled (set CAIRN_EVAL=1 to run the audit); this is not a passing audit")
		default:
			doc, _ := openDocument(e, output, nil)
			doc.Disabled(len(c.Paths), disabledNotice)
			status = doc.finish(e, 0)
		}
		fmt.Fprintln(e.stderr, disabledNotice)
		return statusError(status)
	}
	jobs := c.jobs()
	memoryLimit(e, jobs)
	opts := protocol.Options{Format: c.Format, CaptureAuthorized: c.CaptureAuthorized}
	doc, _ := openDocument(e, output, c.Report.SARIFURI)
	totals := map[audit.Status]int{}
	// worst is the batch's status (SPEC §10), failing the worst of the
	// outcomes that exit non-zero (--fail-on): the process's exit.
	worst, failing := audit.StatusPass, audit.StatusPass
	var hints batchHints
	err := auditInOrder(c.Paths, jobs, opts, func(i int, rep *audit.Report) {
		switch {
		case output == "json":
			writeJSON(e.stdout, rep)
		case doc != nil:
			doc.input(i+1, rep)
		default:
			fmt.Fprintln(e.stdout, batchLine(i+1, rep))
		}
		totals[rep.Status]++
		hints.add(i+1, rep.LooksLike())
		if rep.Status.Precedence() > worst.Precedence() {
			worst = rep.Status
		}
		if c.Report.fails(rep.Status) && rep.Status.Precedence() > failing.Precedence() {
			failing = rep.Status
		}
	})
	if err != nil {
		return err
	}
	hints.write(e.stderr)
	status := failing.ExitCode()
	switch {
	case doc != nil:
		doc.Close()
		status = doc.finish(e, status)
	case output == "text":
		fmt.Fprintf(e.stdout, "total %d: pass %d, fail %d, inconclusive %d, invalid %d (exit %d)\n", len(c.Paths),
			totals[audit.StatusPass], totals[audit.StatusFail], totals[audit.StatusInconclusive], totals[audit.StatusInvalid], worst.ExitCode())
	}
	return statusError(status)
}

// auditInOrder audits paths with up to jobs at a time and hands each report
// to emit in the order of the paths. At most jobs audits run and at most
// jobs reports wait for an earlier one, so memory does not grow with the
// number of inputs.
func auditInOrder(paths []string, jobs int, opts protocol.Options, emit func(int, *audit.Report)) error {
	type done struct {
		i   int
		rep *audit.Report
		err error
	}
	results := make(chan done, jobs)
	slots := make(chan struct{}, jobs) // one per audit running or report waiting
	next := 0
	pending := map[int]*audit.Report{}
	var wg sync.WaitGroup
	var firstErr error
	start := 0
	for emitted := 0; emitted < len(paths); {
		// Start audits while there is a free slot.
		for start < len(paths) && len(slots) < cap(slots) {
			slots <- struct{}{}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				rep, err := protocol.AuditFile(paths[i], opts)
				results <- done{i, rep, err}
			}(start)
			start++
		}
		d := <-results
		if d.err != nil && firstErr == nil {
			firstErr = d.err
		}
		pending[d.i] = d.rep
		for {
			rep, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			<-slots
			if rep != nil {
				emit(next, rep)
			}
			next++
			emitted++
		}
	}
	wg.Wait()
	return firstErr
}

// batchLine is an input's line in the human batch report: fixed texts,
// codes and numbers only.
func batchLine(pos int, rep *audit.Report) string {
	var codes []string
	if rep.Error != nil {
		codes = append(codes, rep.Error.Code.String())
	} else if ch := rep.Checks; ch != nil {
		for _, c := range ch.List() {
			if c.Check.State == audit.Pass {
				continue
			}
			for _, code := range c.Check.Codes {
				if !containsCode(codes, code.String()) {
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

func containsCode(cs []string, c string) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

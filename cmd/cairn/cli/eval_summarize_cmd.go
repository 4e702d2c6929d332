package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit"
)

type evalSummarizeCmd struct {
	JSON  bool     `name:"json"`
	Files []string `arg:"" optional:"" name:"file" placeholder:"FILE"`
}

func (c *evalSummarizeCmd) Help() string {
	return strings.TrimSpace(`
Reads the JSON reports that eval batch --json (or eval protocol --json)
printed, one a line, from each FILE in turn or from standard input, and
prints the totals: reports by status, each check by state, and for each
code the reports it appears in. Files are named by their position, never
by their path.

The exit code is the worst report's, as eval batch's would be: invalid (2)
over fail (1) over inconclusive (3) over pass (0); 0 when every report is
a disabled envelope. A line that is not a cairn.eval.protocol/v1 report,
byte for byte as cairn prints it, stops it with one line naming the line
and the file: exit 2, and no totals. Reading no report at all is exit 2
too. It reads one line at a time: memory does not grow with the input.

Not gated: it audits nothing, and reads only reports.

Examples:
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl --json runs/*.jsonl | cairn eval summarize
  cairn eval summarize shard-*.jsonl
  cairn eval summarize --json shard-*.jsonl > summary.json`)
}

// Run reads every file, then prints the totals; the first line that is
// not a report, or a file that cannot be read, stops it (exit 2) before
// anything is printed on stdout.
func (c *evalSummarizeCmd) Run(e *env, ctx *kong.Context) error {
	files := c.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, f := range files {
		if f == "-" && isTerminal(e.stdin) {
			writeUsage(e.stderr, usageProblem{kind: usageReportsTerminal, node: ctx.Selected()})
			return statusError(2)
		}
	}
	s := newSummary()
	for i, f := range files {
		if err := s.read(e.stdin, f); err != nil {
			var re *reportsError
			if !errors.As(err, &re) {
				re = &reportsError{problem: reportsUnreadable}
			}
			re.file, re.stdin = i+1, f == "-"
			writeInvalidLine(e.stderr, "reports", re.text())
			return statusError(2)
		}
	}
	if s.reports == 0 {
		writeInvalidLine(e.stderr, "reports", (&reportsError{problem: reportsNone}).text())
		return statusError(2)
	}
	if c.JSON {
		writeJSON(e.stdout, s.json())
	} else {
		s.writeText(e.stdout)
	}
	return statusError(s.exitCode())
}

// read adds the reports of one file ("-": stdin), a line at a time.
func (s *summary) read(stdin io.Reader, name string) error {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err == nil {
			if fi, serr := f.Stat(); serr == nil && fi.IsDir() {
				f.Close()
				err = errors.New("a directory")
			}
		}
		if err != nil {
			return &reportsError{problem: reportsUnreadable, cause: cause{err}}
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, maxReportLine+2)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		switch {
		case err == io.EOF && len(line) == 0:
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			return &reportsError{problem: reportsNotReport, line: n}
		case err != nil && err != io.EOF:
			return &reportsError{problem: reportsUnreadable, cause: cause{err}}
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch s.add(line) {
		case reportNot:
			return &reportsError{problem: reportsNotReport, line: n}
		case reportOtherSchema:
			return &reportsError{problem: reportsOtherSchema, line: n}
		}
	}
}

// reportsProblem is what was wrong with summarize's input.
type reportsProblem int

const (
	reportsUnreadable  reportsProblem = iota // a file could not be opened or read
	reportsNotReport                         // a line is not a report of this schema
	reportsOtherSchema                       // a line is a report of another schema
	reportsNone                              // no report in any file
)

// reportsError is a problem with summarize's input: at line of the
// file-th file (from 1), or standard input.
type reportsError struct {
	problem reportsProblem
	file    int
	stdin   bool
	line    int
	cause
}

func (e *reportsError) Error() string { return "reports: " + e.text() }

// text is the fixed line, after "cairn: invalid reports: ".
func (e *reportsError) text() string {
	where := fmt.Sprintf("file %d", e.file)
	if e.stdin {
		where = "standard input"
	}
	switch e.problem {
	case reportsNotReport:
		return fmt.Sprintf("line %d of %s is not a %s report; give summarize the lines eval batch --json prints, unchanged", e.line, where, audit.Schema)
	case reportsOtherSchema:
		return fmt.Sprintf("line %d of %s is a report of another schema; this cairn reads %s: summarize with the cairn that wrote it", e.line, where, audit.Schema)
	case reportsNone:
		return "no report was read; give summarize the output of eval batch --json"
	}
	return where + " could not be opened or read; check that it exists and that cairn may read it"
}

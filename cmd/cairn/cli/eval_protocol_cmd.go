package cli

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

type evalProtocolCmd struct {
	// The input flags, one per format (inputs); set by newCLI.
	kong.Plugins
	JSON              bool         `name:"json" xor:"output"`
	Report            reportFlags  `embed:""`
	CaptureAuthorized bool         `name:"capture-authorized"`
	Catalogs          catalogFlags `embed:""`

	inputs inputs
}

func (c *evalProtocolCmd) Help() string {
	return wrap("Give exactly one input: "+c.inputs.flagList()+" (- for stdin).", 72) + "\n\n" + strings.TrimSpace(`
Off by default: the audit runs only when CAIRN_EVAL is 1, true, yes or on.
Otherwise it prints a disabled envelope and exits 0 without reading input;
that is not a passing audit.

Exit codes: 0 every check passes (or disabled), 1 a violation was observed,
2 invalid or unsafe input or a usage error, 3 inconclusive. --fail-on LIST
names the outcomes that exit non-zero (from fail, inconclusive and invalid;
all three by default); the others exit 0, and the report does not change.

Reports: --output text (the default), json (--json), sarif (SARIF 2.1.0),
junit (JUnit XML) or github (workflow commands, and a table appended to
GITHUB_STEP_SUMMARY). None names the input unless --sarif-uri does.

Limits: one UTF-8 regular file or standard input, at most `+audit.MaxBytesText+`
and `+audit.MaxRecordsText+` records or events, nested at most `+audit.MaxDepthText+` deep; no symbolic
links anywhere on the path as written.

Examples:
  CAIRN_EVAL=1 cairn eval protocol --codex-jsonl run.jsonl
  codex exec --json "TASK" | CAIRN_EVAL=1 cairn eval protocol --codex-jsonl - --json
  CAIRN_EVAL=1 cairn eval protocol --claude-jsonl claude.jsonl --json
  CAIRN_EVAL=1 cairn eval protocol --codex-jsonl run.jsonl --output sarif --sarif-uri run.jsonl > cairn.sarif

Run 'cairn explain CODE' for what a report code means and what to do.`)
}

// gateOn reports whether CAIRN_EVAL turns the audit on (SPEC §2.1): only
// ASCII whitespace around the word is ignored, not a no-break space.
func gateOn(v string) bool {
	switch strings.ToLower(strings.Trim(v, " \t\r\n")) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Validate runs after parsing, before the gate: exactly one input is
// required. (Marking both flags required would make kong's usage line read
// as if both were needed.)
func (c *evalProtocolCmd) Validate() error {
	if _, _, ok := c.inputs.chosen(); !ok {
		return errors.New("give one input: " + c.inputs.flagList() + " (- reads standard input)")
	}
	if err := c.Catalogs.validate(); err != nil {
		return err
	}
	return c.Report.validate(c.JSON, 1)
}

func (c *evalProtocolCmd) Run(e *env) error {
	output := c.Report.output(c.JSON)
	if !gateOn(e.getenv("CAIRN_EVAL")) {
		doc := openDocument(e, output, false, nil)
		doc.Disabled(1, disabledNotice)
		status := doc.finish(e, 0)
		// On stderr too, so that a forgotten CAIRN_EVAL shows in a CI log.
		fmt.Fprintln(e.stderr, disabledNotice)
		return statusError(status)
	}
	format, path, _ := c.inputs.chosen()
	if path == "-" {
		if isTerminal(e.stdin) {
			fmt.Fprintln(e.stderr, "cairn: usage error: standard input is a terminal; pipe an export into cairn or pass a file path")
			return statusError(2)
		}
	}
	rules, ok := c.Catalogs.rules(e.stderr, c.CaptureAuthorized)
	if !ok {
		return statusError(2)
	}
	memoryLimit(e, 1)
	opts := protocol.Options{Format: format, CaptureAuthorized: rules.CaptureAuthorized, Catalog: rules.Catalog}
	var rep *audit.Report
	var err error
	if path == "-" {
		rep, err = protocol.AuditStream(e.stdin, opts)
	} else {
		rep, err = protocol.AuditFile(path, opts)
	}
	if err != nil {
		return err
	}
	doc := openDocument(e, output, false, c.Report.SARIFURI)
	doc.input(1, rep)
	// The stderr line says it again, unless the human report already did
	// on the same terminal.
	if rep.Error != nil && (!output.Human || !isTerminal(e.stdout) || !isTerminal(e.stderr)) {
		writeInvalid(e.stderr, rep.Error)
	}
	if f := rep.LooksLike(); f != "" {
		fmt.Fprintln(e.stderr, protocolHint(f))
	}
	if isPiSessionFile(rep) {
		fmt.Fprintln(e.stderr, piSessionText)
	}
	return statusError(doc.end(e, c.Report.exitCode(rep.Status), nil))
}

// memoryLimit asks the garbage collector to keep the heap of inputs
// audited at once within SPEC §1's bound (peak memory under 48 MiB for any
// input within the limits): a soft limit of 40 MiB an input, which only
// makes collection more frequent near it (a hostile 16 MiB record stays
// under 42 MB of RSS instead of 54); an exported GOMEMLIMIT wins.
//
// It applies only when cairn owns the process (Main): a program or a test
// that calls Run keeps its own garbage collector settings.
func memoryLimit(e *env, inputs int) {
	if ownsProcess && e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(inputs) * 40 << 20)
	}
}

// disabledNotice is the one stderr line of a disabled run (SPEC §2.1).
const disabledNotice = "cairn: nothing was audited: CAIRN_EVAL is not 1, true, yes or on"

// useColor reports whether the human report may be coloured.
func useColor(e *env) bool { return colorAllowed(isTerminal(e.stdout), e.getenv) }

// colorAllowed is SPEC §7.3: stdout is a terminal, NO_COLOR is unset or
// empty and TERM is not dumb.
func colorAllowed(terminal bool, getenv func(string) string) bool {
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

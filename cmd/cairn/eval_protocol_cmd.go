package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
)

type evalProtocolCmd struct {
	CodexJSONL        string `name:"codex-jsonl" placeholder:"PATH" xor:"input" required:"" help:"Audit a codex exec --json export (JSONL); - reads standard input."`
	Trajectory        string `name:"trajectory" placeholder:"PATH" xor:"input" required:"" help:"Audit a normalized Claude Code, OpenCode or Pi trajectory; - reads standard input."`
	JSON              bool   `name:"json" help:"Print the report as one JSON object (schema cairn.eval.protocol/v1)."`
	CaptureAuthorized bool   `name:"capture-authorized" help:"Assert that memory capture was authorized (an assertion, not authenticated consent)."`
}

func (c *evalProtocolCmd) Help() string {
	return strings.TrimSpace(`
Off by default: the audit runs only when CAIRN_EVAL is 1, true, yes or on.
Otherwise it prints a disabled envelope and exits 0 without reading input;
that is not a passing audit.

Exit codes: 0 every check passes (or disabled), 1 a violation was observed,
2 invalid or unsafe input or a usage error, 3 inconclusive.

Limits: one UTF-8 regular file or standard input, at most 16 MiB and 50,000
records or events; no symbolic links anywhere on the path.`)
}

// gateOn reports whether CAIRN_EVAL turns the audit on (SPEC §2.1).
func gateOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func (c *evalProtocolCmd) Run(e *env) error {
	if !gateOn(e.getenv("CAIRN_EVAL")) {
		if c.JSON {
			writeJSON(e.stdout, audit.DisabledReport())
		} else {
			fmt.Fprintln(e.stdout, "cairn eval protocol: disabled (set CAIRN_EVAL=1 to run the audit); this is not a passing audit")
		}
		return nil
	}
	format, path := audit.FormatCodex, c.CodexJSONL
	if c.Trajectory != "" {
		format, path = audit.FormatTrajectory, c.Trajectory
	}
	source := "file"
	if path == "-" {
		source = "stdin"
		if isTerminal(e.stdin) {
			fmt.Fprintln(e.stderr, "cairn: usage error: standard input is a terminal; pipe an export into cairn or pass a file path")
			return statusError(2)
		}
	}
	if format == audit.FormatTrajectory {
		fmt.Fprintln(e.stderr, "cairn: usage error: --trajectory is not supported yet; use --codex-jsonl")
		return statusError(2)
	}
	rep := audit.NewReport(format, source, c.CaptureAuthorized)
	rep.SetHarness("codex")
	auditCodex(rep, path, e.stdin, c.CaptureAuthorized)
	if c.JSON {
		writeJSON(e.stdout, rep)
	} else {
		writeHuman(e.stdout, rep)
	}
	if rep.Error != nil {
		writeInvalid(e.stderr, rep.Error)
	}
	return statusError(rep.ExitCode)
}

// auditCodex reads the codex export at path (or stdin for -) once and fills
// rep.
func auditCodex(rep *audit.Report, path string, stdin io.Reader, capture bool) {
	engine := audit.NewEngine(capture)
	codex := normalize.NewCodex(engine)
	fail := func(err error, lines *stream.Lines) {
		var ie *audit.InputError
		if !errors.As(err, &ie) {
			ie = audit.Invalid(audit.InputUnreadable, -1, err)
		}
		if lines != nil {
			rep.Input.Bytes = lines.Bytes()
			rep.Input.Records = lines.Record()
		}
		rep.Input.Events = engine.Events()
		rep.Counts = engine.Counts()
		rep.Invalidate(ie)
	}
	var r io.Reader = stdin
	var file *stream.File
	if path != "-" {
		if path == "" {
			fail(audit.Invalid(audit.InputNotFound, -1, nil), nil)
			return
		}
		f, err := stream.Open(path)
		if err != nil {
			fail(err, nil)
			return
		}
		defer f.Close()
		r, file = f, f
	}
	lines := stream.NewLines(r)
	for {
		line, err := lines.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err, lines)
			return
		}
		if err := codex.Record(line, lines.Record()); err != nil {
			fail(err, lines)
			return
		}
	}
	if file != nil {
		if err := file.Verify(); err != nil {
			fail(err, lines)
			return
		}
	}
	codex.End()
	checks, counts := engine.Finish()
	rep.Input.Bytes = lines.Bytes()
	rep.Input.Records = lines.Record()
	rep.Input.Events = engine.Events()
	rep.SetDigest(lines.Sum())
	rep.Counts = counts
	rep.Conclude(checks)
}

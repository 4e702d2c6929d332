package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
)

// cli is the kong grammar of cairn.
type cli struct {
	Eval       evalCmd          `cmd:"" help:"Evaluate saved agent sessions."`
	Explain    explainCmd       `cmd:"" help:"Explain a report code and what to do about it."`
	Version    versionCmd       `cmd:"" help:"Print the version."`
	Completion completionCmd    `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	V          kong.VersionFlag `name:"version" help:"Print the version and exit."`
}

type evalCmd struct {
	Protocol evalProtocolCmd `cmd:"" help:"Audit whether an agent really used its project-memory tools."`
}

// env is what a command may touch of the process; tests supply their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// exitStatus carries kong's requested exit (after --help) out of Parse.
type exitStatus int

// writeFailedText is the one line printed when standard output could not
// be written (SPEC §2): a report that was not delivered is never exit 0.
const writeFailedText = "cairn: error: could not write to standard output"

// run is main without the process: it parses args, runs the command and
// returns the exit status. Every write to stdout goes through one
// outWriter, so that a failed write (a full disk, a closed pipe) turns any
// command's status into 2 with one fixed line on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	out := &outWriter{w: stdout}
	status := runCommand(args, stdin, out, stderr, getenv)
	if out.err != nil {
		fmt.Fprintln(stderr, writeFailedText)
		return 2
	}
	return status
}

// runCommand parses args and runs the command.
func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (status int) {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("cairn"),
		kong.Description("Audit, offline, whether an AI coding agent really used its project-memory tools."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitStatus(code)) }),
		kong.Vars{"version": "cairn " + version()},
	)
	if err != nil {
		fmt.Fprintln(stderr, "cairn: internal error: command grammar")
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitStatus)
			if !ok {
				panic(r)
			}
			// kong exits 80 on parse errors; a usage error is exit 2 here.
			status = int(code)
			if status != 0 {
				status = 2
			}
		}
	}()
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: usage error: %s\n", redact(err.Error(), args))
		fmt.Fprintln(stderr, "Run 'cairn --help' or 'cairn eval protocol --help' for usage.")
		return 2
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	var st statusError
	switch err := ctx.Run(e); {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	default:
		fmt.Fprintf(stderr, "cairn: error: %s\n", redact(err.Error(), args))
		return 2
	}
}

// statusError is a command's exit status, returned as an error by Run.
type statusError int

func (s statusError) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// outWriter is standard output as the commands see it: it remembers the
// first write error, and after one writes nothing more. A short write
// without an error is an error too (io.ErrShortWrite).
type outWriter struct {
	w   io.Writer
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		o.err = err
	}
	return n, err
}

// grammarWords are the tokens of cairn's grammar: an argument that is not
// one of them may be a path, and never appears in a message.
var grammarWords = map[string]bool{
	"eval": true, "protocol": true, "--json": true, "--capture-authorized": true,
	"--codex-jsonl": true, "--trajectory": true, "--help": true, "-h": true, "-": true,
	"explain": true, "version": true, "--version": true,
	"completion": true, "bash": true, "zsh": true, "fish": true,
}

// redact returns a parser message, or a fixed one when the message quotes
// any argument that is not a word of the grammar: such an argument may be a
// path, and cairn never prints paths.
func redact(msg string, args []string) string {
	for _, a := range args {
		for _, part := range strings.SplitN(a, "=", 2) {
			if part != "" && !grammarWords[part] && strings.Contains(msg, part) {
				return "an argument was not understood (its text is not repeated)"
			}
		}
	}
	return msg
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	if o, ok := r.(*outWriter); ok {
		r = o.w
	}
	f, ok := r.(*os.File)
	return ok && termIsTerminal(int(f.Fd()))
}

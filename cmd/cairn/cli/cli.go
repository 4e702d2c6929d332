package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit/catalog"
)

// cli is the kong grammar of cairn.
type cli struct {
	Eval       evalCmd          `cmd:""`
	Catalog    catalogCmd       `cmd:""`
	Explain    explainCmd       `cmd:""`
	Version    versionCmd       `cmd:""`
	Completion completionCmd    `cmd:""`
	Help       helpCmd          `cmd:""`
	V          kong.VersionFlag `name:"version"`
}

type evalCmd struct {
	Protocol  evalProtocolCmd  `cmd:""`
	Batch     evalBatchCmd     `cmd:""`
	Summarize evalSummarizeCmd `cmd:""`
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

// Main runs cairn on the process's arguments, standard streams and
// environment, and returns the exit status: what the cairn binary does.
func Main() int {
	ownsProcess = true
	return Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// ownsProcess is set by Main: cairn is the whole process, and may tune its
// runtime (memoryLimit).
var ownsProcess bool

// Run is Main with its arguments (without the program name), streams and
// environment given: 0 pass (or disabled, or help), 1 fail, 2 invalid input
// or a usage error, 3 inconclusive.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return run(args, stdin, stdout, stderr, getenv)
}

// run is main without the process: it parses args, runs the command and
// returns the exit status. Every write to stdout goes through one
// outWriter, so that a failed write (a full disk, an I/O error) turns any
// command's status into 2 with one fixed line on stderr. (A write to a
// closed pipe on stdout ends the process with SIGPIPE first, as Go's
// runtime does for descriptors 1 and 2.)
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	out := &outWriter{w: stdout}
	status := runCommand(args, stdin, out, stderr, getenv)
	if out.err != nil {
		fmt.Fprintln(stderr, writeFailedText)
		return 2
	}
	return status
}

// rootHelp is the top of cairn --help.
const rootHelp = `Audit, offline, whether an AI coding agent really used its project-memory tools.

Examples:
  CAIRN_EVAL=1 cairn eval protocol --codex-jsonl run.jsonl
  claude -p "TASK" --output-format stream-json --verbose | CAIRN_EVAL=1 cairn eval protocol --claude-jsonl -
  CAIRN_EVAL=1 cairn eval batch --format codex-jsonl --json runs/*.jsonl > reports.jsonl
  cairn explain project_search_absent

Run 'cairn help COMMAND' for a command, 'cairn explain CODE' for a report code.`

// grammarVars are the variables the grammar's tags use.
func grammarVars() kong.Vars {
	return kong.Vars{"version": "cairn " + version(), "max_jobs": strconv.Itoa(maxJobs),
		"formats": strings.Join(formatNames(), ","), "format_list": orList(formatNames()),
		"outputs": strings.Join(outputNames(), ","), "output_list": orList(outputNames()),
		"outcomes": strings.Join(outcomeNames(), ","), "outcome_list": andList(outcomeNames()),
		"catalogs": strings.Join(catalog.BuiltinNames(), ","), "catalog_list": orList(builtinBareNames())}
}

// scopeVars gives each of the grammar's variables only to the nodes and
// flags whose tags use it, instead of all of them to the whole grammar:
// kong interpolates every variable a node or flag has again for each
// flag, with a regular expression, so that a variable given where it is
// not used costs a scan of its text per flag (all of them everywhere
// were a third of a small audit's instructions and about 700
// allocations; all of them to each flag that used one, 0.9 M
// instructions a run). kong's own hooks (the version flag) still have
// them all.
func scopeVars(k *kong.Kong) error {
	vars := k.Model.Node.Tag.Vars
	k.Model.Node.Tag.Vars = kong.Vars{}
	// used adds to own the variables texts name (${name}, or
	// ${name=default}).
	used := func(own kong.Vars, texts ...string) kong.Vars {
		for _, t := range texts {
			for {
				_, rest, ok := strings.Cut(t, "${")
				if !ok {
					break
				}
				name, _, _ := strings.Cut(rest, "}")
				name, _, _ = strings.Cut(name, "=")
				if v, ok := vars[name]; ok {
					own = own.CloneWith(kong.Vars{name: v})
				}
				t = rest
			}
		}
		return own
	}
	value := func(v *kong.Value) {
		texts := append([]string{v.Default, v.Enum}, v.Tag.Envs...)
		if v.Flag != nil {
			texts = append(texts, v.Flag.PlaceHolder)
		}
		v.Tag.Vars = used(v.Tag.Vars, texts...)
	}
	// The nodes kong.Visit would visit, walked without its closures.
	var node func(n *kong.Node)
	node = func(n *kong.Node) {
		if n.Argument != nil {
			value(n.Argument)
		}
		for _, f := range n.Flags {
			value(f.Value)
		}
		for _, p := range n.Positional {
			value(p)
		}
		for _, c := range n.Children {
			node(c)
		}
	}
	node(k.Model.Node)
	return nil
}

// newCLI is the grammar with eval protocol's input flags made from the
// format table.
func newCLI() *cli {
	c := &cli{}
	c.Eval.Protocol.inputs = newInputs()
	c.Eval.Protocol.Plugins = kong.Plugins{c.Eval.Protocol.inputs.plugin()}
	return c
}

// runCommand parses args and runs the command.
func runCommand(args []string, stdin io.Reader, stdout *outWriter, stderr io.Writer, getenv func(string) string) (status int) {
	c := newCLI()
	parser, err := kong.New(c,
		kong.Name("cairn"),
		kong.Help(printHelp),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitStatus(code)) }),
		grammarVars(),
		kong.PostBuild(scopeVars),
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
	// cairn alone, and cairn help [COMMAND...], show help (exit 0).
	switch {
	case len(args) == 0:
		args = []string{"--help"}
	case args[0] == "help":
		args = append(append([]string{}, args[1:]...), "--help")
	}
	ctx, err := parser.Parse(args)
	if err != nil && stdout.err != nil {
		// Help could not be written (kong's help flag then returns the
		// write error instead of exiting): run says so, and the command
		// line, which was fine, is no usage error.
		return 2
	}
	if err != nil {
		// kong's message quotes the argument: it is never printed.
		writeUsage(stderr, classifyUsage(err, args, parser.Model.Node))
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
		// Commands return only statusError; anything else is kong's, and
		// its text is not repeated.
		fmt.Fprintln(stderr, "cairn: internal error: the command could not run")
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

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	if o, ok := r.(*outWriter); ok {
		r = o.w
	}
	f, ok := r.(*os.File)
	return ok && termIsTerminal(int(f.Fd()))
}

// helpCmd is in the grammar so that help lists and completes it; runCommand
// turns cairn help [COMMAND...] into COMMAND... --help before parsing.
type helpCmd struct {
	Command []string `arg:"" optional:""`
}

func (helpCmd) Run(e *env) error { return nil }

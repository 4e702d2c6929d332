package cli

import (
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit/protocol"
)

// The one-line help of every command, flag and argument is here, not in
// the grammar's struct tags. kong reads each tag rune by rune and
// interpolates each help text with a regular expression, in every run:
// the help texts were a quarter of the instructions of auditing a small
// file (2.5 M of 10 M), for text only cairn help, --help and completion
// print. fillHelp puts them into the grammar when one of those runs.

// helpTexts is the help of the grammar's commands, flags and arguments,
// by place: the command's words ("" for cairn itself), then, for a flag,
// a space and --NAME, and for an argument a space and <NAME>. Variables
// (${name}) are those of grammarVars. eval protocol's input flags are
// not here: their help comes from the format table (inputHelp).
func helpTexts() map[string]string {
	const (
		captureAuthorized = "Assert that memory capture was authorized (an assertion, not authenticated consent)."
		output            = "Print the report as ${output_list} (text by default)."
		failOn            = "Exit non-zero only for these outcomes, comma-separated from ${outcome_list} (default: all three); the report does not change."
		sarifURI          = "With --output sarif, name the input by this URI (its path from the repository root, say), once per input in eval batch; without it SARIF names no input."
		catalog           = "Judge the calls of this built-in memory catalog's server: ${catalog_list} (NAME/N picks a version; cairn-memory by default)."
		catalogFile       = "Judge by the memory catalog in this file (schema cairn.catalog/v1; 'cairn catalog check PATH' validates it)."
		memoryServer      = "The name the memory server is registered under in the agent's MCP configuration, in place of the catalog's (repeatable, up to 16)."
	)
	return map[string]string{
		"":           rootHelp,
		" --version": "Print the version and exit.",

		"eval":                               "Evaluate saved agent sessions.",
		"eval protocol":                      "Audit whether an agent really used its project-memory tools.",
		"eval protocol --json":               "Print the report as one JSON object (schema cairn.eval.protocol/v1); the same as --output json.",
		"eval protocol --output":             output,
		"eval protocol --fail-on":            failOn,
		"eval protocol --sarif-uri":          sarifURI,
		"eval protocol --capture-authorized": captureAuthorized,
		"eval protocol --catalog":            catalog,
		"eval protocol --catalog-file":       catalogFile,
		"eval protocol --memory-server":      memoryServer,

		"eval batch":                      "Audit many inputs of one format in one process, a report per input.",
		"eval batch --format":             "The format of every input: ${format_list}.",
		"eval batch --json":               "Print one JSON report per line, in the order of the paths, each exactly what eval protocol --json prints; the same as --output json.",
		"eval batch --output":             output,
		"eval batch --fail-on":            failOn,
		"eval batch --sarif-uri":          sarifURI,
		"eval batch --capture-authorized": captureAuthorized,
		"eval batch --catalog":            catalog,
		"eval batch --catalog-file":       catalogFile,
		"eval batch --memory-server":      memoryServer,
		"eval batch --jobs":               "Audit this many inputs at a time, at most ${max_jobs} (0: one per CPU).",
		"eval batch --paths-from":         "Also audit the paths this file lists, one a line, after the PATH arguments; - reads the list from standard input.",
		"eval batch --null":               "The list of --paths-from is NUL-separated (find -print0), not one path a line.",
		"eval batch --shard":              "Audit only the inputs whose position in the list, from 0, is I modulo N (0 <= I < N): N shards' reports together are the whole batch's.",
		"eval batch <path>":               "The files to audit (not -).",

		"eval summarize":        "Total the reports of eval batch --json, from any number of shards: by status, check state and code.",
		"eval summarize --json": "Print the totals as one JSON object (schema cairn.eval.summary/v1).",
		"eval summarize <file>": "Files of reports, one a line, as eval batch --json prints them (any number of shards' outputs); - or none reads standard input.",

		"catalog":                      "List, show, check and derive memory catalogs (the memory server an audit judges).",
		"catalog list":                 "List the built-in memory catalogs and their policy digests.",
		"catalog list --json":          "Print the list as one JSON object (schema cairn.catalog.list/v1).",
		"catalog show":                 "Print a catalog as canonical JSON, and its policy digests.",
		"catalog show <name>":          "A built-in catalog: ${catalog_list} (NAME/N picks a version).",
		"catalog show --file":          "A catalog file (schema cairn.catalog/v1) instead of a built-in.",
		"catalog show --memory-server": "The name the memory server is registered under, in place of the catalog's (repeatable, up to 16), as eval protocol takes it.",
		"catalog check":                "Validate a catalog file, and compare it with the server's saved tools/list answer.",
		"catalog check <path>":         "The catalog file to check.",
		"catalog check --catalog":      "Check a built-in catalog instead of a file (with --tools-list: is it still the server's?).",
		"catalog check --tools-list":   "The server's saved tools/list answer (a JSON-RPC response, or its result) to compare the catalog with.",
		"catalog check --json":         "Print the result as one JSON object (schema cairn.catalog.check/v1).",
		"catalog derive":               "Write a catalog file from the server's saved tools/list answer.",
		"catalog derive --tools-list":  "The server's saved tools/list answer (a JSON-RPC response, or its result).",
		"catalog derive --name":        "The catalog's name: lower-case letters, digits, ., _ and -, a slash and a version (team-memory/1); not a built-in's.",
		"catalog derive --server":      "The name the server is registered under in the agent's MCP configuration (repeatable, up to 16).",
		"catalog derive --search":      "A tool that is a search, and when a call of it is project-scoped: instance, eq:ARG=VALUE, prefix:ARG=PREFIX or present:ARG (repeatable).",

		"explain":        "Explain a report code and what to do about it.",
		"explain <code>": "A code or check name from a report, e.g. project_search_absent or memory_first (any case).",
		"explain --list": "List the four checks and every code with its kind and meaning.",
		"explain --json": "Print as JSON: one object for a code or check, an array with --list.",

		"version":        "Print the version.",
		"version --json": "Print the version as one JSON object.",

		"completion":         "Print a shell completion script (bash, zsh or fish).",
		"completion <shell>": "The shell: bash, zsh or fish.",

		"help":           "Show help for a command (cairn help eval protocol).",
		"help <command>": "The command to show help for.",
	}
}

// inputHelp is the help of eval protocol's input flag of format f.
func inputHelp(f protocol.Format) string {
	return "Audit " + f.Help + "; - reads standard input."
}

// fillHelp puts the help texts into the grammar whose root is root, with
// their variables expanded (a name that is none is left as it is:
// TestHelpTexts refuses it). A place without a text keeps what kong gave
// it (kong's own --help flag has its own); TestHelpTexts holds the table
// to the grammar.
func fillHelp(root *kong.Node) {
	texts := helpTexts()
	var pairs []string // ${name} and its value, for every variable
	for name, value := range grammarVars() {
		pairs = append(pairs, "${"+name+"}", value)
	}
	expand := strings.NewReplacer(pairs...)
	inputs := map[string]string{}
	for _, f := range protocol.Formats() {
		inputs["eval protocol --"+f.Name] = inputHelp(f)
	}
	set := func(dst *string, place string) {
		if t, ok := texts[place]; ok {
			*dst = expand.Replace(t)
		} else if t, ok := inputs[place]; ok {
			*dst = t
		}
	}
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		set(&n.Help, path)
		for _, f := range n.Flags {
			set(&f.Help, path+" --"+f.Name)
		}
		for _, p := range n.Positional {
			set(&p.Help, path+" <"+p.Name+">")
		}
		for _, c := range n.Children {
			walk(c, strings.TrimSpace(path+" "+c.Name))
		}
	}
	walk(root, "")
}

// printHelp is kong's help printer, with the help texts filled in first.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	fillHelp(ctx.Model.Node)
	return kong.DefaultHelpPrinter(options, ctx)
}

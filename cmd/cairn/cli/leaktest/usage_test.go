package leaktest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// TestUsageText pins the two fixed lines of each kind of usage error: the
// message, chosen by the kind of error, and the help of the command being
// typed.
func TestUsageText(t *testing.T) {
	t.Parallel()
	const (
		root       = "Run 'cairn --help' for usage."
		eval       = "Run 'cairn eval --help' for usage."
		protocol   = "Run 'cairn eval protocol --help' for usage."
		batch      = "Run 'cairn eval batch --help' for usage."
		explain    = "Run 'cairn explain --help' for usage."
		version    = "Run 'cairn version --help' for usage."
		completion = "Run 'cairn completion --help' for usage."
	)
	p := func(args ...string) []string { return append([]string{"eval", "protocol"}, args...) }
	b := func(args ...string) []string {
		return append(append([]string{"eval", "batch", "--format", "codex-jsonl"}, args...), "a.jsonl")
	}
	const (
		jobs             = "flag --jobs must be a whole number from 0 (one per CPU) to 1024"
		failOn           = "flag --fail-on takes a comma-separated list of fail, inconclusive and invalid"
		sarifOutput      = "flag --sarif-uri names an input in a SARIF report; give it with --output sarif"
		sarifCount       = "give --sarif-uri once for each input, in the order of the inputs"
		shard            = "flag --shard must be I/N, two whole numbers with 0 <= I < N"
		secondPath       = "eval protocol audits one input; for many files, eval batch --format FORMAT PATH..."
		inputFlags       = "--codex-jsonl PATH, --claude-jsonl PATH, --gemini-jsonl PATH, --pi-jsonl PATH, --opencode-jsonl PATH, --opencode-export PATH, --copilot-jsonl PATH, --qwen-jsonl PATH, --cline-jsonl PATH or --trajectory PATH"
		pathWithoutFlag  = "a path needs the input flag of its format: " + inputFlags + " (- reads standard input); for many files, eval batch --format FORMAT PATH..."
		formatOnProtocol = "eval protocol has no --format: the input flag names the format, one of --codex-jsonl, --claude-jsonl, --gemini-jsonl, --pi-jsonl, --opencode-jsonl, --opencode-export, --copilot-jsonl, --qwen-jsonl, --cline-jsonl or --trajectory; --format is eval batch's"
		badURI           = "flag --sarif-uri takes a URI reference (RFC 3986); percent-encode a path's spaces, #, ?, % and non-ASCII bytes (run%232.jsonl for run#2.jsonl)"
	)
	tests := []struct {
		name string
		args []string
		msg  string
		help string
	}{
		{"eval alone", []string{"eval"}, "missing command; give one of protocol, batch, summarize", eval},
		{"unknown command", []string{"Frobnicate"}, "unknown command; give one of eval, catalog, explain, version, completion, help", root},
		{"command typo", []string{"explian", "x"}, "unknown command; did you mean explain?", root},
		{"command case", []string{"VERSION"}, "unknown command; did you mean version?", root},
		{"unknown subcommand", []string{"eval", "Secret"}, "unknown command; give one of protocol, batch, summarize", eval},
		{"subcommand typo", []string{"eval", "protocl", "--json"}, "unknown command; did you mean protocol?", eval},
		{"unknown flag", p("--codex-jsonl", "-", "--Secret"), "unknown flag", protocol},
		{"unknown flag with value", p("--destination=/Home/Alice/Secret.json", "--codex-jsonl", "-"), "unknown flag", protocol},
		{"output a path", p("--output=/Home/Alice/Secret.json", "--codex-jsonl", "-"), "--output must be one of text, json, sarif, junit, github", protocol},
		{"output case", p("--codex-jsonl", "-", "--output", "SARIF"), "--output must be one of text, json, sarif, junit, github; did you mean sarif?", protocol},
		{"output typo in batch", b("--output", "junti"), "--output must be one of text, json, sarif, junit, github; did you mean junit?", batch},
		{"json and output", p("--codex-jsonl", "-", "--json", "--output", "json"), "--json is --output json; give only one of them", protocol},
		{"json and output in batch", b("--output=sarif", "--json"), "--json is --output json; give only one of them", batch},
		{"fail-on word", p("--codex-jsonl", "-", "--fail-on", "fail,Secret"), failOn, protocol},
		{"fail-on empty", p("--codex-jsonl", "-", "--fail-on="), failOn, protocol},
		{"fail-on trailing comma", b("--fail-on", "fail,"), failOn, batch},
		{"fail-on pass", b("--fail-on", "pass"), failOn, batch},
		{"fail-on needs a value", p("--codex-jsonl", "-", "--fail-on"), "flag --fail-on needs a value", protocol},
		{"sarif-uri without sarif", p("--codex-jsonl", "-", "--sarif-uri", "/Home/Alice/Secret.jsonl"), sarifOutput, protocol},
		{"sarif-uri with junit", b("--output", "junit", "--sarif-uri", "Secret"), sarifOutput, batch},
		{"sarif-uri twice", p("--codex-jsonl", "-", "--output", "sarif", "--sarif-uri", "a", "--sarif-uri", "Secret"), sarifCount, protocol},
		{"sarif-uri short of the paths", append(b("--output", "sarif", "--sarif-uri", "Secret"), "b.jsonl"), sarifCount, batch},
		{"flag typo", p("--codex-jsonl", "-", "--jsno"), "unknown flag; did you mean --json?", protocol},
		{"flag case", p("--codex-jsonl", "-", "--JSON"), "unknown flag; did you mean --json?", protocol},
		{"flag prefix", p("--traj", "-"), "unknown flag; did you mean --trajectory?", protocol},
		{"single dash long flag", p("--codex-jsonl", "-", "-json"), "unknown flag; did you mean --json?", protocol},
		{"short cluster", p("--codex-jsonl", "-", "-QSecret"), "unknown flag", protocol},
		{"help then unknown short", []string{"-hQ"}, "unknown flag", root},
		{"flag of another command", []string{"--json"}, "unknown flag", root},
		{"bool flag value", p("--json=/Home/Alice/Secret.jsonl", "--codex-jsonl", "-"), "flag --json takes no value", protocol},
		{"bool flag value upper", p("--codex-jsonl", "-", "--capture-authorized=SECRET"), "flag --capture-authorized takes no value", protocol},
		{"version flag value", []string{"--version=Secret"}, "flag --version takes no value", root},
		{"missing value at end", p("--json", "--codex-jsonl"), "flag --codex-jsonl needs a value", protocol},
		{"missing value before flag", p("--trajectory", "--json"), "flag --trajectory needs a value", protocol},
		{"repeated input", p("--codex-jsonl", "a.jsonl", "--codex-jsonl", "b.jsonl"), "flag --codex-jsonl was given more than once; give one input", protocol},
		{"repeated input attached", p("--trajectory=a", "--trajectory=b"), "flag --trajectory was given more than once; give one input", protocol},
		{"two inputs", p("--codex-jsonl", "a.jsonl", "--trajectory", "b.json"), "give only one input: --codex-jsonl, --claude-jsonl, --gemini-jsonl, --pi-jsonl, --opencode-jsonl, --opencode-export, --copilot-jsonl, --qwen-jsonl, --cline-jsonl or --trajectory", protocol},
		{"no input", p("--json"), "give one input: --codex-jsonl PATH, --claude-jsonl PATH, --gemini-jsonl PATH, --pi-jsonl PATH, --opencode-jsonl PATH, --opencode-export PATH, --copilot-jsonl PATH, --qwen-jsonl PATH, --cline-jsonl PATH or --trajectory PATH (- reads standard input)", protocol},
		{"no input at all", p(), "give one input: --codex-jsonl PATH, --claude-jsonl PATH, --gemini-jsonl PATH, --pi-jsonl PATH, --opencode-jsonl PATH, --opencode-export PATH, --copilot-jsonl PATH, --qwen-jsonl PATH, --cline-jsonl PATH or --trajectory PATH (- reads standard input)", protocol},
		{"stray word", p("--codex-jsonl", "-", "/home/alice/second.jsonl"), secondPath, protocol},
		{"word after --", p("--codex-jsonl", "-", "--", "Secret"), secondPath, protocol},
		// SPEC §2 v4: the mistakes a new user makes get an answer.
		{"path without an input flag", p("/home/alice/Secret.jsonl"), pathWithoutFlag, protocol},
		{"path without an input flag, then json", p("run.jsonl", "--json"), pathWithoutFlag, protocol},
		{"format on eval protocol", p("--format", "claude-jsonl", "run.jsonl"), "eval protocol has no --format: the input flag names the format; did you mean --claude-jsonl PATH?", protocol},
		{"format on eval protocol attached, any case", p("--format=Opencode-Export", "run.jsonl"), "eval protocol has no --format: the input flag names the format; did you mean --opencode-export PATH?", protocol},
		{"format on eval protocol, no format's name", p("--format", "Secret", "run.jsonl"), formatOnProtocol, protocol},
		{"format on eval protocol, no value", p("--format"), formatOnProtocol, protocol},
		{"-o a format", p("--codex-jsonl", "-", "-o", "Secret"), "--output must be one of text, json, sarif, junit, github", protocol},
		{"batch without --format", []string{"eval", "batch", "/home/alice/Secret.jsonl"}, "give --format FORMAT; one of codex-jsonl, claude-jsonl, gemini-jsonl, pi-jsonl, opencode-jsonl, opencode-export, copilot-jsonl, qwen-jsonl, cline-jsonl, trajectory", batch},
		{"sarif-uri not a URI reference", p("--codex-jsonl", "-", "--output", "sarif", "--sarif-uri", "runs/Secret #1#2.jsonl"), badURI, protocol},
		{"sarif-uri not a URI reference in batch", b("--output", "sarif", "--sarif-uri=Sécret.jsonl"), badURI, batch},
		{"missing code", []string{"explain"}, "give a code or a check's name, or --list", explain},
		{"two codes", []string{"explain", "project_search_absent", "Secret"}, "unexpected argument", explain},
		{"version argument", []string{"version", "Secret"}, "unexpected argument", version},
		{"missing shell", []string{"completion"}, "missing <shell>; give one of bash, zsh, fish", completion},
		{"unknown shell", []string{"completion", "Secret"}, "<shell> must be one of bash, zsh, fish", completion},
		{"shell case", []string{"completion", "FISH"}, "<shell> must be one of bash, zsh, fish; did you mean fish?", completion},
		{"shell after --", []string{"completion", "--", "tcsh"}, "<shell> must be one of bash, zsh, fish", completion},
		{"jobs past int", b("--jobs", "9223372036854775808"), jobs, batch},
		{"jobs at int's end", b("--jobs", "9223372036854775807"), jobs, batch},
		{"jobs past the maximum", b("--jobs=1025"), jobs, batch},
		{"jobs negative", b("--jobs=-1"), jobs, batch},
		{"jobs not a number", b("--jobs", "Secret"), jobs, batch},
		{"jobs with a space", b("--jobs", " 4"), jobs, batch},
		{"shard of none", b("--shard", "1/0"), shard, batch},
		{"shard past the last", b("--shard", "3/3"), shard, batch},
		{"shard negative", b("--shard=-1/2"), shard, batch},
		{"shard words", b("--shard", "a/b"), shard, batch},
		{"shard without N", b("--shard", "1"), shard, batch},
		{"shard past int", b("--shard", "0/9223372036854775808"), shard, batch},
		{"shard with a sign", b("--shard", "+0/2"), shard, batch},
		{"shard needs a value", []string{"eval", "batch", "--format", "codex-jsonl", "a.jsonl", "--shard"}, "flag --shard needs a value", batch},
		{"null without a list", b("--null"), "flag --null says how the list of --paths-from is separated; give it with --paths-from", batch},
		{"two lists", b("--paths-from", "a", "--paths-from", "Secret"), "flag --paths-from was given more than once; give one list", batch},
		{"sarif-uri with a list", b("--output", "sarif", "--sarif-uri", "Secret", "--paths-from", "list"), "flag --sarif-uri names PATH arguments; it cannot be given with --paths-from", batch},
		{"summarize unknown flag", []string{"eval", "summarize", "--Secret"}, "unknown flag", "Run 'cairn eval summarize --help' for usage."},
		{"batch without paths", []string{"eval", "batch", "--format", "codex-jsonl"}, "give the files to audit: PATH arguments, --paths-from FILE, or both", batch},
	}
	// --sarif-uri with every format of --output that names no input.
	for _, f := range render.Formats() {
		if !f.NamesInputs {
			tests = append(tests, struct {
				name string
				args []string
				msg  string
				help string
			}{"sarif-uri with " + f.Name + " in batch", b("--output", f.Name, "--sarif-uri", "Secret"), sarifOutput, batch})
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, gate := range []string{"1", ""} {
				code, stdout, stderr := privRunEnv(tc.args, nil, gate)
				want := "cairn: usage error: " + tc.msg + "\n" + tc.help + "\n"
				if code != 2 || len(stdout) != 0 || string(stderr) != want {
					t.Errorf("cairn %q (CAIRN_EVAL=%q): got exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q",
						tc.args, gate, code, stdout, stderr, want)
				}
			}
		})
	}
}

// usageCase is an argument vector built around a canary c, and the exit
// status it must give.
type usageCase struct {
	name  string
	args  func(c string) []string
	gate  string
	exit  int
	usage bool // a usage error: two fixed lines on stderr, nothing on stdout
}

// withCanary is a command line whose every C the canary replaces.
func withCanary(args ...string) func(string) []string {
	return func(c string) []string {
		out := make([]string, len(args))
		for i, s := range args {
			out[i] = strings.ReplaceAll(s, "C", c)
		}
		return out
	}
}

func usageCases() []usageCase {
	a := withCanary
	u := func(name string, args func(string) []string) usageCase {
		return usageCase{name: name, args: args, gate: "1", exit: 2, usage: true}
	}
	cases := []usageCase{
		u("root word", a("C")),
		u("root word then help", a("C", "--help")),
		u("root long flag", a("--C")),
		u("root long flag value", a("--C=C")),
		u("root short", a("-C")),
		u("root help cluster", a("-hC")),
		u("root unknown cluster", a("-QC")),
		u("root version value", a("--version=C")),
		u("root help value", a("--help=C")),
		u("root after --", a("--", "C")),
		u("root flag then word", a("--json", "C")),
		u("eval word", a("eval", "C")),
		u("eval word then command", a("eval", "C", "protocol")),
		u("eval long flag", a("eval", "--C")),
		u("eval cluster", a("eval", "-QC")),
		u("eval after --", a("eval", "--", "C")),
		u("protocol word", a("eval", "protocol", "--codex-jsonl", "-", "C")),
		u("protocol word first", a("eval", "protocol", "C", "--codex-jsonl", "-")),
		u("protocol long flag", a("eval", "protocol", "--codex-jsonl", "-", "--C")),
		u("protocol long flag value", a("eval", "protocol", "--codex-jsonl", "-", "--C=C")),
		u("protocol cluster", a("eval", "protocol", "--codex-jsonl", "-", "-QC")),
		u("protocol short", a("eval", "protocol", "--codex-jsonl", "-", "-C")),
		u("protocol json value", a("eval", "protocol", "--codex-jsonl", "-", "--json=C")),
		u("protocol capture value", a("eval", "protocol", "--capture-authorized=C", "--trajectory", "-")),
		u("protocol help value", a("eval", "protocol", "--help=C")),
		u("protocol two inputs", a("eval", "protocol", "--codex-jsonl", "C", "--trajectory", "C")),
		u("protocol two inputs attached", a("eval", "protocol", "--codex-jsonl=C", "--trajectory=C", "--json")),
		u("protocol repeated input", a("eval", "protocol", "--codex-jsonl", "C", "--codex-jsonl", "C")),
		u("protocol repeated attached", a("eval", "protocol", "--trajectory=C", "--trajectory=C")),
		u("protocol value is a flag", a("eval", "protocol", "--codex-jsonl", "--C")),
		u("protocol value is a cluster", a("eval", "protocol", "--trajectory", "-C")),
		u("protocol after --", a("eval", "protocol", "--codex-jsonl", "-", "--", "C")),
		u("protocol word then help", a("eval", "protocol", "--codex-jsonl", "-", "C", "--help")),
		u("protocol no input", a("eval", "protocol", "--json")),
		u("protocol path without a flag", a("eval", "protocol", "C")),
		u("protocol path without a flag, then a flag", a("eval", "protocol", "C/C.jsonl", "--json")),
		u("protocol format", a("eval", "protocol", "--format", "C", "C")),
		u("protocol format attached", a("eval", "protocol", "--format=C", "--codex-jsonl", "C")),
		u("protocol -o", a("eval", "protocol", "--codex-jsonl", "-", "-o", "C")),
		u("protocol -o attached", a("eval", "protocol", "--codex-jsonl", "-", "-oC")),
		u("protocol sarif-uri", a("eval", "protocol", "--codex-jsonl", "-", "--output", "sarif", "--sarif-uri", "C C")),
		u("batch sarif-uri", a("eval", "batch", "--format", "codex-jsonl", "-o", "sarif", "--sarif-uri=C C", "a.jsonl")),
		u("batch path without --format", a("eval", "batch", "C")),
		u("explain long flag", a("explain", "--C")),
		u("explain cluster", a("explain", "-QC")),
		u("explain two words", a("explain", "project_search_absent", "C")),
		u("explain help value", a("explain", "--help=C")),
		u("version word", a("version", "C")),
		u("version long flag", a("version", "--C=C")),
		u("version after --", a("version", "--", "C")),
		u("completion word", a("completion", "C")),
		u("completion second word", a("completion", "bash", "C")),
		u("completion long flag", a("completion", "--C")),
		u("completion cluster", a("completion", "-QC")),
		u("completion after --", a("completion", "--", "C")),
		u("batch jobs word", a("eval", "batch", "--format", "codex-jsonl", "--jobs", "C", "a.jsonl")),
		u("batch jobs attached", a("eval", "batch", "--format", "codex-jsonl", "--jobs=C", "a.jsonl")),
		u("batch jobs digits then word", a("eval", "batch", "--format", "codex-jsonl", "--jobs=99999999999999999999C", "a.jsonl")),
		u("batch shard word", a("eval", "batch", "--format", "codex-jsonl", "--shard", "C", "a.jsonl")),
		u("batch shard of a word", a("eval", "batch", "--format", "codex-jsonl", "--shard=0/C", "a.jsonl")),
		u("batch shard word of", a("eval", "batch", "--format", "codex-jsonl", "--shard", "C/2", "a.jsonl")),
		u("batch two lists", a("eval", "batch", "--format", "codex-jsonl", "--paths-from", "C", "--paths-from=C")),
		u("batch null and a word", a("eval", "batch", "--format", "codex-jsonl", "--null", "C")),
		u("summarize long flag", a("eval", "summarize", "--C", "a.jsonl")),
		u("summarize json value", a("eval", "summarize", "--json=C")),
		{name: "summarize missing file", args: a("eval", "summarize", "C/C.jsonl"), gate: "", exit: 2},
		{name: "summarize missing second file", args: a("eval", "summarize", "--json", "/dev/null", "C"), gate: "1", exit: 2},
		{name: "batch missing list", args: a("eval", "batch", "--format", "codex-jsonl", "--paths-from", "C/C.txt"), gate: "1", exit: 2},
		{name: "batch missing list gate off", args: a("eval", "batch", "--format", "codex-jsonl", "--json", "--paths-from=C"), gate: "", exit: 2},
		{name: "explain unknown code", args: a("explain", "C"), exit: 2},
		{name: "explain unknown code after --", args: a("explain", "--", "C"), exit: 2},
		{name: "explain code then help", args: a("explain", "C", "--help"), exit: 0},
		{name: "protocol path then help", args: a("eval", "protocol", "--codex-jsonl", "C", "--help"), exit: 0},
		{name: "gate off path", args: a("eval", "protocol", "--codex-jsonl", "C"), gate: "", exit: 0},
		{name: "gate off path json", args: a("eval", "protocol", "--json", "--trajectory=C"), gate: "0", exit: 0},
		{name: "gate on missing path", args: a("eval", "protocol", "--codex-jsonl", "C"), gate: "1", exit: 2},
		{name: "gate on missing path json", args: a("eval", "protocol", "--json", "--trajectory=C/C.json"), gate: "1", exit: 2},
		{name: "gate on missing codex json", args: a("eval", "protocol", "--codex-jsonl=C", "--json", "--capture-authorized"), gate: "1", exit: 2},
	}
	// Every format of --output (render.Formats), so that a new one is
	// tested too: a path with the gate off and a missing one with the gate
	// on, in both commands, and --sarif-uri given to a format that names
	// no input.
	for _, f := range render.Formats() {
		cases = append(cases,
			usageCase{name: "gate off path --output " + f.Name, args: a("eval", "protocol", "--codex-jsonl", "C", "--output", f.Name), gate: "", exit: 0},
			usageCase{name: "gate off batch --output " + f.Name, args: a("eval", "batch", "--format", "codex-jsonl", "-o", f.Name, "C/C.jsonl"), gate: "", exit: 0},
			usageCase{name: "gate on missing path --output " + f.Name, args: a("eval", "protocol", "--codex-jsonl", "C/C.jsonl", "--output", f.Name), gate: "1", exit: 2},
			usageCase{name: "batch missing path --output " + f.Name, args: a("eval", "batch", "--format", "codex-jsonl", "--output="+f.Name, "C/C.jsonl"), gate: "1", exit: 2})
		if !f.NamesInputs {
			cases = append(cases, u("sarif-uri with --output "+f.Name, a("eval", "protocol", "--codex-jsonl", "C", "--output", f.Name, "--sarif-uri", "a.jsonl")))
		}
	}
	return cases
}

// TestUsageNoArgumentLeak runs every case with many generated canaries —
// mixed case, control characters, DEL, invalid UTF-8, letters that change
// when lower-cased — and checks that neither stdout nor stderr holds the
// canary or any 4-character piece of it, ignoring case, read as it is and
// with Go and JSON escapes undone. A usage error's stderr must also be the
// same for every canary: it is fixed text.
func TestUsageNoArgumentLeak(t *testing.T) {
	t.Parallel()
	n := 100
	if testing.Short() {
		n = 20
	}
	cases := usageCases()
	corpus := usageCorpus(cases)
	g := &canaryGen{r: rand.New(rand.NewPCG(20261201, 2)), corpus: corpus}
	runUsageCanaries(t, cases, g, n)
}

// runUsageCanaries runs every case with n canaries from g: neither stdout
// nor stderr may hold a piece of the canary, the exit is the case's, and
// a usage error's two lines are the same whatever the canary.
func runUsageCanaries(t *testing.T, cases []usageCase, g *canaryGen, n int) {
	t.Helper()
	fixed := map[string]string{}
	for i := range n {
		c := g.next(i)
		for _, tc := range cases {
			args := tc.args(c)
			code, stdout, stderr := privRunEnv(args, nil, tc.gate)
			if code != tc.exit {
				t.Errorf("%s, canary %q: got exit %d, want %d (stderr %q)", tc.name, c, code, tc.exit, stderr)
			}
			if piece, where := canaryLeak(c, stdout, stderr); piece != "" {
				t.Fatalf("%s: cairn %q: %s holds %q of canary %q\nstdout %q\nstderr %q", tc.name, args, where, piece, c, stdout, stderr)
			}
			if !tc.usage {
				continue
			}
			if len(stdout) != 0 || !usageShaped(stderr) {
				t.Errorf("%s, canary %q: got stdout %q, stderr %q; want no stdout and the two usage lines", tc.name, c, stdout, stderr)
			}
			if prev, ok := fixed[tc.name]; !ok {
				fixed[tc.name] = string(stderr)
			} else if prev != string(stderr) {
				t.Errorf("%s: stderr depends on the argument: got %q for canary %q, %q before", tc.name, stderr, c, prev)
			}
		}
	}
}

// usageShaped reports whether stderr is exactly the two usage lines.
func usageShaped(stderr []byte) bool {
	lines := strings.Split(string(stderr), "\n")
	return len(lines) == 3 && lines[2] == "" &&
		strings.HasPrefix(lines[0], "cairn: usage error: ") &&
		strings.HasPrefix(lines[1], "Run 'cairn") && strings.HasSuffix(lines[1], " --help' for usage.")
}

// usageCorpus is text cairn prints whatever the argument: the output of
// every case with a one-letter argument, every help, explanation and
// completion script. A canary that shares a piece with it could not be
// told from fixed text, so canaryGen never draws one.
func usageCorpus(cases []usageCase) string {
	var b strings.Builder
	add := func(gate string, args ...string) {
		_, stdout, stderr := privRunEnv(args, nil, gate)
		for _, out := range [][]byte{stdout, stderr} {
			for _, v := range outputViews(out) {
				b.WriteString(v)
				b.WriteByte(0)
			}
		}
	}
	for _, tc := range cases {
		add(tc.gate, tc.args("x")...)
	}
	for _, help := range [][]string{{}, {"eval"}, {"eval", "protocol"}, {"explain"}, {"version"}, {"completion"}} {
		add("", append(help, "--help")...)
	}
	for _, code := range audit.Codes() {
		add("", "explain", code.String())
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		add("", "completion", shell)
	}
	add("", "version")
	add("", "--version")
	add("", "eval", "protocol", "--codex-jsonl", "-")
	add("", "eval", "protocol", "--codex-jsonl", "-", "--json")
	return b.String()
}

// canaryGen draws canaries: a random mixed-case body with, by turns,
// control characters, DEL, invalid UTF-8, non-ASCII letters, or quotes,
// spaces, backslashes and =.
type canaryGen struct {
	r      *rand.Rand
	corpus string
}

var canaryExtras = [][]string{
	nil,
	{"\x01", "\x07", "\x1b", "\t", "\n", "\r", "\x1f"},
	{"\x7f"},
	{"\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80"},
	{"É", "ß", "İ", "Σ", "ǅ", "\u00a0", "\u202e", "\ufeff"},
	{" ", "\"", "'", "\\", "=", "%", "$", "`", ","},
}

func (g *canaryGen) next(i int) string {
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for {
		var b strings.Builder
		// Start with a letter: a leading - or -- is what the cases add.
		b.WriteByte(letters[g.r.IntN(52)])
		n := 8 + g.r.IntN(9)
		kind := i % (len(canaryExtras) + 1)
		for b.Len() < n {
			var extras []string
			switch {
			case kind < len(canaryExtras):
				extras = canaryExtras[kind]
			default: // all of them
				extras = canaryExtras[1+g.r.IntN(len(canaryExtras)-1)]
			}
			if len(extras) > 0 && g.r.IntN(3) == 0 {
				b.WriteString(extras[g.r.IntN(len(extras))])
			} else {
				b.WriteByte(letters[g.r.IntN(len(letters))])
			}
		}
		c := b.String()
		if piece, _ := canaryIn(c, g.corpus); piece == "" {
			return c
		}
	}
}

// canaryLeak returns the piece of canary c found in stdout or stderr, and
// where, or "".
func canaryLeak(c string, stdout, stderr []byte) (piece, where string) {
	for _, out := range []struct {
		name string
		b    []byte
	}{{"stdout", stdout}, {"stderr", stderr}} {
		for _, v := range outputViews(out.b) {
			if p, _ := canaryIn(c, v); p != "" {
				return p, out.name
			}
		}
	}
	return "", ""
}

// canaryIn returns the first piece of c — c itself when shorter than 4
// bytes, else a 4-byte window — that text holds, ignoring case.
func canaryIn(c, text string) (string, bool) {
	fc := foldCase(c)
	if len(fc) < 4 {
		if strings.Contains(text, fc) {
			return fc, true
		}
		return "", false
	}
	for i := 0; i+4 <= len(fc); i++ {
		if w := fc[i : i+4]; strings.Contains(text, w) {
			return w, true
		}
	}
	return "", false
}

// outputViews are the ways to read out for a canary: as it is, and with Go
// and JSON escapes undone, both case-folded.
func outputViews(out []byte) []string {
	return []string{foldCase(string(out)), foldCase(unescape(string(out)))}
}

// foldCase lower-cases every valid rune and keeps invalid bytes as they
// are (strings.ToLower would turn them into U+FFFD).
func foldCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteByte(s[i])
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		i += size
	}
	return b.String()
}

// unescape undoes the escapes of Go's %q and strconv.Quote and of JSON
// strings: \n and friends, \xHH, \ooo, \uHHHH (with UTF-16 surrogate
// pairs), \UHHHHHHHH. Anything else is kept.
func unescape(s string) string {
	var b strings.Builder
	simple := map[byte]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\', '"': '"', '\'': '\'', '/': '/'}
	hex := func(s string) (uint64, bool) {
		v, err := strconv.ParseUint(s, 16, 32)
		return v, err == nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		e := s[i+1]
		switch {
		case simple[e] != 0:
			b.WriteByte(simple[e])
			i++
			continue
		case e == 'x' && i+4 <= len(s):
			if v, ok := hex(s[i+2 : i+4]); ok {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		case e >= '0' && e <= '7' && i+4 <= len(s):
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		case e == 'u' && i+6 <= len(s):
			if v, ok := hex(s[i+2 : i+6]); ok {
				r := rune(v)
				i += 5
				if utf16.IsSurrogate(r) && i+7 <= len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if v2, ok := hex(s[i+3 : i+7]); ok {
						if pair := utf16.DecodeRune(r, rune(v2)); pair != utf8.RuneError {
							r = pair
							i += 6
						}
					}
				}
				b.WriteRune(r)
				continue
			}
		case e == 'U' && i+10 <= len(s):
			if v, ok := hex(s[i+2 : i+10]); ok {
				b.WriteRune(rune(v))
				i += 9
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestUnescape checks the test's own reader of escapes on what kong's %q
// and encoding/json make of a canary.
func TestUnescape(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"a\x01b\x7f\xffc", "É\u202e\t\"\\", "😀x", "\xed\xa0\x80"} {
		for _, quoted := range []string{strconv.Quote(s), fmt.Sprintf("%q", s), strconv.QuoteToASCII(s)} {
			if got := unescape(quoted); got != `"`+s+`"` {
				t.Errorf("unescape(%s) = %q, want %q", quoted, got, `"`+s+`"`)
			}
		}
	}
	if got := unescape(`\ud83d\ude00 \u00e9 \x41\101`); got != "😀 é AA" {
		t.Errorf("unescape of JSON and octal escapes = %q, want %q", got, "😀 é AA")
	}
}

// TestUsageCanaryDetector checks that the leak check catches the ways a
// canary comes back: as it is, lower-cased, quoted, or cut short.
func TestUsageCanaryDetector(t *testing.T) {
	t.Parallel()
	c := "AbC\x01dÉf\xffGhij"
	for _, out := range []string{
		c, strings.ToLower(c), strconv.Quote(c), fmt.Sprintf("unknown flag -%q", c[:5]),
		strconv.QuoteToASCII(c), "x" + c[len(c)-4:],
	} {
		if piece, _ := canaryLeak(c, nil, []byte(out)); piece == "" {
			t.Errorf("canaryLeak(%q) missed the canary %q", out, c)
		}
	}
	if piece, _ := canaryLeak(c, []byte("cairn: usage error: unknown flag\n"), nil); piece != "" {
		t.Errorf("canaryLeak found %q of %q in fixed text", piece, c)
	}
}

// FuzzUsage runs cairn on argument vectors (the input split at NUL
// bytes): it never panics, exits 0 to 3, and a usage error is always the
// two fixed lines, in printable ASCII, with nothing on stdout.
func FuzzUsage(f *testing.F) {
	for _, tc := range usageCases() {
		f.Add(strings.Join(tc.args("Ab\x01\xffz"), "\x00"))
	}
	for _, s := range []string{"", "eval\x00protocol\x00-h\xff", "-\xc3", "eval\x00protocol\x00--json=É", "completion\x00--\x00--", "--=\x00-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\x00")
		if in == "" {
			args = nil
		}
		if len(args) > 16 {
			t.Skip()
		}
		code, stdout, stderr := privRunEnv(args, nil, "")
		if code < 0 || code > 3 {
			t.Fatalf("cairn %q: exit %d", args, code)
		}
		if !strings.HasPrefix(string(stderr), "cairn: usage error: ") {
			return
		}
		if code != 2 || len(stdout) != 0 || !usageShaped(stderr) {
			t.Fatalf("cairn %q: got exit %d, stdout %q, stderr %q; want exit 2 and the two usage lines", args, code, stdout, stderr)
		}
		for _, c := range stderr {
			if c != '\n' && (c < ' ' || c > '~') {
				t.Fatalf("cairn %q: stderr %q is not printable ASCII", args, stderr)
			}
		}
	})
}

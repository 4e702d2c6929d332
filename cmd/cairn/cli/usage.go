package cli

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// A usage error is printed from fixed texts only (SPEC §2, §7.2). kong's
// own message quotes the argument it refused, and on the way lower-cases a
// bool flag's value, escapes control characters and invalid UTF-8, or cuts
// a short-flag cluster, so no filter on that message can be trusted to
// hide the argument: the message is never printed. The error is classified
// instead from what kong exposes, and the words of the printed line are
// the grammar's own:
//
//   - Parse returns a *kong.ParseError whose Context is the parse so far.
//   - Context.Error is set when tracing the arguments through the grammar
//     failed. The last element of Context.Path then holds the arguments left
//     after the last one kong accepted (Path.Remainder), so the first of
//     them is the argument kong refused; its shape (--flag, --flag=value,
//     -cluster, --, a word) and the grammar of the selected command say
//     what was wrong with it.
//   - Otherwise a check after tracing failed (a missing command or
//     argument, an enum, an xor group, a Validate method), and the
//     grammar's state after Apply (which flags and positionals are Set on
//     the selected command) says which.
//
// What cannot be classified gets one generic line. The second line names
// the help of the command being typed.

// usageKind is what was wrong with the command line.
type usageKind int

const (
	usageGeneric            usageKind = iota
	usageNoCommand                    // a command is required here
	usageUnknownCommand               // a word that is not a command
	usageUnexpectedArgument           // a word where none is taken
	usageMissingArgument              // a required positional is absent
	usageNotInEnum                    // a positional or flag value outside its enum
	usageUnknownFlag                  // a flag the command does not have
	usageFlagNeedsValue               // a flag given without its value
	usageFlagTakesNoValue             // a bool flag given =value
	usageFlagBadValue                 // a flag value its type refused
	usageRepeatedInput                // an input flag given twice
	usageTwoInputs                    // two members of an xor group
	usageNoInput                      // no member of the input group
	usageBatchStdin                   // - among eval batch's paths
	usageBadJobs                      // --jobs not a whole number from 0 to maxJobs
	usageBadFailOn                    // --fail-on not a list of outcomes
	usageSARIFURIOutput               // --sarif-uri without --output sarif
	usageSARIFURICount                // --sarif-uri not once per input
	usageJSONAndOutput                // --json and --output together
	usageNoPaths                      // eval batch with no PATH and no --paths-from
	usageBadShard                     // --shard not I/N with 0 <= I < N
	usageNullWithoutList              // --null without --paths-from
	usageRepeatedList                 // --paths-from given twice
	usageSARIFURIList                 // --sarif-uri with --paths-from
	usageBadSARIFURI                  // --sarif-uri not an RFC 3986 URI reference
	usagePathWithoutFlag              // a path given to eval protocol without an input flag
	usageSecondPath                   // a second path given to eval protocol
	usageFormatOnProtocol             // --format given to eval protocol
	usageMissingFlag                  // a required flag is absent (eval batch's --format)
	usageListTerminal                 // --paths-from - with a terminal on stdin
	usageReportsTerminal              // eval summarize reading a terminal
	usageBadMemoryServer              // --memory-server not 1 to 16 distinct server names
	usageTwoCatalogs                  // --catalog and --catalog-file together
	usageShowWhich                    // catalog show without NAME or --file, or with both
	usageCheckWhich                   // catalog check without PATH or --catalog, or with both
	usageDeriveMissing                // catalog derive without one of its four flags
	usageBadCatalogName               // derive's --name not NAME/N, or a built-in's
	usageBadServer                    // derive's --server not 1 to 16 distinct server names
	usageBadSearch                    // derive's --search not TOOL=SCOPE of distinct tools
)

// usageRefusal is a Validate error that names its fixed text: the
// command's own checks, which kong's parse state cannot tell apart.
type usageRefusal usageKind

func (usageRefusal) Error() string { return "usage refused by a command's Validate" }

// usageProblem is a classified usage error. Every string in it is a word
// of the grammar (a command, flag, placeholder or enum value), never an
// argument.
type usageProblem struct {
	kind    usageKind
	node    *kong.Node // the command being typed: its --help is named
	flag    string     // --name of the flag concerned
	what    string     // <name> of the positional, or --name of the flag, concerned
	words   []string   // the grammar words that fit here
	suggest string     // the grammar word the user probably meant, or ""
}

// usageGenericText is the line printed for a usage error that cannot be
// classified.
const usageGenericText = "the command line was not understood"

// text is the first line's message: fixed texts and grammar words.
func (p usageProblem) text() string {
	switch p.kind {
	case usageNoCommand:
		return "missing command; give one of " + strings.Join(p.words, ", ")
	case usageUnknownCommand:
		return "unknown command" + p.hint("give one of ")
	case usageUnexpectedArgument:
		return "unexpected argument"
	case usageMissingArgument:
		return "missing " + p.what + p.hint("give one of ")
	case usageNotInEnum:
		return p.what + " must be one of " + strings.Join(p.words, ", ") + p.hint("")
	case usageUnknownFlag:
		return "unknown flag" + p.hint("")
	case usageFlagNeedsValue:
		return "flag " + p.flag + " needs a value"
	case usageFlagTakesNoValue:
		return "flag " + p.flag + " takes no value"
	case usageFlagBadValue:
		return "flag " + p.flag + " has an invalid value"
	case usageRepeatedInput:
		return "flag " + p.flag + " was given more than once; give one input"
	case usageTwoInputs:
		return "give only one input: " + orList(p.words)
	case usageNoInput:
		return "give one input: " + orList(p.words) + " (- reads standard input)"
	case usageBatchStdin:
		return "eval batch audits files; standard input (-) is not one of them"
	case usageBadJobs:
		return "flag --jobs must be a whole number from 0 (one per CPU) to " + strconv.Itoa(maxJobs)
	case usageBadFailOn:
		return "flag --fail-on takes a comma-separated list of " + andList(outcomeNames())
	case usageSARIFURIOutput:
		return "flag --sarif-uri names an input in a SARIF report; give it with --output sarif"
	case usageSARIFURICount:
		return "give --sarif-uri once for each input, in the order of the inputs"
	case usageJSONAndOutput:
		return "--json is --output json; give only one of them"
	case usageNoPaths:
		return "give the files to audit: PATH arguments, --paths-from FILE, or both"
	case usageBadShard:
		return "flag --shard must be I/N, two whole numbers with 0 <= I < N"
	case usageNullWithoutList:
		return "flag --null says how the list of --paths-from is separated; give it with --paths-from"
	case usageRepeatedList:
		return "flag --paths-from was given more than once; give one list"
	case usageSARIFURIList:
		return "flag --sarif-uri names PATH arguments; it cannot be given with --paths-from"
	case usagePathWithoutFlag:
		return "a path needs the input flag of its format: " + orList(p.words) + " (- reads standard input); for many files, eval batch --format FORMAT PATH..."
	case usageSecondPath:
		return "eval protocol audits one input; for many files, eval batch --format FORMAT PATH..."
	case usageFormatOnProtocol:
		if p.suggest != "" {
			return "eval protocol has no --format: the input flag names the format; did you mean " + p.suggest + " PATH?"
		}
		return "eval protocol has no --format: the input flag names the format, one of " + orList(p.words) + "; --format is eval batch's"
	case usageMissingFlag:
		return "give " + p.flag + " " + p.what + p.hint("one of ")
	case usageBadSARIFURI:
		return "flag --sarif-uri takes a URI reference (RFC 3986); percent-encode a path's spaces, #, ?, % and non-ASCII bytes (run%232.jsonl for run#2.jsonl)"
	case usageListTerminal:
		return "standard input is a terminal; pipe the list of paths into cairn or give --paths-from a file"
	case usageReportsTerminal:
		return "standard input is a terminal; pipe reports into cairn or give their files"
	case usageTwoCatalogs:
		return "--catalog and --catalog-file cannot be used together"
	case usageBadMemoryServer:
		return "--memory-server takes up to 16 distinct names of letters, digits, _ and - (at most 64 each), one a flag"
	case usageShowWhich:
		return "give a built-in catalog's NAME or --file PATH, one of them"
	case usageCheckWhich:
		return "give a catalog file's PATH or --catalog NAME, one of them"
	case usageDeriveMissing:
		return "catalog derive needs --tools-list FILE, --name NAME/N, --server NAME and --search TOOL=SCOPE"
	case usageBadCatalogName:
		return "--name takes NAME/N: up to 64 lower-case letters, digits, ., _ and - (the first a letter or digit), a slash and a version of 1 to 4 digits; not a built-in catalog's name"
	case usageBadServer:
		return "--server takes up to 16 distinct names of letters, digits, _ and - (at most 64 each), one a flag"
	case usageBadSearch:
		return "--search takes TOOL=SCOPE, one tool a flag, SCOPE one of instance, eq:ARG=VALUE, prefix:ARG=PREFIX or present:ARG (ARG of letters, digits, _, . and -; VALUE and PREFIX of 1 to 256 characters)"
	}
	return usageGenericText
}

// hint is "; did you mean WORD?" when there is a suggestion, else the
// list of fitting words after lead (nothing when lead is "").
func (p usageProblem) hint(lead string) string {
	switch {
	case p.suggest != "":
		return "; did you mean " + p.suggest + "?"
	case lead != "" && len(p.words) > 0:
		return "; " + lead + strings.Join(p.words, ", ")
	}
	return ""
}

// writeUsage prints the two lines of a usage error.
func writeUsage(w io.Writer, p usageProblem) {
	fmt.Fprintf(w, "cairn: usage error: %s\n", p.text())
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", helpPath(p.node))
}

// helpPath is the command line that shows n's help: "cairn eval protocol",
// the names of n's commands under the application's.
func helpPath(n *kong.Node) string {
	var names []string
	for ; n != nil; n = n.Parent {
		switch n.Type {
		case kong.ApplicationNode, kong.CommandNode:
			names = append([]string{n.Name}, names...)
		}
	}
	if len(names) == 0 {
		return "cairn"
	}
	return strings.Join(names, " ")
}

// classifyUsage classifies an error of kong's Parse. root is the grammar,
// for an error that carries no parse context.
func classifyUsage(err error, args []string, root *kong.Node) usageProblem {
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil || len(pe.Context.Path) == 0 {
		return usageProblem{node: root}
	}
	ctx := pe.Context
	node := ctx.Selected()
	if node == nil {
		node = root
	}
	var r usageRefusal
	if errors.As(err, &r) {
		return usageProblem{kind: usageKind(r), node: node}
	}
	if ctx.Error != nil {
		left := len(ctx.Path[len(ctx.Path)-1].Remainder())
		i := len(args) - left
		if left == 0 || i < 0 {
			return usageProblem{node: node}
		}
		return refused(ctx, node, args, i)
	}
	return unmet(ctx, node)
}

// refused classifies the argument args[i], the first one kong's trace
// refused while parsing node.
func refused(ctx *kong.Context, node *kong.Node, args []string, i int) usageProblem {
	p := usageProblem{node: node}
	a := args[i]
	flags := visibleFlags(node)
	switch {
	case a == "--":
		// Everything after -- is a word; one of them did not fit.
		return word(ctx, node, "")
	case strings.HasPrefix(a, "--"):
		name, value, attached := strings.Cut(a[2:], "=")
		f := flagNamed(flags, name)
		if inputs := inputFlags(node); f == nil && strings.EqualFold(name, "format") && len(inputs) > 0 {
			// eval batch's --format on eval protocol: the value names the
			// input flag meant, when it is a format's name.
			if !attached && i+1 < len(args) && isValue(args[i+1]) {
				value = args[i+1]
			}
			p.kind = usageFormatOnProtocol
			for _, in := range inputs {
				p.words = append(p.words, "--"+in.Name)
				if strings.EqualFold(value, in.Name) {
					p.suggest = "--" + in.Name
				}
			}
			return p
		}
		if f == nil {
			p.kind = usageUnknownFlag
			p.suggest = nearestFlag(name, flags)
			return p
		}
		if !attached && !f.IsBool() && i+1 < len(args) && isValue(args[i+1]) {
			value, attached = args[i+1], true
		}
		return flagValue(ctx, node, f, value, attached)
	case strings.HasPrefix(a, "-") && a != "-":
		cluster := a[1:]
		for j := 0; j < len(cluster); {
			r, size := utf8.DecodeRuneInString(cluster[j:])
			j += size
			f := flagShort(flags, r)
			if f == nil {
				p.kind = usageUnknownFlag
				if utf8.RuneCountInString(cluster) > 1 {
					// -json: perhaps --json was meant.
					p.suggest = nearestFlag(cluster, flags)
				}
				return p
			}
			if f.IsBool() {
				continue
			}
			value, attached := cluster[j:], true
			if value == "" {
				attached = i+1 < len(args) && isValue(args[i+1])
				if attached {
					value = args[i+1]
				}
			}
			return flagValue(ctx, node, f, value, attached)
		}
		return p
	}
	return word(ctx, node, a)
}

// word classifies a refused word w (a positional argument) on node. On
// eval protocol, whose inputs are flags, a word is a path given without
// its flag, or a second path (SPEC §2 v4).
func word(ctx *kong.Context, node *kong.Node, w string) usageProblem {
	p := usageProblem{node: node, kind: usageUnexpectedArgument}
	if cmds := commandNames(node); len(cmds) > 0 {
		p.kind, p.words = usageUnknownCommand, cmds
		p = p.suggestWord(w)
	}
	if inputs := inputFlags(node); len(inputs) > 0 && p.kind == usageUnexpectedArgument {
		p.kind = usagePathWithoutFlag
		for _, f := range inputs {
			if flagSeen(ctx, f) {
				p.kind = usageSecondPath
			}
			p.words = append(p.words, "--"+f.Name+" "+f.FormatPlaceHolder())
		}
	}
	return p
}

// inputFlags are node's input flags (eval protocol's, one per format), in
// grammar order.
func inputFlags(node *kong.Node) []*kong.Flag {
	var inputs []*kong.Flag
	for _, f := range visibleFlags(node) {
		if isInputFlag(f) {
			inputs = append(inputs, f)
		}
	}
	return inputs
}

// suggestWord sets p.suggest to the grammar word nearest to w among
// p.words. w is the user's text: it is only measured, never kept.
func (p usageProblem) suggestWord(w string) usageProblem {
	p.suggest = nearest(w, p.words)
	return p
}

// flagValue classifies a refused flag f, given with value when attached.
func flagValue(ctx *kong.Context, node *kong.Node, f *kong.Flag, value string, attached bool) usageProblem {
	p := usageProblem{node: node, flag: "--" + f.Name}
	switch {
	case f.IsBool():
		// A bool flag is refused only for a value it does not take.
		if attached {
			p.kind = usageFlagTakesNoValue
		}
	case isInputFlag(f) && flagSeen(ctx, f):
		p.kind = usageRepeatedInput
	case !attached:
		p.kind = usageFlagNeedsValue
	case f.Enum != "":
		p.kind, p.what, p.words = usageNotInEnum, p.flag, f.EnumSlice()
		p = p.suggestWord(value)
	default:
		p.kind = usageFlagBadValue
	}
	return p
}

// unmet classifies an error of the checks kong runs after a trace that
// succeeded, in the order kong runs them.
func unmet(ctx *kong.Context, node *kong.Node) usageProblem {
	p := usageProblem{node: node}
	for _, el := range ctx.Path {
		var v *kong.Value
		switch {
		case el.Positional != nil:
			v = el.Positional
		case el.Flag != nil:
			v = el.Flag.Value
		}
		if v == nil || v.Enum == "" || inEnum(v) {
			continue
		}
		p.kind, p.words = usageNotInEnum, v.EnumSlice()
		p.what = "<" + v.Name + ">"
		if el.Flag != nil {
			p.what = "--" + v.Name
		}
		t := v.Target
		if t.Kind() == reflect.Ptr {
			t = t.Elem() // not nil: inEnum takes nil for a value in the enum
		}
		return p.suggestWord(fmt.Sprint(t.Interface()))
	}
	if cmds := commandNames(node); len(cmds) > 0 && !runnable(node) {
		p.kind, p.words = usageNoCommand, cmds
		return p
	}
	for _, f := range visibleFlags(node) {
		if f.Required && !f.Set {
			p.kind, p.flag, p.what = usageMissingFlag, "--"+f.Name, f.FormatPlaceHolder()
			if f.Enum != "" {
				p.words = f.EnumSlice()
			}
			return p
		}
	}
	for _, v := range node.Positional {
		if v.Required && !v.Set {
			p.kind, p.what = usageMissingArgument, "<"+v.Name+">"
			if v.Enum != "" {
				p.words = v.EnumSlice()
			}
			return p
		}
	}
	for _, group := range xorGroups(ctx) {
		var set int
		for _, f := range group.flags {
			if f.Set {
				set++
			}
		}
		switch {
		case set > 1 && group.name == "output":
			p.kind = usageJSONAndOutput
			return p
		case set > 1 && group.name == "catalog":
			p.kind = usageTwoCatalogs
			return p
		case set > 1:
			p.kind = usageTwoInputs
		case set == 0 && group.name == "input":
			p.kind = usageNoInput
		default:
			continue
		}
		for _, f := range group.flags {
			w := "--" + f.Name
			if p.kind == usageNoInput {
				w += " " + f.FormatPlaceHolder()
			}
			p.words = append(p.words, w)
		}
		return p
	}
	return p
}

type xorGroup struct {
	name  string
	flags []*kong.Flag
}

// xorGroups lists the xor groups of the flags of the parsed path, in
// grammar order.
func xorGroups(ctx *kong.Context) []xorGroup {
	var groups []xorGroup
	index := map[string]int{}
	for _, f := range ctx.Flags() {
		for _, name := range f.Xor {
			i, ok := index[name]
			if !ok {
				i = len(groups)
				index[name] = i
				groups = append(groups, xorGroup{name: name})
			}
			groups[i].flags = append(groups[i].flags, f)
		}
	}
	return groups
}

// visibleFlags are the flags that may be given on node: its own and its
// ancestors'.
func visibleFlags(node *kong.Node) []*kong.Flag {
	var flags []*kong.Flag
	for _, group := range node.AllFlags(true) {
		flags = append(flags, group...)
	}
	return flags
}

func flagNamed(flags []*kong.Flag, name string) *kong.Flag {
	for _, f := range flags {
		if f.Name == name {
			return f
		}
		for _, a := range f.Aliases {
			if a == name {
				return f
			}
		}
	}
	return nil
}

func flagShort(flags []*kong.Flag, r rune) *kong.Flag {
	for _, f := range flags {
		if f.Short != 0 && f.Short == r {
			return f
		}
	}
	return nil
}

// nearestFlag is the --name of the flag nearest to name, or "".
func nearestFlag(name string, flags []*kong.Flag) string {
	names := make([]string, 0, len(flags))
	for _, f := range flags {
		names = append(names, f.Name)
	}
	if n := nearest(name, names); n != "" {
		return "--" + n
	}
	return ""
}

// isValue reports whether kong takes the argument a as a flag's value: a
// word, or - (standard input), but not something that looks like a flag.
func isValue(a string) bool {
	return a == "-" || !strings.HasPrefix(a, "-")
}

// isInputFlag reports whether f is an input path flag, which refuses to be
// given twice.
func isInputFlag(f *kong.Flag) bool {
	if !f.Target.IsValid() || !f.Target.CanAddr() {
		return false
	}
	_, ok := f.Target.Addr().Interface().(*inputFlag)
	return ok
}

// flagSeen reports whether kong's trace already accepted f once.
func flagSeen(ctx *kong.Context, f *kong.Flag) bool {
	for _, el := range ctx.Path {
		if el.Flag == f {
			return true
		}
	}
	return false
}

// commandNames are the names of node's visible subcommands.
func commandNames(node *kong.Node) []string {
	var names []string
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// runnable reports whether node may run without a subcommand.
func runnable(node *kong.Node) bool {
	t := node.Target
	if !t.IsValid() {
		return false
	}
	if t.CanAddr() {
		t = t.Addr()
	}
	return t.MethodByName("Run").IsValid()
}

// inEnum reports whether v's value is one of its enum's words.
func inEnum(v *kong.Value) bool {
	t := v.Target
	if t.Kind() == reflect.Ptr {
		if t.IsNil() {
			return true
		}
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		for i := range t.Len() {
			if !oneOf(fmt.Sprint(t.Index(i).Interface()), v.EnumSlice()) {
				return false
			}
		}
		return true
	}
	return oneOf(fmt.Sprint(t.Interface()), v.EnumSlice())
}

func oneOf(s string, words []string) bool {
	for _, w := range words {
		if s == w {
			return true
		}
	}
	return false
}

// orList joins words as "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// andList joins words as "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// nearest is the grammar word the user probably meant by s, or "" when
// none is clearly nearest: the unique word within an edit distance of a
// third of its length (at least 1), ignoring case, or failing that the
// unique word that s, two characters or more, begins. What it returns is
// always one of words.
func nearest(s string, words []string) string {
	s = strings.ToLower(s)
	best, bestD, ties := "", 0, 0
	for _, w := range words {
		d := distance(s, strings.ToLower(w))
		if d > max(1, utf8.RuneCountInString(w)/3) || d >= utf8.RuneCountInString(s) {
			continue
		}
		switch {
		case best == "" || d < bestD:
			best, bestD, ties = w, d, 0
		case d == bestD:
			ties++
		}
	}
	if best != "" {
		if ties > 0 {
			return ""
		}
		return best
	}
	if utf8.RuneCountInString(s) < 2 {
		return ""
	}
	for _, w := range words {
		if strings.HasPrefix(strings.ToLower(w), s) {
			if best != "" {
				return ""
			}
			best = w
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and transpositions of
// neighbours each cost 1. (Invalid UTF-8 counts as U+FFFD.)
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	rows := make([][]int, len(x)+1)
	for i := range rows {
		rows[i] = make([]int, len(y)+1)
		rows[i][0] = i
	}
	for j := range y {
		rows[0][j+1] = j + 1
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			rows[i][j] = min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				rows[i][j] = min(rows[i][j], rows[i-2][j-2]+1)
			}
		}
	}
	return rows[len(x)][len(y)]
}

package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish"`
}

func (completionCmd) Help() string {
	return strings.TrimSpace(`
Prints a static completion script generated from cairn's command grammar:
commands, flags, formats, report codes and paths (zsh and fish show each
one's help beside it).

Examples:
  source <(cairn completion bash)     # this bash
  source <(cairn completion zsh)      # this zsh, after compinit
  cairn completion fish | source      # this fish

  # every new shell (the guide, section 19, says more):
  cairn completion bash > ~/.local/share/bash-completion/completions/cairn
  cairn completion zsh > ~/.zfunc/_cairn     # with fpath=(~/.zfunc $fpath)
  cairn completion fish > ~/.config/fish/completions/cairn.fish

Run 'cairn explain CODE' for what a report code means.`)
}

// The maintained kong completion libraries generate dynamic scripts that
// call back into the binary by its absolute path; a static script from the
// grammar is stable (golden-tested) and needs no binary at completion time.

// cmdNode is one command path of the grammar and what may follow it, with
// the help texts a shell may show beside each choice.
type cmdNode struct {
	path      string     // "" for the root, else "eval protocol"
	subs      []choice   // subcommands
	values    []choice   // positional values: an enum, or report codes
	valueName string     // the positional's name
	paths     bool       // positional arguments are paths
	commands  bool       // positional arguments name a command (help)
	flags     []flagSpec // sorted by name, --help included
}

// choice is a word offered with its help text.
type choice struct{ name, help string }

// flagSpec is one flag: its name without the dashes, its help, and what
// its value is.
type flagSpec struct {
	name, help string
	short      string // "h" for -h, or ""
	value      valueKind
	enum       []string
	xor        []string // the flags it excludes, with the dashes
}

type valueKind int

const (
	noValue valueKind = iota
	pathValue
	enumValue
	otherValue
)

// words is what the bash script offers at n: subcommands, values, flags.
func (n cmdNode) words() []string {
	var out []string
	for _, w := range n.subs {
		out = append(out, w.name)
	}
	for _, w := range n.values {
		out = append(out, w.name)
	}
	for _, f := range n.flags {
		out = append(out, "--"+f.name)
	}
	return out
}

// describedValues reports whether n's positional values come with help
// texts (report codes), which zsh lists with _describe.
func (n cmdNode) describedValues() bool {
	return len(n.values) > 0 && n.values[0].help != ""
}

// commandWords names the top-level commands but help (nodes[0] is the
// root: grammar walks it first).
func commandWords(nodes []cmdNode) []string {
	var out []string
	for _, c := range nodes[0].subs {
		if c.name != "help" {
			out = append(out, c.name)
		}
	}
	return out
}

// grammar walks kong's model in a fixed order.
func grammar(root *kong.Node) []cmdNode {
	help := flagSpec{name: "help", help: "Show help."}
	for _, f := range root.Flags {
		if f.Name == "help" {
			help.help, help.short = f.Help, shortName(f.Short)
		}
	}
	var nodes []cmdNode
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		c := cmdNode{path: path}
		for _, child := range n.Children {
			if child.Hidden || child.Type == kong.ArgumentNode {
				continue
			}
			c.subs = append(c.subs, choice{child.Name, child.Help})
		}
		for _, p := range n.Positional {
			c.valueName = p.Name
			switch {
			case p.Enum != "":
				for _, v := range strings.Split(p.Enum, ",") {
					c.values = append(c.values, choice{v, ""})
				}
			case p.Name == "code":
				// What explain knows: the checks, then every code.
				for _, ch := range checkTexts() {
					c.values = append(c.values, choice{ch.Check, "check: " + ch.Checks})
				}
				for _, code := range allCodeTexts() {
					c.values = append(c.values, choice{code.Code, code.Meaning})
				}
			case p.Name == "command":
				c.commands = true
			default:
				c.paths = true
			}
		}
		hasHelp := false
		for _, f := range n.Flags {
			if f.Hidden {
				continue
			}
			spec := flagSpec{name: f.Name, help: f.Help, short: shortName(f.Short)}
			switch {
			case f.IsBool():
			case f.Enum != "":
				spec.value, spec.enum = enumValue, strings.Split(f.Enum, ",")
			case f.PlaceHolder == "PATH" || f.PlaceHolder == "FILE":
				spec.value = pathValue
			default:
				spec.value = otherValue
			}
			for _, other := range n.Flags {
				if other != f && sharesGroup(f.Xor, other.Xor) {
					spec.xor = append(spec.xor, "--"+other.Name)
				}
			}
			hasHelp = hasHelp || f.Name == "help"
			c.flags = append(c.flags, spec)
		}
		if !hasHelp {
			c.flags = append(c.flags, help)
		}
		sort.Slice(c.flags, func(i, j int) bool { return c.flags[i].name < c.flags[j].name })
		nodes = append(nodes, c)
		for _, child := range n.Children {
			if child.Hidden || child.Type == kong.ArgumentNode {
				continue
			}
			walk(child, strings.TrimSpace(path+" "+child.Name))
		}
	}
	walk(root, "")
	return nodes
}

// shortName is a flag's short name as a string ("" for none).
func shortName(r rune) string {
	if r == 0 {
		return ""
	}
	return string(r)
}

// sharesGroup reports whether two flags are in one xor group.
func sharesGroup(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

func (c completionCmd) Run(e *env, ctx *kong.Context) error {
	fillHelp(ctx.Model.Node)
	nodes := grammar(ctx.Model.Node)
	switch c.Shell {
	case "bash":
		writeBash(e.stdout, nodes)
	case "zsh":
		writeZsh(e.stdout, nodes)
	case "fish":
		writeFish(e.stdout, nodes)
	}
	return nil
}

// writeBash writes a complete -F function: bash shows no descriptions.
func writeBash(w io.Writer, nodes []cmdNode) {
	fmt.Fprintln(w, "# bash completion for cairn, generated by `cairn completion bash`.")
	var paths, fileFlags []string
	for _, n := range nodes {
		if n.path != "" {
			paths = append(paths, `" `+n.path+`"`)
		}
		for _, f := range n.flags {
			if f.value == pathValue {
				fileFlags = append(fileFlags, "--"+f.name)
			}
		}
	}
	fmt.Fprintln(w, "_cairn() {")
	fmt.Fprintln(w, `  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" w i`)
	fmt.Fprintln(w, `  COMPREPLY=()`)
	fmt.Fprintln(w, "  for ((i = 1; i < COMP_CWORD; i++)); do")
	fmt.Fprintln(w, "    w=${COMP_WORDS[i]}")
	fmt.Fprintln(w, `    case "$path $w" in`)
	fmt.Fprintf(w, "      %s) path=\"$path $w\" ;;\n", strings.Join(paths, "|"))
	fmt.Fprintln(w, "    esac")
	fmt.Fprintln(w, "  done")
	// Paths are offered by no word list: with none, complete -o default
	// has readline complete file names itself, each name as it is (a
	// name with a newline, a space or a glob character stays one name,
	// quoted), a directory with its slash. Names from compgen -f would
	// come one a line, and the unquoted $(...) that splits them would
	// expand them as globs again.
	if len(fileFlags) > 0 {
		fmt.Fprintf(w, "  case $prev in\n    %s) return ;;\n  esac\n", strings.Join(uniq(fileFlags), "|"))
	}
	// The values of a command's flags that take other values (--format,
	// --output, --jobs), and the paths a command takes as arguments (eval
	// batch).
	for _, n := range nodes {
		var values []flagSpec
		for _, f := range n.flags {
			if f.value == enumValue || f.value == otherValue {
				values = append(values, f)
			}
		}
		if len(values) == 0 && !n.paths {
			continue
		}
		fmt.Fprintf(w, "  if [[ $path == %q ]]; then\n", prefixSpace(n.path))
		if len(values) > 0 {
			fmt.Fprintln(w, `    case $prev in`)
			for _, f := range values {
				if f.value == enumValue {
					fmt.Fprintf(w, "      --%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", f.name, strings.Join(f.enum, " "))
				} else {
					fmt.Fprintf(w, "      --%s) return ;;\n", f.name)
				}
			}
			fmt.Fprintln(w, `    esac`)
		}
		if n.paths {
			fmt.Fprintln(w, `    [[ $cur != -* ]] && return`)
		}
		fmt.Fprintln(w, `  fi`)
	}
	fmt.Fprintln(w, "  case $path in")
	for _, n := range nodes {
		words := n.words()
		if n.commands {
			// help offers the top-level commands.
			words = append(commandWords(nodes), words...)
		}
		fmt.Fprintf(w, "    %q) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", prefixSpace(n.path), strings.Join(words, " "))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -o default -F _cairn cairn")
}

func prefixSpace(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func writeFish(w io.Writer, nodes []cmdNode) {
	fmt.Fprintln(w, "# fish completion for cairn, generated by `cairn completion fish`.")
	fmt.Fprintln(w, "# Save it as ~/.config/fish/completions/cairn.fish, or: cairn completion fish | source")
	fmt.Fprintln(w, "complete -c cairn -f")
	for _, n := range nodes {
		var cond string
		if n.path == "" {
			cond = "__fish_use_subcommand"
		} else {
			parts := strings.Fields(n.path)
			var conds []string
			for _, p := range parts {
				conds = append(conds, "__fish_seen_subcommand_from "+p)
			}
			cond = strings.Join(conds, "; and ")
			// A parent path must not also offer its children's words.
			if len(n.subs) > 0 {
				var children []string
				for _, s := range n.subs {
					children = append(children, s.name)
				}
				cond += "; and not __fish_seen_subcommand_from " + strings.Join(children, " ")
			}
		}
		q := fishQuote(cond)
		for _, c := range append(append([]choice{}, n.subs...), n.values...) {
			fmt.Fprintf(w, "complete -c cairn -n %s -a %s%s\n", q, c.name, fishDescription(c.help))
		}
		if n.paths {
			fmt.Fprintf(w, "complete -c cairn -n %s -F\n", q)
		}
		if n.commands {
			// help offers the top-level commands; after one, that
			// command's own line offers its subcommands.
			hq := fishQuote(cond + "; and not __fish_seen_subcommand_from " + strings.Join(commandWords(nodes), " "))
			for _, c := range nodes[0].subs {
				if c.name != "help" {
					fmt.Fprintf(w, "complete -c cairn -n %s -a %s%s\n", hq, c.name, fishDescription(c.help))
				}
			}
		}
		for _, f := range n.flags {
			var value string
			switch f.value {
			case pathValue:
				value = " -r -F"
			case enumValue:
				// Each value with its own description (a tab apart),
				// not the flag's.
				var vs []string
				for _, v := range f.enum {
					help := valueHelp(nodes, v)
					if h, ok := enumHelp(f.name, v); ok {
						help = h
					}
					vs = append(vs, fishToken(v)+`\t`+fishToken(strings.TrimSuffix(help, ".")))
				}
				value = " -x -a " + fishQuote(strings.Join(vs, " "))
			case otherValue:
				value = " -x"
			}
			short := ""
			if f.short != "" {
				short = " -s " + f.short
			}
			fmt.Fprintf(w, "complete -c cairn -n %s%s -l %s%s%s\n", q, short, f.name, value, fishDescription(f.help))
		}
	}
}

// enumHelp is the help of a value of --output or --fail-on, from the
// table the flag's enum comes from.
func enumHelp(flag, value string) (string, bool) {
	switch flag {
	case "output":
		if f, ok := render.FormatNamed(value); ok {
			return f.Help, true
		}
	case "fail-on":
		for _, o := range failOutcomes {
			if string(o.status) == value {
				return o.help, true
			}
		}
	}
	return "", false
}

// valueHelp is the help of an enum value: that of the flag of the same
// name (--format codex-jsonl is what --codex-jsonl reads), up to a
// semicolon.
func valueHelp(nodes []cmdNode, value string) string {
	for _, n := range nodes {
		for _, f := range n.flags {
			if f.name == value {
				help, _, _ := strings.Cut(f.help, ";")
				return help
			}
		}
	}
	return value
}

// fishDescription is the -d option for a help text, if there is one.
func fishDescription(help string) string {
	if help == "" {
		return ""
	}
	return " -d " + fishQuote(strings.TrimSuffix(help, "."))
}

// fishToken escapes s as one word of a fish command line (-a's argument is
// expanded like one): a backslash before every byte but a letter, a digit
// and -._/:,=+@.
func fishToken(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._/:,=+@", c) >= 0) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// fishQuote single-quotes s for fish, where \\ and \' are the escapes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// writeZsh writes a native zsh completion function: loaded by compinit from
// a file _cairn in $fpath (the #compdef line), or sourced after compinit
// (it then registers itself with compdef). Commands, flags and report codes
// carry their help texts; paths go to _files, so a directory completes
// with its slash and no space.
func writeZsh(w io.Writer, nodes []cmdNode) {
	fmt.Fprintln(w, "#compdef cairn")
	fmt.Fprintln(w, "# zsh completion for cairn, generated by `cairn completion zsh`.")
	fmt.Fprintln(w, "# Save it as _cairn in a directory of $fpath before compinit runs, or")
	fmt.Fprintln(w, "# source it after compinit: source <(cairn completion zsh)")
	for _, n := range nodes {
		fmt.Fprintf(w, "\n%s() {\n", zshFunc(n.path))
		if n.commands {
			writeZshHelp(w, nodes)
			fmt.Fprintln(w, "}")
			continue
		}
		if n.describedValues() {
			fmt.Fprintln(w, "  local -a codes=(")
			for _, v := range n.values {
				fmt.Fprintf(w, "    %s\n", zshQuote(zshDescribed(v)))
			}
			fmt.Fprintln(w, "  )")
		}
		if len(n.subs) > 0 {
			fmt.Fprintln(w, "  local curcontext=$curcontext state state_descr line ret=1")
			fmt.Fprintln(w, "  typeset -A opt_args")
			fmt.Fprint(w, "  _arguments -C")
		} else {
			fmt.Fprint(w, "  _arguments")
		}
		for _, f := range n.flags {
			fmt.Fprintf(w, " \\\n    %s", zshFlagSpec(f))
		}
		switch {
		case len(n.subs) > 0:
			fmt.Fprint(w, " \\\n    '1: :->command' \\\n    '*:: :->arg' && ret=0\n")
			fmt.Fprintln(w, "  case $state in")
			fmt.Fprintln(w, "    command)")
			fmt.Fprintln(w, "      local -a commands=(")
			for _, s := range n.subs {
				fmt.Fprintf(w, "        %s\n", zshQuote(zshDescribed(s)))
			}
			fmt.Fprintln(w, "      )")
			fmt.Fprintf(w, "      _describe -t commands %s commands && ret=0 ;;\n", zshQuote(strings.TrimSpace("cairn "+n.path)+" command"))
			fmt.Fprintln(w, "    arg)")
			fmt.Fprintln(w, "      curcontext=${curcontext%:*:*}:cairn-$words[1]:")
			fmt.Fprintln(w, "      case $words[1] in")
			for _, s := range n.subs {
				fmt.Fprintf(w, "        %s) %s && ret=0 ;;\n", s.name, zshFunc(strings.TrimSpace(n.path+" "+s.name)))
			}
			fmt.Fprintln(w, "      esac ;;")
			fmt.Fprintln(w, "  esac")
			fmt.Fprintln(w, "  return ret")
		case n.describedValues():
			fmt.Fprint(w, " \\\n    '1::report code:{_describe -t codes \"report code\" codes}'\n")
		case len(n.values) > 0:
			var vs []string
			for _, v := range n.values {
				vs = append(vs, v.name)
			}
			fmt.Fprintf(w, " \\\n    %s\n", zshQuote("1:"+n.valueName+":("+strings.Join(vs, " ")+")"))
		case n.paths:
			fmt.Fprint(w, " \\\n    '*:path:_files'\n")
		default:
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "}")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `if [[ $funcstack[1] == _cairn ]]; then`)
	fmt.Fprintln(w, `  _cairn "$@"`)
	fmt.Fprintln(w, `elif (( $+functions[compdef] )); then`)
	fmt.Fprintln(w, `  compdef _cairn cairn`)
	fmt.Fprintln(w, `else`)
	fmt.Fprintln(w, `  print -u2 'cairn completion: run "autoload -U compinit && compinit" before loading this script'`)
	fmt.Fprintln(w, `fi`)
}

// writeZshHelp writes the body of the help command's function: the words
// after help name a command, level by level.
func writeZshHelp(w io.Writer, nodes []cmdNode) {
	fmt.Fprintln(w, "  local -a commands")
	fmt.Fprintln(w, `  case "${(j: :)words[2,CURRENT-1]}" in`)
	for _, n := range nodes {
		if len(n.subs) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s) commands=(", zshQuote(n.path))
		for _, s := range n.subs {
			if s.name != "help" {
				fmt.Fprintf(w, "\n      %s", zshQuote(zshDescribed(s)))
			}
		}
		fmt.Fprintln(w, ") ;;")
	}
	fmt.Fprintln(w, "    *) return 1 ;;")
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "  _describe -t commands 'cairn command' commands")
}

// zshFunc names the completion function of a command path.
func zshFunc(path string) string {
	return strings.Join(append([]string{"_cairn"}, strings.Fields(path)...), "_")
}

// zshFlagSpec is f as an _arguments spec, quoted: exclusions, name (both
// names, by brace expansion, when it has a short one), help, value.
func zshFlagSpec(f flagSpec) string {
	var exclude string
	switch {
	case f.name == "help" || f.name == "version":
		exclude = "(- *)"
	case len(f.xor) > 0:
		exclude = "(" + strings.Join(f.xor, " ") + ")"
	}
	equals := ""
	if f.value != noValue {
		equals = "="
	}
	var b strings.Builder
	if f.short == "" {
		b.WriteString(exclude + "--" + f.name + equals)
	}
	b.WriteString("[" + zshEscape(f.help, "[]") + "]")
	switch f.value {
	case pathValue:
		b.WriteString(":path:_files")
	case enumValue:
		b.WriteString(":" + f.name + ":(" + strings.Join(f.enum, " ") + ")")
	case otherValue:
		b.WriteString(":" + f.name + ": ")
	}
	if f.short != "" {
		return zshQuote(exclude) + "{-" + f.short + ",--" + f.name + equals + "}" + zshQuote(b.String())
	}
	return zshQuote(b.String())
}

// zshDescribed is a _describe entry, name:help.
func zshDescribed(c choice) string {
	return zshEscape(c.name, ":") + ":" + c.help
}

// zshEscape puts a backslash before the backslashes and the bytes of special.
func zshEscape(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\\' || strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

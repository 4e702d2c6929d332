package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestHelpTexts holds the help table to the grammar: once filled, every
// command, flag and argument has help with no variable left, and every
// place of the table is one of the grammar's (a renamed flag cannot keep
// a text no one prints). Before filling, kong has interpolated no help
// text but its own flag's.
func TestHelpTexts(t *testing.T) {
	parser, err := kong.New(newCLI(), kong.Name("cairn"), grammarVars(), kong.PostBuild(scopeVars))
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]*string{}
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		places[path] = &n.Help
		for _, f := range n.Flags {
			places[path+" --"+f.Name] = &f.Help
		}
		for _, p := range n.Positional {
			places[path+" <"+p.Name+">"] = &p.Help
		}
		for _, c := range n.Children {
			walk(c, strings.TrimSpace(path+" "+c.Name))
		}
	}
	walk(parser.Model.Node, "")
	for place, help := range places {
		if *help != "" && place != " --help" {
			t.Errorf("%q has help %q before fillHelp: a help text is back in a tag", place, *help)
		}
	}
	fillHelp(parser.Model.Node)
	for place, help := range places {
		if *help == "" {
			t.Errorf("%q has no help", place)
		}
		if strings.Contains(*help, "${") {
			t.Errorf("%q help %q keeps a variable", place, *help)
		}
	}
	for place := range helpTexts() {
		if _, ok := places[place]; !ok {
			t.Errorf("help table place %q is not in the grammar", place)
		}
	}
}

// TestDocSynopsis holds the package doc's synopsis to the grammar: a line
// for every command, and in it every flag the command has (kong's --help
// aside).
func TestDocSynopsis(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{} // a command's synopsis, its lines joined
	var cmd string
	for _, l := range strings.Split(string(doc), "\n") {
		l = strings.TrimPrefix(l, "//\t")
		switch {
		case strings.HasPrefix(l, "cairn "):
			cmd = l
			lines[cmd] = l
		case cmd != "" && strings.HasPrefix(l, "  "):
			lines[cmd] += " " + strings.TrimSpace(l)
		default:
			cmd = ""
		}
	}
	parser, err := kong.New(newCLI(), kong.Name("cairn"), grammarVars())
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		if len(n.Children) == 0 {
			var synopsis string
			for line, text := range lines {
				if line == "cairn "+path || strings.HasPrefix(line, "cairn "+path+" ") {
					synopsis = text
				}
			}
			if synopsis == "" {
				t.Errorf("doc.go's synopsis has no line for cairn %s", path)
			}
			for _, f := range n.Flags {
				if f.Name != "help" && !strings.Contains(synopsis, "--"+f.Name+" ") && !strings.Contains(synopsis, "--"+f.Name+"]") {
					t.Errorf("doc.go's synopsis of cairn %s lacks --%s", path, f.Name)
				}
			}
		}
		for _, c := range n.Children {
			walk(c, strings.TrimSpace(path+" "+c.Name))
		}
	}
	walk(parser.Model.Node, "")
}

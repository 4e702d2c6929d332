package cli

import (
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

package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestUsageGeneric checks the fallback: an error kong did not classify for
// us gets the one generic line and the top-level help.
func TestUsageGeneric(t *testing.T) {
	parser, err := kong.New(newCLI(), kong.Name("cairn"), grammarVars())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeUsage(&b, classifyUsage(errors.New("Secret"), []string{"Secret"}, parser.Model.Node))
	if want := "cairn: usage error: " + usageGenericText + "\nRun 'cairn --help' for usage.\n"; b.String() != want {
		t.Errorf("usage for an unclassified error: got %q, want %q", b.String(), want)
	}
}

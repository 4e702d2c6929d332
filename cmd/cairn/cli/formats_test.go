package cli

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/cairn-audit/cairn/audit/protocol"
)

// TestFormatTable holds everything that lists the input formats to the
// format table (protocol.Formats, SPEC §14.3): eval protocol's input
// flags (names, help, xor group, order), eval batch's --format values,
// the completion scripts, the report schema's enums, the help text, the
// package doc and the SPEC's synopsis and report enum.
func TestFormatTable(t *testing.T) {
	formats := protocol.Formats()
	if len(formats) == 0 {
		t.Fatal("no formats")
	}
	var names []string
	for _, f := range formats {
		names = append(names, f.Name)
		if f.Help == "" || f.Section == "" || (f.Unit != "line" && f.Unit != "event" && f.Unit != "message") || len(f.Places()) == 0 {
			t.Errorf("%s: a row without help, section, unit or places", f.Name)
		}
		if got, ok := protocol.FormatNamed(f.Name); !ok || got.Name != f.Name {
			t.Errorf("FormatNamed(%s) = %v, %v", f.Name, got.Name, ok)
		}
	}
	parser, err := kong.New(newCLI(), kong.Name("cairn"), grammarVars())
	if err != nil {
		t.Fatal(err)
	}
	fillHelp(parser.Model.Node)
	var protocolNode, batchNode *kong.Node
	for _, n := range parser.Model.Node.Children {
		for _, c := range n.Children {
			switch n.Name + " " + c.Name {
			case "eval protocol":
				protocolNode = c
			case "eval batch":
				batchNode = c
			}
		}
	}
	if protocolNode == nil || batchNode == nil {
		t.Fatal("no eval protocol or eval batch in the grammar")
	}
	var inputFlags []string
	for _, fl := range protocolNode.Flags {
		if slices.Contains(fl.Xor, "input") {
			inputFlags = append(inputFlags, fl.Name)
			f, _ := protocol.FormatNamed(fl.Name)
			if want := inputHelp(f); fl.Help != want {
				t.Errorf("--%s help %q, want %q", fl.Name, fl.Help, want)
			}
		}
	}
	if !slices.Equal(inputFlags, names) {
		t.Errorf("eval protocol's input flags %v, want the table's %v", inputFlags, names)
	}
	for _, fl := range batchNode.Flags {
		if fl.Name == "format" {
			if got := strings.Split(fl.Enum, ","); !slices.Equal(got, names) {
				t.Errorf("eval batch --format values %v, want %v", got, names)
			}
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		_, out, _ := runCapture([]string{"completion", shell}, nil)
		for _, n := range names {
			if !strings.Contains(out, "--"+n) && !strings.Contains(out, "-l "+n) {
				t.Errorf("completion %s does not offer --%s", shell, n)
			}
		}
	}
	_, help, _ := runCapture([]string{"eval", "protocol", "--help"}, nil)
	help = strings.Join(strings.Fields(help), " ")
	for _, n := range names {
		if !strings.Contains(help, "--"+n+" PATH") {
			t.Errorf("eval protocol --help does not name --%s PATH", n)
		}
	}

	var schema struct {
		OneOf []struct {
			Properties struct {
				Input struct {
					Properties struct {
						Format  struct{ Enum []string }
						Harness struct{ Enum []any }
					}
				}
			}
		}
	}
	b, err := os.ReadFile("../../../docs/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil || len(schema.OneOf) != 2 {
		t.Fatalf("schema: %v", err)
	}
	in := schema.OneOf[1].Properties.Input.Properties
	if !slices.Equal(in.Format.Enum, names) {
		t.Errorf("schema input.format enum %v, want %v", in.Format.Enum, names)
	}
	for _, f := range formats {
		if f.Harness != "" && !slices.Contains(in.Harness.Enum, any(f.Harness)) {
			t.Errorf("schema input.harness enum %v lacks %s", in.Harness.Enum, f.Harness)
		}
	}

	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile("../../../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		if !strings.Contains(string(doc), "--"+f.Name+" PATH") {
			t.Errorf("doc.go's synopsis lacks --%s PATH", f.Name)
		}
		if !strings.Contains(string(spec), "--"+f.Name) || !strings.Contains(string(spec), "## "+strings.TrimPrefix(f.Section, "§")+".") {
			t.Errorf("SPEC names no --%s or has no section %s", f.Name, f.Section)
		}
	}
}

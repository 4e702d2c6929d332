package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// FuzzParseToolsList holds the tools/list reader to its contract on any
// bytes: no panic; a list or a finding, never both or neither; a finding
// of the file's codes at a place of the file's vocabulary; and on a list,
// the catalog Derive makes (every read tool with an outputSchema a search)
// parses back to itself and agrees with the list (Compare), and Compare
// of every built-in names only places of the two. Seeded from the real
// servers' answers (testdata/catalog/tools-list) and their pieces.
func FuzzParseToolsList(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/catalog/tools-list/*.json")
	if len(files) == 0 {
		f.Fatal("no saved tools/list answers")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if l, fd := ParseToolsList(b); fd == nil {
			// Each tool alone, as a result saved without its response.
			for i := range l.Tools {
				f.Add([]byte(`{"tools":[` + string(toolBytes(b, i)) + `]}`))
			}
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`))
	f.Add([]byte(`{"tools":[],"nextCursor":"x"}`))
	f.Add([]byte(manyTools(3)))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, fd := ParseToolsList(b)
		if (l == nil) == (fd == nil) {
			t.Fatalf("ParseToolsList = %v, %v: want a list or a finding", l, fd)
		}
		if fd != nil {
			if fd.Code.Kind() != KindToolsList || !toolsListPlace.MatchString(fd.Where) {
				t.Fatalf("finding %s at %q", fd.Code, fd.Where)
			}
			return
		}
		var searches []Search
		for _, st := range l.Tools {
			if st.Class() == audit.Read && st.OutputSchema != nil {
				searches = append(searches, Search{st.Name, audit.ScopeRule{Kind: audit.ScopeServerInstance}})
			}
		}
		for _, c := range Builtins() {
			found, total := Compare(c, l)
			if total < len(found) || len(found) > MaxFindings || total > len(found) && len(found) != MaxFindings {
				t.Fatalf("Compare(%s): %d findings of %d", c.Name(), len(found), total)
			}
			for _, x := range found {
				if x.Code.Kind() != KindFinding || !catalogOrList(x.Where) || x.Server != "" && !toolsListPlace.MatchString(x.Server) {
					t.Fatalf("Compare(%s): %s at %q, %q", c.Name(), x.Code, x.Where, x.Server)
				}
			}
		}
		if len(searches) == 0 {
			return // derive takes at least one --search
		}
		c, probs := Derive(l, "fuzz/1", []string{"memory"}, searches)
		for _, p := range probs {
			if p.Code.Kind() != KindDerive || !toolsListPlace.MatchString(p.Where) && p.Where[:2] != "--" {
				t.Fatalf("Derive: %s at %q", p.Code, p.Where)
			}
		}
		if c == nil {
			if len(probs) == 0 {
				t.Fatal("Derive: no catalog and no problem")
			}
			return
		}
		again, perr := Parse(Indented(c))
		if len(perr) > 0 {
			t.Fatalf("the derived catalog does not parse: %v\n%s", perr, Indented(c))
		}
		if !bytes.Equal(File(again), File(c)) {
			t.Fatalf("the derived catalog reads back as\n%s\nwant\n%s", File(again), File(c))
		}
		if x, n := Compare(again, l); n > 0 {
			t.Fatalf("the derived catalog disagrees with its server: %v", x)
		}
	})
}

// catalogToolPlace is the vocabulary of Compare's places in a catalog.
var catalogToolPlace = regexp.MustCompile(`^catalog\.tools\[\d+\](\.class)?$`)

// catalogOrList reports whether where is a place of a catalog's tools or
// of a tools/list file.
func catalogOrList(where string) bool {
	return toolsListPlace.MatchString(where) || catalogToolPlace.MatchString(where)
}

// toolBytes is the tool at index i of the checked answer b, as written.
func toolBytes(b []byte, i int) []byte {
	tools := valueOf(b, "tools")
	if tools == nil {
		tools = valueOf(valueOf(b, "result"), "tools")
	}
	var out []byte
	n := 0
	stream.Elements(tools, func(v []byte) bool {
		if n == i {
			out = v
			return false
		}
		n++
		return true
	})
	return out
}

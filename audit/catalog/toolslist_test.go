package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// The saved tools/list answers of the real servers (testdata/catalog/tools-list).
const (
	serverMemory = "../../testdata/catalog/tools-list/server-memory-2026.8.31.json"
	inspector    = "../../testdata/catalog/tools-list/server-memory-2026.8.31-inspector-0.15.0.json"
	aiDevkit     = "../../testdata/catalog/tools-list/ai-devkit-memory-0.20.1.json"
	memoryKeeper = "../../testdata/catalog/tools-list/mcp-memory-keeper-0.14.1.json"
)

func readToolsList(t *testing.T, path string) *ToolsList {
	t.Helper()
	l, f := ReadToolsList(path)
	if f != nil {
		t.Fatalf("ReadToolsList(%s) = %s at %s", path, f.Code, f.Where)
	}
	return l
}

func builtin(t *testing.T, name string) *audit.Catalog {
	t.Helper()
	c, ok := Builtin(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	return c
}

// TestReadToolsListSaved reads the real servers' answers: their tools in
// order, and the classes their annotations give (reference
// memory-servers.md §1.1: server-memory's reads, captures and deletes; the
// other two have no annotations, so every tool is destructive).
func TestReadToolsListSaved(t *testing.T) {
	tests := []struct {
		path  string
		root  string
		tools int
		class map[string]audit.Class
	}{
		{serverMemory, "tools_list.result", 9, map[string]audit.Class{
			"create_entities": audit.Capture, "create_relations": audit.Capture, "add_observations": audit.Capture,
			"delete_entities": audit.Destructive, "delete_observations": audit.Destructive, "delete_relations": audit.Destructive,
			"read_graph": audit.Read, "search_nodes": audit.Read, "open_nodes": audit.Read}},
		{inspector, "tools_list", 9, nil},
		{aiDevkit, "tools_list.result", 3, map[string]audit.Class{
			"memory_storeKnowledge": audit.Destructive, "memory_updateKnowledge": audit.Destructive, "memory_searchKnowledge": audit.Destructive}},
		{memoryKeeper, "tools_list.result", 38, nil},
	}
	for _, tc := range tests {
		l := readToolsList(t, tc.path)
		if len(l.Tools) != tc.tools || l.root != tc.root {
			t.Errorf("%s: %d tools at %s, want %d at %s", tc.path, len(l.Tools), l.root, tc.tools, tc.root)
		}
		for name, want := range tc.class {
			if i := l.Index(name); i < 0 || l.Tools[i].Class() != want {
				t.Errorf("%s: %s at %d, want class %d", tc.path, name, i, want)
			}
		}
	}
	// The Inspector prints the same tools as the server.
	raw, insp := readToolsList(t, serverMemory), readToolsList(t, inspector)
	for i := range raw.Tools {
		a, b := raw.Tools[i], insp.Tools[i]
		if a.Name != b.Name || a.Class() != b.Class() || (a.OutputSchema == nil) != (b.OutputSchema == nil) {
			t.Errorf("tool %d: server %+v, inspector %+v", i, a, b)
		}
	}
	for _, t2 := range readToolsList(t, memoryKeeper).Tools {
		if t2.ReadOnly != HintAbsent || t2.Destructive != HintAbsent || t2.OutputSchema != nil {
			t.Errorf("mcp-memory-keeper's %s has annotations or an outputSchema", t2.Name)
		}
	}
}

// TestDeriveServerMemoryIsBuiltin derives server-memory's catalog from its
// real answer, with the two searches SPEC §16.7 names: it is the built-in
// mcp-server-memory/1 but for its name, reads back through Parse, and
// agrees with the server (Compare).
func TestDeriveServerMemoryIsBuiltin(t *testing.T) {
	for _, path := range []string{serverMemory, inspector} {
		l := readToolsList(t, path)
		searches := []Search{
			{"search_nodes", audit.ScopeRule{Kind: audit.ScopeServerInstance}},
			{"read_graph", audit.ScopeRule{Kind: audit.ScopeServerInstance}},
		}
		c, probs := Derive(l, "my-memory/1", []string{"memory"}, searches)
		if len(probs) > 0 {
			t.Fatalf("%s: Derive = %v", path, probs)
		}
		want := bytes.Replace(File(builtin(t, "mcp-server-memory/1")), []byte(`"mcp-server-memory/1"`), []byte(`"my-memory/1"`), 1)
		if got := File(c); !bytes.Equal(got, want) {
			t.Errorf("%s: derived\n%s\nwant the built-in but for its name\n%s", path, got, want)
		}
		again, perr := Parse(Indented(c))
		if len(perr) > 0 || !bytes.Equal(File(again), File(c)) {
			t.Errorf("%s: Indented does not read back: %v\n%s", path, perr, Indented(c))
		}
		if f, _ := Compare(again, l); len(f) > 0 {
			t.Errorf("%s: the derived catalog disagrees with its server: %v", path, f)
		}
	}
}

// TestCompareBuiltins holds the built-ins to their servers' real answers:
// both agree, ai-devkit's because of its two annotations_override, which
// are each a finding without it.
func TestCompareBuiltins(t *testing.T) {
	if f, _ := Compare(builtin(t, "mcp-server-memory/1"), readToolsList(t, serverMemory)); len(f) > 0 {
		t.Errorf("mcp-server-memory/1: %v", f)
	}
	ad := readToolsList(t, aiDevkit)
	c := builtin(t, "ai-devkit-memory/1")
	if f, _ := Compare(c, ad); len(f) > 0 {
		t.Errorf("ai-devkit-memory/1: %v", f)
	}
	tools := slices.Clone(c.Tools())
	for i := range tools {
		tools[i].AnnotationsOverride = false
	}
	got, _ := Compare(audit.NewCatalog("x/1", c.Servers(), tools), ad)
	want := []Finding{
		{ClassWeakerThanAnnotations, "catalog.tools[0].class", "tools_list.result.tools[2]"},
		{ClassWeakerThanAnnotations, "catalog.tools[1].class", "tools_list.result.tools[0]"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ai-devkit without overrides: %v, want %v", got, want)
	}
}

// TestCompareFindings: each way a catalog can disagree with server-memory.
func TestCompareFindings(t *testing.T) {
	l := readToolsList(t, serverMemory)
	base := builtin(t, "mcp-server-memory/1").Tools()
	edit := func(f func(tools []audit.CatalogTool) []audit.CatalogTool) *audit.Catalog {
		return audit.NewCatalog("x/1", []string{"memory"}, f(slices.Clone(base)))
	}
	tests := []struct {
		name string
		c    *audit.Catalog
		want []string
	}{
		{"misspelled tool", edit(func(ts []audit.CatalogTool) []audit.CatalogTool { ts[2].Name = "open_node"; return ts }),
			[]string{"tool_not_on_server@catalog.tools[2]", "server_tool_undeclared@tools_list.result.tools[8]"}},
		{"tool left out", edit(func(ts []audit.CatalogTool) []audit.CatalogTool { return slices.Delete(ts, 6, 7) }),
			[]string{"server_tool_undeclared@tools_list.result.tools[3]"}},
		{"a capture as read", edit(func(ts []audit.CatalogTool) []audit.CatalogTool { ts[3].Class = audit.Read; return ts }),
			[]string{"class_weaker_than_annotations@catalog.tools[3].class~tools_list.result.tools[0]"}},
		{"a delete as capture", edit(func(ts []audit.CatalogTool) []audit.CatalogTool { ts[8].Class = audit.Capture; return ts }),
			[]string{"class_weaker_than_annotations@catalog.tools[8].class~tools_list.result.tools[5]"}},
		{"a delete as read", edit(func(ts []audit.CatalogTool) []audit.CatalogTool { ts[6].Class = audit.Read; return ts }),
			[]string{"class_weaker_than_annotations@catalog.tools[6].class~tools_list.result.tools[3]"}},
		{"overridden", edit(func(ts []audit.CatalogTool) []audit.CatalogTool {
			ts[6].Class, ts[6].AnnotationsOverride = audit.Read, true
			return ts
		}), nil},
		{"stronger is fine", edit(func(ts []audit.CatalogTool) []audit.CatalogTool {
			ts[2].Class, ts[3].Class = audit.Destructive, audit.Destructive
			return ts
		}), nil},
		{"an extra tool", edit(func(ts []audit.CatalogTool) []audit.CatalogTool {
			return append(ts, audit.CatalogTool{Name: "forget", Class: audit.Destructive})
		}), []string{"tool_not_on_server@catalog.tools[9]"}},
	}
	for _, tc := range tests {
		var got []string
		found, total := Compare(tc.c, l)
		if total != len(found) {
			t.Errorf("%s: %d findings of %d", tc.name, len(found), total)
		}
		for _, f := range found {
			s := f.Code.String() + "@" + f.Where
			if f.Server != "" {
				s += "~" + f.Server
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCompareListsAtMost: a catalog compared with an answer of 1,000
// tools it lacks lists the first MaxFindings findings and counts them all.
func TestCompareListsAtMost(t *testing.T) {
	l, f := ParseToolsList([]byte(manyTools(1000)))
	if f != nil {
		t.Fatal(f)
	}
	found, total := Compare(builtin(t, "mcp-server-memory/1"), l)
	if total != 1009 || len(found) != MaxFindings || found[8].Code != ToolNotOnServer || found[9].Where != "tools_list.tools[0]" || found[MaxFindings-1].Where != "tools_list.tools[246]" {
		t.Errorf("%d findings of %d: %v … %v", len(found), total, found[:10], found[len(found)-1])
	}
}

// toolsListPlace is the vocabulary of a tools/list file's places.
var toolsListPlace = regexp.MustCompile(`^tools_list(\.result)?(\.(jsonrpc|error|nextCursor|tools(\[\d+\](\.(name|annotations(\.(readOnlyHint|destructiveHint))?|outputSchema))?)?))?$`)

// TestParseToolsListProblems: each problem a tools/list answer can have,
// its code and place.
func TestParseToolsListProblems(t *testing.T) {
	const tool = `{"name":"t","inputSchema":{"type":"object"}}`
	resp := func(result string) string { return `{"jsonrpc":"2.0","id":2,"result":` + result + `}` }
	tests := []struct {
		name, in, code, where string
	}{
		{"empty", ``, "tools_list_unreadable", "tools_list"},
		{"bom", "\xef\xbb\xbf" + `{"tools":[]}`, "tools_list_unreadable", "tools_list"},
		{"not utf-8", `{"tools":["` + "\xff" + `"]}`, "tools_list_unreadable", "tools_list"},
		{"not json", `{"tools":[`, "tools_list_invalid", "tools_list"},
		{"an array", `[]`, "tools_list_invalid", "tools_list"},
		{"two documents", `{"tools":[]} {}`, "tools_list_invalid", "tools_list"},
		{"duplicate member", `{"tools":[],"tools":[]}`, "tools_list_invalid", "tools_list"},
		{"duplicate deep", `{"tools":[{"name":"t","inputSchema":{"a":1,"a":2}}]}`, "tools_list_invalid", "tools_list"},
		{"too deep", `{"tools":[{"name":"t","x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}]}`, "tools_list_invalid", "tools_list"},
		{"no tools", `{}`, "tools_list_invalid", "tools_list.tools"},
		{"tools not an array", `{"tools":{}}`, "tools_list_invalid", "tools_list.tools"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":2,"result":{"tools":[]}}`, "tools_list_invalid", "tools_list.jsonrpc"},
		{"an error response", `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`, "tools_list_invalid", "tools_list.error"},
		{"no result", `{"jsonrpc":"2.0","id":2}`, "tools_list_invalid", "tools_list.result"},
		{"result not an object", resp(`[]`), "tools_list_invalid", "tools_list.result"},
		{"result without tools", resp(`{}`), "tools_list_invalid", "tools_list.result.tools"},
		{"paginated", resp(`{"tools":[` + tool + `],"nextCursor":"2"}`), "tools_list_incomplete", "tools_list.result.nextCursor"},
		{"paginated bare", `{"nextCursor":"","tools":[]}`, "tools_list_incomplete", "tools_list.nextCursor"},
		{"tool not an object", resp(`{"tools":[` + tool + `,"t"]}`), "tools_list_invalid", "tools_list.result.tools[1]"},
		{"no name", resp(`{"tools":[{"inputSchema":{}}]}`), "tools_list_invalid", "tools_list.result.tools[0].name"},
		{"empty name", resp(`{"tools":[{"name":""}]}`), "tools_list_invalid", "tools_list.result.tools[0].name"},
		{"name a number", `{"tools":[{"name":5}]}`, "tools_list_invalid", "tools_list.tools[0].name"},
		{"name twice", `{"tools":[` + tool + `,` + tool + `]}`, "tools_list_invalid", "tools_list.tools[1].name"},
		{"name twice escaped", `{"tools":[` + tool + `,{"name":"\u0074"}]}`, "tools_list_invalid", "tools_list.tools[1].name"},
		{"the first name given twice", `{"tools":[{"name":"b"},{"name":"a"},{"name":"c"},{"name":"a"},{"name":"b"}]}`, "tools_list_invalid", "tools_list.tools[3].name"},
		{"annotations null", `{"tools":[{"name":"t","annotations":null}]}`, "tools_list_invalid", "tools_list.tools[0].annotations"},
		{"readOnlyHint a string", `{"tools":[{"name":"t","annotations":{"readOnlyHint":"true"}}]}`, "tools_list_invalid", "tools_list.tools[0].annotations.readOnlyHint"},
		{"destructiveHint null", `{"tools":[{"name":"t","annotations":{"destructiveHint":null}}]}`, "tools_list_invalid", "tools_list.tools[0].annotations.destructiveHint"},
		{"outputSchema true", `{"tools":[{"name":"t","outputSchema":true}]}`, "tools_list_invalid", "tools_list.tools[0].outputSchema"},
	}
	for _, tc := range tests {
		l, f := ParseToolsList([]byte(tc.in))
		if f == nil {
			t.Errorf("%s: no problem, %d tools; want %s at %s", tc.name, len(l.Tools), tc.code, tc.where)
			continue
		}
		if l != nil || f.Code.String() != tc.code || f.Where != tc.where || !toolsListPlace.MatchString(f.Where) {
			t.Errorf("%s: got %s at %s, want %s at %s", tc.name, f.Code, f.Where, tc.code, tc.where)
		}
	}
	// What MCP adds from version to version is left alone; a null
	// nextCursor is the last page.
	ok := `{"_meta":{},"nextCursor":null,"tools":[{"name":"t","title":"T","icons":[],"execution":{},"_meta":{},"annotations":{"title":"x","idempotentHint":true,"openWorldHint":false}}]}`
	if l, f := ParseToolsList([]byte(ok)); f != nil || len(l.Tools) != 1 || l.Tools[0].Class() != audit.Destructive {
		t.Errorf("a tool with members cairn does not read: %v %v", l, f)
	}
}

// TestToolsListFileRules: the file is read with SPEC §3's rules at 16 MiB.
func TestToolsListFileRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := `{"tools":[]}`
	fits := write("fits.json", append([]byte(ok), bytes.Repeat([]byte(" "), MaxToolsListBytes-len(ok))...))
	over := write("over.json", append([]byte(ok), bytes.Repeat([]byte(" "), MaxToolsListBytes-len(ok)+1)...))
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fits, link); err != nil {
		t.Fatal(err)
	}
	if _, f := ReadToolsList(fits); f != nil {
		t.Errorf("16 MiB: %s", f.Code)
	}
	for _, path := range []string{over, link, dir, filepath.Join(dir, "missing.json"), write("empty.json", nil)} {
		if _, f := ReadToolsList(path); f == nil || f.Code != ToolsListUnreadable || f.Where != "tools_list" {
			t.Errorf("%s: %v, want tools_list_unreadable", filepath.Base(path), f)
		}
	}
}

// TestDeriveProblems: what keeps a catalog from being derived, each at its
// place; every problem is returned.
func TestDeriveProblems(t *testing.T) {
	instance := audit.ScopeRule{Kind: audit.ScopeServerInstance}
	search := func(tools ...string) []Search {
		var out []Search
		for _, s := range tools {
			out = append(out, Search{s, instance})
		}
		return out
	}
	tests := []struct {
		name     string
		list     string // a file, or the answer itself
		searches []Search
		want     []string
	}{
		{"ai-devkit: not read-only", aiDevkit, search("memory_searchKnowledge"),
			[]string{"search_not_read_only@tools_list.result.tools[2]"}},
		{"memory-keeper", memoryKeeper, search("context_search", "context_get"),
			[]string{"search_not_read_only@tools_list.result.tools[13]", "search_not_read_only@tools_list.result.tools[4]"}},
		{"not on the server", serverMemory, search("search_nodes", "search_node"),
			[]string{"search_tool_not_on_server@--search[1]"}},
		{"a capture", serverMemory, search("create_entities"),
			[]string{"search_not_read_only@tools_list.result.tools[0]"}},
		{"no outputSchema", `{"tools":[{"name":"find","annotations":{"readOnlyHint":true}}]}`, search("find"),
			[]string{"search_without_output_schema@tools_list.tools[0]"}},
		{"outputSchema of a string", `{"tools":[{"name":"find","annotations":{"readOnlyHint":true},"outputSchema":{"type":"string"}}]}`, search("find"),
			[]string{"search_output_schema_unusable@tools_list.tools[0].outputSchema"}},
		{"nothing required", `{"tools":[{"name":"find","annotations":{"readOnlyHint":true},"outputSchema":{"type":"object","properties":{"a":{"type":"array"}}}}]}`, search("find"),
			[]string{"search_output_schema_unusable@tools_list.tools[0].outputSchema"}},
		{"a name a catalog cannot hold", `{"tools":[{"name":"find it","annotations":{"readOnlyHint":true}},{"name":"x"}]}`, search("x"),
			[]string{"server_tool_name_unusable@tools_list.tools[0].name", "search_not_read_only@tools_list.tools[1]"}},
		{"too many tools", manyTools(65), search("t0"),
			[]string{"server_tools_too_many@tools_list.tools"}},
	}
	for _, tc := range tests {
		var l *ToolsList
		if strings.HasPrefix(tc.list, "{") {
			var f *Finding
			if l, f = ParseToolsList([]byte(tc.list)); f != nil {
				t.Fatalf("%s: %v", tc.name, f)
			}
		} else {
			l = readToolsList(t, tc.list)
		}
		c, probs := Derive(l, "x/1", []string{"memory"}, tc.searches)
		var got []string
		for _, p := range probs {
			got = append(got, p.Code.String()+"@"+p.Where)
		}
		if c != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// 64 tools fit.
	l, _ := ParseToolsList([]byte(manyTools(64)))
	if c, probs := Derive(l, "x/1", []string{"m"}, search("t0")); len(probs) > 0 || len(c.Tools()) != 64 {
		t.Errorf("64 tools: %v", probs)
	}
}

// manyTools is an answer with n tools t0…, the first a search.
func manyTools(n int) string {
	var tools []string
	for i := range n {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","annotations":{"readOnlyHint":true},"outputSchema":{"type":"object","properties":{"a":{"type":"array"}},"required":["a"]}}`, i))
	}
	return `{"tools":[` + strings.Join(tools, ",") + `]}`
}

// TestResultMembers: what an outputSchema's properties become.
func TestResultMembers(t *testing.T) {
	tests := []struct {
		schema string
		want   string // the members as a catalog writes them, "" when unusable
	}{
		{`{"type":"object","properties":{"entities":{"type":"array"},"relations":{"type":"array"}},"required":["entities","relations"]}`,
			`{"entities":"array","relations":"array"}`},
		{`{"properties":{"a":{"type":"object"},"b":{"type":"boolean"},"c":{"type":"string"},"d":{"type":"string","enum":["x","y"]},"e":{"type":"integer","minimum":0},"f":{"type":"integer","minimum":1.5}},"required":["a","b","c","d","e","f"]}`,
			`{"a":"object","b":"boolean","c":"string","d":{"enum":["x","y"]},"e":"nonneg_integer","f":"nonneg_integer"}`},
		// left out: not required, a number, an integer that may be
		// negative, null, a union, no type, not a schema
		{`{"type":"object","properties":{"a":{"type":"array"},"opt":{"type":"array"},"n":{"type":"number"},"i":{"type":"integer"},"m":{"type":"integer","minimum":-1},"z":{"type":"null"},"u":{"type":["string","null"]},"any":{},"t":true},"required":["a","n","i","m","z","u","any","t","ghost"]}`,
			`{"a":"array"}`},
		// an enum that is not 1 to 32 strings is a string
		{`{"properties":{"e":{"type":"string","enum":[]},"f":{"type":"string","enum":["a",1]}},"required":["e","f"]}`,
			`{"e":"string","f":"string"}`},
		{`{"type":"array","properties":{"a":{"type":"array"}},"required":["a"]}`, ""},
		{`{"type":"object","required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`, ""},
		{`{"type":"object","properties":{"a":{"type":"array"}},"required":"a"}`, ""},
	}
	for _, tc := range tests {
		members, ok := resultMembers([]byte(tc.schema))
		got := ""
		if ok {
			got = canonical(resultDocument(&audit.SearchRule{Result: members})["members"])
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.schema, got, tc.want)
		}
	}
	var props []string
	var names []string
	for i := range MaxMembers + 1 {
		props = append(props, fmt.Sprintf(`"m%d":{"type":"array"}`, i))
		names = append(names, fmt.Sprintf(`"m%d"`, i))
	}
	if _, ok := resultMembers([]byte(`{"properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(names, ",") + `]}`)); ok {
		t.Error("33 members: usable, want unusable")
	}
}

// TestParseSearch: derive's --search TOOL=SCOPE.
func TestParseSearch(t *testing.T) {
	long := strings.Repeat("é", MaxValue)
	tests := []struct {
		in   string
		want *Search
	}{
		{"search_nodes=instance", &Search{"search_nodes", audit.ScopeRule{Kind: audit.ScopeServerInstance}}},
		{"find=eq:scope=project", &Search{"find", audit.ScopeRule{Kind: audit.ScopeArgumentEquals, Argument: "scope", Value: "project"}}},
		{"find=eq:scope=a=b", &Search{"find", audit.ScopeRule{Kind: audit.ScopeArgumentEquals, Argument: "scope", Value: "a=b"}}},
		{"memory_searchKnowledge=prefix:scope=project:", &Search{"memory_searchKnowledge", audit.ScopeRule{Kind: audit.ScopeArgumentPrefix, Argument: "scope", Value: "project:"}}},
		{"find=present:repo", &Search{"find", audit.ScopeRule{Kind: audit.ScopeArgumentPresent, Argument: "repo"}}},
		{"find=eq:s=" + long, &Search{"find", audit.ScopeRule{Kind: audit.ScopeArgumentEquals, Argument: "s", Value: long}}},
		{"find=eq:s=" + long + "x", nil},
		{"find=eq:s=", nil},
		{"find=eq:s", nil},
		{"find=eq:=v", nil},
		{"find=eq:a b=v", nil},
		{"find=eq:s=\xff", nil},
		{"find=prefix:s=", nil},
		{"find=present:", nil},
		{"find=present:a=b", nil},
		{"find=instance:x", nil},
		{"find=instances", nil},
		{"find=Instance", nil},
		{"find=", nil},
		{"find", nil},
		{"=instance", nil},
		{"fi nd=instance", nil},
		{"find=all", nil},
	}
	for _, tc := range tests {
		got, ok := ParseSearch(tc.in)
		switch {
		case tc.want == nil && ok:
			t.Errorf("ParseSearch(%q) = %+v, want refused", tc.in, got)
		case tc.want != nil && (!ok || got != *tc.want):
			t.Errorf("ParseSearch(%q) = %+v, %v; want %+v", tc.in, got, ok, *tc.want)
		}
	}
}

// TestCodes: every code has a name, a kind and both texts, and parses
// back; none is a report code.
func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Codes() {
		if c.String() == "unknown" || c.Kind() == 0 || c.Meaning() == "" || c.Next() == "" || seen[c.String()] {
			t.Errorf("code %d: %q kind %d", c, c, c.Kind())
		}
		seen[c.String()] = true
		if p, ok := ParseCode(c.String()); !ok || p != c {
			t.Errorf("ParseCode(%s) = %v, %v", c, p, ok)
		}
		if _, ok := audit.ParseCode(c.String()); ok {
			t.Errorf("%s is also a report code", c)
		}
	}
	if len(seen) != int(numCodes)-1 {
		t.Errorf("%d codes, want %d", len(seen), numCodes-1)
	}
}

// TestReadFileHoldsTheFileOnce: a file is read into one buffer sized by
// fstat, not grown by doubling (which held up to twice a 16 MiB
// tools/list at once).
func TestReadFileHoldsTheFileOnce(t *testing.T) {
	const size = 4 << 20
	path := filepath.Join(t.TempDir(), "tools.json")
	body := append([]byte(`{"tools":[]}`), bytes.Repeat([]byte(" "), size-12)...)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := readFile(path, MaxToolsListBytes)
	runtime.ReadMemStats(&after)
	if err != nil || len(b) != size {
		t.Fatalf("readFile: %d bytes, %v", len(b), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/8 {
		t.Errorf("readFile of %d bytes allocated %d", size, got)
	}
}

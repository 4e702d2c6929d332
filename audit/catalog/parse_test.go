package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// team is a valid catalog file that uses every kind of member.
const team = `{
  "schema": "cairn.catalog/v1",
  "name": "team-memory/1",
  "servers": ["team", "team_b"],
  "tools": [
    {"name": "find", "class": "read",
     "search": {"scope": {"kind": "argument_equals", "argument": "space", "value": "project"},
                "result": {"kind": "json_object", "members": {"hits": "array", "total": "nonneg_integer",
                  "ok": "boolean", "meta": "object", "mode": {"enum": ["a", "b"]}, "q": "string"}}}},
    {"name": "prefixed", "class": "read",
     "search": {"scope": {"kind": "argument_prefix", "argument": "scope", "prefix": "project:"},
                "result": {"kind": "json_object", "members": {"hits": "array"}}}},
    {"name": "present", "class": "read",
     "search": {"scope": {"kind": "argument_present", "argument": "repo"},
                "result": {"kind": "json_object", "members": {"hits": "array"}}}},
    {"name": "everything", "class": "read", "annotations_override": true,
     "search": {"scope": {"kind": "server_instance"},
                "result": {"kind": "json_object", "members": {"hits": "array"}}}},
    {"name": "get", "class": "read"},
    {"name": "put", "class": "capture", "annotations_override": true},
    {"name": "drop", "class": "destructive"}
  ]
}`

func TestParseValid(t *testing.T) {
	c, probs := Parse([]byte(team))
	if len(probs) > 0 {
		t.Fatalf("Parse(team) = %v, want no problem", probs)
	}
	if c.Name() != "team-memory/1" || !slices.Equal(c.Servers(), []string{"team", "team_b"}) || len(c.Tools()) != 7 {
		t.Fatalf("Parse(team) = %s %v with %d tools", c.Name(), c.Servers(), len(c.Tools()))
	}
	roles := []audit.Role{audit.RoleSearch, audit.RoleSearch, audit.RoleSearch, audit.RoleSearch, audit.RoleRead, audit.RoleCapture, audit.RoleDestructive}
	for i, want := range roles {
		if got := c.Role(audit.Tool(i + 1)); got != want {
			t.Errorf("tool %d: role %d, want %d", i, got, want)
		}
	}
	find := c.Tools()[0].Search
	if find.Scope != (audit.ScopeRule{Kind: audit.ScopeArgumentEquals, Argument: "space", Value: "project"}) || len(find.Result) != 6 {
		t.Errorf("find's search = %+v", find)
	}
	if got := c.Tools()[5]; !got.AnnotationsOverride || got.Search != nil {
		t.Errorf("put = %+v, want annotations_override and no search", got)
	}
	if !c.ScopeAsserted() {
		t.Error("a server_instance search: ScopeAsserted = false")
	}
}

// TestParseProblems checks the code and the place of each kind of
// problem, and that a problem never carries a byte of the file's values.
func TestParseProblems(t *testing.T) {
	const canary = "CANARY7q"
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(team), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	tool := func(m map[string]any, i int) map[string]any { return m["tools"].([]any)[i].(map[string]any) }
	search := func(m map[string]any) map[string]any { return tool(m, 0)["search"].(map[string]any) }
	tests := []struct {
		name, doc, where string
	}{
		{"empty", ``, "catalog"},
		{"array", `[]`, "catalog"},
		{"trailing", team + `{}`, "catalog"},
		{"duplicate name", `{"schema":"cairn.catalog/v1","schema":"cairn.catalog/v1"}`, "catalog"},
		{"bom", "\ufeff" + team, "catalog"},
		{"not utf-8", "{\"name\":\"\xff\"}", "catalog"},
		{"unknown top member", edit(func(m map[string]any) { m[canary] = canary }), "catalog"},
		{"missing servers", edit(func(m map[string]any) { delete(m, "servers") }), "catalog"},
		{"schema", edit(func(m map[string]any) { m["schema"] = "cairn.catalog/v2" }), "catalog.schema"},
		{"name pattern", edit(func(m map[string]any) { m["name"] = "Team/1" }), "catalog.name"},
		{"name without version", edit(func(m map[string]any) { m["name"] = "team" }), "catalog.name"},
		{"reserved name", edit(func(m map[string]any) { m["name"] = "ai-devkit-memory/1" }), "catalog.name"},
		{"reserved name cairn-memory", edit(func(m map[string]any) { m["name"] = "cairn-memory/1" }), "catalog.name"},
		{"no server", edit(func(m map[string]any) { m["servers"] = []string{} }), "catalog.servers"},
		{"17 servers", edit(func(m map[string]any) {
			var s []string
			for i := range 17 {
				s = append(s, "s"+strings.Repeat("x", i))
			}
			m["servers"] = s
		}), "catalog.servers"},
		{"server twice", edit(func(m map[string]any) { m["servers"] = []string{"a", "b", "a"} }), "catalog.servers[2]"},
		{"server pattern", edit(func(m map[string]any) { m["servers"] = []string{"ok", canary + " x"} }), "catalog.servers[1]"},
		{"server not a string", edit(func(m map[string]any) { m["servers"] = []any{1} }), "catalog.servers[0]"},
		{"no tool", edit(func(m map[string]any) { m["tools"] = []any{} }), "catalog.tools"},
		{"no search", edit(func(m map[string]any) { m["tools"] = m["tools"].([]any)[4:] }), "catalog.tools"},
		{"tool twice", edit(func(m map[string]any) { tool(m, 6)["name"] = "get" }), "catalog.tools[6].name"},
		{"tool name", edit(func(m map[string]any) { tool(m, 4)["name"] = "a/" + canary }), "catalog.tools[4].name"},
		{"misspelled member", edit(func(m map[string]any) { tool(m, 4)["clas"] = tool(m, 4)["class"]; delete(tool(m, 4), "class") }), "catalog.tools[4]"},
		{"class", edit(func(m map[string]any) { tool(m, 4)["class"] = "write" }), "catalog.tools[4].class"},
		{"override false", edit(func(m map[string]any) { tool(m, 4)["annotations_override"] = false }), "catalog.tools[4].annotations_override"},
		{"search on capture", edit(func(m map[string]any) { tool(m, 5)["search"] = search(m) }), "catalog.tools[5].search"},
		{"search member", edit(func(m map[string]any) { search(m)["scop"] = search(m)["scope"]; delete(search(m), "scope") }), "catalog.tools[0].search"},
		{"scope kind", edit(func(m map[string]any) { search(m)["scope"].(map[string]any)["kind"] = "argument_equal" }), "catalog.tools[0].search.scope.kind"},
		{"scope without kind", edit(func(m map[string]any) { delete(search(m)["scope"].(map[string]any), "kind") }), "catalog.tools[0].search.scope"},
		{"scope extra member", edit(func(m map[string]any) { search(m)["scope"].(map[string]any)["prefix"] = "x" }), "catalog.tools[0].search.scope"},
		{"scope argument", edit(func(m map[string]any) { search(m)["scope"].(map[string]any)["argument"] = "a b" }), "catalog.tools[0].search.scope.argument"},
		{"scope value empty", edit(func(m map[string]any) { search(m)["scope"].(map[string]any)["value"] = "" }), "catalog.tools[0].search.scope.value"},
		{"scope value long", edit(func(m map[string]any) { search(m)["scope"].(map[string]any)["value"] = strings.Repeat("é", 257) }), "catalog.tools[0].search.scope.value"},
		{"instance with argument", edit(func(m map[string]any) {
			tool(m, 3)["search"].(map[string]any)["scope"].(map[string]any)["argument"] = "a"
		}), "catalog.tools[3].search.scope"},
		{"result kind", edit(func(m map[string]any) { search(m)["result"].(map[string]any)["kind"] = "json_array" }), "catalog.tools[0].search.result.kind"},
		{"no result member", edit(func(m map[string]any) { search(m)["result"].(map[string]any)["members"] = map[string]any{} }), "catalog.tools[0].search.result.members"},
		{"result member type", edit(func(m map[string]any) {
			// encoding/json sorts the names: the canary's member is the first
			search(m)["result"].(map[string]any)["members"] = map[string]any{"hits": "array", canary: "number"}
		}), "catalog.tools[0].search.result.members[0]"},
		{"enum empty", edit(func(m map[string]any) {
			search(m)["result"].(map[string]any)["members"] = map[string]any{"mode": map[string]any{"enum": []any{}}}
		}), "catalog.tools[0].search.result.members[0].enum"},
		{"enum not strings", edit(func(m map[string]any) {
			search(m)["result"].(map[string]any)["members"] = map[string]any{"mode": map[string]any{"enum": []any{1}}}
		}), "catalog.tools[0].search.result.members[0].enum[0]"},
		{"enum extra", edit(func(m map[string]any) {
			search(m)["result"].(map[string]any)["members"] = map[string]any{"mode": map[string]any{"enum": []any{"a"}, canary: 1}}
		}), "catalog.tools[0].search.result.members[0]"},
		{"deep", strings.Repeat("[", 65) + strings.Repeat("]", 65), "catalog"},
		{"deep member", strings.Replace(team, `"hits": "array"`, `"hits": `+strings.Repeat("[", 70)+strings.Repeat("]", 70), 1), "catalog"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, probs := Parse([]byte(tc.doc))
			if c != nil || len(probs) == 0 {
				t.Fatalf("Parse = %v, %v; want problems", c, probs)
			}
			code := audit.CatalogInvalid
			if tc.name == "bom" || tc.name == "not utf-8" {
				code = audit.CatalogUnreadable
			}
			if probs[0].Code != code || probs[0].Where != tc.where {
				t.Errorf("first problem %s at %s, want %s at %s (all: %v)", probs[0].Code, probs[0].Where, code, tc.where, probs)
			}
			for _, p := range probs {
				if strings.Contains(p.Where, canary) || !vocabulary(p.Where) {
					t.Errorf("problem at %q: not the catalog's vocabulary", p.Where)
				}
			}
		})
	}
}

// vocabulary reports whether where is a place of the catalog's own
// vocabulary: catalog, then member names of the schema and [N] indexes.
func vocabulary(where string) bool {
	words := map[string]bool{"catalog": true, "schema": true, "name": true, "servers": true, "tools": true, "class": true,
		"annotations_override": true, "search": true, "scope": true, "kind": true, "argument": true, "value": true,
		"prefix": true, "result": true, "members": true, "enum": true}
	for _, part := range strings.Split(where, ".") {
		word, _, _ := strings.Cut(part, "[")
		if !words[word] {
			return false
		}
		for rest := part[len(word):]; rest != ""; {
			if rest[0] != '[' {
				return false
			}
			end := strings.IndexByte(rest, ']')
			if end < 2 || strings.Trim(rest[1:end], "0123456789") != "" {
				return false
			}
			rest = rest[end+1:]
		}
	}
	return true
}

// TestParseEveryProblem checks that Parse reports every problem it finds,
// in document order, not only the first.
func TestParseEveryProblem(t *testing.T) {
	doc := strings.Replace(strings.Replace(team, `"class": "destructive"`, `"class": "delete"`, 1), `"schema": "cairn.catalog/v1"`, `"schema": "x"`, 1)
	_, probs := Parse([]byte(doc))
	want := []Problem{{audit.CatalogInvalid, "catalog.schema"}, {audit.CatalogInvalid, "catalog.tools[6].class"}}
	if !slices.Equal(probs, want) {
		t.Errorf("problems %v, want %v", probs, want)
	}
}

func TestBuiltins(t *testing.T) {
	got := []string{}
	for _, c := range Builtins() {
		got = append(got, c.Name())
	}
	if !slices.Equal(got, []string{"cairn-memory/1", "mcp-server-memory/1", "ai-devkit-memory/1"}) {
		t.Fatalf("Builtins = %v", got)
	}
	for name, want := range map[string]string{
		"cairn-memory": "cairn-memory/1", "cairn-memory/1": "cairn-memory/1",
		"mcp-server-memory": "mcp-server-memory/1", "ai-devkit-memory/1": "ai-devkit-memory/1",
	} {
		c, ok := Builtin(name)
		if !ok || c.Name() != want {
			t.Errorf("Builtin(%s) = %v, %v; want %s", name, c, ok, want)
		}
	}
	for _, name := range []string{"", "cairn", "mcp-server-memory/2", "MCP-server-memory", "mcp-server-memory/", "/1"} {
		if c, ok := Builtin(name); ok {
			t.Errorf("Builtin(%q) = %s, want none", name, c.Name())
		}
	}
	if c, _ := Builtin("cairn-memory"); c != audit.CairnMemory {
		t.Error("cairn-memory is not audit.CairnMemory")
	}
}

// TestBuiltinDigests pins the built-ins' policy digests: a change to a
// built-in catalog is a change of policy, which every report shows.
func TestBuiltinDigests(t *testing.T) {
	want := map[string][2]string{
		"cairn-memory/1":      {"aeddfa650c0a0cbf4a3120e9d6cd20b32d540646f915c123ea7ac1bbe3207c18", "f638ee0b446a711134bffc295cc0f55cd899dc315257a30f6bf781dab1ffd476"},
		"mcp-server-memory/1": {"de9d64b791f3c3c0c11109fd9fbdf5cca1093d158aa8eca53ae70e9b36127270", "c3fb4e0e9c493c0ad5b194d59a37373523d49e3ef697b78c21e0c73cfcc9f4cd"},
		"ai-devkit-memory/1":  {"79a1f1a3449b326d97c26914096a515ea3c8a3e31c69fe5d00353fd23e645dea", "b29a39c43b527cec25e455c5df1a3accddde0cb7a915c50bcefc686b5f7c80ef"},
	}
	for _, c := range Builtins() {
		for i, capture := range []bool{false, true} {
			if got := (audit.Rules{Catalog: c, CaptureAuthorized: capture}).PolicyDigest(); got != want[c.Name()][i] {
				t.Errorf("%s, capture %v: digest %s, want %s", c.Name(), capture, got, want[c.Name()][i])
			}
		}
	}
}

// TestBuiltinsAreSpec checks that the built-in files are SPEC §16.7's
// documents, byte for byte.
func TestBuiltinsAreSpec(t *testing.T) {
	spec, err := os.ReadFile("../../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("builtin/*.json")
	if len(files) != 2 {
		t.Fatalf("%d built-in files, want 2", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(spec, append(append([]byte("```json\n"), b...), "```"...)) {
			t.Errorf("%s is not a JSON block of SPEC §16.7", f)
		}
	}
}

// TestPolicyDocument checks SPEC §16.4's document: canonical, every member
// explicit, servers and tools in the file's order, independent of the
// file's whitespace and member order.
func TestPolicyDocument(t *testing.T) {
	c, _ := Builtin("ai-devkit-memory")
	got := string(audit.Rules{Catalog: c}.PolicyJSON())
	want := `{"capture_authorized":false,"catalog":"ai-devkit-memory/1","servers":["memory"],"tools":[` +
		`{"annotations_override":true,"class":"read","name":"memory_searchKnowledge","search":{"result":{"kind":"json_object","members":{"results":"array","strategy":{"enum":["recent","strict","broad"]},"totalMatches":"nonneg_integer"}},"scope":{"argument":"scope","kind":"argument_prefix","prefix":"project:"}}},` +
		`{"annotations_override":true,"class":"capture","name":"memory_storeKnowledge","search":null},` +
		`{"annotations_override":false,"class":"destructive","name":"memory_updateKnowledge","search":null}]}`
	if got != want {
		t.Errorf("policy document\n got %s\nwant %s", got, want)
	}
	a, _ := Parse([]byte(team))
	var m map[string]any
	json.Unmarshal([]byte(team), &m)
	compact, _ := json.Marshal(m) // members sorted, no whitespace
	b, probs := Parse(compact)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if x, y := (audit.Rules{Catalog: a}).PolicyDigest(), (audit.Rules{Catalog: b}).PolicyDigest(); x != y {
		t.Errorf("the same catalog, reformatted: digest %s, then %s", x, y)
	}
	if x, y := (audit.Rules{Catalog: a}).PolicyDigest(), (audit.Rules{Catalog: a.WithServers([]string{"kg"})}).PolicyDigest(); x == y {
		t.Error("--memory-server does not change the digest")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "team.json")
	os.WriteFile(good, []byte(team), 0o644)
	if c, probs := ReadFile(good); len(probs) > 0 || c.Name() != "team-memory/1" {
		t.Fatalf("ReadFile = %v, %v", c, probs)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, append([]byte(team), bytes.Repeat([]byte(" "), MaxFileBytes)...), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(good, link)
	for _, path := range []string{filepath.Join(dir, "missing.json"), big, link, dir, ""} {
		if c, probs := ReadFile(path); c != nil || !slices.Equal(probs, []Problem{{audit.CatalogUnreadable, "catalog"}}) {
			t.Errorf("ReadFile(%s) = %v, %v; want catalog_unreadable", filepath.Base(path), c, probs)
		}
	}
}

// TestPatternsAreSPECs holds the hand-written tests of names to SPEC
// §16.2's regular expressions, on every short string over the bytes that
// matter and on strings at and past each length bound.
func TestPatternsAreSPECs(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		match func(string) bool
	}{
		{`^[a-z0-9][a-z0-9._-]{0,63}/[0-9]{1,4}$`, IsCatalogName},
		{`^[A-Za-z0-9_-]{1,64}$`, IsServerName},
		{`^[A-Za-z0-9_.-]{1,128}$`, IsToolName},
		{`^[A-Za-z0-9_.-]{1,64}$`, IsArgumentName},
	} {
		re := regexp.MustCompile(tc.expr)
		check := func(s string) {
			if got, want := tc.match(s), re.MatchString(s); got != want {
				t.Errorf("%s: %q: got %v, want %v", tc.expr, s, got, want)
			}
		}
		alphabet := []byte("aZ09._-/ \n\x00é")
		var gen func(prefix []byte, n int)
		gen = func(prefix []byte, n int) {
			check(string(prefix))
			if n == 0 {
				return
			}
			for _, c := range alphabet {
				gen(append(prefix, c), n-1)
			}
		}
		gen(nil, 4)
		for _, n := range []int{63, 64, 65, 127, 128, 129} {
			for _, s := range []string{strings.Repeat("a", n), strings.Repeat("a", n) + "/1", "a/" + strings.Repeat("1", n%6), strings.Repeat("A", n)} {
				check(s)
				check(s + "\n")
			}
		}
	}
}

package leaktest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit/catalog"
)

// TestPrivacyCatalogCmd checks that cairn catalog never prints a byte of
// a tools/list file (tool names, titles, descriptions, schemas, members
// it does not read) nor of a catalog file's values, nor a path (SPEC
// §16.5): canaries in every free-text place of generated tools/list
// answers and catalogs, valid and broken, through every subcommand. Only
// what derive writes may hold names, and there the names are plain words:
// no canary from a description, a title, a schema or a property the
// search does not require may reach its catalog either.
func TestPrivacyCatalogCmd(t *testing.T) {
	for seed := range uint64(30) {
		g := &privGen{r: rand.New(rand.NewPCG(seed, 16))}
		dir := filepath.Join(t.TempDir(), g.c())
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(body string) string {
			p := filepath.Join(dir, g.c()+".json")
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		// A server whose tool names are canaries: what check compares.
		var names []string
		var tools []string
		for i := range 6 {
			name := g.c()
			names = append(names, name)
			tools = append(tools, g.serverTool(`"`+name+`"`, i%3 == 0, g.s()))
		}
		list := `{"jsonrpc":"2.0","id":` + g.s() + `,"result":{"_meta":` + g.object(1) + `,"tools":[` + strings.Join(tools, ",") + `]}}`
		// A server whose names are plain (derive writes them), with
		// canaries everywhere else; its searches t0 and t3 have schemas.
		tools = tools[:0]
		for i := range 6 {
			tools = append(tools, g.serverTool(fmt.Sprintf(`"t%d"`, i), i%3 == 0, `"p"`))
		}
		plain := `{"tools":[` + strings.Join(tools, ",") + `],` + g.s() + `:` + g.value(0) + `}`
		cat := `{"schema":"cairn.catalog/v1","name":"team-memory/1","servers":["` + g.c() + `"],"tools":[` +
			`{"name":"` + names[0] + `","class":"read","search":{"scope":{"kind":"argument_equals","argument":"` + g.c() + `","value":` + g.s() + `},` +
			`"result":{"kind":"json_object","members":{` + g.s() + `:"array",` + g.s() + `:{"enum":[` + g.s() + `]}}}}},` +
			`{"name":"` + names[1] + `","class":"read"},{"name":"` + names[2] + `","class":"capture"},{"name":"` + g.c() + `","class":"destructive"}]}`
		paths := map[string]string{
			"list":          write(list),
			"plain":         write(plain),
			"catalog":       write(cat),
			"bad catalog":   write(strings.Replace(cat, `"class":"capture"`, `"class":`+g.s()+`,`+g.s()+`:`+g.value(0), 1)),
			"bad list":      write(strings.Replace(list, `"annotations":{`, `"annotations":{"readOnlyHint":`+g.s()+`,`, 1)),
			"paged list":    write(strings.Replace(list, `"tools":[`, `"nextCursor":`+g.s()+`,"tools":[`, 1)),
			"error list":    write(`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":` + g.s() + `}}`),
			"broken list":   write(list[:len(list)/2] + g.s()),
			"missing":       filepath.Join(dir, g.c(), g.c()+".json"),
			"catalog alone": write(cat[:len(cat)/3]),
		}
		leaks := g.windows(privWindow)
		p := func(name string) string { return paths[name] }
		tests := []struct {
			name string
			args []string
			exit int
		}{
			{"check with the server", []string{"catalog", "check", p("catalog"), "--tools-list", p("list")}, 1},
			{"check with the server json", []string{"catalog", "check", p("catalog"), "--tools-list", p("list"), "--json"}, 1},
			{"check alone", []string{"catalog", "check", p("catalog")}, 0},
			{"check a broken catalog", []string{"catalog", "check", p("bad catalog"), "--tools-list", p("list"), "--json"}, 2},
			{"check half a catalog", []string{"catalog", "check", p("catalog alone")}, 2},
			{"check a missing catalog", []string{"catalog", "check", p("missing"), "--json"}, 2},
			{"check a built-in with the server", []string{"catalog", "check", "--catalog", "mcp-server-memory", "--tools-list", p("list")}, 1},
			{"check with a bad list", []string{"catalog", "check", p("catalog"), "--tools-list", p("bad list")}, 2},
			{"check with a paged list", []string{"catalog", "check", p("catalog"), "--tools-list", p("paged list"), "--json"}, 2},
			{"check with an error", []string{"catalog", "check", p("catalog"), "--tools-list", p("error list")}, 2},
			{"check with a broken list", []string{"catalog", "check", p("catalog"), "--tools-list", p("broken list")}, 2},
			{"check with a missing list", []string{"catalog", "check", p("catalog"), "--tools-list", p("missing")}, 2},
			{"derive refused", []string{"catalog", "derive", "--tools-list", p("list"), "--name", "x/1", "--server", "m", "--search", names[1] + "=instance", "--search", names[0] + "=instance", "--search", "nothing=instance"}, 2},
			{"derive from a bad list", []string{"catalog", "derive", "--tools-list", p("bad list"), "--name", "x/1", "--server", "m", "--search", names[0] + "=instance"}, 2},
			{"derive from a missing list", []string{"catalog", "derive", "--tools-list", p("missing"), "--name", "x/1", "--server", "m", "--search", "t0=instance"}, 2},
			{"derive", []string{"catalog", "derive", "--tools-list", p("plain"), "--name", "x/1", "--server", "m", "--search", "t0=instance", "--search", "t3=present:q"}, 0},
			{"show a broken catalog", []string{"catalog", "show", "--file", p("bad catalog")}, 2},
			{"show half a catalog", []string{"catalog", "show", "--file", p("catalog alone")}, 2},
			{"show a missing catalog", []string{"catalog", "show", "--file", p("missing")}, 2},
			{"show a tools/list as a catalog", []string{"catalog", "show", "--file", p("list")}, 2},
		}
		for _, tc := range tests {
			code, stdout, stderr := privRunEnv(tc.args, nil, "")
			if code != tc.exit {
				t.Fatalf("seed %d, %s: exit %d, want %d\nstdout %s\nstderr %s", seed, tc.name, code, tc.exit, stdout, stderr)
			}
			privNoLeak(t, fmt.Sprintf("seed %d, %s", seed, tc.name), leaks, stdout, stderr)
			if tc.name == "derive" {
				if _, probs := catalog.Parse(stdout); len(probs) > 0 {
					t.Fatalf("seed %d: the derived catalog does not parse: %v", seed, probs)
				}
			}
		}
	}
}

// serverTool is a tools/list tool called name (a JSON string), read-only
// with an outputSchema when search, whose required property is prop (a
// JSON string) and every other string a canary.
func (g *privGen) serverTool(name string, search bool, prop string) string {
	hints := `"readOnlyHint":false,"destructiveHint":` + []string{"true", "false"}[g.r.IntN(2)]
	schema := ""
	if search {
		hints = `"readOnlyHint":true`
		schema = `,"outputSchema":{"type":"object","description":` + g.s() + `,"properties":{` + prop + `:{"type":"string","enum":["a","b"],"description":` + g.s() + `},` +
			g.s() + `:{"type":"array"},` + g.s() + `:{"type":"number"}},"required":[` + prop + `]}`
	}
	return `{"name":` + name + `,"title":` + g.s() + `,"description":` + g.s() + `,"inputSchema":{"type":"object","properties":{` + g.s() + `:` + g.object(1) + `}},` +
		`"annotations":{"title":` + g.s() + `,` + hints + `},` + g.s() + `:` + g.value(0) + schema + `}`
}

// catalogUsageCases are command lines of cairn catalog around a canary C
// that no reading of C makes valid: a usage error (two fixed lines) or a
// file that cannot be read, never an echo of C.
func catalogUsageCases() []usageCase {
	a := withCanary
	u := func(name string, args func(string) []string) usageCase {
		return usageCase{name: name, args: args, exit: 2, usage: true}
	}
	derive := func(args ...string) func(string) []string {
		return a(append([]string{"catalog", "derive", "--tools-list", "C/C.json"}, args...)...)
	}
	return []usageCase{
		u("catalog word", a("catalog", "C")),
		u("catalog flag", a("catalog", "--C")),
		u("list word", a("list", "C")),
		u("list json value", a("catalog", "list", "--json=C")),
		u("show name", a("catalog", "show", "C")),
		u("show name and file", a("catalog", "show", "mcp-server-memory", "--file", "C")),
		u("show two servers", a("catalog", "show", "mcp-server-memory", "--memory-server", "C", "--memory-server", "C")),
		u("show flag", a("catalog", "show", "--C=C")),
		u("check path and catalog", a("catalog", "check", "C", "--catalog", "ai-devkit-memory")),
		u("check catalog", a("catalog", "check", "--catalog", "C")),
		u("check two paths", a("catalog", "check", "C", "C")),
		u("derive name", derive("--name", "C", "--server", "m", "--search", "t=instance")),
		u("derive name with a version", derive("--name", "C/12345", "--server", "m", "--search", "t=instance")),
		u("derive two servers", derive("--name", "x/1", "--server", "C", "--server", "C", "--search", "t=instance")),
		u("derive search", derive("--name", "x/1", "--server", "m", "--search", "C", "--search", "C")),
		u("derive search value", derive("--name", "x/1", "--server", "m", "--search", "t=eq:a=C", "--search", "t=instance")),
		u("derive search prefix", derive("--name", "x/1", "--server", "m", "--search", "t=prefix:a=C", "--search", "t=present:C")),
		u("derive without a search", derive("--name", "C", "--server", "C")),
		u("derive flag", derive("--C", "C")),
		{name: "show a missing file", args: a("catalog", "show", "--file", "C/C.json"), exit: 2},
		{name: "check a missing file", args: a("catalog", "check", "C/C.json"), exit: 2},
		{name: "check a missing file json", args: a("catalog", "check", "--json", "C/C.json"), exit: 2},
		{name: "check a missing tools/list", args: a("catalog", "check", "--catalog", "mcp-server-memory", "--tools-list", "C/C.json"), exit: 2},
		{name: "derive a missing tools/list", args: derive("--name", "x/1", "--server", "m", "--search", "t=instance"), exit: 2},
		{name: "derive with a value from a missing tools/list", args: derive("--name", "x/1", "--server", "m", "--search", "t=eq:a=C"), exit: 2},
	}
}

// TestCatalogUsageNoArgumentLeak is TestUsageNoArgumentLeak for the flags
// and arguments of cairn catalog: many generated canaries (mixed case,
// control characters, invalid UTF-8, quotes and =), none of which, nor any
// 4-character piece, may reach stdout or stderr; a usage error is the same
// two lines whatever the canary.
func TestCatalogUsageNoArgumentLeak(t *testing.T) {
	n := 49 // seven of each kind of canary
	if testing.Short() {
		n = 14
	}
	cases := catalogUsageCases()
	var extra strings.Builder
	for _, tc := range cases {
		_, stdout, stderr := privRunEnv(tc.args("x"), nil, "")
		extra.Write(stdout)
		extra.Write(stderr)
	}
	for _, help := range [][]string{{"catalog"}, {"catalog", "list"}, {"catalog", "show"}, {"catalog", "check"}, {"catalog", "derive"}} {
		_, stdout, _ := privRunEnv(append(help, "--help"), nil, "")
		extra.Write(stdout)
	}
	for _, c := range catalog.Codes() {
		_, stdout, _ := privRunEnv([]string{"explain", c.String()}, nil, "")
		extra.Write(stdout)
	}
	corpus := usageCorpus(usageCases()) + foldCase(extra.String())
	g := &canaryGen{r: rand.New(rand.NewPCG(20261206, 16)), corpus: corpus}
	runUsageCanaries(t, cases, g, n)
}

// TestCatalogUsageText pins the fixed usage lines of cairn catalog.
func TestCatalogUsageText(t *testing.T) {
	sm := "../../../../testdata/catalog/tools-list/server-memory-2026.8.31.json"
	derive := func(args ...string) []string {
		return append([]string{"catalog", "derive", "--tools-list", sm}, args...)
	}
	const (
		name   = "--name takes NAME/N: up to 64 lower-case letters, digits, ., _ and - (the first a letter or digit), a slash and a version of 1 to 4 digits; not a built-in catalog's name"
		server = "--server takes up to 16 distinct names of letters, digits, _ and - (at most 64 each), one a flag"
		search = "--search takes TOOL=SCOPE, one tool a flag, SCOPE one of instance, eq:ARG=VALUE, prefix:ARG=PREFIX or present:ARG (ARG of letters, digits, _, . and -; VALUE and PREFIX of 1 to 256 characters)"
		needs  = "catalog derive needs --tools-list FILE, --name NAME/N, --server NAME and --search TOOL=SCOPE"
	)
	seventeen := []string{}
	for i := range 17 {
		seventeen = append(seventeen, "--server", fmt.Sprintf("s%d", i))
	}
	tests := []struct {
		args      []string
		msg, help string
	}{
		{[]string{"catalog"}, "missing command; give one of list, show, check, derive", "catalog"},
		{[]string{"catalog", "lsit"}, "unknown command; did you mean list?", "catalog"},
		{[]string{"catalog", "show"}, "give a built-in catalog's NAME or --file PATH, one of them", "catalog show"},
		{[]string{"catalog", "show", "ai-devkit-memroy", "--file", "x"}, "<name> must be one of cairn-memory, mcp-server-memory, ai-devkit-memory, cairn-memory/1, mcp-server-memory/1, ai-devkit-memory/1; did you mean ai-devkit-memory?", "catalog show"},
		{[]string{"catalog", "show", "--file"}, "flag --file needs a value", "catalog show"},
		{[]string{"catalog", "check"}, "give a catalog file's PATH or --catalog NAME, one of them", "catalog check"},
		{[]string{"catalog", "check", "--tools-lsit", "x"}, "unknown flag; did you mean --tools-list?", "catalog check"},
		{[]string{"catalog", "derive"}, needs, "catalog derive"},
		{derive("--name", "x/1", "--search", "t=instance"), needs, "catalog derive"},
		{derive("--name", "x/1", "--server", "m"), needs, "catalog derive"},
		{derive("--name", "x/12345", "--server", "m", "--search", "t=instance"), name, "catalog derive"},
		{derive("--name", "ai-devkit-memory/1", "--server", "m", "--search", "t=instance"), name, "catalog derive"},
		{derive(append([]string{"--name", "x/1", "--search", "t=instance"}, seventeen...)...), server, "catalog derive"},
		{derive("--name", "x/1", "--server", "m", "--search", "t=eq:a"), search, "catalog derive"},
		{derive("--name", "x/1", "--server", "m", "--search", "t=present:a=b"), search, "catalog derive"},
	}
	for _, tc := range tests {
		code, stdout, stderr := privRunEnv(tc.args, nil, "")
		want := "cairn: usage error: " + tc.msg + "\nRun 'cairn " + tc.help + " --help' for usage.\n"
		if code != 2 || len(stdout) != 0 || string(stderr) != want {
			t.Errorf("cairn %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, want)
		}
	}
}

// TestGuideNamesCatalogCodes: the guide's section on memory servers has
// a row for every code of cairn catalog, with the exit its kind gives.
func TestGuideNamesCatalogCodes(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	// The section by its title, whatever its number.
	i := strings.Index(string(b), ". Your memory server\n")
	if i < 0 {
		t.Fatal("docs/guide.md has no section Your memory server")
	}
	section, _, _ := strings.Cut(string(b)[i:], "\n## ")
	exit := map[catalog.CodeKind]string{catalog.KindToolsList: "2", catalog.KindFinding: "1", catalog.KindDerive: "2"}
	for _, c := range catalog.Codes() {
		if row := "| `" + c.String() + "` | " + exit[c.Kind()] + " | "; !strings.Contains(section, row) {
			t.Errorf("the guide has no row %q", row)
		}
	}
}

// TestCatalogCheckListsAtMost: against an answer of 300 tools a catalog
// lacks, check counts every finding and lists the first 256 (text and
// JSON).
func TestCatalogCheckListsAtMost(t *testing.T) {
	var tools []string
	for i := range 300 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d"}`, i))
	}
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte(`{"tools":[`+strings.Join(tools, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCapture([]string{"catalog", "check", "--catalog", "ai-devkit-memory", "--tools-list", path}, nil)
	if code != 1 || !strings.Contains(out, "\ntools/list: 300 tools; 303 findings, the first 256 listed\n") ||
		strings.Count(out, "\n  server_tool_undeclared at ") != 253 || !strings.Contains(out, "\n  server_tool_undeclared at tools_list.tools[252]\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = runCapture([]string{"catalog", "check", "--catalog", "ai-devkit-memory", "--tools-list", path, "--json"}, nil)
	if code != 1 || !strings.Contains(out, `"findings_total":303}}`) || strings.Count(out, `"code":"server_tool_undeclared"`) != 253 {
		t.Errorf("--json: exit %d: %s", code, out)
	}
}

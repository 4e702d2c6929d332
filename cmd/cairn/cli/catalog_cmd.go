package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
)

// catalogCmd is cairn catalog (SPEC §16.5): the built-in memory catalogs,
// and catalog files checked against or derived from a server's saved
// tools/list answer. Not gated: it reads no session. What it prints of a
// tools/list file or a catalog file is positions and codes, never a byte
// of their values, except what show prints (the catalog) and what derive
// writes (the catalog whose names the user chose to publish).
type catalogCmd struct {
	List   catalogListCmd   `cmd:""`
	Show   catalogShowCmd   `cmd:""`
	Check  catalogCheckCmd  `cmd:""`
	Derive catalogDeriveCmd `cmd:""`
}

func (catalogCmd) Help() string {
	return strings.TrimSpace(`
A memory catalog says which MCP server the audit judges, which of its tools
are searches, reads, captures or destructive, when a search is scoped to the
project and how its result reads. Built-ins: ` + andList(builtinBareNames()) + `;
any other server is a catalog file (schema cairn.catalog/v1).

Not gated: these commands read no session.

Examples:
  cairn catalog list
  cairn catalog show mcp-server-memory --memory-server kg
  cairn catalog derive --tools-list tools.json --name team-memory/1 --server memory --search search_nodes=instance > team.json
  cairn catalog check team.json --tools-list tools.json`)
}

// policyDigests are a catalog's policy digests without and with the
// capture assertion (SPEC §16.4).
type policyDigests struct {
	NotAsserted string `json:"capture_not_asserted"`
	Asserted    string `json:"capture_asserted"`
}

func digestsOf(c *audit.Catalog) policyDigests {
	return policyDigests{
		NotAsserted: audit.Rules{Catalog: c}.PolicyDigest(),
		Asserted:    audit.Rules{Catalog: c, CaptureAuthorized: true}.PolicyDigest(),
	}
}

func writeDigests(w io.Writer, d policyDigests) {
	fmt.Fprintf(w, "policy sha256 %s (capture not asserted)\n", d.NotAsserted)
	fmt.Fprintf(w, "policy sha256 %s (capture asserted: --capture-authorized)\n", d.Asserted)
}

// searches counts a catalog's searches.
func searches(c *audit.Catalog) int {
	n := 0
	for _, t := range c.Tools() {
		if t.Search != nil {
			n++
		}
	}
	return n
}

// searchCount is "1 search", "2 searches".
func searchCount(n int) string {
	if n == 1 {
		return "1 search"
	}
	return strconv.Itoa(n) + " searches"
}

// catalogListCmd is cairn catalog list.
type catalogListCmd struct {
	JSON bool `name:"json"`
}

func (catalogListCmd) Help() string {
	return strings.TrimSpace(`
Lists the built-in catalogs (--catalog NAME of eval protocol and eval
batch), the default first: each with its servers, its tools and searches,
and the policy digests its reports carry without and with
--capture-authorized. 'cairn catalog show NAME' prints one.`)
}

type catalogListJSON struct {
	Schema   string             `json:"schema"`
	Catalogs []catalogEntryJSON `json:"catalogs"`
}

type catalogEntryJSON struct {
	Name     string        `json:"name"`
	Default  bool          `json:"default"`
	Servers  []string      `json:"servers"`
	Tools    int           `json:"tools"`
	Searches int           `json:"searches"`
	Policy   policyDigests `json:"policy_sha256"`
}

func (c *catalogListCmd) Run(e *env) error {
	out := catalogListJSON{Schema: "cairn.catalog.list/v1", Catalogs: []catalogEntryJSON{}}
	for i, b := range catalog.Builtins() {
		out.Catalogs = append(out.Catalogs, catalogEntryJSON{Name: b.Name(), Default: i == 0, Servers: b.Servers(),
			Tools: len(b.Tools()), Searches: searches(b), Policy: digestsOf(b)})
	}
	if c.JSON {
		writeJSON(e.stdout, out)
		return nil
	}
	for _, b := range out.Catalogs {
		def := ""
		if b.Default {
			def = " (the default)"
		}
		fmt.Fprintf(e.stdout, "%s%s: servers %s; %s, %s\n", b.Name, def, strings.Join(b.Servers, ", "), plural(b.Tools, "tool"), searchCount(b.Searches))
		fmt.Fprintf(e.stdout, "  policy sha256 %s (capture not asserted)\n", b.Policy.NotAsserted)
		fmt.Fprintf(e.stdout, "  policy sha256 %s (capture asserted: --capture-authorized)\n", b.Policy.Asserted)
	}
	return nil
}

// catalogShowCmd is cairn catalog show.
type catalogShowCmd struct {
	// A pointer, so that no name is told from an empty one.
	Name         *string  `arg:"" optional:"" enum:"${catalogs}" placeholder:"NAME"`
	File         *string  `name:"file" placeholder:"PATH"`
	MemoryServer []string `name:"memory-server" sep:"none" placeholder:"NAME"`
}

func (catalogShowCmd) Help() string {
	return strings.TrimSpace(`
Prints the catalog as one line of canonical JSON (RFC 8785), then the
policy digests a report judged by it carries without and with
--capture-authorized; with --memory-server, the catalog and digests with
those server names. Give a built-in's NAME or --file PATH. A file that is
not a valid catalog is a usage error (one line: code and where); 'cairn
catalog check PATH' lists every problem.

Examples:
  cairn catalog show mcp-server-memory
  cairn catalog show --file team.json --memory-server kg
  cairn catalog show ai-devkit-memory | head -n 1 > mine.json   # a start for a catalog of your own`)
}

func (c *catalogShowCmd) Validate() error {
	if (c.Name == nil) == (c.File == nil) {
		return usageRefusal(usageShowWhich)
	}
	return (&catalogFlags{MemoryServer: c.MemoryServer}).validate()
}

func (c *catalogShowCmd) Run(e *env) error {
	var cat *audit.Catalog
	if c.File != nil {
		var probs []catalog.Problem
		if cat, probs = catalog.ReadFile(*c.File); len(probs) > 0 {
			writeCatalogProblem(e.stderr, probs[0])
			return statusError(2)
		}
	} else {
		cat, _ = catalog.Builtin(*c.Name) // the grammar's enum: always found
	}
	if len(c.MemoryServer) > 0 {
		cat = cat.WithServers(c.MemoryServer)
	}
	e.stdout.Write(append(catalog.File(cat), '\n'))
	writeDigests(e.stdout, digestsOf(cat))
	return nil
}

// catalogCheckCmd is cairn catalog check.
type catalogCheckCmd struct {
	Path      *string `arg:"" optional:"" name:"path" placeholder:"PATH"`
	Catalog   *string `name:"catalog" enum:"${catalogs}" placeholder:"NAME"`
	ToolsList *string `name:"tools-list" placeholder:"FILE"`
	JSON      bool    `name:"json"`
}

func (catalogCheckCmd) Help() string {
	return strings.TrimSpace(`
Validates a catalog file (schema cairn.catalog/v1) and lists every problem
as a code and a place in the catalog (catalog.tools[3].search.scope.kind),
never a byte of the file. With --tools-list, the server's saved answer to
MCP's tools/list (from the MCP Inspector: npx @modelcontextprotocol/inspector
--cli CMD --method tools/list > tools.json), it also lists, by position:
declared tools the server does not have (tool_not_on_server), server tools
the catalog lacks, whose calls would fail as undeclared memory tools
(server_tool_undeclared), and classes weaker than the server's annotations
without annotations_override (class_weaker_than_annotations).

Exit codes: 0 valid (and agrees with the server), 1 a finding against the
server, 2 an invalid catalog or tools/list file, or a usage error.

Examples:
  cairn catalog check team.json
  cairn catalog check team.json --tools-list tools.json --json
  cairn catalog check --catalog mcp-server-memory --tools-list tools.json`)
}

func (c *catalogCheckCmd) Validate() error {
	if (c.Path == nil) == (c.Catalog == nil) {
		return usageRefusal(usageCheckWhich)
	}
	return nil
}

// The JSON of cairn catalog check: status pass (exit 0), fail (1) or
// invalid (2); the catalog's problems, or what it holds and its digests;
// the tools/list file's problem, or its tools and the findings.
type (
	checkJSON struct {
		Schema    string          `json:"schema"`
		Status    string          `json:"status"`
		Catalog   checkCatalog    `json:"catalog"`
		ToolsList *checkToolsJSON `json:"tools_list"`
	}
	checkCatalog struct {
		Valid    bool           `json:"valid"`
		Problems []placeJSON    `json:"problems"`
		Servers  *int           `json:"servers"`
		Tools    *int           `json:"tools"`
		Searches *int           `json:"searches"`
		Policy   *policyDigests `json:"policy_sha256"`
	}
	checkToolsJSON struct {
		Problem  *placeJSON    `json:"problem"`
		Tools    *int          `json:"tools"`
		Findings []findingJSON `json:"findings"` // the first catalog.MaxFindings
		// FindingsTotal counts them all.
		FindingsTotal *int `json:"findings_total"`
	}
	placeJSON struct {
		Code  string `json:"code"`
		Where string `json:"where"`
	}
	findingJSON struct {
		Code   string  `json:"code"`
		Where  string  `json:"where"`
		Server *string `json:"server"`
	}
)

func (c *catalogCheckCmd) Run(e *env) error {
	memoryLimit(e, 1) // a tools/list answer is one input of up to 16 MiB
	out := checkJSON{Schema: "cairn.catalog.check/v1", Status: "invalid", Catalog: checkCatalog{Problems: []placeJSON{}}}
	var cat *audit.Catalog
	if c.Path != nil {
		var probs []catalog.Problem
		cat, probs = catalog.ReadFile(*c.Path)
		for _, p := range probs {
			out.Catalog.Problems = append(out.Catalog.Problems, placeJSON{p.Code.String(), p.Where})
		}
	} else {
		cat, _ = catalog.Builtin(*c.Catalog) // the grammar's enum: always found
	}
	if cat != nil {
		servers, tools, n, d := len(cat.Servers()), len(cat.Tools()), searches(cat), digestsOf(cat)
		out.Catalog = checkCatalog{Valid: true, Problems: []placeJSON{}, Servers: &servers, Tools: &tools, Searches: &n, Policy: &d}
		out.Status = "pass"
		if c.ToolsList != nil {
			out.ToolsList = compareToolsList(cat, *c.ToolsList)
			switch {
			case out.ToolsList.Problem != nil:
				out.Status = "invalid"
			case *out.ToolsList.FindingsTotal > 0:
				out.Status = "fail"
			}
		}
	}
	if c.JSON {
		writeJSON(e.stdout, out)
	} else {
		writeCheck(e.stdout, out)
	}
	return statusError(map[string]int{"pass": 0, "fail": 1, "invalid": 2}[out.Status])
}

// compareToolsList reads the tools/list file at path and compares cat
// with it.
func compareToolsList(cat *audit.Catalog, path string) *checkToolsJSON {
	l, bad := catalog.ReadToolsList(path)
	if bad != nil {
		return &checkToolsJSON{Problem: &placeJSON{bad.Code.String(), bad.Where}, Findings: []findingJSON{}}
	}
	n := len(l.Tools)
	found, total := catalog.Compare(cat, l)
	out := &checkToolsJSON{Tools: &n, Findings: []findingJSON{}, FindingsTotal: &total}
	for _, f := range found {
		fj := findingJSON{Code: f.Code.String(), Where: f.Where}
		if f.Server != "" {
			fj.Server = &f.Server
		}
		out.Findings = append(out.Findings, fj)
	}
	return out
}

// writeCheck is check's human output: the catalog's validity and digests
// or its problems, then the comparison with the server, then what each
// code printed means.
func writeCheck(w io.Writer, out checkJSON) {
	var codes []string
	note := func(code string) {
		for _, c := range codes {
			if c == code {
				return
			}
		}
		codes = append(codes, code)
	}
	cat := out.Catalog
	if !cat.Valid {
		fmt.Fprintf(w, "catalog: invalid, %s\n", plural(len(cat.Problems), "problem"))
		for _, p := range cat.Problems {
			fmt.Fprintf(w, "  %s at %s\n", p.Code, p.Where)
			note(p.Code)
		}
	} else {
		fmt.Fprintf(w, "catalog: valid (%s, %s, %s)\n", plural(*cat.Servers, "server"), plural(*cat.Tools, "tool"), searchCount(*cat.Searches))
		writeDigests(w, *cat.Policy)
	}
	switch tl := out.ToolsList; {
	case tl == nil:
	case tl.Problem != nil:
		fmt.Fprintf(w, "tools/list: %s at %s\n", tl.Problem.Code, tl.Problem.Where)
		note(tl.Problem.Code)
	case *tl.FindingsTotal == 0:
		fmt.Fprintf(w, "tools/list: %s; the catalog agrees with the server\n", plural(*tl.Tools, "tool"))
	default:
		listed := ""
		if len(tl.Findings) < *tl.FindingsTotal {
			listed = fmt.Sprintf(", the first %d listed", len(tl.Findings))
		}
		fmt.Fprintf(w, "tools/list: %s; %s%s\n", plural(*tl.Tools, "tool"), plural(*tl.FindingsTotal, "finding"), listed)
		for _, f := range tl.Findings {
			server := ""
			if f.Server != nil {
				server = " (the server's " + *f.Server + ")"
			}
			fmt.Fprintf(w, "  %s at %s%s\n", f.Code, f.Where, server)
			note(f.Code)
		}
	}
	for _, c := range codes {
		meaning, next := codeTexts(c)
		fmt.Fprintf(w, "%s: %s; %s\n", c, meaning, next)
	}
}

// codeTexts are the meaning and next step of a report code or a code of
// cairn catalog.
func codeTexts(name string) (string, string) {
	if c, ok := audit.ParseCode(name); ok {
		return c.Meaning(), c.Next()
	}
	c, _ := catalog.ParseCode(name)
	return c.Meaning(), c.Next()
}

// catalogDeriveCmd is cairn catalog derive.
type catalogDeriveCmd struct {
	ToolsList *string  `name:"tools-list" placeholder:"FILE"`
	Name      *string  `name:"name" placeholder:"NAME/N"`
	Server    []string `name:"server" sep:"none" placeholder:"NAME"`
	Search    []string `name:"search" sep:"none" placeholder:"TOOL=SCOPE"`
}

func (catalogDeriveCmd) Help() string {
	return strings.TrimSpace(`
Writes a catalog file (schema cairn.catalog/v1) to standard output from a
server's saved answer to MCP's tools/list: every tool of the server with
the class its annotations give by MCP's defaults (readOnlyHint true: read;
else destructiveHint false: capture; else destructive), and each --search
tool's result from its outputSchema (its required top-level properties and
their types). What annotations cannot say, you give: the name the server is
registered under (--server), which tools are searches (--search), and when
a search is project-scoped:

  instance            every call (one server per project: an assertion the
                      report lists as a limitation)
  eq:ARG=VALUE        the argument ARG is the string VALUE
  prefix:ARG=PREFIX   ARG starts with PREFIX and is longer
  present:ARG         ARG is a non-empty string

A search must be read-only by its annotations and have an outputSchema;
otherwise write the catalog by hand. Problems are lines on stderr with a
code and a position (exit 2), never a name from the file.

Example:
  npx @modelcontextprotocol/inspector --cli npx -y @modelcontextprotocol/server-memory --method tools/list > tools.json
  cairn catalog derive --tools-list tools.json --name team-memory/1 --server memory \
    --search search_nodes=instance --search read_graph=instance > team.json
  cairn catalog check team.json --tools-list tools.json`)
}

func (c *catalogDeriveCmd) Validate() error {
	if c.ToolsList == nil || c.Name == nil || len(c.Server) == 0 || len(c.Search) == 0 {
		return usageRefusal(usageDeriveMissing)
	}
	if _, builtin := catalog.Builtin(*c.Name); !catalog.IsCatalogName(*c.Name) || builtin {
		return usageRefusal(usageBadCatalogName)
	}
	if err := (&catalogFlags{MemoryServer: c.Server}).validate(); err != nil {
		return usageRefusal(usageBadServer)
	}
	if _, ok := c.searches(); !ok {
		return usageRefusal(usageBadSearch)
	}
	return nil
}

// searches are the --search flags read, of distinct tools; false when one
// is not TOOL=SCOPE.
func (c *catalogDeriveCmd) searches() ([]catalog.Search, bool) {
	var out []catalog.Search
	for _, s := range c.Search {
		r, ok := catalog.ParseSearch(s)
		if !ok {
			return nil, false
		}
		for _, o := range out {
			if o.Tool == r.Tool {
				return nil, false
			}
		}
		out = append(out, r)
	}
	return out, true
}

func (c *catalogDeriveCmd) Run(e *env) error {
	memoryLimit(e, 1)
	l, bad := catalog.ReadToolsList(*c.ToolsList)
	if bad != nil {
		writeFinding(e.stderr, *bad)
		return statusError(2)
	}
	searches, _ := c.searches() // Validate checked them
	cat, probs := catalog.Derive(l, *c.Name, c.Server, searches)
	if len(probs) > 0 {
		for _, p := range probs {
			writeFinding(e.stderr, p)
		}
		return statusError(2)
	}
	e.stdout.Write(catalog.Indented(cat))
	return nil
}

// writeFinding is the stderr line of a problem that stops derive: its
// code, where, and the code's fixed texts.
func writeFinding(w io.Writer, f catalog.Finding) {
	fmt.Fprintf(w, "cairn: %s at %s: %s; %s\n", f.Code, f.Where, f.Code.Meaning(), f.Code.Next())
}

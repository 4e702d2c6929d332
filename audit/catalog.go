package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/gowebpki/jcs"
)

// A Catalog describes the memory server the checks judge (SPEC §6.5,
// §16): the MCP server names that are that server, and its tools, each with
// a class and, for a search, when a call is project-scoped and how its
// result is read. A catalog is a value: every front end resolves tool names
// with the one it is given (Resolve), and the engine judges calls by their
// Role in it. CairnMemory is the default.
type Catalog struct {
	name    string
	servers []string
	tools   []CatalogTool
	// v3 is cairn-memory/1 as SPEC §6.5 defines it: its policy document is
	// §6.5's, and a name on its servers that it does not list is an opaque
	// call.
	v3 bool
}

// A CatalogTool is one tool of a catalog.
type CatalogTool struct {
	Name  string
	Class Class
	// AnnotationsOverride says the class is deliberately weaker than the
	// server's MCP annotations (SPEC §16.2): it changes no verdict.
	AnnotationsOverride bool
	// Search, when set, makes the tool a search (only a read tool).
	Search *SearchRule
}

// A SearchRule says when a search is project-scoped and what its result
// must hold (SPEC §16.2).
type SearchRule struct {
	Scope  ScopeRule
	Result []ResultMember
}

// ScopeKind is how a search's scope is read from its arguments.
type ScopeKind uint8

const (
	// ScopeArgumentEquals: the top-level argument is the string Value.
	ScopeArgumentEquals ScopeKind = iota + 1
	// ScopeArgumentPrefix: the argument is a string that starts with
	// Value and is longer than it.
	ScopeArgumentPrefix
	// ScopeArgumentPresent: the argument is a non-empty string.
	ScopeArgumentPresent
	// ScopeServerInstance: every call is project-scoped (the user runs one
	// server per project): an assertion of the catalog.
	ScopeServerInstance
)

// A ScopeRule is a search's scope: its kind, the argument it reads and the
// value or prefix it wants.
type ScopeRule struct {
	Kind     ScopeKind
	Argument string
	Value    string
}

// MemberType is the type a result member must have.
type MemberType uint8

const (
	TypeArray MemberType = iota + 1
	TypeObject
	TypeString
	TypeBoolean
	TypeNonnegInteger // an integer ≥ 0
	TypeEnum          // a string among Enum
)

// A ResultMember is one member a search result must have.
type ResultMember struct {
	Name string
	Type MemberType
	Enum []string
}

// Tool is a tool of a catalog: its position in the catalog's tools plus
// one. NoTool is a call of no declared server (an opaque call), and
// UndeclaredTool a call of a declared server that the catalog does not
// list (SPEC §16.3).
type Tool uint8

const (
	NoTool         Tool = 0
	UndeclaredTool Tool = 255
)

// The tools of cairn-memory/1, by their position in it (SPEC §6.5).
const (
	MemorySearch Tool = iota + 1
	MemoryGet
	MemoryList
	MemoryStore
	MemoryUpdate
	MemoryDelete
)

// Class is what a catalog tool may do, from its MCP annotations.
type Class uint8

const (
	Read        Class = iota + 1 // readOnlyHint
	Capture                      // additive: neither read-only nor destructive
	Destructive                  // destructiveHint
)

var classNames = map[Class]string{Read: "read", Capture: "capture", Destructive: "destructive"}

// Role is what the checks make of a call: the role of its tool in the
// catalog.
type Role uint8

const (
	RoleOpaque      Role = iota // no declared server's: its effects are not seen
	RoleSearch                  // a read tool with a search rule
	RoleRead                    // any other read tool
	RoleCapture                 // an additive mutation
	RoleDestructive             // a destructive mutation
	RoleUndeclared              // a declared server's tool the catalog does not list: a mutation attempt
)

// CatalogName names the catalog of SPEC §6.5.
const CatalogName = "cairn-memory/1"

// CairnMemory is cairn-memory/1 (SPEC §6.5), the default catalog: its one
// search is memory_search with scope "project", whose result is an object
// with mode semantic or substring, an integer count ≥ 0 and an array
// results (§6.3).
var CairnMemory = &Catalog{
	name:    CatalogName,
	servers: []string{"cairn-memory", "cairn_memory"},
	tools: []CatalogTool{
		MemorySearch - 1: {Name: "memory_search", Class: Read, Search: &SearchRule{
			Scope: ScopeRule{Kind: ScopeArgumentEquals, Argument: "scope", Value: "project"},
			Result: []ResultMember{
				{Name: "mode", Type: TypeEnum, Enum: []string{"semantic", "substring"}},
				{Name: "count", Type: TypeNonnegInteger},
				{Name: "results", Type: TypeArray},
			}}},
		MemoryGet - 1:    {Name: "memory_get", Class: Read},
		MemoryList - 1:   {Name: "memory_list", Class: Read},
		MemoryStore - 1:  {Name: "memory_store", Class: Capture},
		MemoryUpdate - 1: {Name: "memory_update", Class: Destructive},
		MemoryDelete - 1: {Name: "memory_delete", Class: Destructive},
	},
	v3: true,
}

// NewCatalog returns the catalog name with servers and tools, as a
// catalog file declared them: a tool of its servers that it does not list
// is an undeclared memory tool (SPEC §16.3). The caller has validated them
// (package audit/catalog); NewCatalog keeps its own copies.
func NewCatalog(name string, servers []string, tools []CatalogTool) *Catalog {
	c := &Catalog{name: name, servers: append([]string(nil), servers...), tools: make([]CatalogTool, len(tools))}
	for i, t := range tools {
		c.tools[i] = t
		if t.Search != nil {
			r := *t.Search
			r.Result = append([]ResultMember(nil), r.Result...)
			for j := range r.Result {
				r.Result[j].Enum = append([]string(nil), r.Result[j].Enum...)
			}
			c.tools[i].Search = &r
		}
	}
	return c
}

// WithServers returns the catalog with its server names replaced: the
// names under which the user registered the server (--memory-server, SPEC
// §16.1). They are part of the policy.
func (c *Catalog) WithServers(servers []string) *Catalog {
	d := *c
	d.servers = append([]string(nil), servers...)
	return &d
}

// ScopeAsserted reports whether any search of the catalog is project-scoped
// by assertion (ScopeServerInstance): the report then lists
// project_scope_asserted_by_catalog (SPEC §16.4).
func (c *Catalog) ScopeAsserted() bool {
	for _, t := range c.tools {
		if t.Search != nil && t.Search.Scope.Kind == ScopeServerInstance {
			return true
		}
	}
	return false
}

// Name is the catalog's name (the report's policy.catalog).
func (c *Catalog) Name() string { return c.name }

// Servers are the catalog's MCP server names, matched exactly.
func (c *Catalog) Servers() []string { return c.servers }

// Tools are the catalog's tools, in its order.
func (c *Catalog) Tools() []CatalogTool { return c.tools }

// tool returns the tool t names, nil for NoTool and UndeclaredTool.
func (c *Catalog) tool(t Tool) *CatalogTool {
	if t == NoTool || int(t) > len(c.tools) {
		return nil
	}
	return &c.tools[t-1]
}

// Class is t's class, 0 for NoTool and UndeclaredTool.
func (c *Catalog) Class(t Tool) Class {
	if ct := c.tool(t); ct != nil {
		return ct.Class
	}
	return 0
}

// Role is what the checks make of a call of t.
func (c *Catalog) Role(t Tool) Role {
	ct := c.tool(t)
	switch {
	case t == UndeclaredTool:
		return RoleUndeclared
	case ct == nil:
		return RoleOpaque
	case ct.Search != nil:
		return RoleSearch
	case ct.Class == Read:
		return RoleRead
	case ct.Class == Capture:
		return RoleCapture
	}
	return RoleDestructive
}

// A Spelling is how a format writes a tool T of a server S in one name:
// Prefix, S, Sep, T (SPEC §16.6).
type Spelling struct{ Prefix, Sep string }

// The spellings of the formats (SPEC §16.6).
var (
	// SpellMCP is mcp__S__T (Claude Code, Pi's built-in MCP).
	SpellMCP = Spelling{"mcp__", "__"}
	// SpellGemini is mcp_S_T (Gemini CLI).
	SpellGemini = Spelling{"mcp_", "_"}
	// SpellJoined is S_T (OpenCode, pi-mcp-adapter's direct tools).
	SpellJoined = Spelling{"", "_"}
	// SpellCopilot is S-T (GitHub Copilot CLI).
	SpellCopilot = Spelling{"", "-"}
	// SpellQwen is Qwen Code's: mcp__S__T, as Claude Code's.
	SpellQwen = SpellMCP
	// SpellCline is S__T (Cline CLI).
	SpellCline = Spelling{"", "__"}
)

// Resolve finds the tool that name, as spelling sp writes it, names: the
// longest declared server that fits name and a non-empty tool after it
// (SPEC §16.6). A name that fits no declared server is NoTool; one that
// fits a server but names no tool of the catalog is UndeclaredTool, or, in
// cairn-memory/1, NoTool. Never by suffix or case-folding.
func (c *Catalog) Resolve(sp Spelling, name []byte) Tool {
	var tool []byte
	fits := false
	best := -1
	for _, s := range c.servers {
		n := len(sp.Prefix) + len(s) + len(sp.Sep)
		if len(name) <= n || len(s) <= best ||
			string(name[:len(sp.Prefix)]) != sp.Prefix ||
			string(name[len(sp.Prefix):len(sp.Prefix)+len(s)]) != s ||
			string(name[len(sp.Prefix)+len(s):n]) != sp.Sep {
			continue
		}
		fits, best, tool = true, len(s), name[n:]
	}
	if !fits {
		return NoTool
	}
	return c.listed(tool)
}

// Lookup finds the tool of a call whose server and tool are given apart
// (a Codex mcp_tool_call): both matched exactly.
func (c *Catalog) Lookup(server, tool []byte) Tool {
	if !c.IsServer(server) {
		return NoTool
	}
	return c.listed(tool)
}

// Bare finds a tool by its bare name (a trajectory's, SPEC §5): NoTool
// when the catalog does not list it.
func (c *Catalog) Bare(name []byte) Tool {
	for i := range c.tools {
		if string(name) == c.tools[i].Name {
			return Tool(i + 1)
		}
	}
	return NoTool
}

// listed is the tool a declared server's tool name names.
func (c *Catalog) listed(name []byte) Tool {
	if t := c.Bare(name); t != NoTool || c.v3 {
		return t
	}
	return UndeclaredTool
}

// IsServer reports whether name is exactly a declared server's name.
func (c *Catalog) IsServer(name []byte) bool {
	for _, s := range c.servers {
		if string(name) == s {
			return true
		}
	}
	return false
}

// IsSearch reports whether t is a search of the catalog.
func (c *Catalog) IsSearch(t Tool) bool { return c.Role(t) == RoleSearch }

// SearchRule is the rule of the search t, nil when t is no search.
func (c *Catalog) SearchRule(t Tool) *SearchRule {
	if ct := c.tool(t); ct != nil {
		return ct.Search
	}
	return nil
}

// Rules are what the checks judge against: a catalog and whether the
// caller asserted that capture was authorized. Together they are the
// policy (SPEC §6.5, §16.4), which a report identifies by its digest.
type Rules struct {
	Catalog           *Catalog // nil: cairn-memory/1
	CaptureAuthorized bool
}

// DefaultRules are cairn-memory/1 with or without the capture assertion.
func DefaultRules(captureAuthorized bool) Rules {
	return Rules{Catalog: CairnMemory, CaptureAuthorized: captureAuthorized}
}

// catalog is the rules' catalog, cairn-memory/1 when none is set.
func (r Rules) catalog() *Catalog {
	if r.Catalog == nil {
		return CairnMemory
	}
	return r.Catalog
}

// PolicyJSON is the policy document as RFC 8785 canonical JSON: members
// sorted by name, no insignificant whitespace. Only ASCII names and
// strings occur, so byte order is the UTF-16 order RFC 8785 asks for.
func (r Rules) PolicyJSON() []byte {
	c := r.catalog()
	if !c.v3 {
		return r.catalogPolicyJSON()
	}
	// cairn-memory/1: SPEC §6.5's document, its servers those given
	// (--memory-server) when they were.
	var b strings.Builder
	b.WriteString(`{"capture_authorized":`)
	b.WriteString(boolText(r.CaptureAuthorized))
	b.WriteString(`,"catalog":"` + c.name + `","servers":[`)
	for i, s := range c.servers {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + s + `"`)
	}
	b.WriteString(`],"tools":[`)
	for i, t := range c.tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"annotations":{"destructiveHint":` + boolText(t.Class == Destructive) +
			`,"readOnlyHint":` + boolText(t.Class == Read) + `},"class":"` + classNames[t.Class] +
			`","name":"` + t.Name + `"}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// The policy document of a catalog other than cairn-memory/1 as given
// (SPEC §16.4): every member explicit, servers and tools in the catalog's
// order.
type (
	policyDoc struct {
		CaptureAuthorized bool         `json:"capture_authorized"`
		Catalog           string       `json:"catalog"`
		Servers           []string     `json:"servers"`
		Tools             []policyTool `json:"tools"`
	}
	policyTool struct {
		AnnotationsOverride bool          `json:"annotations_override"`
		Class               string        `json:"class"`
		Name                string        `json:"name"`
		Search              *policySearch `json:"search"`
	}
	policySearch struct {
		Result policyResult   `json:"result"`
		Scope  map[string]any `json:"scope"`
	}
	policyResult struct {
		Kind    string         `json:"kind"`
		Members map[string]any `json:"members"`
	}
)

// catalogPolicyJSON is the canonical JSON (RFC 8785, by jcs.Transform) of
// SPEC §16.4's policy document.
func (r Rules) catalogPolicyJSON() []byte {
	c := r.catalog()
	doc := policyDoc{CaptureAuthorized: r.CaptureAuthorized, Catalog: c.name, Servers: c.servers, Tools: []policyTool{}}
	for _, t := range c.tools {
		pt := policyTool{AnnotationsOverride: t.AnnotationsOverride, Class: classNames[t.Class], Name: t.Name}
		if t.Search != nil {
			pt.Search = &policySearch{Scope: t.Search.Scope.Document(), Result: policyResult{Kind: "json_object", Members: map[string]any{}}}
			for _, m := range t.Search.Result {
				pt.Search.Result.Members[m.Name] = m.Document()
			}
		}
		doc.Tools = append(doc.Tools, pt)
	}
	b, err := json.Marshal(doc)
	if err == nil {
		b, err = jcs.Transform(b)
	}
	if err != nil {
		// Strings and booleans only, which always marshal and transform.
		panic("audit: the policy document does not encode: " + err.Error())
	}
	return b
}

// ScopeKindNames are the scope kinds' names in a catalog file.
var ScopeKindNames = map[ScopeKind]string{
	ScopeArgumentEquals: "argument_equals", ScopeArgumentPrefix: "argument_prefix",
	ScopeArgumentPresent: "argument_present", ScopeServerInstance: "server_instance",
}

// MemberTypeNames are the member types' names in a catalog file (an enum
// is an object there).
var MemberTypeNames = map[MemberType]string{
	TypeArray: "array", TypeObject: "object", TypeString: "string", TypeBoolean: "boolean",
	TypeNonnegInteger: "nonneg_integer",
}

// ClassName is a class's name in a catalog file.
func ClassName(c Class) string { return classNames[c] }

// Document is the scope as a catalog file writes it.
func (s ScopeRule) Document() map[string]any {
	d := map[string]any{"kind": ScopeKindNames[s.Kind]}
	switch s.Kind {
	case ScopeArgumentEquals:
		d["argument"], d["value"] = s.Argument, s.Value
	case ScopeArgumentPrefix:
		d["argument"], d["prefix"] = s.Argument, s.Value
	case ScopeArgumentPresent:
		d["argument"] = s.Argument
	}
	return d
}

// Document is the member's type as a catalog file writes it.
func (m ResultMember) Document() any {
	if m.Type == TypeEnum {
		return map[string]any{"enum": m.Enum}
	}
	return MemberTypeNames[m.Type]
}

// PolicyDigest is the hex SHA-256 of the policy document.
func (r Rules) PolicyDigest() string {
	sum := sha256.Sum256(r.PolicyJSON())
	return hex.EncodeToString(sum[:])
}

// Policy is the report's policy: the catalog's name, the assertion and
// the digest.
func (r Rules) Policy() Policy {
	return Policy{Catalog: r.catalog().name, CaptureAuthorized: r.CaptureAuthorized, SHA256: r.PolicyDigest()}
}

// PolicyJSON is the policy document of cairn-memory/1 with or without the
// capture assertion (SPEC §6.5).
func PolicyJSON(captureAuthorized bool) []byte { return DefaultRules(captureAuthorized).PolicyJSON() }

// PolicyDigest is the hex SHA-256 of PolicyJSON.
func PolicyDigest(captureAuthorized bool) string {
	return DefaultRules(captureAuthorized).PolicyDigest()
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

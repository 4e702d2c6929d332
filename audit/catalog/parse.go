// Package catalog reads memory catalogs (SPEC §16): the strict
// cairn.catalog/v1 file, the built-in catalogs, and a saved MCP tools/list
// answer to check a catalog against or derive one from. What it reads
// becomes an *audit.Catalog, which the checks judge by; a problem is a
// fixed code and a place in the catalog's own vocabulary
// (catalog.tools[3].search.scope.kind), never a byte of the file's values.
package catalog

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// Schema is the catalog file's schema.
const Schema = "cairn.catalog/v1"

// The limits of a catalog file (SPEC §16.1, §16.2).
const (
	MaxFileBytes = 64 << 10
	MaxDepth     = 64
	MaxServers   = 16
	MaxTools     = 64
	MaxMembers   = 32
	MaxEnum      = 32
	MaxValue     = 256 // characters of a scope's value or prefix
	// maxProblems is how many problems one file reports at most.
	maxProblems = 64
)

// A Problem is one thing wrong with a catalog file: CatalogUnreadable (the
// file) or CatalogInvalid (its content), and where in the catalog's own
// vocabulary ("catalog" for the file or document as a whole).
type Problem struct {
	Code  audit.Code
	Where string
}

// Patterns of SPEC §16.2. They are tested by hand, not by package regexp:
// compiling their counted repetitions cost every run of cairn about 2 M
// instructions at start, a fifth of a start (TestPatternsAreSPECs holds
// them to the SPEC's expressions).
var (
	serverPattern   = pattern{1, 64, "_-"}
	toolPattern     = pattern{1, 128, "_.-"}
	argumentPattern = pattern{1, 64, "_.-"}
)

// A pattern is ^[A-Za-z0-9<extra>]{min,max}$.
type pattern struct {
	min, max int
	extra    string
}

func (p pattern) match(s string) bool {
	if len(s) < p.min || len(s) > p.max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(p.extra, c) >= 0) {
			return false
		}
	}
	return true
}

// isCatalogName matches ^[a-z0-9][a-z0-9._-]{0,63}/[0-9]{1,4}$.
func isCatalogName(s string) bool {
	base, version, ok := strings.Cut(s, "/")
	if !ok || len(base) < 1 || len(base) > 64 || len(version) < 1 || len(version) > 4 {
		return false
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && strings.IndexByte("._-", c) >= 0) {
			return false
		}
	}
	for i := 0; i < len(version); i++ {
		if version[i] < '0' || version[i] > '9' {
			return false
		}
	}
	return true
}

// IsServerName reports whether s may name a memory server (SPEC §16.1:
// --memory-server and a catalog's servers).
func IsServerName(s string) bool { return serverPattern.match(s) }

// IsCatalogName reports whether s has the form of a catalog's name.
func IsCatalogName(s string) bool { return isCatalogName(s) }

// IsToolName reports whether s may name an MCP tool in a catalog.
func IsToolName(s string) bool { return toolPattern.match(s) }

// IsArgumentName reports whether s may name a search's scope argument.
func IsArgumentName(s string) bool { return argumentPattern.match(s) }

// ReadFile reads the catalog file at path with SPEC §3's file rules (no
// symbolic link on the way, a regular file, at most 64 KiB, UTF-8 without
// a byte-order mark) and parses it. The path never appears in a problem.
func ReadFile(path string) (*audit.Catalog, []Problem) {
	b, err := readFile(path, MaxFileBytes)
	if err != nil {
		return nil, []Problem{{audit.CatalogUnreadable, "catalog"}}
	}
	return Parse(b)
}

// errTooLarge is readFile's error for a file over its limit.
var errTooLarge = errors.New("catalog: file too large")

// readFile reads a whole file of at most limit bytes with SPEC §3's file
// rules, and checks it is UTF-8 without a byte-order mark. Its errors name
// no path.
func readFile(path string, limit int64) ([]byte, error) {
	f, err := stream.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() > limit {
		return nil, errTooLarge
	}
	// Sized by fstat, so that the file is in memory once (io.ReadAll's
	// doubling held up to twice a 16 MiB tools/list); a file that grows
	// meanwhile still reads, and Verify refuses it.
	b := make([]byte, 0, f.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(cap(b), int(limit)+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return nil, errTooLarge
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := f.Verify(); err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || !utf8.Valid(b) {
		return nil, errors.New("catalog: not UTF-8 without a byte-order mark")
	}
	return b, nil
}

// Parse reads a catalog file's content: strict JSON (one object, no name
// twice in an object, nesting at most 64), every member SPEC §16.2 lists
// and no other at any depth, nothing defaulted. It returns the catalog, or
// every problem found (at most 64, in document order) and no catalog. A
// built-in catalog's name is refused (catalog.name).
func Parse(b []byte) (*audit.Catalog, []Problem) {
	c, probs := parse(b)
	if len(probs) == 0 {
		if _, reserved := Builtin(c.Name()); reserved {
			return nil, []Problem{{audit.CatalogInvalid, "catalog.name"}}
		}
	}
	return c, probs
}

// parse is Parse without the reserved names: the built-ins are parsed
// with it.
func parse(b []byte) (*audit.Catalog, []Problem) {
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || !utf8.Valid(b) {
		return nil, []Problem{{audit.CatalogUnreadable, "catalog"}}
	}
	var ck stream.Checker
	if ck.Check(b) != 0 || depth(b) > MaxDepth {
		return nil, []Problem{{audit.CatalogInvalid, "catalog"}}
	}
	p := &parser{}
	c := p.catalog(bytes.TrimSpace(b))
	if len(p.problems) > 0 {
		return nil, p.problems
	}
	return c, nil
}

// depth is how deeply the checked JSON document b nests.
func depth(b []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// parser collects the problems of one document.
type parser struct {
	problems []Problem
}

func (p *parser) invalid(where string) {
	if len(p.problems) < maxProblems {
		p.problems = append(p.problems, Problem{audit.CatalogInvalid, where})
	}
}

// member is one member an object may have: its name, whether it must be
// there, and what reads its value at the place where.
type member struct {
	name     string
	required bool
	read     func(v []byte, where string)
}

// object reads v at where as an object of exactly members: a member not
// among them, or a required one missing, is a problem at where; a value
// that is not an object is a problem at where too.
func (p *parser) object(v []byte, where string, members ...member) {
	if stream.TypeOf(v) != stream.Object {
		p.invalid(where)
		return
	}
	seen := make([]bool, len(members))
	unknown := false
	stream.Members(v, func(name, value []byte) bool {
		for i, m := range members {
			if string(name) == m.name {
				seen[i] = true
				m.read(value, where+"."+m.name)
				return true
			}
		}
		unknown = true
		return true
	})
	missing := false
	for i, m := range members {
		missing = missing || m.required && !seen[i]
	}
	if unknown || missing {
		p.invalid(where)
	}
}

// text reads a string value at where that pattern matches (nil: any), and
// returns it ("" and a problem otherwise).
func (p *parser) text(v []byte, where string, matches func(string) bool) string {
	if stream.TypeOf(v) != stream.String {
		p.invalid(where)
		return ""
	}
	s := stream.Text(v)
	if matches != nil && !matches(s) {
		p.invalid(where)
		return ""
	}
	return s
}

// file is a catalog file as read, before it becomes an audit.Catalog.
type file struct {
	name    string
	servers []string
	tools   []audit.CatalogTool
}

func (p *parser) catalog(b []byte) *audit.Catalog {
	var f file
	p.object(b, "catalog",
		member{"schema", true, func(v []byte, where string) {
			if !stream.TextIs(v, Schema) {
				p.invalid(where)
			}
		}},
		member{"name", true, func(v []byte, where string) { f.name = p.text(v, where, isCatalogName) }},
		member{"servers", true, func(v []byte, where string) { f.servers = p.servers(v, where) }},
		member{"tools", true, func(v []byte, where string) { f.tools = p.tools(v, where) }},
	)
	if len(p.problems) > 0 {
		return nil
	}
	return audit.NewCatalog(f.name, f.servers, f.tools)
}

// servers reads 1 to 16 distinct server names.
func (p *parser) servers(v []byte, where string) []string {
	if stream.TypeOf(v) != stream.Array {
		p.invalid(where)
		return nil
	}
	var out []string
	i := 0
	stream.Elements(v, func(e []byte) bool {
		at := where + "[" + strconv.Itoa(i) + "]"
		s := p.text(e, at, serverPattern.match)
		for _, o := range out {
			if s != "" && s == o {
				p.invalid(at) // a server named twice
			}
		}
		out = append(out, s)
		i++
		return true
	})
	if i < 1 || i > MaxServers {
		p.invalid(where)
	}
	return out
}

// tools reads 1 to 64 tools with distinct names, at least one a search.
func (p *parser) tools(v []byte, where string) []audit.CatalogTool {
	if stream.TypeOf(v) != stream.Array {
		p.invalid(where)
		return nil
	}
	var out []audit.CatalogTool
	i := 0
	stream.Elements(v, func(e []byte) bool {
		at := where + "[" + strconv.Itoa(i) + "]"
		t := p.tool(e, at)
		for _, o := range out {
			if t.Name != "" && t.Name == o.Name {
				p.invalid(at + ".name") // a tool named twice
			}
		}
		out = append(out, t)
		i++
		return true
	})
	searches := 0
	for _, t := range out {
		if t.Search != nil {
			searches++
		}
	}
	if i < 1 || i > MaxTools || searches == 0 {
		p.invalid(where)
	}
	return out
}

// classes are the tool classes by their names.
var classes = map[string]audit.Class{"read": audit.Read, "capture": audit.Capture, "destructive": audit.Destructive}

func (p *parser) tool(v []byte, where string) audit.CatalogTool {
	var t audit.CatalogTool
	var search []byte
	p.object(v, where,
		member{"name", true, func(v []byte, where string) { t.Name = p.text(v, where, toolPattern.match) }},
		member{"class", true, func(v []byte, where string) {
			if t.Class = classes[p.text(v, where, nil)]; t.Class == 0 && stream.TypeOf(v) == stream.String {
				p.invalid(where)
			}
		}},
		member{"annotations_override", false, func(v []byte, where string) {
			// Only true is allowed: false would be a statement that says
			// nothing, and a default (SPEC §16.2).
			if string(v) != "true" {
				p.invalid(where)
			}
			t.AnnotationsOverride = true
		}},
		member{"search", false, func(v []byte, where string) { search = v }},
	)
	if search != nil {
		// Read after the object, whose members come in any order: only a
		// read tool may be a search.
		at := where + ".search"
		r := p.search(search, at)
		if t.Class != audit.Read && t.Class != 0 {
			p.invalid(at)
		}
		t.Search = &r
	}
	return t
}

func (p *parser) search(v []byte, where string) audit.SearchRule {
	var r audit.SearchRule
	p.object(v, where,
		member{"scope", true, func(v []byte, where string) { r.Scope = p.scope(v, where) }},
		member{"result", true, func(v []byte, where string) { r.Result = p.result(v, where) }},
	)
	return r
}

// scopeKinds are the scope kinds by their names.
var scopeKinds = map[string]audit.ScopeKind{
	"argument_equals": audit.ScopeArgumentEquals, "argument_prefix": audit.ScopeArgumentPrefix,
	"argument_present": audit.ScopeArgumentPresent, "server_instance": audit.ScopeServerInstance,
}

// scope reads a scope: its kind says which other members it has.
func (p *parser) scope(v []byte, where string) audit.ScopeRule {
	var r audit.ScopeRule
	if stream.TypeOf(v) != stream.Object {
		p.invalid(where)
		return r
	}
	var kind []byte
	stream.Members(v, func(name, value []byte) bool {
		if string(name) == "kind" {
			kind = value
		}
		return true
	})
	if kind == nil {
		p.invalid(where)
		return r
	}
	r.Kind = scopeKinds[p.text(kind, where+".kind", nil)]
	argument := member{"argument", true, func(v []byte, where string) { r.Argument = p.text(v, where, argumentPattern.match) }}
	value := func(name string) member {
		return member{name, true, func(v []byte, where string) { r.Value = p.value(v, where) }}
	}
	ignore := member{"kind", true, func([]byte, string) {}}
	switch r.Kind {
	case audit.ScopeArgumentEquals:
		p.object(v, where, ignore, argument, value("value"))
	case audit.ScopeArgumentPrefix:
		p.object(v, where, ignore, argument, value("prefix"))
	case audit.ScopeArgumentPresent:
		p.object(v, where, ignore, argument)
	case audit.ScopeServerInstance:
		p.object(v, where, ignore)
	default:
		if stream.TypeOf(kind) == stream.String {
			p.invalid(where + ".kind")
		}
	}
	return r
}

// value reads a scope's value or prefix: a string of 1 to 256 characters.
func (p *parser) value(v []byte, where string) string {
	s := p.text(v, where, nil)
	if n := utf8.RuneCountInString(s); stream.TypeOf(v) == stream.String && (n < 1 || n > MaxValue) {
		p.invalid(where)
	}
	return s
}

// memberTypes are the result member types by their names.
var memberTypes = map[string]audit.MemberType{
	"array": audit.TypeArray, "object": audit.TypeObject, "string": audit.TypeString,
	"boolean": audit.TypeBoolean, "nonneg_integer": audit.TypeNonnegInteger,
}

// result reads a search's result rule: kind json_object and 1 to 32
// members, each a type name or an enum. A member is named by its index,
// never by its name (which is the file's).
func (p *parser) result(v []byte, where string) []audit.ResultMember {
	var out []audit.ResultMember
	p.object(v, where,
		member{"kind", true, func(v []byte, where string) {
			if !stream.TextIs(v, "json_object") {
				p.invalid(where)
			}
		}},
		member{"members", true, func(v []byte, where string) {
			if stream.TypeOf(v) != stream.Object {
				p.invalid(where)
				return
			}
			i := 0
			stream.Members(v, func(name, value []byte) bool {
				at := where + "[" + strconv.Itoa(i) + "]"
				m := audit.ResultMember{Name: string(name)} // unescaped, a copy
				m.Type, m.Enum = p.memberType(value, at)
				out = append(out, m)
				i++
				return true
			})
			if i < 1 || i > MaxMembers {
				p.invalid(where)
			}
		}},
	)
	return out
}

// memberType reads a member's type: a type name, or {"enum": [S, …]} with
// 1 to 32 strings.
func (p *parser) memberType(v []byte, where string) (audit.MemberType, []string) {
	if stream.TypeOf(v) == stream.String {
		t := memberTypes[stream.Text(v)]
		if t == 0 {
			p.invalid(where)
		}
		return t, nil
	}
	var enum []string
	p.object(v, where, member{"enum", true, func(v []byte, where string) {
		if stream.TypeOf(v) != stream.Array {
			p.invalid(where)
			return
		}
		i := 0
		stream.Elements(v, func(e []byte) bool {
			enum = append(enum, p.text(e, where+"["+strconv.Itoa(i)+"]", nil))
			i++
			return true
		})
		if i < 1 || i > MaxEnum {
			p.invalid(where)
		}
	}})
	return audit.TypeEnum, enum
}

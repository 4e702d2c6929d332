package catalog

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// A Search is one search of a catalog to derive: a tool of the server and
// when a call of it is project-scoped. What annotations cannot say (which
// tools are searches, their scope) the user gives (SPEC §16.5).
type Search struct {
	Tool  string
	Scope audit.ScopeRule
}

// ParseSearch reads derive's --search TOOL=SCOPE, SCOPE one of instance,
// eq:ARG=VALUE, prefix:ARG=PREFIX or present:ARG; TOOL and ARG as a
// catalog names them, VALUE and PREFIX 1 to 256 characters of UTF-8.
// False when s is not that.
func ParseSearch(s string) (Search, bool) {
	tool, scope, ok := strings.Cut(s, "=")
	if !ok || !IsToolName(tool) {
		return Search{}, false
	}
	r := audit.ScopeRule{}
	kind, rest, _ := strings.Cut(scope, ":")
	switch kind {
	case "instance":
		r.Kind = audit.ScopeServerInstance
		ok = scope == "instance"
	case "present":
		r.Kind, r.Argument = audit.ScopeArgumentPresent, rest
		ok = IsArgumentName(rest)
	case "eq", "prefix":
		r.Kind = audit.ScopeArgumentEquals
		if kind == "prefix" {
			r.Kind = audit.ScopeArgumentPrefix
		}
		r.Argument, r.Value, ok = strings.Cut(rest, "=")
		n := utf8.RuneCountInString(r.Value)
		ok = ok && IsArgumentName(r.Argument) && utf8.ValidString(r.Value) && n >= 1 && n <= MaxValue
	default:
		ok = false
	}
	return Search{Tool: tool, Scope: r}, ok
}

// Derive makes a catalog of the server whose tools/list answer is l
// (SPEC §16.5): every tool of the server, each with the class its
// annotations give with MCP's defaults (ServerTool.Class); searches
// project-scoped as given, each with the result its outputSchema
// promises (required top-level properties of a type a catalog states).
// The tools come in the order of the risk they carry: the searches in the
// order given, then the other reads, captures and destructive tools, each
// in the server's order. The caller has checked name (IsCatalogName, not a
// built-in's), servers (IsServerName, 1 to 16 distinct) and searches (at
// least one, each by ParseSearch, of distinct tools); everything that keeps a catalog from
// being derived is returned as findings, and no catalog.
func Derive(l *ToolsList, name string, servers []string, searches []Search) (*audit.Catalog, []Finding) {
	var probs []Finding
	if len(l.Tools) > MaxTools {
		probs = append(probs, Finding{Code: ServerToolsTooMany, Where: l.root + ".tools"})
	}
	for j, t := range l.Tools {
		if !IsToolName(t.Name) {
			probs = append(probs, Finding{Code: ServerToolNameUnusable, Where: l.Where(j) + ".name"})
		}
	}
	isSearch := map[string]bool{}
	var tools []audit.CatalogTool
	for k, s := range searches {
		isSearch[s.Tool] = true
		j := l.Index(s.Tool)
		if j < 0 {
			probs = append(probs, Finding{Code: SearchToolNotOnServer, Where: "--search[" + strconv.Itoa(k) + "]"})
			continue
		}
		t := l.Tools[j]
		if t.Class() != audit.Read {
			probs = append(probs, Finding{Code: SearchNotReadOnly, Where: l.Where(j)})
			continue
		}
		if t.OutputSchema == nil {
			probs = append(probs, Finding{Code: SearchWithoutOutputSchema, Where: l.Where(j)})
			continue
		}
		members, ok := resultMembers(t.OutputSchema)
		if !ok {
			probs = append(probs, Finding{Code: SearchOutputSchemaUnusable, Where: l.Where(j) + ".outputSchema"})
			continue
		}
		tools = append(tools, audit.CatalogTool{Name: t.Name, Class: audit.Read, Search: &audit.SearchRule{Scope: s.Scope, Result: members}})
	}
	if len(probs) > 0 {
		return nil, probs
	}
	for _, class := range []audit.Class{audit.Read, audit.Capture, audit.Destructive} {
		for _, t := range l.Tools {
			if !isSearch[t.Name] && t.Class() == class {
				tools = append(tools, audit.CatalogTool{Name: t.Name, Class: class})
			}
		}
	}
	return audit.NewCatalog(name, servers, tools), nil
}

// resultMembers are the members a search's result must have by its
// outputSchema: an object schema's required top-level properties whose
// type a catalog can state (array, object, boolean; a string, or an enum
// of 1 to 32 strings; an integer with minimum 0 as nonneg_integer). A
// property the schema does not require is not listed (the server may leave
// it out), nor one of another type (number, null, a union); false when
// fewer than 1 or more than 32 remain.
func resultMembers(schema []byte) ([]audit.ResultMember, bool) {
	if t := valueOf(schema, "type"); t != nil && !stream.TextIs(t, "object") {
		return nil, false
	}
	props := valueOf(schema, "properties")
	if stream.TypeOf(props) != stream.Object {
		return nil, false
	}
	required := map[string]bool{}
	stream.Elements(valueOf(schema, "required"), func(v []byte) bool {
		if stream.TypeOf(v) == stream.String {
			required[stream.Text(v)] = true
		}
		return true
	})
	var out []audit.ResultMember
	stream.Members(props, func(name, p []byte) bool {
		if !required[string(name)] || stream.TypeOf(p) != stream.Object {
			return true
		}
		m := audit.ResultMember{Name: string(name)}
		t := valueOf(p, "type")
		switch {
		case stream.TextIs(t, "array"):
			m.Type = audit.TypeArray
		case stream.TextIs(t, "object"):
			m.Type = audit.TypeObject
		case stream.TextIs(t, "boolean"):
			m.Type = audit.TypeBoolean
		case stream.TextIs(t, "string"):
			m.Type, m.Enum = audit.TypeString, stringEnum(valueOf(p, "enum"))
			if m.Enum != nil {
				m.Type = audit.TypeEnum
			}
		case stream.TextIs(t, "integer") && nonnegative(valueOf(p, "minimum")):
			m.Type = audit.TypeNonnegInteger
		default:
			return true
		}
		out = append(out, m)
		return true
	})
	return out, len(out) >= 1 && len(out) <= MaxMembers
}

// stringEnum is v's strings when v is an array of 1 to 32 strings, else
// nil.
func stringEnum(v []byte) []string {
	var out []string
	ok := stream.TypeOf(v) == stream.Array
	stream.Elements(v, func(e []byte) bool {
		ok = ok && stream.TypeOf(e) == stream.String
		out = append(out, stream.Text(e))
		return ok
	})
	if !ok || len(out) < 1 || len(out) > MaxEnum {
		return nil
	}
	return out
}

// nonnegative reports whether v is a number ≥ 0.
func nonnegative(v []byte) bool {
	if stream.TypeOf(v) != stream.Number {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f >= 0
}

// Indented is catalog c as a catalog file for people: one member a line,
// one tool a line in the catalog's order, each tool's members in SPEC
// §16.2's order (name, class, annotations_override, search) and the rest
// canonical (RFC 8785). What 'cairn catalog derive' writes; it parses
// back to c.
func Indented(c *audit.Catalog) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"schema\": " + canonical(Schema) + ",\n  \"name\": " + canonical(c.Name()) +
		",\n  \"servers\": " + canonical(c.Servers()) + ",\n  \"tools\": [\n")
	for i, t := range c.Tools() {
		b.WriteString(`    {"name": ` + canonical(t.Name) + `, "class": ` + canonical(audit.ClassName(t.Class)))
		if t.AnnotationsOverride {
			b.WriteString(`, "annotations_override": true`)
		}
		if s := t.Search; s != nil {
			b.WriteString(`, "search": {"scope": ` + canonical(s.Scope.Document()) + `, "result": ` + canonical(resultDocument(s)) + `}`)
		}
		b.WriteString("}")
		if i < len(c.Tools())-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}

// canonical is v as RFC 8785 canonical JSON.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err == nil {
		b, err = jcs.Transform(b)
	}
	if err != nil {
		panic("catalog: a catalog does not encode: " + err.Error()) // strings and booleans only
	}
	return string(b)
}

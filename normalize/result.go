package normalize

import (
	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// firstTextBlock returns the `text` value of the first block of type
// "text" in an array of MCP content blocks, or nil.
func firstTextBlock(blocks []byte) []byte {
	var text []byte
	stream.Elements(blocks, func(block []byte) bool {
		if stream.TypeOf(block) != stream.Object {
			return true
		}
		isText := false
		var t []byte
		stream.Members(block, func(name, value []byte) bool {
			switch string(name) {
			case "type":
				isText = stream.TextIs(value, "text")
			case "text":
				t = value
			}
			return true
		})
		if isText {
			text = t
			return false
		}
		return true
	})
	return text
}

// textJSON reads JSON held in a string value; it keeps its scratch space
// between calls, so that a result per call allocates nothing.
type textJSON struct {
	doc     []byte
	checker stream.Checker
}

// object returns the JSON object that s, a JSON string value, holds when
// it passes the same checks as a record (well-formed, no repeated names,
// bounded nesting), else nil. The object is valid until the next call.
func (x *textJSON) object(s []byte) []byte {
	if stream.TypeOf(s) != stream.String {
		return nil
	}
	var ok bool
	x.doc, ok = stream.AppendUnquote(x.doc[:0], s)
	if !ok || x.checker.Check(x.doc) != 0 || stream.TypeOf(x.doc) != stream.Object {
		return nil
	}
	return x.doc
}

// outputObject reads a tool's output as SPEC §5 reads a tool result: an
// object, a string holding one, or content blocks whose first text block
// holds one; nil when it holds none.
func (x *textJSON) outputObject(v []byte) []byte {
	switch stream.TypeOf(v) {
	case stream.Object:
		return v
	case stream.String:
		return x.object(v)
	case stream.Array:
		return x.object(firstTextBlock(v))
	}
	return nil
}

// scoped reports whether a call of t in catalog c, whose arguments are
// args (a checked JSON value, nil when unknown), is a project search: t
// is a search and its scope rule holds (SPEC §6.2, §16.2).
func scoped(c *audit.Catalog, t audit.Tool, args []byte) bool {
	rule := c.SearchRule(t)
	if rule == nil {
		return false
	}
	r := rule.Scope
	if r.Kind == audit.ScopeServerInstance {
		return true
	}
	if stream.TypeOf(args) != stream.Object {
		return false
	}
	var arg []byte
	stream.Members(args, func(name, value []byte) bool {
		if string(name) == r.Argument {
			arg = value
			return false
		}
		return true
	})
	if stream.TypeOf(arg) != stream.String {
		return false
	}
	switch r.Kind {
	case audit.ScopeArgumentEquals:
		return stream.TextIs(arg, r.Value)
	case audit.ScopeArgumentPrefix:
		s := stream.Unquote(arg)
		return len(s) > len(r.Value) && string(s[:len(r.Value)]) == r.Value
	}
	return len(arg) > len(`""`) // ScopeArgumentPresent: a non-empty string
}

// retrieves reports whether v, a checked JSON value (nil when the result
// held none), is a result of the search t in catalog c: an object with
// every member of its result rule, each of its type (SPEC §6.3, §16.2).
// More members are allowed.
func retrieves(c *audit.Catalog, t audit.Tool, v []byte) bool {
	rule := c.SearchRule(t)
	if rule == nil || stream.TypeOf(v) != stream.Object {
		return false
	}
	// A checked object holds a name at most once: counting the members
	// that hold is enough.
	held := 0
	stream.Members(v, func(name, value []byte) bool {
		for i := range rule.Result {
			if m := &rule.Result[i]; string(name) == m.Name {
				if holds(m, value) {
					held++
				}
				break
			}
		}
		return true
	})
	return held == len(rule.Result)
}

// holds reports whether the JSON value v has the member's type.
func holds(m *audit.ResultMember, v []byte) bool {
	switch m.Type {
	case audit.TypeArray:
		return stream.TypeOf(v) == stream.Array
	case audit.TypeObject:
		return stream.TypeOf(v) == stream.Object
	case audit.TypeString:
		return stream.TypeOf(v) == stream.String
	case audit.TypeBoolean:
		return stream.TypeOf(v) == stream.Bool
	case audit.TypeNonnegInteger:
		return nonNegativeInteger(v)
	}
	for _, s := range m.Enum { // audit.TypeEnum
		if stream.TextIs(v, s) {
			return true
		}
	}
	return false
}

// nonNegativeInteger reports whether v is an integer literal ≥ 0 (-0 is 0).
func nonNegativeInteger(v []byte) bool {
	if !stream.IsInteger(v) {
		return false
	}
	if v[0] != '-' {
		return true
	}
	for _, d := range v[1:] {
		if d != '0' {
			return false
		}
	}
	return true
}

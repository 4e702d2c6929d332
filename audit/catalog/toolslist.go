package catalog

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// MaxToolsListBytes is the largest tools/list file (SPEC §16.5: §3's
// limit).
const MaxToolsListBytes = audit.MaxBytes

// A ToolsList is a server's saved answer to MCP's tools/list: its tools in
// its order, each with what a catalog can learn from it. It holds the
// file's bytes; nothing of it is ever printed but positions.
type ToolsList struct {
	Tools []ServerTool
	// root is where the tools are: "tools_list.result" in a JSON-RPC
	// response, "tools_list" in a result saved alone.
	root string
}

// A ServerTool is one tool of a tools/list answer.
type ServerTool struct {
	Name string
	// ReadOnly and Destructive are the annotations readOnlyHint and
	// destructiveHint.
	ReadOnly, Destructive Hint
	// OutputSchema is the tool's outputSchema as written, nil when absent.
	OutputSchema []byte
}

// Hint is an annotation's boolean, or its absence. (A value, not a
// pointer: an answer of a million tools must not cost an allocation per
// hint.)
type Hint uint8

const (
	HintAbsent Hint = iota
	HintFalse
	HintTrue
)

// Class is the tool's class by its annotations with MCP's defaults
// (readOnlyHint false, destructiveHint true): read when readOnlyHint is
// true; else capture when destructiveHint is false; else destructive.
// (destructiveHint means nothing on a read-only tool.)
func (t ServerTool) Class() audit.Class {
	switch {
	case t.ReadOnly == HintTrue:
		return audit.Read
	case t.Destructive == HintFalse:
		return audit.Capture
	}
	return audit.Destructive
}

// Where is the place of the tool at index i in the file.
func (l *ToolsList) Where(i int) string {
	return l.root + ".tools[" + strconv.Itoa(i) + "]"
}

// Index is the position of the tool called name, -1 when the server has
// none.
func (l *ToolsList) Index(name string) int {
	for i, t := range l.Tools {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// ReadToolsList reads a saved tools/list answer at path with SPEC §3's
// file rules (at most 16 MiB, UTF-8 without a byte-order mark, not empty)
// and parses it. The path never appears in a finding.
func ReadToolsList(path string) (*ToolsList, *Finding) {
	b, err := readFile(path, MaxToolsListBytes)
	if err != nil {
		return nil, &Finding{Code: ToolsListUnreadable, Where: "tools_list"}
	}
	return ParseToolsList(b)
}

// ParseToolsList reads a tools/list answer: one JSON object (no name twice
// in an object, nesting at most 64), either a JSON-RPC response whose
// result is the answer or the answer alone (what the MCP Inspector's CLI
// prints). It reads what a catalog needs — each tool's name, its
// readOnlyHint and destructiveHint, its outputSchema — and holds each to
// its type; members it does not read are left alone, as MCP adds them
// from version to version. A tools array of one page of several (a
// nextCursor) is ToolsListIncomplete. The first problem is returned;
// an empty file, or one that is not UTF-8 without a byte-order mark, is
// ToolsListUnreadable, as §3 has it.
func ParseToolsList(b []byte) (*ToolsList, *Finding) {
	invalid := func(where string) (*ToolsList, *Finding) {
		return nil, &Finding{Code: ToolsListInvalid, Where: where}
	}
	if len(b) == 0 || bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || !utf8.Valid(b) {
		return nil, &Finding{Code: ToolsListUnreadable, Where: "tools_list"}
	}
	var ck stream.Checker
	if ck.Check(b) != 0 || depth(b) > MaxDepth {
		return invalid("tools_list")
	}
	l := &ToolsList{root: "tools_list"}
	result := bytes.TrimSpace(b)
	if v := valueOf(result, "jsonrpc"); v != nil {
		// A JSON-RPC response: a result, or an error the server answered
		// with instead.
		if !stream.TextIs(v, "2.0") {
			return invalid("tools_list.jsonrpc")
		}
		if valueOf(result, "error") != nil {
			return invalid("tools_list.error")
		}
		l.root = "tools_list.result"
		if result = valueOf(result, "result"); stream.TypeOf(result) != stream.Object {
			return invalid(l.root)
		}
	}
	if c := valueOf(result, "nextCursor"); c != nil && stream.TypeOf(c) != stream.Null {
		return nil, &Finding{Code: ToolsListIncomplete, Where: l.root + ".nextCursor"}
	}
	tools := valueOf(result, "tools")
	if stream.TypeOf(tools) != stream.Array {
		return invalid(l.root + ".tools")
	}
	n := 0
	stream.Elements(tools, func([]byte) bool { n++; return true })
	l.Tools = make([]ServerTool, 0, n) // once: a million tools must not be copied as the slice grows
	var bad *Finding
	i := 0
	stream.Elements(tools, func(v []byte) bool {
		t, where := l.tool(v, i)
		if where != "" {
			bad = &Finding{Code: ToolsListInvalid, Where: where}
			return false
		}
		l.Tools = append(l.Tools, t)
		i++
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if j := l.firstRepeat(); j >= 0 {
		return invalid(l.Where(j) + ".name") // a tool named twice
	}
	return l, nil
}

// firstRepeat is the position of the first tool whose name an earlier tool
// has, -1 when every name is distinct: by sorting positions, so that a
// hostile answer of a million tools costs neither a quadratic scan nor a
// map of every name.
func (l *ToolsList) firstRepeat() int {
	order := make([]int32, len(l.Tools))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(l.Tools[a].Name, l.Tools[b].Name); c != 0 {
			return c
		}
		return int(a - b)
	})
	first := -1
	for k := 1; k < len(order); k++ {
		if j := int(order[k]); l.Tools[order[k-1]].Name == l.Tools[j].Name && (first < 0 || j < first) {
			first = j
		}
	}
	return first
}

// tool reads the tool v at index i, or returns the place of its problem.
func (l *ToolsList) tool(v []byte, i int) (ServerTool, string) {
	var t ServerTool
	at := l.Where(i)
	if stream.TypeOf(v) != stream.Object {
		return t, at
	}
	name := valueOf(v, "name")
	if stream.TypeOf(name) != stream.String || len(stream.Unquote(name)) == 0 {
		return t, at + ".name"
	}
	t.Name = stream.Text(name)
	if a := valueOf(v, "annotations"); a != nil {
		if stream.TypeOf(a) != stream.Object {
			return t, at + ".annotations"
		}
		for _, h := range []struct {
			name string
			to   *Hint
		}{{"readOnlyHint", &t.ReadOnly}, {"destructiveHint", &t.Destructive}} {
			switch hv := valueOf(a, h.name); {
			case hv == nil:
			case stream.TypeOf(hv) != stream.Bool:
				return t, at + ".annotations." + h.name
			case hv[0] == 't':
				*h.to = HintTrue
			default:
				*h.to = HintFalse
			}
		}
	}
	if s := valueOf(v, "outputSchema"); s != nil {
		if stream.TypeOf(s) != stream.Object {
			return t, at + ".outputSchema"
		}
		t.OutputSchema = s
	}
	return t, ""
}

// valueOf is the value of obj's member name, nil when it has none. (The
// Checker has refused a name given twice.)
func valueOf(obj []byte, name string) []byte {
	var out []byte
	stream.Members(obj, func(n, v []byte) bool {
		if string(n) == name {
			out = v
			return false
		}
		return true
	})
	return out
}

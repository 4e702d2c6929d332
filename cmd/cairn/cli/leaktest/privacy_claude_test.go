//go:build !wasip1

package leaktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// TestPrivacyClaudeNoInputContent is the property of SPEC §7.2 for Claude
// Code streams (SPEC §9): no byte of a JSON string value of the input, no
// unknown member name, no id, no tool or server name outside the catalog and
// no path reaches stdout or stderr, and every where is one of
// normalize.ClaudePlaces().
//
// Every real capture (testdata/claude/real, every version, and those with
// real memory servers in testdata/catalog/real/claude) and every stream
// of testdata/script/claude_stream.txtar is rewritten, from a fixed seed, in
// several variants where every JSON string value holds a fresh canary
// ("cnry" and 16 letters), except the values the semantics need (the
// top-level type and subtype, content block types, result.terminal_reason,
// mcp_servers[].status and, in some variants, the catalog's tool and server
// names and ToolSearch). Ids are renamed consistently (tool_use.id,
// tool_result.tool_use_id, parent_tool_use_id), so that correlation still
// works; a string holding JSON (an MCP result) is rewritten inside. The
// variants add unknown member names that are canaries, unknown record
// types, system subtypes and content block types that are canaries, and
// canaries with control characters, quotes, backslash and \u00XX escapes and
// unusual Unicode. Each is audited in JSON mode from stdin and in one more
// mode in turn (JSON from a file whose path holds canaries, human from that
// file, human from stdin), so that every input runs in every mode:
// no canary, nor any 6-letter piece of one, may appear; the exit code is
// the report's exit_code, the same in every mode; and in the variant that
// keeps the semantics the verdict is the original stream's.
func TestPrivacyClaudeNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := privCaptures(t, "../../../../testdata/claude/real/*/*.jsonl")
	inputs = append(inputs, privCaptures(t, "../../../../testdata/catalog/real/claude/*/*/*.jsonl")...)
	for _, c := range claudeScriptCases(t) {
		inputs = append(inputs, privInput{"script/" + c.name, c.data})
	}
	privacyStreams(t, audit.FormatClaude, inputs, (*pcGen).record, rand.New(rand.NewPCG(0x636c61, 0x636e7279)))
}

// privInput is one stream the privacy tests rewrite.
type privInput struct {
	name string
	data []byte
}

// privCaptures are the real captures matching pattern, named VERSION/FILE.
func privCaptures(t *testing.T, pattern string) []privInput {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no real captures %s (%v)", pattern, err)
	}
	var inputs []privInput
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, privInput{filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p), b})
	}
	return inputs
}

// privScripts are the files of the testdata/script archives that pattern
// matches (one at least), named script/ARCHIVE/FILE, but those skip
// refuses (nil refuses none).
func privScripts(t *testing.T, pattern string, skip func(name string, data []byte) bool) []privInput {
	t.Helper()
	archives, _ := filepath.Glob("../../../../testdata/script/" + pattern)
	if len(archives) == 0 {
		t.Fatalf("no archives %s", pattern)
	}
	var inputs []privInput
	for _, path := range archives {
		a, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if skip == nil || !skip(f.Name, f.Data) {
				inputs = append(inputs, privInput{"script/" + filepath.Base(path) + "/" + f.Name, f.Data})
			}
		}
	}
	return inputs
}

// privacyStreams is the privacy property for a JSONL format of the table:
// each input, rewritten in every variant by rewrite (one record at a
// time), is audited in every mode; no canary may leak, every where is a
// place of the format, and the variant that keeps the semantics keeps the
// verdict.
func privacyStreams(t *testing.T, format string, inputs []privInput, rewrite func(*pcGen, *pcNode), r *rand.Rand) {
	flag := "--" + format
	if clitest.Race {
		// Under the race detector a third of the inputs: the property is
		// the plain run's, the race run is for cairn's goroutines.
		var some []privInput
		for i, in := range inputs {
			if i%3 == 0 {
				some = append(some, in)
			}
		}
		inputs = some
	}
	variants := []pcVariant{
		{name: "values", keepCatalog: true, sameVerdict: true},
		{name: "escaped-all", escaped: true, members: true},
		{name: "types", keepCatalog: true, types: true, members: true, escaped: true},
		{name: "broken", broken: true, escaped: true},
	}
	dir := t.TempDir()
	places := fzPlaces(format)
	runs, streams := 0, 0
	statuses := map[string]map[string]int{} // variant → status → streams
	for _, in := range inputs {
		origCode, origOut, _ := privRun([]string{"eval", "protocol", flag, "-", "--json"}, in.data)
		for _, v := range variants {
			g := &pcGen{privGen: privGen{r: r}, v: v, ids: map[string]string{}, rewrite: rewrite,
				claude: format == audit.FormatClaude, document: format == audit.FormatOpenCodeEx}
			doc := g.stream(t, in.data)
			sub := filepath.Join(dir, g.c())
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(sub, "stream-"+g.c()+".jsonl")
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			leaks := g.windows(pcWindow)
			streams++
			wantCode := -1
			// The JSON report from stdin, and one more mode in turn: over
			// an input's variants, every mode runs.
			type mode struct {
				src    string
				asJSON bool
			}
			others := []mode{{"file", true}, {"file", false}, {"stdin", false}}
			for _, m := range []mode{{"stdin", true}, others[streams%len(others)]} {
				src, asJSON := m.src, m.asJSON
				name := fmt.Sprintf("%s/%s/%s/json=%v", in.name, v.name, src, asJSON)
				args := []string{"eval", "protocol", flag, path}
				stdin := []byte(nil)
				if src == "stdin" {
					args[3], stdin = "-", doc
				}
				if asJSON {
					args = append(args, "--json")
				}
				code, stdout, stderr := privRun(args, stdin)
				runs++
				fail := func(format string, a ...any) {
					t.Helper()
					t.Fatalf("%s: %s\ninput:\n%s\nstdout:\n%s\nstderr:\n%s", name, fmt.Sprintf(format, a...), doc, stdout, stderr)
				}
				privNoLeak(t, name, leaks, stdout, stderr)
				if wantCode >= 0 && code != wantCode {
					fail("exit %d, exit %d in another mode", code, wantCode)
				}
				wantCode = code
				if !asJSON {
					if want := "cairn eval protocol: " + strings.ToUpper(privStatus[code]) + " "; !bytes.HasPrefix(stdout, []byte(want)) {
						fail("human report does not start %q", want)
					}
					continue
				}
				var rep struct {
					Status   string          `json:"status"`
					ExitCode int             `json:"exit_code"`
					Checks   json.RawMessage `json:"checks"`
					Error    *struct {
						Code  string  `json:"code"`
						Where *string `json:"where"`
					} `json:"error"`
					Findings []struct {
						Code  string  `json:"code"`
						Where *string `json:"where"`
					} `json:"findings"`
				}
				if err := json.Unmarshal(stdout, &rep); err != nil {
					fail("stdout is not a report: %v", err)
				}
				if rep.ExitCode != code || rep.Status != privStatus[code] {
					fail("exit %d, report says %s with exit_code %d", code, rep.Status, rep.ExitCode)
				}
				if src == "stdin" {
					if statuses[v.name] == nil {
						statuses[v.name] = map[string]int{}
					}
					statuses[v.name][rep.Status]++
				}
				if rep.Error != nil && rep.Error.Where != nil && !places[*rep.Error.Where] {
					fail("error at %q, not a place of the contract", *rep.Error.Where)
				}
				for _, f := range rep.Findings {
					if f.Where != nil && !places[*f.Where] {
						fail("finding %s at %q, not a place of the contract", f.Code, *f.Where)
					}
				}
				if v.sameVerdict && src == "stdin" {
					// The rewrite kept what the audit reads: the same
					// verdict, findings and counts as the original.
					if code != origCode || !bytes.Equal(pcVerdict(stdout), pcVerdict(origOut)) {
						fail("the rewrite changed the verdict: exit %d, was %d\noriginal:\n%s", code, origCode, origOut)
					}
				}
			}
		}
	}
	t.Logf("%d streams, %d variants, %d runs; statuses %v", len(inputs), len(variants), runs, statuses)
}

// pcVerdict is a JSON report without its input member (the digest and
// size change with the rewrite).
func pcVerdict(report []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(report, &m) != nil {
		return report
	}
	delete(m, "input")
	b, _ := json.Marshal(m)
	return b
}

// pcWindow is the canary piece the Claude test looks for: shorter than
// privWindow, so that a shorter cut of a canary is still caught.
const pcWindow = 6

// pcVariant says how a stream is rewritten.
type pcVariant struct {
	name string
	// keepCatalog keeps the catalog's tool names, ToolSearch and the
	// memory server's name; otherwise they are canaries too.
	keepCatalog bool
	// sameVerdict: the rewrite keeps every value the audit reads.
	sameVerdict bool
	// escaped writes canaries with control characters, quotes, escapes
	// and unusual Unicode around or inside them.
	escaped bool
	// members adds unknown members, named by canaries, to records, to
	// tool_use and tool_result blocks and to nested objects.
	members bool
	// types turns some record types, system subtypes and content block
	// types into canaries, and adds records and blocks of such types.
	types bool
	// broken puts one string the reader must refuse (a lone surrogate, a
	// raw control character, bytes that are not UTF-8) in one record.
	broken bool
}

// pcGen rewrites one stream.
type pcGen struct {
	privGen
	v   pcVariant
	ids map[string]string // original id → its canary
	// rewrite rewrites one record in place; claude adds Claude Code's
	// unknown system subtypes to the types variant.
	rewrite func(*pcGen, *pcNode)
	claude  bool
	// document: the input is one JSON document (an OpenCode export), not
	// JSONL: rewrite sees it whole, the types variant adds no records, and
	// the rewritten document is indented as the CLI prints it, unless the
	// broken variant made it invalid.
	document bool
}

// lit returns a JSON string literal holding a new canary, in the variant's
// forms.
func (g *pcGen) lit() string {
	c := g.c()
	if !g.v.escaped {
		return `"` + c + `"`
	}
	switch g.r.IntN(9) {
	case 0: // one letter of the canary escaped: only the decoded value holds it whole
		k := len(privPrefix) + g.r.IntN(16)
		return fmt.Sprintf(`"%s\u%04x%s"`, c[:k], c[k], c[k+1:])
	case 1: // control characters, escaped
		return fmt.Sprintf(`"\u%04x%s\u001f\b\f"`, g.r.IntN(0x20), c)
	case 2: // quotes and backslashes
		return `"\"` + c + `\\\"\\n\/"`
	case 3: // a surrogate pair, a BOM, separators, replacement character
		return `"\ud83d\ude00` + c + `\ufeff\u2028\u2029\ufffd"`
	case 4: // raw multi-byte UTF-8 around it
		return `"é日本` + c + "\u2028\U0001F600" + `"`
	case 5: // uppercase hex escapes of every letter
		var b strings.Builder
		b.WriteByte('"')
		for i := range len(c) {
			fmt.Fprintf(&b, `\u%04X`, c[i])
		}
		b.WriteByte('"')
		return b.String()
	case 6: // two canaries and markup
		return `"<b>` + c + `</b>&amp; ` + g.c() + `\t"`
	case 7: // a noncharacter and a NUL
		return `"\uffff\u0000` + c + `\uFDD0"`
	}
	return `"` + c + `"`
}

// brokenLit is a string literal the reader refuses, holding a canary.
func (g *pcGen) brokenLit() string {
	c := g.c()
	switch g.r.IntN(4) {
	case 0:
		return `"` + c + `\ud800"` // a lone high surrogate
	case 1:
		return `"\udc00` + c + `"` // a lone low surrogate
	case 2:
		return "\"" + c + "\x01\"" // a raw control character
	}
	return "\"" + c + "\xff\xfe\"" // not UTF-8
}

// pcNode is a JSON value, with its members in order.
type pcNode struct {
	kind    byte // 'o' object, 'a' array, 's' string, 'r' other (raw)
	members []pcMember
	elems   []*pcNode
	str     string // a string's value
	raw     string // an other value, or a string's rewritten literal
}

type pcMember struct {
	name string // raw literal, quotes included
	val  *pcNode
}

func pcParse(dec *json.Decoder) (*pcNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			n := &pcNode{kind: 'a'}
			for dec.More() {
				e, err := pcParse(dec)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, e)
			}
			_, err := dec.Token()
			return n, err
		}
		n := &pcNode{kind: 'o'}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := pcParse(dec)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, pcMember{quote(k.(string)), v})
		}
		_, err := dec.Token()
		return n, err
	case string:
		return &pcNode{kind: 's', str: x}, nil
	case json.Number:
		return &pcNode{kind: 'r', raw: x.String()}, nil
	case bool:
		return &pcNode{kind: 'r', raw: strconv.FormatBool(x)}, nil
	}
	return &pcNode{kind: 'r', raw: "null"}, nil
}

func pcParseBytes(b []byte) (*pcNode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := pcParse(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the value")
	}
	return n, nil
}

func (n *pcNode) write(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(m.name)
			b.WriteByte(':')
			m.val.write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case 's':
		if n.raw != "" {
			b.WriteString(n.raw)
		} else {
			b.WriteString(quote(n.str))
		}
	default:
		b.WriteString(n.raw)
	}
}

func (n *pcNode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

// get returns the value of the member named name (unquoted), or nil.
func (n *pcNode) get(name string) *pcNode {
	for _, m := range n.members {
		if m.name == quote(name) {
			return m.val
		}
	}
	return nil
}

// stream rewrites every record of a stream.
func (g *pcGen) stream(t *testing.T, data []byte) []byte {
	t.Helper()
	var out []string
	if g.document {
		var one bytes.Buffer
		if err := json.Compact(&one, data); err != nil {
			t.Fatal(err)
		}
		data = one.Bytes()
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	broken := -1
	if g.v.broken {
		broken = g.r.IntN(len(lines))
	}
	for i, line := range lines {
		rec, err := pcParseBytes([]byte(line))
		if err != nil || rec.kind != 'o' {
			t.Fatalf("a record that is not a JSON object: %v\n%s", err, line)
		}
		g.rewrite(g, rec)
		if g.v.types && !g.document && g.r.IntN(6) == 0 {
			// A record of an unknown type, or an unknown system subtype.
			if g.coin() || !g.claude {
				out = append(out, `{"type":`+g.lit()+`,`+g.lit()+`:`+g.lit()+`}`)
			} else {
				out = append(out, `{"subtype":`+g.lit()+`,"type":"system",`+g.lit()+`:`+g.value(0)+`}`)
			}
		}
		s := rec.String()
		if i == broken {
			// One string literal of the record is one the reader refuses.
			k := strings.Index(s, `":"`)
			if k < 0 {
				s = s[:len(s)-1] + `,` + g.lit() + `:` + g.brokenLit() + `}`
			} else {
				s = s[:k+2] + g.brokenLit() + "," + g.lit() + ":" + s[k+2:]
			}
		}
		out = append(out, s)
	}
	if g.document {
		var indented bytes.Buffer
		if json.Indent(&indented, []byte(out[0]), "", "  ") == nil {
			return append(indented.Bytes(), '\n')
		}
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// record rewrites one record in place.
func (g *pcGen) record(rec *pcNode) {
	typ := ""
	if n := rec.get("type"); n != nil && n.kind == 's' {
		typ = n.str
	}
	for _, m := range rec.members {
		switch m.name {
		case `"type"`, `"subtype"`:
			continue
		case `"terminal_reason"`:
			if typ == "result" {
				continue
			}
		case `"parent_tool_use_id"`:
			g.id(m.val)
			continue
		case `"mcp_servers"`:
			if typ == "system" && m.val.kind == 'a' {
				for _, s := range m.val.elems {
					g.server(s)
				}
				continue
			}
		case `"message"`:
			if m.val.kind == 'o' && (typ == "assistant" || typ == "user") {
				g.message(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	if g.v.types && g.r.IntN(5) == 0 {
		switch typ {
		case "system":
			if st := rec.get("subtype"); st != nil && g.r.IntN(3) == 0 {
				st.raw = g.lit() // an unknown subtype
			}
		case "assistant", "user", "result":
		default:
			if t := rec.get("type"); t != nil {
				t.raw = g.lit() // an unknown record type
			}
		}
	}
	g.inject(rec)
}

// inject adds an unknown member named by a canary, in the members variant.
func (g *pcGen) inject(n *pcNode) {
	if !g.v.members || n.kind != 'o' || g.r.IntN(3) == 0 {
		return
	}
	m := pcMember{g.lit(), &pcNode{kind: 'r', raw: g.value(1)}}
	k := g.r.IntN(len(n.members) + 1)
	n.members = append(n.members[:k], append([]pcMember{m}, n.members[k:]...)...)
}

// server rewrites an mcp_servers entry: its status stays, and its name in
// the variants that keep the catalog, when it is the memory server's.
func (g *pcGen) server(s *pcNode) {
	if s.kind != 'o' {
		g.value2(s, 2)
		return
	}
	for _, m := range s.members {
		switch m.name {
		case `"status"`:
			continue
		case `"name"`:
			if g.v.keepCatalog && m.val.kind == 's' && audit.CairnMemory.IsServer([]byte(m.val.str)) {
				continue
			}
		}
		g.value2(m.val, 3)
	}
	g.inject(s)
}

func (g *pcGen) message(msg *pcNode) {
	for _, m := range msg.members {
		if m.name == `"content"` && m.val.kind == 'a' {
			for _, b := range m.val.elems {
				g.block(b)
			}
			if g.v.types && g.r.IntN(8) == 0 {
				// A content block of an unknown type.
				m.val.elems = append(m.val.elems, &pcNode{kind: 'r', raw: `{"type":` + g.lit() + `,"id":` + g.lit() + `}`})
			}
			continue
		}
		g.value2(m.val, 2)
	}
	g.inject(msg)
}

// block rewrites a content block: its type stays (but may become a canary
// in the types variant), ids are renamed consistently, and catalog tool
// names stay in the variants that keep them.
func (g *pcGen) block(b *pcNode) {
	if b.kind != 'o' {
		g.value2(b, 3)
		return
	}
	for _, m := range b.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(10) == 0 {
				m.val.raw = g.lit()
			}
			continue
		case `"id"`, `"tool_use_id"`:
			g.id(m.val)
			continue
		case `"name"`:
			if g.v.keepCatalog && m.val.kind == 's' && (m.val.str == "ToolSearch" || pcCatalogTool(m.val.str)) {
				continue
			}
		case `"caller"`:
			// Whether a program made the call: its type stays in the
			// variant that keeps the semantics.
			if g.v.sameVerdict && m.val.kind == 'o' {
				for _, cm := range m.val.members {
					if cm.name != `"type"` {
						g.value2(cm.val, 5)
					}
				}
				g.inject(m.val)
				continue
			}
		case `"content"`:
			if m.val.kind == 'a' {
				// Content blocks of a tool result: their types stay.
				for _, e := range m.val.elems {
					if e.kind == 'o' {
						for _, em := range e.members {
							if em.name != `"type"` {
								g.value2(em.val, 5)
							}
						}
						continue
					}
					g.value2(e, 5)
				}
				continue
			}
		}
		g.value2(m.val, 4)
	}
	g.inject(b)
}

// pcCatalogTool reports whether name is a memory tool of the catalog as
// Claude Code names it.
func pcCatalogTool(name string) bool {
	for _, server := range audit.CairnMemory.Servers() {
		if tool, ok := strings.CutPrefix(name, "mcp__"+server+"__"); ok && audit.CairnMemory.Bare([]byte(tool)) != audit.NoTool {
			return true
		}
	}
	return false
}

// id renames an id consistently; null stays null.
func (g *pcGen) id(n *pcNode) {
	if n.kind != 's' {
		g.value2(n, 4)
		return
	}
	c, ok := g.ids[n.str]
	if !ok {
		c = g.c()
		g.ids[n.str] = c
	}
	n.raw = quote(c)
}

// value2 rewrites a value whose strings the audit does not read: every
// string becomes a canary (a string holding a JSON object or array is
// rewritten inside, so that an MCP result keeps its shape, though its
// strings are canaries), except, in the variant that keeps the semantics,
// the values of mode and scope members; every member name stays, and
// unknown members are added in the members variant.
func (g *pcGen) value2(n *pcNode, depth int) {
	switch n.kind {
	case 's':
		if inner := strings.TrimSpace(n.str); len(inner) > 1 && (inner[0] == '{' || inner[0] == '[') {
			if doc, err := pcParseBytes([]byte(inner)); err == nil {
				g.inner(doc)
				n.raw = quote(doc.String())
				return
			}
		}
		n.raw = g.lit()
	case 'o':
		for _, m := range n.members {
			if g.v.sameVerdict && (m.name == `"mode"` || m.name == `"scope"`) && m.val.kind == 's' {
				continue // a search's scope, a retrieval result's mode
			}
			g.value2(m.val, depth+1)
		}
		if depth < 6 {
			g.inject(n)
		}
	case 'a':
		for _, e := range n.elems {
			g.value2(e, depth+1)
		}
	}
}

// inner rewrites a JSON document held in a string: its strings become
// canaries, but in the variant that keeps the semantics the retrieval
// shape's mode and a scope stay, so that the result keeps its meaning.
func (g *pcGen) inner(n *pcNode) {
	switch n.kind {
	case 's':
		c := g.c()
		n.raw = quote(c) // no escapes: the document is quoted again
	case 'o':
		for _, m := range n.members {
			if g.v.sameVerdict && (m.name == `"mode"` || m.name == `"scope"`) && m.val.kind == 's' {
				continue
			}
			g.inner(m.val)
		}
	case 'a':
		for _, e := range n.elems {
			g.inner(e)
		}
	}
}

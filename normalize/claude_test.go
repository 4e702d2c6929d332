package normalize_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
)

// claudeEvidence are the record types and system subtypes that carry
// evidence (SPEC §9): everything else of the contract is benign.
var claudeEvidence = []string{"system/init", "assistant", "user", "result"}

// claudeSDK is the pinned SDK's type declarations (SPEC §9), when present.
const claudeSDK = "/tmp/cairn-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts"

// TestClaudeBenignMatchesCaptures checks the list of benign record types
// and system subtypes (normalize.ClaudeBenign) against what the real
// claude printed (testdata/claude/real, every version) and, when the pinned
// SDK is installed, against its SDKMessage union: every record type and
// "system/SUBTYPE" seen is evidence-carrying or benign, no entry is listed
// twice, and (with the SDK) the evidence-carrying and benign entries are
// exactly the union's members.
func TestClaudeBenignMatchesCaptures(t *testing.T) {
	benign := normalize.ClaudeBenign()
	known := map[string]bool{}
	for _, b := range benign {
		if known[b] {
			t.Errorf("ClaudeBenign lists %q twice", b)
		}
		known[b] = true
	}
	for _, e := range claudeEvidence {
		if known[e] {
			t.Errorf("ClaudeBenign lists %q, which carries evidence", e)
		}
	}
	paths, err := filepath.Glob("../testdata/claude/real/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no real Claude captures (%v)", err)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			var rec struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%s:%d: %v", p, i+1, err)
			}
			k := rec.Type
			if k == "system" {
				k += "/" + rec.Subtype
			}
			seen[k] = true
			if !known[k] && !slices.Contains(claudeEvidence, k) {
				t.Errorf("%s:%d: record %q is neither evidence-carrying nor benign", p, i+1, k)
			}
		}
	}
	for _, e := range claudeEvidence {
		if !seen[e] {
			t.Errorf("no capture has a %q record", e)
		}
	}

	src, err := os.ReadFile(claudeSDK)
	if err != nil {
		t.Skipf("the pinned SDK is not installed (%v): not checked against its SDKMessage union", err)
	}
	sdk, err := sdkMessages(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sdk {
		if !known[k] && !slices.Contains(claudeEvidence, k) {
			t.Errorf("SDKMessage has %q, neither evidence-carrying nor benign", k)
		}
	}
	for _, k := range append(benign, claudeEvidence...) {
		if !slices.Contains(sdk, k) {
			t.Errorf("%q is not a member of the SDK's SDKMessage union", k)
		}
	}
	t.Logf("SDKMessage: %d record types and system subtypes", len(sdk))
}

// sdkMessages returns the record types and "system/SUBTYPE"s of the
// SDKMessage union of an sdk.d.ts: each member type's own `type:` and
// `subtype:` literals (a member that is itself a union of types is
// followed).
func sdkMessages(src string) ([]string, error) {
	union := regexp.MustCompile(`(?m)^export declare type SDKMessage = ([^;]+);`).FindStringSubmatch(src)
	if union == nil {
		return nil, errors.New("sdk.d.ts declares no SDKMessage union")
	}
	var out []string
	var member func(name string, depth int) error
	member = func(name string, depth int) error {
		if depth > 4 {
			return fmt.Errorf("%s: unions nested too deep", name)
		}
		decl := regexp.MustCompile(`(?m)^export declare type ` + regexp.QuoteMeta(name) + ` = `).FindStringIndex(src)
		if decl == nil {
			return fmt.Errorf("sdk.d.ts does not declare %s", name)
		}
		body := src[decl[1]:]
		if !strings.HasPrefix(body, "{") {
			// A union of other types: SDKResultMessage = SDKResultSuccess | SDKResultError;
			alts, _, _ := strings.Cut(body, ";")
			for _, alt := range strings.Split(alts, "|") {
				if err := member(strings.TrimSpace(alt), depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		// The object type's own members are indented by four spaces; it
		// ends at the first line that closes it.
		end := regexp.MustCompile(`(?m)^}`).FindStringIndex(body)
		if end == nil {
			return fmt.Errorf("%s does not end", name)
		}
		body = body[:end[0]]
		types := sdkLiterals(body, "type")
		if len(types) != 1 {
			return fmt.Errorf("%s has type literals %v", name, types)
		}
		if types[0] != "system" {
			out = append(out, types[0])
			return nil
		}
		subtypes := sdkLiterals(body, "subtype")
		if len(subtypes) == 0 {
			return fmt.Errorf("%s is a system message with no subtype literal", name)
		}
		for _, s := range subtypes {
			out = append(out, "system/"+s)
		}
		return nil
	}
	for _, name := range strings.Split(union[1], "|") {
		if err := member(strings.TrimSpace(name), 0); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// sdkLiterals returns the string literals of the member name at the first
// level of an object type's body: `    name: 'a' | 'b';`.
func sdkLiterals(body, name string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^    `+name+`\??: ([^;\n]+);`).FindAllStringSubmatch(body, -1) {
		for _, lit := range strings.Split(m[1], "|") {
			lit = strings.TrimSpace(lit)
			if len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'' {
				out = append(out, lit[1:len(lit)-1])
			}
		}
	}
	return out
}

// Records of a Claude Code stream, for the table below.
const (
	cInit     = `{"type":"system","subtype":"init","session_id":"s","mcp_servers":[{"name":"cairn-memory","status":"connected"}]}`
	cInitFail = `{"type":"system","subtype":"init","session_id":"s","mcp_servers":[{"name":"cairn-memory","status":"failed"}]}`
	cResult   = `{"type":"result","subtype":"success","is_error":false,"terminal_reason":"completed","session_id":"s"}`
	cShape    = `{"mode":"semantic","count":0,"results":[]}`
	cSearch   = `{"query":"release ledger","scope":"project"}`
	cMemory   = "mcp__cairn-memory__memory_search"
)

// cUse is an assistant record holding one tool_use block; extra are more
// members of the record.
func cUse(id, name, input, parent string, extra ...string) string {
	return cAssistant(parent, `{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":`+input+`}`, extra...)
}

// cAssistant is an assistant record with the given content blocks and, when
// parent is not "", a parent_tool_use_id.
func cAssistant(parent, blocks string, extra ...string) string {
	p := "null"
	if parent != "" {
		p = strconv.Quote(parent)
	}
	return `{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[` + blocks + `]},"parent_tool_use_id":` + p + strings.Join(append([]string{""}, extra...), ",") + `}`
}

func cText(extra ...string) string {
	return cAssistant("", `{"type":"text","text":"done"}`, extra...)
}

// cRes is a user record holding one tool_result block whose content is
// content (raw JSON); extra are more members of the record.
func cRes(id, content string, extra ...string) string {
	return cUser(`{"type":"tool_result","tool_use_id":"`+id+`","content":`+content+`}`, extra...)
}

func cUser(blocks string, extra ...string) string {
	return `{"type":"user","message":{"role":"user","content":[` + blocks + `]},"parent_tool_use_id":null` + strings.Join(append([]string{""}, extra...), ",") + `}`
}

// cStructured is the tool_use_result member with the structured content sc.
func cStructured(sc string) string {
	return `"tool_use_result":{"content":"x","structuredContent":` + sc + `}`
}

// claudeOutcome is what the Claude front end and the engine make of a
// stream: the invalid error, or the checks, counts and findings.
type claudeOutcome struct {
	invalid  string // "CODE RECORD WHERE"
	checks   string // the four checks, as the scripts write them
	counts   audit.Counts
	findings []string // "RECORD:code@where"
}

func claudeFeed(t *testing.T, capture bool, lines ...string) claudeOutcome {
	t.Helper()
	engine := audit.NewEngine(audit.DefaultRules(capture))
	claude := normalize.NewClaude(engine)
	checker := normalize.NewClaudeChecker()
	for i, line := range lines {
		code := checker.Check([]byte(line))
		if code != 0 {
			t.Fatalf("record %d is not valid JSON (%s): %s", i+1, code, line)
		}
		err := claude.Checked([]byte(line), i+1, stream.Verdict{Located: checker.Located})
		if err != nil {
			var ie *audit.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("record %d: %v is not an *audit.InputError", i+1, err)
			}
			return claudeOutcome{invalid: fmt.Sprintf("%s %d %s", ie.Code, ie.Record, ie.Where)}
		}
	}
	claude.End()
	c, counts := engine.Finish()
	var parts []string
	all := []string{}
	for _, ch := range c.All() {
		s := string(ch.State)
		if len(ch.Codes) > 0 {
			var cs []string
			for _, code := range ch.Codes {
				cs = append(cs, code.String())
			}
			s += ":" + strings.Join(cs, ",")
		}
		parts = append(parts, s)
	}
	for _, f := range engine.Findings() {
		r, w := "-", "-"
		if f.Record != nil {
			r = strconv.Itoa(*f.Record)
		}
		if f.Where != nil {
			w = *f.Where
		}
		all = append(all, r+":"+f.Code.String()+"@"+w)
	}
	return claudeOutcome{checks: strings.Join(parts, " "), counts: counts, findings: all}
}

// TestClaudeFrontEnd runs hand-made Claude Code streams through
// normalize.NewClaude, fed record by record after a stream.Checker, and
// checks the engine's verdict: edge cases of SPEC §9 the scripts do not
// cover.
func TestClaudeFrontEnd(t *testing.T) {
	search := cUse("toolu_s1", cMemory, cSearch, "")
	searchOK := cRes("toolu_s1", strconv.Quote(cShape))
	pass := "pass pass pass pass"
	tests := []struct {
		name     string
		lines    []string
		invalid  string // "CODE RECORD WHERE"
		checks   string // when not invalid
		counts   func(audit.Counts) bool
		findings []string // when not nil, exactly these
	}{
		// Tool discovery.
		{name: "tool-search-result", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{"query":"select:`+cMemory+`"}`, ""),
			cRes("toolu_ts", `[{"type":"tool_reference","tool_name":"`+cMemory+`"}]`),
			search, searchOK, cResult},
			checks: pass, findings: []string{},
			counts: func(c audit.Counts) bool { return c.ToolDiscovery == 1 && c.Calls == 1 && c.ProjectSearches == 1 }},
		{name: "tool-search-error-result", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{}`, ""),
			cUser(`{"type":"tool_result","tool_use_id":"toolu_ts","content":"no such tool","is_error":true}`),
			search, searchOK, cResult},
			checks: pass, counts: func(c audit.Counts) bool { return c.ToolDiscovery == 1 && c.Calls == 1 }},
		{name: "tool-search-no-result", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{}`, ""), search, searchOK, cResult},
			checks: pass, counts: func(c audit.Counts) bool { return c.IncompleteCalls == 0 }},
		{name: "tool-search-result-twice", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{}`, ""), cRes("toolu_ts", `[]`), cRes("toolu_ts", `[]`)},
			invalid: "duplicate_result 4 user.tool_result.tool_use_id"},
		{name: "tool-search-id-reused-by-a-call", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{}`, ""), cUse("toolu_ts", cMemory, cSearch, "")},
			invalid: "duplicate_call_id 3 assistant.tool_use.id"},
		{name: "tool-search-only", lines: []string{cInit,
			cUse("toolu_ts", "ToolSearch", `{}`, ""), cRes("toolu_ts", `[]`), cText(), cResult},
			checks: "pass fail:project_search_absent fail:project_search_absent pass"},

		// Turns.
		{name: "second-init-while-open-then-two-results", lines: []string{cInit,
			search, searchOK, cInit, cText(), cResult, cResult},
			checks: pass, findings: []string{}},
		{name: "second-init-server-failed-changes-nothing", lines: []string{cInit,
			search, searchOK, cInitFail, cText(), cResult, cResult},
			checks: pass, findings: []string{}},
		{name: "first-init-server-failed", lines: []string{cInitFail, cText(), cResult},
			checks:   "pass inconclusive:memory_server_unavailable inconclusive:memory_server_unavailable pass",
			findings: []string{"1:memory_server_unavailable@init"}},
		{name: "held-back-result-then-one-too-many", lines: []string{cInit,
			search, searchOK, cInit, cResult, cResult, cResult},
			invalid: "event_outside_turn 7 result"},
		{name: "result-before-any-init", lines: []string{cResult},
			invalid: "event_outside_turn 1 result"},
		{name: "result-after-the-turn-closed", lines: []string{cInit, search, searchOK, cResult, cResult},
			invalid: "event_outside_turn 5 result"},
		{name: "user-after-the-turn-closed", lines: []string{cInit, cResult, cUser(`{"type":"text","text":"more"}`)},
			invalid: "event_outside_turn 3 user"},
		{name: "benign-records-outside-turns", lines: []string{
			`{"type":"system","subtype":"hook_started","hook_id":"h"}`,
			`{"type":"stream_event","event":{"type":"content_block_start","content_block":{"type":"tool_use","id":"toolu_p","name":"Bash","input":{}}}}`,
			cInit, search, searchOK, cResult,
			`{"type":"rate_limit_event","rate_limit_info":{}}`},
			checks: pass, counts: func(c audit.Counts) bool { return c.Calls == 1 && c.UnknownRecords == 0 }},
		{name: "init-only", lines: []string{cInit},
			checks: "inconclusive:turn_incomplete inconclusive:turn_incomplete inconclusive:turn_incomplete pass"},

		// Retractions.
		{name: "supersedes-empty", lines: []string{cInit, search, searchOK,
			cText(`"supersedes":[]`), cResult},
			checks: pass, findings: []string{}},
		{name: "supersedes-null", lines: []string{cInit, search, searchOK,
			cText(`"supersedes":null`), cResult},
			checks: pass},
		{name: "supersedes-one", lines: []string{cInit, search, searchOK,
			cText(`"supersedes":["x"]`), cResult},
			checks:   "inconclusive:message_superseded pass pass pass",
			findings: []string{"4:message_superseded@assistant"}},
		{name: "supersedes-on-a-user-record", lines: []string{cInit, search,
			cRes("toolu_s1", strconv.Quote(cShape), `"supersedes":["u0"]`), cResult},
			checks:   "inconclusive:message_superseded pass pass pass",
			findings: []string{"3:message_superseded@user"}},
		{name: "supersedes-on-the-result", lines: []string{cInit, search, searchOK,
			`{"type":"result","subtype":"success","is_error":false,"supersedes":["m"]}`},
			checks:   "inconclusive:message_superseded pass pass pass",
			findings: []string{"4:message_superseded@result"}},

		// Cut-off messages.
		{name: "aborted-text", lines: []string{cInit, search, searchOK,
			cText(`"aborted":true`), cResult},
			checks:   "inconclusive:message_aborted pass pass pass",
			findings: []string{"4:message_aborted@assistant"}},
		{name: "aborted-false", lines: []string{cInit, search, searchOK,
			cText(`"aborted":false`), cResult},
			checks: pass},
		{name: "unparsed-input-later", lines: []string{cInit, search, searchOK,
			cUse("toolu_u", cMemory, `{"__unparsedToolInput":"{\"query\": \"x"}`, ""),
			cUser(`{"type":"tool_result","tool_use_id":"toolu_u","content":"bad input","is_error":true}`), cResult},
			checks:   "inconclusive:message_aborted pass pass pass",
			findings: []string{"4:message_aborted@assistant.tool_use"},
			counts:   func(c audit.Counts) bool { return c.ProjectSearches == 1 && c.MemoryCalls == 2 }},
		{name: "unparsed-input-with-another-member-is-input", lines: []string{cInit,
			cUse("toolu_u", cMemory, `{"__unparsedToolInput":"x","scope":"project"}`, ""),
			cRes("toolu_u", strconv.Quote(cShape)), cResult},
			checks: pass},
		// SPEC §9: a call of an assistant record with aborted: true has an
		// unknown scope, like one with the __unparsedToolInput wrapper: it
		// is no project search, and as the first main-agent call it leaves
		// memory_first inconclusive message_aborted rather than a fail.
		{name: "aborted-record-first-call-search", lines: []string{cInit,
			cUse("toolu_s1", cMemory, cSearch, "", `"aborted":true`), searchOK, cResult},
			checks: "inconclusive:message_aborted inconclusive:message_aborted inconclusive:message_aborted pass",
			counts: func(c audit.Counts) bool { return c.ProjectSearches == 0 && c.MemoryCalls == 1 }},
		{name: "aborted-record-first-call-bash", lines: []string{cInit,
			cUse("toolu_b1", "Bash", `{"command":"ls"}`, "", `"aborted":true`),
			cRes("toolu_b1", `"README.md"`), search, searchOK, cResult},
			checks: "inconclusive:message_aborted inconclusive:message_aborted pass inconclusive:opaque_tool_effects"},

		{name: "aborted-record-first-call-server-tool", lines: []string{cInit,
			cAssistant("", `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}`, `"aborted":true`),
			search, searchOK, cResult},
			checks: "inconclusive:message_aborted inconclusive:message_aborted pass inconclusive:opaque_tool_effects"},
		{name: "aborted-record-unparsed-input", lines: []string{cInit,
			cUse("toolu_u", cMemory, `{"__unparsedToolInput":"{"}`, "", `"aborted":true`),
			cUser(`{"type":"tool_result","tool_use_id":"toolu_u","content":"bad","is_error":true}`), search, searchOK, cResult},
			checks: "inconclusive:message_aborted inconclusive:message_aborted pass pass"},
		{name: "aborted-record-later-call", lines: []string{cInit, search, searchOK,
			cUse("toolu_d", "mcp__cairn-memory__memory_delete", `{"id":"m1"}`, "", `"aborted":true`),
			cRes("toolu_d", `"deleted"`), cResult},
			checks: "inconclusive:message_aborted pass pass fail:destructive_mutation"},

		// API error notices.
		{name: "api-error-message", lines: []string{cInit, search, searchOK,
			cText(`"is_api_error_message":true`),
			`{"type":"system","subtype":"api_retry","attempt":1}`, cResult},
			checks: pass,
			counts: func(c audit.Counts) bool { return c.StreamErrors == 2 && c.Narration == 0 }},
		{name: "api-error-message-false", lines: []string{cInit, search, searchOK,
			cText(`"is_api_error_message":false`), cResult},
			checks: pass,
			counts: func(c audit.Counts) bool { return c.StreamErrors == 0 && c.Narration == 1 }},
		// Member order is not significant (SPEC §9): an API error notice
		// that is also cut off is message_aborted whichever member comes
		// first.
		{name: "api-error-message-then-aborted", lines: []string{cInit, search, searchOK,
			cText(`"is_api_error_message":true`, `"aborted":true`), cResult},
			checks: "inconclusive:message_aborted pass pass pass"},
		{name: "aborted-then-api-error-message", lines: []string{cInit, search, searchOK,
			cText(`"aborted":true`, `"is_api_error_message":true`), cResult},
			checks: "inconclusive:message_aborted pass pass pass"},
		{name: "api-error-message-still-needs-content", lines: []string{cInit,
			`{"type":"assistant","message":{"content":"x"},"parent_tool_use_id":null,"is_api_error_message":true}`},
			invalid: "schema_violation 2 assistant.message.content"},

		// Sub-agents.
		{name: "sub-agent-known-parent", lines: []string{cInit,
			cUse("toolu_a1", "Agent", `{"prompt":"look"}`, ""),
			cUse("toolu_s1", cMemory, cSearch, "toolu_a1"),
			cRes("toolu_s1", strconv.Quote(cShape)),
			cRes("toolu_a1", `[{"type":"text","text":"found"}]`), cResult},
			checks: "pass fail:tool_before_project_search pass inconclusive:opaque_tool_effects",
			counts: func(c audit.Counts) bool { return c.Calls == 2 && c.ProjectSearches == 1 && c.OpaqueCalls == 1 }},
		{name: "sub-agent-unknown-parent-after-first-call", lines: []string{cInit, search, searchOK,
			cAssistant("toolu_gone", `{"type":"tool_use","id":"toolu_b1","name":"Bash","input":{}}`),
			cRes("toolu_b1", `"ok"`), cResult},
			checks: "pass pass pass inconclusive:opaque_tool_effects"},
		{name: "sub-agent-unknown-parent-first", lines: []string{cInit,
			cAssistant("toolu_gone", `{"type":"text","text":"hi"}`), search, searchOK, cResult},
			checks:   "pass inconclusive:dispatch_order_unknown pass pass",
			findings: []string{"2:dispatch_order_unknown@assistant"}},
		{name: "sub-agent-search-is-not-first", lines: []string{cInit,
			cUse("toolu_a1", "Agent", `{}`, ""),
			cUse("toolu_s1", cMemory, cSearch, "toolu_a1"), cRes("toolu_s1", strconv.Quote(cShape)),
			cRes("toolu_a1", `"x"`), cUse("toolu_s2", cMemory, cSearch, ""),
			cRes("toolu_s2", strconv.Quote(cShape)), cResult},
			checks: "pass fail:tool_before_project_search pass inconclusive:opaque_tool_effects"},

		// Names compared after unescaping.
		{name: "escaped-ids-correlate", lines: []string{cInit,
			cUse(`toolu_s\u0031`, cMemory, cSearch, ""), searchOK, cResult},
			checks: pass},
		{name: "escaped-tool-name", lines: []string{cInit,
			cUse("toolu_s1", `mcp__cairn\u002dmemory__memory_s\u0065arch`, `{"scope":"pro\u006aect"}`, ""), searchOK, cResult},
			checks: pass, counts: func(c audit.Counts) bool { return c.ProjectSearches == 1 }},
		{name: "escaped-server-status", lines: []string{
			`{"type":"system","subtype":"init","mcp_servers":[{"name":"cairn\u005fmemory","status":"fail\u0065d"}]}`,
			cText(), cResult},
			checks: "pass inconclusive:memory_server_unavailable inconclusive:memory_server_unavailable pass"},

		// Result values.
		{name: "structured-content-one-result", lines: []string{cInit, search,
			cRes("toolu_s1", `"not json"`, cStructured(cShape)), cResult},
			checks: pass},
		{name: "structured-content-with-a-text-block", lines: []string{cInit, search,
			cUser(`{"type":"text","text":"note"},{"type":"tool_result","tool_use_id":"toolu_s1","content":"not json"}`, cStructured(cShape)), cResult},
			checks: pass},
		{name: "structured-content-two-results", lines: []string{cInit,
			cAssistant("", `{"type":"tool_use","id":"toolu_s1","name":"`+cMemory+`","input":`+cSearch+`},{"type":"tool_use","id":"toolu_b1","name":"Bash","input":{}}`),
			cUser(`{"type":"tool_result","tool_use_id":"toolu_s1","content":"not json"},{"type":"tool_result","tool_use_id":"toolu_b1","content":"ok"}`, cStructured(cShape)),
			cResult},
			checks: "pass pass inconclusive:search_result_uninterpretable inconclusive:opaque_tool_effects"},
		{name: "structured-content-two-results-content-decides", lines: []string{cInit,
			cAssistant("", `{"type":"tool_use","id":"toolu_s1","name":"`+cMemory+`","input":`+cSearch+`},{"type":"tool_use","id":"toolu_b1","name":"Bash","input":{}}`),
			cUser(`{"type":"tool_result","tool_use_id":"toolu_b1","content":"ok"},{"type":"tool_result","tool_use_id":"toolu_s1","content":`+strconv.Quote(cShape)+`}`, cStructured(`{"mode":"none"}`)),
			cResult},
			checks: "pass pass pass inconclusive:opaque_tool_effects"},
		{name: "structured-content-not-an-object", lines: []string{cInit, search,
			cRes("toolu_s1", strconv.Quote(cShape), cStructured(`[1]`)), cResult},
			checks: pass},
		{name: "structured-content-wins-over-content", lines: []string{cInit, search,
			cRes("toolu_s1", strconv.Quote(cShape), cStructured(`{"mode":"other"}`)), cResult},
			checks: "pass pass inconclusive:search_result_uninterpretable pass"},
		{name: "structured-content-error-result", lines: []string{cInit, search,
			cUser(`{"type":"tool_result","tool_use_id":"toolu_s1","content":"boom","is_error":true}`, cStructured(cShape)), cResult},
			checks: "pass pass inconclusive:search_result_error pass"},
		{name: "content-array-text-block", lines: []string{cInit, search,
			cRes("toolu_s1", `[{"type":"text","text":`+strconv.Quote(cShape)+`}]`), cResult},
			checks: pass},
		{name: "content-array-first-text-block-after-an-image", lines: []string{cInit, search,
			cRes("toolu_s1", `[{"type":"image","source":{}},{"type":"text","text":`+strconv.Quote(cShape)+`}]`), cResult},
			checks: pass},
		{name: "content-array-first-text-block-not-json", lines: []string{cInit, search,
			cRes("toolu_s1", `[{"type":"text","text":"hello"},{"type":"text","text":`+strconv.Quote(cShape)+`}]`), cResult},
			checks: "pass pass inconclusive:search_result_uninterpretable pass"},
		{name: "content-array-empty", lines: []string{cInit, search, cRes("toolu_s1", `[]`), cResult},
			checks: "pass pass inconclusive:search_result_uninterpretable pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := claudeFeed(t, false, tc.lines...)
			if tc.invalid != "" {
				if got.invalid != tc.invalid {
					t.Fatalf("got %q %s, want invalid %s", got.invalid, got.checks, tc.invalid)
				}
				return
			}
			if got.invalid != "" {
				t.Fatalf("invalid %s, want %s", got.invalid, tc.checks)
			}
			want := tc.checks
			if got.checks != want {
				t.Errorf("checks %s\nwant   %s\nfindings %v", got.checks, want, got.findings)
			}
			if tc.counts != nil && !tc.counts(got.counts) {
				t.Errorf("counts %+v", got.counts)
			}
			if tc.findings != nil && !slices.Equal(got.findings, tc.findings) {
				t.Errorf("findings %v, want %v", got.findings, tc.findings)
			}
		})
	}
}

// TestReadersNilReader: every reader of the table, given a nil reader,
// reports input_unreadable instead of panicking (the stream layer enforces
// io.Reader's contract under each, the document reader included).
func TestReadersNilReader(t *testing.T) {
	for name, read := range map[string]normalize.Reader{
		"codex": normalize.ReadCodex, "claude": normalize.ReadClaude, "gemini": normalize.ReadGemini,
		"pi": normalize.ReadPi, "opencode": normalize.ReadOpenCode, "opencode-export": normalize.ReadOpenCodeExport,
		"trajectory": normalize.ReadTrajectory, "cline": normalize.ReadCline,
	} {
		in := read(nil, audit.DefaultRules(false))
		var ie *audit.InputError
		if !errors.As(in.Err, &ie) || ie.Code != audit.InputUnreadable {
			t.Errorf("%s: got %v, want input_unreadable", name, in.Err)
		}
	}
}

// TestGeminiRowsFit guards the representation: a record type given more
// members than the reader's array of values holds fails here, not at run
// time.
func TestGeminiRowsFit(t *testing.T) {
	if !normalize.GeminiRowsFit() {
		t.Error("a Gemini CLI record type has more members than Gemini.values holds")
	}
}

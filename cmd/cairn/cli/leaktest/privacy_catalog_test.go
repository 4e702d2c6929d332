package leaktest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivacyCatalogFile checks that a catalog file's values never reach
// stdout or stderr (SPEC §16.1, §7.2): canaries in every free-text place a
// catalog has (a scope's value and prefix, result member names, enum
// strings), in valid catalogs that the audit uses and in invalid ones it
// refuses, at every place a problem can be; and in tool and server names,
// which the patterns allow to look like a canary's letters.
func TestPrivacyCatalogFile(t *testing.T) {
	dir := t.TempDir()
	stream := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(stream, []byte(catalogPrivacyStream), 0o644); err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(40) {
		g := &privGen{r: rand.New(rand.NewPCG(seed, 11))}
		word := func() string { return strings.TrimPrefix(g.c(), privPrefix) } // a name the patterns allow
		tool, server := word(), word()
		doc := `{"schema":"cairn.catalog/v1","name":"team-memory/1","servers":["` + server + `","team"],"tools":[` +
			`{"name":"find","class":"read","search":{"scope":{"kind":"argument_equals","argument":"space","value":` + g.s() + `},` +
			`"result":{"kind":"json_object","members":{` + g.s() + `:"array",` + g.s() + `:{"enum":[` + g.s() + `,` + g.s() + `]}}}}},` +
			`{"name":"` + tool + `","class":"read","search":{"scope":{"kind":"argument_prefix","argument":"` + word() + `","prefix":` + g.s() + `},` +
			`"result":{"kind":"json_object","members":{"hits":"array"}}}},` +
			`{"name":"drop","class":"destructive"}]}`
		// Each variant breaks it at one place, or not at all.
		variants := map[string]string{
			"valid":          doc,
			"unknown member": strings.Replace(doc, `"class":"destructive"`, `"class":"destructive",`+g.s()+`:`+g.s(), 1),
			"bad class":      strings.Replace(doc, `"class":"destructive"`, `"class":`+g.s(), 1),
			"bad scope kind": strings.Replace(doc, `"kind":"argument_equals"`, `"kind":`+g.s(), 1),
			"bad type":       strings.Replace(doc, `"hits":"array"`, `"hits":`+g.s(), 1),
			"bad server":     strings.Replace(doc, `"team"]`, `"`+g.c()+` x"]`, 1),
			"bad schema":     strings.Replace(doc, `"cairn.catalog/v1"`, g.s(), 1),
			"bad name":       strings.Replace(doc, `"team-memory/1"`, g.s(), 1),
			"not json":       doc[:len(doc)/2] + g.s(),
			"duplicate":      strings.Replace(doc, `"tools":`, `"name":`+g.s()+`,"tools":`, 1),
		}
		leaks := g.windows(privWindow)
		for name, v := range variants {
			path := filepath.Join(dir, "catalog-"+g.c()+".json")
			if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"eval", "protocol", "--claude-jsonl", stream, "--catalog-file", path, "--json"},
				{"eval", "protocol", "--claude-jsonl", stream, "--catalog-file", path},
				{"eval", "batch", "--format", "claude-jsonl", "--catalog-file", path, "--output", "sarif", stream},
				{"eval", "protocol", "--claude-jsonl", stream, "--catalog-file", path, "--memory-server", word()},
			} {
				code, stdout, stderr := privRun(args, nil)
				if name != "valid" && code != 2 {
					t.Fatalf("seed %d, %s: exit %d, want 2", seed, name, code)
				}
				privNoLeak(t, name, leaks, stdout, stderr)
			}
		}
	}
}

// catalogPrivacyStream is a Claude Code run that calls the catalog's
// server team: a search and a delete.
const catalogPrivacyStream = `{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["mcp__team__find"],"mcp_servers":[{"name":"team","status":"connected"}],"model":"m","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.332","output_style":"default","agents":[],"skills":[],"plugins":[],"uuid":"u0"}
{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__team__find","input":{"space":"project"}}],"stop_reason":null,"stop_sequence":null,"usage":{}},"parent_tool_use_id":null,"session_id":"s","uuid":"u1"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"{\"hits\":[]}"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u2"}
{"type":"assistant","message":{"id":"m2","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_2","name":"mcp__team__drop","input":{}}],"stop_reason":null,"stop_sequence":null,"usage":{}},"parent_tool_use_id":null,"session_id":"s","uuid":"u3"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"ok"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u4"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":2,"result":"done","session_id":"s","total_cost_usd":0,"usage":{},"permission_denials":[],"uuid":"u5"}
`

package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
)

// TestMistypedCatalogNeverPasses checks SPEC §16.3: a typo in a catalog —
// a misspelled tool, server, scope argument or result member name — can
// only make a verdict worse. For every input of the catalog scripts and
// every such typo in the built-in catalogs, a check that does not pass
// under the right catalog does not pass under the mistyped one. (A
// misspelled member of the schema is refused outright:
// TestParseProblems. A scope's value or prefix is the policy itself, not
// a name: a shorter prefix is a weaker rule, and the digest says so.)
func TestMistypedCatalogNeverPasses(t *testing.T) {
	inputs := scriptInputs(t, "catalog_builtin.txtar", "catalog_memory_server.txtar")
	if len(inputs) < 10 {
		t.Fatalf("%d inputs", len(inputs))
	}
	for _, file := range []string{"mcp-server-memory-1.json", "ai-devkit-memory-1.json"} {
		b, err := os.ReadFile(filepath.Join("..", "catalog", "builtin", file))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		doc["name"] = "typo-test/1" // not a built-in's name, so that every version parses
		right := parse(t, doc)
		typos := 0
		for _, edit := range typoEdits(doc) {
			for _, typo := range []func(string) string{
				func(s string) string { return s + "x" },
				func(s string) string { return strings.ToUpper(s[:1]) + s[1:] },
				func(s string) string { return s[:len(s)-1] },
				func(s string) string { return strings.ReplaceAll(s, "_", "-") },
			} {
				var mistyped map[string]any
				copyJSON(t, doc, &mistyped)
				if !edit(mistyped, typo) {
					continue // the typo changes nothing
				}
				b, _ := json.Marshal(mistyped)
				wrong, probs := catalog.Parse(b)
				if len(probs) > 0 {
					continue // refused: nothing is judged
				}
				typos++
				for name, in := range inputs {
					for _, servers := range [][]string{nil, {"kg"}, {"mem", "mem_a"}} {
						r, w := right, wrong
						if servers != nil {
							r, w = r.WithServers(servers), w.WithServers(servers)
						}
						got, worse := audit2(t, in, r), audit2(t, in, w)
						for i := range got {
							if got[i] != audit.Pass && worse[i] == audit.Pass {
								t.Errorf("%s, %s, mistyped as %s (servers %v): check %d %s under the right catalog, pass under the mistyped one",
									file, name, b, servers, i, got[i])
							}
						}
					}
				}
			}
		}
		if typos < 20 {
			t.Errorf("%s: %d typos applied, want many", file, typos)
		}
	}
}

// typoEdits are the places of a catalog document where a name may be
// mistyped: each server, each tool's name, each scope's argument, each
// result member's name. An edit applies typo at its place and reports
// whether that changed the document.
func typoEdits(doc map[string]any) []func(map[string]any, func(string) string) bool {
	var edits []func(map[string]any, func(string) string) bool
	set := func(get func(map[string]any) (map[string]any, string)) func(map[string]any, func(string) string) bool {
		return func(d map[string]any, typo func(string) string) bool {
			obj, key := get(d)
			old := obj[key].(string)
			obj[key] = typo(old)
			return obj[key] != old
		}
	}
	for i := range doc["servers"].([]any) {
		edits = append(edits, func(d map[string]any, typo func(string) string) bool {
			s := d["servers"].([]any)
			old := s[i].(string)
			s[i] = typo(old)
			return s[i] != old
		})
	}
	for i, tl := range doc["tools"].([]any) {
		tool := func(d map[string]any) map[string]any { return d["tools"].([]any)[i].(map[string]any) }
		edits = append(edits, set(func(d map[string]any) (map[string]any, string) { return tool(d), "name" }))
		search, ok := tl.(map[string]any)["search"].(map[string]any)
		if !ok {
			continue
		}
		if _, ok := search["scope"].(map[string]any)["argument"]; ok {
			edits = append(edits, set(func(d map[string]any) (map[string]any, string) {
				return tool(d)["search"].(map[string]any)["scope"].(map[string]any), "argument"
			}))
		}
		for name := range search["result"].(map[string]any)["members"].(map[string]any) {
			edits = append(edits, func(d map[string]any, typo func(string) string) bool {
				members := tool(d)["search"].(map[string]any)["result"].(map[string]any)["members"].(map[string]any)
				v := members[name]
				delete(members, name)
				members[typo(name)] = v
				return typo(name) != name
			})
		}
	}
	return edits
}

func copyJSON(t *testing.T, from any, to any) {
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, to)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func parse(t *testing.T, doc map[string]any) *audit.Catalog {
	t.Helper()
	b, _ := json.Marshal(doc)
	c, probs := catalog.Parse(b)
	if len(probs) > 0 {
		t.Fatalf("%v", probs)
	}
	return c
}

// audit2 is the four checks' states of input in under catalog c.
func audit2(t *testing.T, in scriptInput, c *audit.Catalog) [audit.NumChecks]audit.State {
	t.Helper()
	rep, err := AuditBytes(in.body, Options{Format: in.format, Catalog: c})
	if err != nil || rep.Checks == nil {
		t.Fatalf("%v, %+v", err, rep.Error)
	}
	var states [audit.NumChecks]audit.State
	for k, v := range rep.Checks.All() {
		states[k] = v.State
	}
	return states
}

type scriptInput struct {
	format string
	body   []byte
}

// scriptInputs are the JSONL inputs of the named scripts of
// testdata/script, by name, with their format from the flag the script
// gives them.
func scriptInputs(t *testing.T, scripts ...string) map[string]scriptInput {
	out := map[string]scriptInput{}
	for _, s := range scripts {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "script", s))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, part := range strings.Split(text, "\n-- ")[1:] {
			name, body, _ := strings.Cut(part, " --\n")
			if !strings.HasSuffix(name, ".jsonl") {
				continue
			}
			m := regexp.MustCompile(`--([a-z]+)-jsonl ` + regexp.QuoteMeta(name)).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("%s: no flag for %s", s, name)
			}
			out[name] = scriptInput{m[1] + "-jsonl", []byte(body)}
		}
	}
	return out
}

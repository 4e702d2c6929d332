//go:build !wasip1

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// catalogVerdict is an entry of a want.json under testdata/catalog/real:
// the verdict of a capture of a real memory server under its catalog
// (catalog, and the --memory-server names), and under the default catalog
// cairn-memory/1.
type catalogVerdict struct {
	realVerdict
	Catalog       string       `json:"catalog"`
	MemoryServers []string     `json:"memory_servers"`
	Default       *realVerdict `json:"default_catalog"`
}

// catalogRealFormats are the CLIs under testdata/catalog/real, by folder,
// with their format flags.
var catalogRealFormats = map[string]string{"claude": "--claude-jsonl", "gemini": "--gemini-jsonl"}

// TestRealCatalogCaptures audits every stream a real CLI printed with a
// real memory server from npm (testdata/catalog/real/CLI/VERSION/SERVER,
// made by scripts/capturekit/run.sh CLI-memory; SPEC v4 §16) under the
// built-in catalog its want.json names, with its --memory-server names,
// and checks the verdict exactly: status, exit code, every check's state
// and codes; the report names the catalog in policy.catalog, lists
// project_scope_asserted_by_catalog exactly when the catalog asserts the
// scope (mcp-server-memory), and matches docs/report.schema.json. The
// same stream under the default catalog cairn-memory/1 must give the
// verdict want.json records for it (never a pass: there the real server's
// calls are opaque). eval batch with the same catalog prints, line for
// line, what eval protocol printed. A capture without a verdict, a
// verdict without its capture or without its catalog, or a CLI, version or
// server without captures fails.
func TestRealCatalogCaptures(t *testing.T) {
	root := "../../../testdata/catalog/real"
	schema := reportSchema(t)
	wants, err := filepath.Glob(filepath.Join(root, "*", "*", "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, w := range wants {
		dir := filepath.Dir(w)
		cli, version := filepath.Base(filepath.Dir(dir)), filepath.Base(dir)
		flag, ok := catalogRealFormats[cli]
		if !ok {
			t.Errorf("%s: captures of an unknown CLI", dir)
			continue
		}
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]catalogVerdict
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
		for _, f := range files {
			rel := filepath.ToSlash(strings.TrimPrefix(f, dir+string(filepath.Separator)))
			if _, ok := want[rel]; !ok {
				t.Errorf("%s/%s/%s: a capture with no verdict in want.json", cli, version, rel)
			}
		}
		// The reports of eval protocol, by catalog and servers, in the
		// order batch gets the files.
		type batch struct {
			args    []string
			paths   []string
			reports [][]byte
		}
		batches := map[string]*batch{}
		var keys []string
		for _, name := range sortedNames(want) {
			wv := want[name]
			seen[cli+"/"+version+"/"+strings.Split(name, "/")[0]] = true
			path := mustAbs(t, filepath.Join(dir, name))
			t.Run(cli+"/"+version+"/"+strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("want.json names %s, which is not there", name)
				}
				if wv.Catalog == "" || wv.Default == nil || wv.Error != nil {
					t.Fatalf("want.json: %s needs a catalog, a default_catalog verdict, and no error", name)
				}
				args := []string{"--catalog", wv.Catalog}
				for _, s := range wv.MemoryServers {
					args = append(args, "--memory-server", s)
				}
				stdout := auditCatalogCapture(t, flag, path, args, wv.realVerdict, schema)
				noCaptureValues(t, path, flag, args)
				var rep struct {
					Policy      struct{ Catalog string }
					Limitations []string
				}
				_ = json.Unmarshal(stdout, &rep)
				if rep.Policy.Catalog != wv.Catalog+"/1" {
					t.Errorf("policy.catalog %q, want %s/1", rep.Policy.Catalog, wv.Catalog)
				}
				asserted := slices.Contains(rep.Limitations, "project_scope_asserted_by_catalog")
				if asserted != (wv.Catalog == "mcp-server-memory") {
					t.Errorf("limitations %v under %s", rep.Limitations, wv.Catalog)
				}
				key := strings.Join(args, " ")
				if batches[key] == nil {
					batches[key] = &batch{args: args}
					keys = append(keys, key)
				}
				bt := batches[key]
				bt.paths, bt.reports = append(bt.paths, path), append(bt.reports, stdout)
				t.Run("cairn-memory", func(t *testing.T) {
					stdout := auditCatalogCapture(t, flag, path, nil, *wv.Default, schema)
					noCaptureValues(t, path, flag, nil)
					if err := json.Unmarshal(stdout, &rep); err != nil || rep.Policy.Catalog != "cairn-memory/1" {
						t.Errorf("policy.catalog %q, want cairn-memory/1", rep.Policy.Catalog)
					}
				})
			})
		}
		for _, key := range keys {
			bt := batches[key]
			args := append([]string{"eval", "batch", "--format", strings.TrimPrefix(flag, "--"), "--json", "--jobs", "2"}, bt.args...)
			_, stdout, stderr := runCapture(append(args, bt.paths...), map[string]string{"CAIRN_EVAL": "1"})
			lines := strings.SplitAfter(stdout, "\n")
			if len(lines) != len(bt.reports)+1 || lines[len(lines)-1] != "" {
				t.Errorf("%s/%s: eval batch %s printed %d lines for %d inputs\n%s", cli, version, key, len(lines)-1, len(bt.reports), stderr)
				continue
			}
			for i, r := range bt.reports {
				if !bytes.Equal([]byte(lines[i]), r) {
					t.Errorf("%s/%s: eval batch %s, line %d is not eval protocol's report\n%s\n%s", cli, version, key, i+1, lines[i], r)
				}
			}
		}
	}
	for _, need := range []string{"claude/2.1.332/server-memory", "claude/2.1.332/ai-devkit", "gemini/0.61.0/server-memory", "gemini/0.61.0/ai-devkit"} {
		if !seen[need] {
			t.Errorf("no captures in %s/%s", root, need)
		}
	}
}

// auditCatalogCapture runs eval protocol FLAG PATH ARGS --json and checks
// the report against want and the schema; it returns the report.
func auditCatalogCapture(t *testing.T, flag, path string, args []string, want realVerdict, schema *jsonschema.Schema) []byte {
	t.Helper()
	argv := append([]string{"eval", "protocol", flag, path}, args...)
	code, stdout, stderr := runCapture(append(argv, "--json"), map[string]string{"CAIRN_EVAL": "1"})
	var got realVerdict
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("exit %d, stdout is not a report: %v\n%s%s", code, err, stdout, stderr)
	}
	validate(t, schema, filepath.Base(path), []byte(stdout))
	if diff := verdictDiff(code, got, want); diff != "" {
		under := strings.Join(args, " ")
		if under == "" {
			under = "cairn-memory/1"
		}
		t.Errorf("under %s: %s\n%s", under, diff, stdout)
	}
	return []byte(stdout)
}

// verdictDiff says how a report (and its exit code) differs from want:
// status, exit code, each check's state and codes ("" when it does not).
func verdictDiff(code int, got, want realVerdict) string {
	var d []string
	if code != want.ExitCode || got.Status != want.Status || got.ExitCode != want.ExitCode {
		d = append(d, fmt.Sprintf("got %s (exit %d, report %d), want %s (exit %d)", got.Status, code, got.ExitCode, want.Status, want.ExitCode))
	}
	for _, check := range []string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"} {
		g, w := got.Checks[check], want.Checks[check]
		if g.State != w.State || !slices.Equal(g.Codes, w.Codes) {
			d = append(d, fmt.Sprintf("%s: got %s %v, want %s %v", check, g.State, g.Codes, w.State, w.Codes))
		}
	}
	return strings.Join(d, "; ")
}

// sortedNames are a want.json's file names, sorted.
func sortedNames(m map[string]catalogVerdict) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// noCaptureValues audits the capture at path (JSON and human reports) and
// checks that none of its own strings reaches stdout or stderr (SPEC
// §7.2): every string value and member name of 8 bytes or more, and those
// of the JSON documents inside strings (a tool's result), but the
// contract's vocabulary (lowercase words with _ and ., as record types and
// places are) and the built-in catalogs' names the report prints: ids,
// paths, entity names, observations, scopes, titles, timestamps.
func noCaptureValues(t *testing.T, path, flag string, args []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if len(v) >= 8 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_.") != "" && !slices.Contains([]string{"cairn-memory", "mcp-server-memory", "ai-devkit-memory"}, v) {
				values[v] = true
			}
			var inner any
			if json.Unmarshal([]byte(v), &inner) == nil {
				walk(inner)
			}
		}
	}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	if len(values) < 10 {
		t.Fatalf("only %d strings in %s", len(values), path)
	}
	for _, mode := range [][]string{{"--json"}, nil} {
		argv := append(append([]string{"eval", "protocol", flag, path}, args...), mode...)
		_, stdout, stderr := runCapture(argv, map[string]string{"CAIRN_EVAL": "1"})
		for v := range values {
			if strings.Contains(stdout, v) || strings.Contains(stderr, v) {
				t.Errorf("%v: the capture's %q is in the output", argv[4:], v)
			}
		}
	}
}

// TestRealCatalogCapturesSawSavedToolsList: the MCP tools Claude Code
// listed in the init record of each real-server capture (mcp__S__TOOL, S
// the registered name) are exactly the tools of that server's saved
// tools/list answer (testdata/catalog/tools-list), which the catalog
// command's tests check the built-in catalogs against: the captures and
// the saved answers are of one server.
func TestRealCatalogCapturesSawSavedToolsList(t *testing.T) {
	lists := map[string]string{"server-memory": "server-memory-2026.8.31.json", "ai-devkit": "ai-devkit-memory-0.20.1.json"}
	paths, _ := filepath.Glob("../../../testdata/catalog/real/claude/*/*/*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no real Claude Code captures with a real memory server")
	}
	for _, p := range paths {
		server := filepath.Base(filepath.Dir(p))
		b, err := os.ReadFile(filepath.Join("../../../testdata/catalog/tools-list", lists[server]))
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		var list struct {
			Result struct{ Tools []struct{ Name string } }
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, tool := range list.Result.Tools {
			want = append(want, tool.Name)
		}
		f, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var init struct {
			Subtype    string
			Tools      []string
			MCPServers []struct{ Name, Status string } `json:"mcp_servers"`
		}
		if err := json.Unmarshal(bytes.SplitN(f, []byte("\n"), 2)[0], &init); err != nil || init.Subtype != "init" || len(init.MCPServers) != 1 || init.MCPServers[0].Status != "connected" {
			t.Fatalf("%s: the first record is not an init with one connected server (%v)", p, err)
		}
		var got []string
		for _, tool := range init.Tools {
			if bare, ok := strings.CutPrefix(tool, "mcp__"+init.MCPServers[0].Name+"__"); ok {
				got = append(got, bare)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: init lists %v, the saved tools/list %v", p, got, want)
		}
	}
}

//go:build unix

package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`
	search     = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"ledger","scope":"project"}}}`
	storeCall  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_store","arguments":{"text":"x"}}}`
	del        = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_delete","arguments":{"id":"mem_1"}}}`
	unknown    = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_nope"}}`
	templates  = `{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`
	notice     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestServe holds the scripted server's answers byte for byte: the
// captures under testdata were made with them.
func TestServe(t *testing.T) {
	hit := `{\"mode\":\"semantic\",\"count\":1,\"results\":[{\"id\":\"mem_1\",\"text\":\"The release ledger lives in src/release-ledger.mjs; amounts are integer cents.\",\"score\":0.91}]}`
	tests := []struct {
		name  string
		flags []string
		in    []string
		want  []string
	}{
		{"initialize with a name", []string{"-name", "memory"}, []string{initialize, notice},
			[]string{`{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-03-26","serverInfo":{"name":"memory","version":"0.0.1"}}}`}},
		{"search", nil, []string{search},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"` + hit + `","type":"text"}],"structuredContent":{"mode":"semantic","count":1,"results":[{"id":"mem_1","text":"The release ledger lives in src/release-ledger.mjs; amounts are integer cents.","score":0.91}]}}}`}},
		{"empty search", []string{"-empty-search"}, []string{search},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"{\"mode\":\"semantic\",\"count\":0,\"results\":[]}","type":"text"}],"structuredContent":{"mode":"semantic","count":0,"results":[]}}}`}},
		{"search error", []string{"-search-error"}, []string{search},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"index unavailable","type":"text"}],"isError":true}}`}},
		{"rpc error", []string{"-rpc-error-tool", "memory_search"}, []string{search},
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool"}}`}},
		{"stores count, deletes are refused", nil, []string{storeCall, storeCall, del, unknown, templates},
			[]string{`{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"{\"stored\":true,\"id\":\"mem_2\"}","type":"text"}],"structuredContent":{"stored":true,"id":"mem_2"}}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"{\"stored\":true,\"id\":\"mem_3\"}","type":"text"}],"structuredContent":{"stored":true,"id":"mem_3"}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"delete refused: memory is append-only","type":"text"}],"isError":true}}`,
				`{"jsonrpc":"2.0","id":4,"result":{"content":[{"text":"unknown tool memory_nope","type":"text"}],"isError":true}}`,
				`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found"}}`}},
		{"codex store", []string{"-store", "codex", "-meta"}, []string{search, del, unknown, templates},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"cairn/index":"v2","cairn/elapsed_ms":3},"content":[{"text":"{\"mode\":\"semantic\",\"count\":1,\"results\":[{\"key\":\"decisions/token-refresh\",\"score\":0.82,\"text\":\"Token refresh retries use exponential backoff, at most 3 attempts.\"}]}","type":"text"}],"structuredContent":{"mode":"semantic","count":1,"results":[{"key":"decisions/token-refresh","score":0.82,"text":"Token refresh retries use exponential backoff, at most 3 attempts."}]}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"{\"deleted\":true}","type":"text"}],"structuredContent":{"deleted":true}}}`,
				`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool"}}`,
				`{"jsonrpc":"2.0","id":5,"result":{"resourceTemplates":[]}}`}},
		{"codex delete fails", []string{"-store", "codex", "-rpc-error-tool", "memory_delete"}, []string{del},
			[]string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"memory_delete: permission denied for key"}}`}},
		{"fail start", []string{"-fail-start"}, []string{initialize}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code := Serve(tc.flags, strings.NewReader(strings.Join(tc.in, "\n")+"\n"), &out)
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.Len() == 0 {
				got = nil
			}
			if want := map[bool]int{true: 1, false: 0}[tc.name == "fail start"]; code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestRelay holds one tool's calls for ever (the marker says one came) and
// passes another's late, after the lines that came later: out of order.
func TestRelay(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	var mu sync.Mutex
	var passed []string
	r := relay{hold: "memory_store", marker: marker, slow: "memory_search", delay: 50 * time.Millisecond, pass: func(line []byte) error {
		mu.Lock()
		defer mu.Unlock()
		passed = append(passed, strings.TrimSpace(string(line)))
		return nil
	}}
	if err := r.run(strings.NewReader(strings.Join([]string{search, storeCall, del}, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(passed, "\n"), del+"\n"+search; got != want {
		t.Errorf("passed\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the held call left no marker: %v", err)
	}
}

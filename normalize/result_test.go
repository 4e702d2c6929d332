package normalize

import (
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestRetrievalShape checks SPEC §6.3's result shape: mode semantic or
// substring, an integer count ≥ 0 and an array of results; zero hits is a
// successful observation.
func TestRetrievalShape(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"mode":"substring","count":0,"results":[]}`, true},
		{`{"mode":"semantic","count":2,"results":[{},{}],"extra":1}`, true},
		{`{"results":[],"count":0,"mode":"semantic"}`, true},
		{`{"mode":"fuzzy","count":0,"results":[]}`, false},
		{`{"mode":"substring","count":-1,"results":[]}`, false},
		{`{"mode":"substring","count":1.5,"results":[]}`, false},
		{`{"mode":"substring","count":"0","results":[]}`, false},
		{`{"mode":"substring","count":0,"results":{}}`, false},
		{`{"mode":"substring","count":0}`, false},
		{`{"count":0,"results":[]}`, false},
		{`{"mode":"substring","results":[]}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := retrieves(audit.CairnMemory, audit.MemorySearch, []byte(tc.in)); got != tc.want {
				t.Errorf("RetrievalShape(%s) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestRetrievesOnlySearches checks that only a search's result is read:
// any other tool's, or none, never retrieves.
func TestRetrievesOnlySearches(t *testing.T) {
	v := []byte(`{"mode":"substring","count":0,"results":[]}`)
	for _, tool := range []audit.Tool{audit.NoTool, audit.UndeclaredTool, audit.MemoryGet, audit.MemoryStore, audit.MemoryDelete} {
		if retrieves(audit.CairnMemory, tool, v) {
			t.Errorf("retrieves(cairn-memory/1, %d, %s) = true, want false", tool, v)
		}
	}
	if retrieves(audit.CairnMemory, audit.MemorySearch, nil) {
		t.Error("retrieves(cairn-memory/1, memory_search, nil) = true, want false")
	}
}

// TestScopedCairnMemory checks cairn-memory/1's scope rule: a
// memory_search whose scope argument is the string "project", escaped or
// not; nothing else.
func TestScopedCairnMemory(t *testing.T) {
	tests := []struct {
		tool audit.Tool
		args string
		want bool
	}{
		{audit.MemorySearch, `{"query":"q","scope":"project"}`, true},
		{audit.MemorySearch, `{"scope":"pro\u006aect"}`, true},
		{audit.MemorySearch, `{"scope":"Project"}`, false},
		{audit.MemorySearch, `{"scope":"project "}`, false},
		{audit.MemorySearch, `{"scope":["project"]}`, false},
		{audit.MemorySearch, `{"query":"q"}`, false},
		{audit.MemorySearch, `{"nested":{"scope":"project"}}`, false},
		{audit.MemorySearch, `["scope","project"]`, false},
		{audit.MemoryGet, `{"scope":"project"}`, false},
		{audit.NoTool, `{"scope":"project"}`, false},
	}
	for _, tc := range tests {
		if got := scoped(audit.CairnMemory, tc.tool, []byte(tc.args)); got != tc.want {
			t.Errorf("scoped(cairn-memory/1, %d, %s) = %v, want %v", tc.tool, tc.args, got, tc.want)
		}
	}
	if scoped(audit.CairnMemory, audit.MemorySearch, nil) {
		t.Error("scoped(cairn-memory/1, memory_search, nil) = true, want false")
	}
}

package audit_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// TestPolicyDigest checks SPEC §6.5: the digest is the SHA-256 of the
// policy's canonical JSON, stable, and changed by the capture assertion.
func TestPolicyDigest(t *testing.T) {
	for _, capture := range []bool{false, true} {
		sum := sha256.Sum256(audit.PolicyJSON(capture))
		if got, want := audit.PolicyDigest(capture), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("PolicyDigest(%v) = %s, want SHA-256 of PolicyJSON %s", capture, got, want)
		}
		if a, b := audit.PolicyDigest(capture), audit.PolicyDigest(capture); a != b {
			t.Errorf("PolicyDigest(%v) = %s, then %s; want stable", capture, a, b)
		}
		if got := audit.PolicyDigest(capture); len(got) != 64 {
			t.Errorf("PolicyDigest(%v) = %q, want 64 hex digits", capture, got)
		}
	}
	if audit.PolicyDigest(false) == audit.PolicyDigest(true) {
		t.Errorf("PolicyDigest(false) = PolicyDigest(true) = %s, want different", audit.PolicyDigest(false))
	}
}

// unsortedObject reports the first object in the checked value v whose member
// names are not in strictly increasing order, or "" if there is none.
func unsortedObject(v []byte) string {
	switch stream.TypeOf(v) {
	case stream.Object:
		var prev string
		bad := ""
		first := true
		stream.Members(v, func(name, value []byte) bool {
			if !first && string(name) <= prev {
				bad = string(v)
				return false
			}
			first = false
			prev = string(name)
			if inner := unsortedObject(value); inner != "" {
				bad = inner
				return false
			}
			return true
		})
		return bad
	case stream.Array:
		bad := ""
		stream.Elements(v, func(e []byte) bool {
			bad = unsortedObject(e)
			return bad == ""
		})
		return bad
	}
	return ""
}

// TestPolicyJSONCanonical checks that the policy is RFC 8785 canonical:
// one valid JSON object, names sorted at every level, no insignificant
// whitespace, equal to its own canonical form.
func TestPolicyJSONCanonical(t *testing.T) {
	for _, capture := range []bool{false, true} {
		p := audit.PolicyJSON(capture)
		var c stream.Checker
		if code := c.Check(p); code != 0 {
			t.Fatalf("PolicyJSON(%v) = %s: Check = %s, want ok", capture, p, code)
		}
		if got := stream.AppendCanonical(nil, p); !bytes.Equal(got, p) {
			t.Errorf("PolicyJSON(%v) = %s, want its canonical form %s", capture, p, got)
		}
		if bad := unsortedObject(p); bad != "" {
			t.Errorf("PolicyJSON(%v): object %s has unsorted member names", capture, bad)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, p); err != nil || !bytes.Equal(compact.Bytes(), p) {
			t.Errorf("PolicyJSON(%v) = %s, want no insignificant whitespace (%s)", capture, p, compact.Bytes())
		}
	}
}

// TestPolicyJSONContent checks that the policy says what SPEC §6.5 says:
// catalog cairn-memory/1, its six tools with their classes and MCP
// annotations, and the capture assertion.
func TestPolicyJSONContent(t *testing.T) {
	type tool struct {
		Name        string `json:"name"`
		Class       string `json:"class"`
		Annotations struct {
			ReadOnly    bool `json:"readOnlyHint"`
			Destructive bool `json:"destructiveHint"`
		} `json:"annotations"`
	}
	want := []struct {
		name, class           string
		readOnly, destructive bool
	}{
		{"memory_search", "read", true, false},
		{"memory_get", "read", true, false},
		{"memory_list", "read", true, false},
		{"memory_store", "capture", false, false},
		{"memory_update", "destructive", false, true},
		{"memory_delete", "destructive", false, true},
	}
	for _, capture := range []bool{false, true} {
		var p struct {
			CaptureAuthorized *bool  `json:"capture_authorized"`
			Catalog           string `json:"catalog"`
			Tools             []tool `json:"tools"`
		}
		if err := json.Unmarshal(audit.PolicyJSON(capture), &p); err != nil {
			t.Fatalf("PolicyJSON(%v): %v", capture, err)
		}
		if p.CaptureAuthorized == nil || *p.CaptureAuthorized != capture || p.Catalog != "cairn-memory/1" {
			t.Errorf("PolicyJSON(%v): capture_authorized %v, catalog %q; want %v, cairn-memory/1", capture, p.CaptureAuthorized, p.Catalog, capture)
		}
		if len(p.Tools) != len(want) {
			t.Fatalf("PolicyJSON(%v) has %d tools, want %d", capture, len(p.Tools), len(want))
		}
		for _, w := range want {
			i := slices.IndexFunc(p.Tools, func(x tool) bool { return x.Name == w.name })
			if i < 0 {
				t.Errorf("PolicyJSON(%v) lacks tool %s", capture, w.name)
				continue
			}
			got := p.Tools[i]
			if got.Class != w.class || got.Annotations.ReadOnly != w.readOnly || got.Annotations.Destructive != w.destructive {
				t.Errorf("PolicyJSON(%v) tool %s: class %s, readOnlyHint %v, destructiveHint %v; want %s, %v, %v",
					capture, w.name, got.Class, got.Annotations.ReadOnly, got.Annotations.Destructive, w.class, w.readOnly, w.destructive)
			}
		}
	}
}

// TestCatalogNames checks that tools and servers are matched exactly,
// never by prefix, suffix or case (SPEC §4.4, §5).
func TestCatalogNames(t *testing.T) {
	tools := []struct {
		name  string
		want  audit.Tool
		class audit.Class
	}{
		{"memory_search", audit.MemorySearch, audit.Read},
		{"memory_get", audit.MemoryGet, audit.Read},
		{"memory_list", audit.MemoryList, audit.Read},
		{"memory_store", audit.MemoryStore, audit.Capture},
		{"memory_update", audit.MemoryUpdate, audit.Destructive},
		{"memory_delete", audit.MemoryDelete, audit.Destructive},
		{"memory_search_v2", audit.NoTool, 0},
		{"my_memory_search", audit.NoTool, 0},
		{"Memory_search", audit.NoTool, 0},
		{"memory_search ", audit.NoTool, 0},
		{"mcp__cairn-memory__memory_search", audit.NoTool, 0},
		{"", audit.NoTool, 0},
	}
	for _, tc := range tools {
		t.Run("tool "+tc.name, func(t *testing.T) {
			got := audit.CairnMemory.Bare([]byte(tc.name))
			if got != tc.want || audit.CairnMemory.Class(got) != tc.class {
				t.Errorf("LookupTool(%q) = %d (class %d), want %d (class %d)", tc.name, got, audit.CairnMemory.Class(got), tc.want, tc.class)
			}
		})
	}
	servers := []struct {
		name string
		want bool
	}{
		{"cairn-memory", true},
		{"cairn_memory", true},
		{"Cairn-memory", false},
		{"cairn-memory2", false},
		{"cairn.memory", false},
		{"cairn", false},
		{"", false},
	}
	for _, tc := range servers {
		t.Run("server "+tc.name, func(t *testing.T) {
			if got := audit.CairnMemory.IsServer([]byte(tc.name)); got != tc.want {
				t.Errorf("IsServer(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

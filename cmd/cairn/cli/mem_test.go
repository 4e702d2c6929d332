package cli

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// hostileExport is a codex export whose one call has as arguments an
// object of n members (the million-member shape of SPEC §1, scaled).
func hostileExport(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	b.WriteString(`{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project"`)
	for k := range n {
		fmt.Fprintf(&b, `,"k%07d":%d`, k, k%10)
	}
	b.WriteString(`},"result":null,"error":null,"status":"completed"}}` + "\n")
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}` + "\n")
	return b.Bytes()
}

// inFlightExport is a codex export of n MCP calls started and never
// completed (SPEC §1: 50,000 calls in flight).
func inFlightExport(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	for k := range n {
		fmt.Fprintf(&b, `{"type":"item.started","item":{"id":"item_%d","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"query %d","limit":10},"result":null,"error":null,"status":"in_progress"}}`+"\n", k, k)
	}
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}` + "\n")
	return b.Bytes()
}

// TestHostileAllocations: auditing one call whose arguments hold 10,000
// or 500,000 members allocates the same number of times but for the
// digest's blocks and a doubling structure's growth (a name set, a sort's
// offsets, the Lines' buffer), never per member. Counts, not times.
// (Calls in flight are not held to this yet: 49,997 of them cost about
// four allocations each in the decoder and the machines.)
func TestHostileAllocations(t *testing.T) {
	if clitest.Race {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	if testing.Short() {
		t.Skip("audits 7 MB inputs")
	}
	args := []string{"eval", "protocol", "--codex-jsonl", "-", "--json"}
	getenv := func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	}
	allocs := func(in []byte) float64 {
		return testing.AllocsPerRun(2, func() {
			if status := run(args, bytes.NewReader(in), io.Discard, io.Discard, getenv); status == 2 {
				t.Fatal("input refused")
			}
		})
	}
	for _, tc := range []struct {
		name         string
		small, large []byte
		allowed      float64
	}{
		{"members in one object", hostileExport(10_000), hostileExport(500_000), 64},
	} {
		// as TestAllocationsDoNotGrowWithRecords: three per 64 KiB digest block
		tc.allowed += 3 * float64(len(tc.large)-len(tc.small)) / (64 << 10)
		small, large := allocs(tc.small), allocs(tc.large)
		t.Logf("%s: %.0f allocations for %d bytes, %.0f for %d", tc.name, small, len(tc.small), large, len(tc.large))
		if large-small > tc.allowed {
			t.Errorf("%s: %.0f allocations against %.0f (at most %.0f more allowed): the audit allocates per member or per call",
				tc.name, large, small, tc.allowed)
		}
	}
}

// BenchmarkAuditHostile audits a 7 MB export whose one call's arguments
// hold 500,000 members, bytes to report.
func BenchmarkAuditHostile(b *testing.B) { benchAudit(b, hostileExport(500_000)) }

// BenchmarkAuditInFlight audits 49,997 MCP calls started and never
// completed, bytes to report.
func BenchmarkAuditInFlight(b *testing.B) { benchAudit(b, inFlightExport(49_997)) }

// benchAudit audits the codex export in from stdin, bytes to report.
func benchAudit(b *testing.B, in []byte) {
	args := []string{"eval", "protocol", "--codex-jsonl", "-", "--json"}
	getenv := func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if status := run(args, bytes.NewReader(in), io.Discard, io.Discard, getenv); status == 2 {
			b.Fatal("input refused")
		}
	}
}

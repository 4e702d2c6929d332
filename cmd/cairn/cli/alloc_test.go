package cli

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// allocInput is a codex exec turn with n memory searches (start, result)
// and n messages: 2+3n+1 records.
func allocInput(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n")
	for i := range n {
		call := fmt.Sprintf(`"id":"item_%d","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q %d","limit":10}`, 2*i, i)
		fmt.Fprintf(&b, `{"type":"item.started","item":{%s,"result":null,"error":null,"status":"in_progress"}}`+"\n", call)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{%s,"result":{"content":[{"type":"text","text":"{\"mode\":\"substring\",\"count\":1,\"results\":[{\"id\":\"m\"}]}"}],"structured_content":null},"error":null,"status":"completed"}}`+"\n", call)
		fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"item_%d","type":"agent_message","text":"m"}}`+"\n", 2*i+1)
	}
	b.WriteString(`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}` + "\n")
	return b.Bytes()
}

// opaqueInput is allocInput with a shell command (an opaque call, a
// finding noted once however often it recurs) after each memory search:
// 2+4n+1 records.
func opaqueInput(n int) []byte {
	in := allocInput(n)
	var b bytes.Buffer
	for i, line := range bytes.SplitAfter(in, []byte("\n")) {
		b.Write(line)
		if i >= 2 && bytes.Contains(line, []byte(`"agent_message"`)) {
			fmt.Fprintf(&b, `{"type":"item.completed","item":{"id":"c%d","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}}`+"\n", i)
		}
	}
	return b.Bytes()
}

// trajectoryInput is a pi trajectory with n memory searches (invocation,
// result holding JSON in a string): 2n events.
func trajectoryInput(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema_version":1,"session_id":"s","harness":"pi","project_root":"/p",` +
		`"started_at":"2026-10-07T00:00:00Z","ended_at":"2026-10-07T00:01:00Z","events":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sequence":%d,"kind":"tool_invocation","payload":{"call_id":"c%d","tool_name":"memory_search","input":{"scope":"project","query":"q %d"}}},`, 2*i, i, i)
		fmt.Fprintf(&b, `{"sequence":%d,"kind":"tool_result","payload":{"call_id":"c%d","is_error":false,"output":"{\"mode\":\"substring\",\"count\":0,\"results\":[]}"}}`, 2*i+1, i)
	}
	b.WriteString(`],"capture":{"captured_at":"2026-10-07T00:01:00Z","omitted_reasoning_blocks":0,"omitted_unknown_records":0,"truncated":false}}`)
	return b.Bytes()
}

// TestAllocationsDoNotGrowWithRecords: an audit allocates per run, not
// per record (memory grows with the largest record and the calls in
// flight, not with the file). Allocation counts are deterministic, unlike
// times, so this is asserted; speed is left to the benchmarks.
func TestAllocationsDoNotGrowWithRecords(t *testing.T) {
	if clitest.Race {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	getenv := func(k string) string {
		if k == "CAIRN_EVAL" {
			return "1"
		}
		return ""
	}
	for _, format := range []struct {
		flag   string
		input  func(int) []byte
		status int
	}{{"--codex-jsonl", allocInput, 0}, {"--codex-jsonl", opaqueInput, 3}, {"--trajectory", trajectoryInput, 0}} {
		args := []string{"eval", "protocol", format.flag, "-", "--json"}
		allocs := func(n int) float64 {
			in := format.input(n)
			return testing.AllocsPerRun(3, func() {
				if status := run(args, bytes.NewReader(in), io.Discard, io.Discard, getenv); status != format.status {
					t.Fatalf("%s, %d searches: exit %d, want %d", format.flag, n, status, format.status)
				}
			})
		}
		small, large := allocs(100), allocs(10000)
		grown := len(format.input(10000)) - len(format.input(100))
		t.Logf("%s: %.0f allocations for 100 searches, %.0f for 10,000 (%d bytes more)", format.flag, small, large, grown)
		// What may grow: the digest hands each 64 KiB block to a
		// goroutine (a channel and a closure, garbage at once), and the
		// finished-id bits and the maps of calls double a handful of
		// times. Per record or event: nothing.
		allowed := 3*float64(grown)/(64<<10) + 32
		if large-small > allowed {
			t.Errorf("%s: %.0f allocations for 10,000 searches against %.0f for 100 (at most %.0f more allowed): the audit allocates per record",
				format.flag, large, small, allowed)
		}
	}
}

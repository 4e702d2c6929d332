// Package clitest holds what the tests of cairn's CLI share across their
// packages: generated inputs, the report as the tests read it, and whether
// the race detector is on. Nothing here is part of cairn.
package clitest

import (
	"fmt"
	"strings"
)

// Records is a codex export of n lines: thread.started, turn.started,
// then error records.
func Records(n int) []byte {
	var b strings.Builder
	b.WriteString("{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n")
	for i := 2; i < n; i++ {
		b.WriteString("{\"type\":\"error\",\"message\":\"m\"}\n")
	}
	return []byte(b.String())
}

// Events is a trajectory with n user_input events.
func Events(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"schema_version":1,"session_id":"s","harness":"pi","project_root":"/p",` +
		`"started_at":"2026-10-07T00:00:00Z","ended_at":"2026-10-07T00:01:00Z",` +
		`"capture":{"captured_at":"2026-10-07T00:01:00Z","omitted_reasoning_blocks":0,"omitted_unknown_records":0,"truncated":false},"events":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sequence":%d,"kind":"user_input","payload":{"text":"u"}}`, i)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// Size pads the first record of a passing export with spaces (JSON
// white space) to make the file exactly n bytes.
func Size(n int) []byte {
	rest := "{\"type\":\"turn.started\"}\n" +
		`{"type":"item.started","item":{"id":"a","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project"},"result":null,"error":null,"status":"in_progress"}}` + "\n" +
		`{"type":"item.completed","item":{"id":"a","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project"},"result":{"content":[],"structured_content":{"mode":"substring","count":0,"results":[]}},"error":null,"status":"completed"}}` + "\n" +
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0}}` + "\n"
	head := `{"type":"thread.started","thread_id":"t"}`
	pad := n - len(head) - 1 - len(rest)
	if pad < 0 {
		pad = 0
	}
	return []byte(head + strings.Repeat(" ", pad) + "\n" + rest)
}

// BadThird is a codex export whose third record is malformed, followed by
// n bytes of further records.
func BadThird(n int) []byte {
	b := []byte(`{"type":"thread.started","thread_id":"t"}` + "\n" + `{"type":"turn.started"}` + "\n" + `{"type":` + "\n")
	line := []byte(`{"type":"error","message":"` + strings.Repeat("x", 1000) + `"}` + "\n")
	for len(b) < n {
		b = append(b, line...)
	}
	return b
}

package protocol_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/protocol"
)

// Audit a saved codex exec --json export and read the verdict.
func ExampleAuditFile() {
	rep, err := protocol.AuditFile("../../testdata/controls/protocol-codex.jsonl", protocol.Options{Format: audit.FormatCodex})
	if err != nil {
		panic(err) // only an unknown format is an error; bad input is a report
	}
	fmt.Println(rep.Status, rep.ExitCode, rep.Checks.MemoryFirst.State)
	// Output: pass 0 pass
}

// Audit a stream as it arrives, and print the report as the CLI would.
func ExampleAuditStream() {
	f, err := os.Open("../../testdata/controls/protocol-claude-command-first.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	rep, _ := protocol.AuditStream(f, protocol.Options{Format: audit.FormatClaude})
	b, _ := json.Marshal(rep.Checks.MemoryFirst)
	fmt.Println(rep.Status, string(b))
	for _, f := range rep.Findings {
		fmt.Println(*f.Record, f.Code, *f.Where)
	}
	// Output:
	// fail {"state":"fail","codes":["tool_before_project_search"]}
	// 2 opaque_tool_effects assistant.tool_use
	// 2 tool_before_project_search assistant.tool_use
}

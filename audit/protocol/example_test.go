package protocol_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

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

// Audit many inputs already in memory, several at a time: AuditBytes is
// safe for concurrent use.
func ExampleAuditBytes() {
	var inputs [][]byte
	for _, name := range []string{"protocol-gemini.jsonl", "protocol-pi.jsonl"} {
		b, err := os.ReadFile("../../testdata/controls/" + name)
		if err != nil {
			panic(err)
		}
		inputs = append(inputs, b)
	}
	formats := []string{audit.FormatGemini, audit.FormatPi}
	reports := make([]*audit.Report, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Go(func() {
			reports[i], _ = protocol.AuditBytes(in, protocol.Options{Format: formats[i]})
		})
	}
	wg.Wait()
	for _, rep := range reports {
		fmt.Println(rep.Input.Format, rep.Input.Source, rep.Status)
	}
	// Output:
	// gemini-jsonl stdin pass
	// pi-jsonl stdin pass
}

// Package cli is the cairn command line: the kong grammar, the CAIRN_EVAL
// gate, the wiring of safe input to the audit and of the report to the
// writer of --output (every format is a row of package render's table),
// format hints, and exit codes. It holds no audit logic.
//
//	cairn eval protocol (--codex-jsonl PATH | --claude-jsonl PATH | --gemini-jsonl PATH | --pi-jsonl PATH | --opencode-jsonl PATH | --opencode-export PATH | --copilot-jsonl PATH | --qwen-jsonl PATH | --cline-jsonl PATH | --trajectory PATH)
//	                    [--json | --output FORMAT] [--fail-on LIST] [--sarif-uri URI] [--capture-authorized]
//	cairn eval batch --format FORMAT [--json | --output FORMAT] [--fail-on LIST] [--sarif-uri URI...]
//	                 [--capture-authorized] [--jobs N] PATH...
//
// Main is the whole program, importable so that a testscript suite can run
// cairn as a command without installing it:
//
//	func TestMain(m *testing.M) {
//		os.Exit(testscript.RunMain(m, map[string]func() int{"cairn": cli.Main}))
//	}
//
// Main and Run are stable; everything else here is the command's own.
package cli

// Package cli is the cairn command line: the kong grammar, the CAIRN_EVAL
// gate, the wiring of safe input to the audit and of the report to the
// writer of --output (every format is a row of package render's table),
// format hints, and exit codes. It holds no audit logic.
//
//	cairn eval protocol (--codex-jsonl PATH | --claude-jsonl PATH | --gemini-jsonl PATH | --pi-jsonl PATH | --opencode-jsonl PATH | --opencode-export PATH | --copilot-jsonl PATH | --qwen-jsonl PATH | --cline-jsonl PATH | --trajectory PATH)
//	                    [--json | --output FORMAT] [--fail-on LIST] [--sarif-uri URI] [--capture-authorized]
//	                    [--catalog NAME | --catalog-file PATH] [--memory-server NAME...]
//	cairn eval batch --format FORMAT [--json | --output FORMAT] [--fail-on LIST] [--sarif-uri URI...]
//	                 [--capture-authorized] [--catalog NAME | --catalog-file PATH] [--memory-server NAME...]
//	                 [--jobs N] [--paths-from FILE [--null]] [--shard I/N] [PATH...]
//	cairn eval summarize [--json] [FILE...]
//	cairn catalog list [--json]
//	cairn catalog show [NAME | --file PATH] [--memory-server NAME...]
//	cairn catalog check [PATH | --catalog NAME] [--tools-list FILE] [--json]
//	cairn catalog derive --tools-list FILE --name NAME/N --server NAME... --search TOOL=SCOPE...
//	cairn explain [CODE | --list] [--json]
//	cairn version [--json]
//	cairn completion (bash | zsh | fish)
//	cairn help [COMMAND...]
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

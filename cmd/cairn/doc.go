// Command cairn is the command line: the kong grammar, the CAIRN_EVAL
// gate, the wiring of safe input to the audit, the JSON and human reports,
// and exit codes. It holds no audit logic.
//
//	cairn eval protocol (--codex-jsonl PATH | --claude-jsonl PATH | --trajectory PATH) [--json] [--capture-authorized]
package main

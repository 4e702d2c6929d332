// Package normalize maps every input format to the shared event model of
// package audit, one front end per format: Codex items after the
// lifecycle FSMs (SPEC §4.4), trajectory events (§5), Claude Code
// stream-json (§9), Gemini CLI stream-json (§11), Pi JSON mode (§12),
// OpenCode's run stream and export (§13), GitHub Copilot CLI JSONL
// (§17), Qwen Code stream-json (§18) and the Cline CLI's --json stream
// (§19). Each front end holds its format's exact tables (record types,
// memory server and tool names, the places a finding may name) and reads
// search results one way (result.go); the JSONL front ends share one read
// loop (read.go), the document formats (trajectory, OpenCode export)
// readDocument.
//
// It does not correlate calls across the whole input or judge them: the
// audit engine does.
package normalize

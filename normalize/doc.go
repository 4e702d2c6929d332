// Package normalize maps both inputs to the shared event model of package
// audit: Codex items after the lifecycle FSMs (SPEC §4.4) and trajectory
// events (SPEC §5), with the exact tables of memory server and tool names
// and the interpretation of search results.
//
// It does not correlate calls across the whole input or judge them: the
// audit engine does.
package normalize

package protocol

import (
	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/normalize"
)

// A Format is one row of the table of input formats (SPEC §14.3): the
// command line's input flags and help, eval batch's --format values, the
// completions, the report schema's enums and the docs' lists are all
// derived from Formats, and tests hold each of them to it. Adding a
// format is its front end in package normalize plus one row here.
type Format struct {
	// Name is the --format name and the report's input.format; the input
	// flag of eval protocol is --Name.
	Name string
	// Harness is the report's input.harness; "" when the input names it
	// (a trajectory's harness member).
	Harness string
	// Section is the SPEC section that is the format's contract.
	Section string
	// Help says, in a phrase, what the format is: what prints it.
	Help string
	// Unit names one record for people: "line" (JSONL), "event" (a
	// trajectory's) or "message" (an OpenCode export's).
	Unit string
	// Places is the format's where vocabulary (SPEC §7.1): every place a
	// finding or an error may name.
	Places func() []string
	// Noun names the format for people in a hint: "a Claude Code
	// stream-json".
	Noun string
	// Looks is how the format's input begins: what tells it from the
	// others when it was given as another (SPEC §14.3).
	Looks Looks

	read normalize.Reader
}

// Looks describes the first JSON value of a format's input (its first
// record, or a document's top-level object) as a stream.Head notes it: an
// object that has every one of Members and none of Without, whose member
// named by each key of Values is a string, one of that key's words, and
// whose first member is First when First is set. The rows' Looks tell
// every format from every other on the real inputs
// (TestLooksTellFormatsApart).
type Looks struct {
	Members []string
	Without []string
	Values  map[string][]string
	First   string
}

// formats is the table, in the order the docs and the help list them.
var formats = []Format{
	{Name: audit.FormatCodex, Harness: "codex", Section: "§4", Unit: "line",
		Help:   "a codex exec --json export (JSONL)",
		Places: lifecycle.Places, read: normalize.ReadCodex,
		Noun:  "a Codex exec JSONL stream",
		Looks: Looks{Values: map[string][]string{"type": {"thread.started", "turn.started"}}}},
	{Name: audit.FormatClaude, Harness: "claude-code", Section: "§9", Unit: "line",
		Help:   "a claude -p --output-format stream-json --verbose stream (JSONL)",
		Places: normalize.ClaudePlaces, read: normalize.ReadClaude,
		Noun:  "a Claude Code stream-json",
		Looks: Looks{Members: []string{"mcp_servers"}, Without: []string{"qwen_code_version"}, Values: map[string][]string{"type": {"system"}, "subtype": {"init"}}}},
	{Name: audit.FormatGemini, Harness: "gemini-cli", Section: "§11", Unit: "line",
		Help:   "a gemini -p --output-format stream-json stream (JSONL)",
		Places: normalize.GeminiPlaces, read: normalize.ReadGemini,
		Noun:  "a Gemini CLI stream-json",
		Looks: Looks{Members: []string{"session_id", "model"}, Values: map[string][]string{"type": {"init"}}}},
	{Name: audit.FormatPi, Harness: "pi", Section: "§12", Unit: "line",
		Help:   "a pi --mode json stream (JSONL)",
		Places: normalize.PiPlaces, read: normalize.ReadPi,
		Noun:  "a Pi JSON mode stream",
		Looks: Looks{Members: []string{"version"}, Values: map[string][]string{"type": {"session"}}}},
	{Name: audit.FormatOpenCode, Harness: "opencode", Section: "§13", Unit: "line",
		Help:   "an opencode run --format json stream (JSONL)",
		Places: normalize.OpenCodePlaces, read: normalize.ReadOpenCode,
		Noun:  "an OpenCode run --format json stream",
		Looks: Looks{Members: []string{"sessionID"}, Values: map[string][]string{"type": {"step_start", "error"}}}},
	{Name: audit.FormatOpenCodeEx, Harness: "opencode", Section: "§13", Unit: "message",
		Help:   "the document opencode export SESSION prints (JSON)",
		Places: normalize.OpenCodeExportPlaces, read: normalize.ReadOpenCodeExport,
		Noun:  "an OpenCode export",
		Looks: Looks{First: "info"}},
	{Name: audit.FormatCopilot, Harness: "copilot", Section: "§17", Unit: "line",
		Help:   "a copilot -p --output-format json stream (JSONL)",
		Places: normalize.CopilotPlaces, read: normalize.ReadCopilot,
		Noun:  "a GitHub Copilot CLI JSONL stream",
		Looks: Looks{Members: []string{"data", "parentId"}}},
	{Name: audit.FormatQwen, Harness: "qwen-code", Section: "§18", Unit: "line",
		Help:   "a qwen -p --output-format stream-json stream (JSONL)",
		Places: normalize.QwenPlaces, read: normalize.ReadQwen,
		Noun:  "a Qwen Code stream-json",
		Looks: Looks{Members: []string{"mcp_servers", "qwen_code_version"}, Values: map[string][]string{"type": {"system"}, "subtype": {"init"}}}},
	{Name: audit.FormatCline, Harness: "cline", Section: "§19", Unit: "line",
		Help:   "a cline --json stream (JSONL)",
		Places: normalize.ClinePlaces, read: normalize.ReadCline,
		Noun:  "a Cline CLI JSON stream",
		Looks: Looks{Members: []string{"hookEventName"}, Values: map[string][]string{"type": {"hook_event"}}}},
	{Name: audit.FormatTrajectory, Section: "§5", Unit: "event",
		Help:   "a normalized Claude Code, OpenCode or Pi trajectory",
		Places: normalize.TrajectoryPlaces, read: normalize.ReadTrajectory,
		Noun:  "a normalized trajectory",
		Looks: Looks{Members: []string{"schema_version", "events"}}},
}

// Formats returns the table of input formats.
func Formats() []Format { return append([]Format(nil), formats...) }

// FormatNamed returns the row of the format name, and false for a name
// outside the table.
func FormatNamed(name string) (Format, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

package catalog

// A Code is a fixed code of 'cairn catalog' (SPEC §16.5) about a saved
// tools/list answer: a problem with the file (it stops the command, exit
// 2), a finding of 'check' when a catalog and the server disagree (exit 1),
// or why 'derive' cannot write a catalog (exit 2). These are not report
// codes (SPEC §8): no report holds them.
type Code uint8

// The codes, in the order explain lists them.
const (
	_ Code = iota

	// the tools/list file (check --tools-list, derive): exit 2
	ToolsListUnreadable
	ToolsListInvalid
	ToolsListIncomplete

	// check --tools-list: exit 1
	ToolNotOnServer
	ServerToolUndeclared
	ClassWeakerThanAnnotations

	// derive: exit 2
	SearchToolNotOnServer
	SearchNotReadOnly
	SearchWithoutOutputSchema
	SearchOutputSchemaUnusable
	ServerToolNameUnusable
	ServerToolsTooMany

	numCodes
)

// CodeKind groups the codes by what they stop.
type CodeKind uint8

const (
	KindToolsList CodeKind = iota + 1 // the tools/list file cannot be used: exit 2
	KindFinding                       // check: the catalog and the server disagree: exit 1
	KindDerive                        // derive cannot write the catalog: exit 2
)

type codeInfo struct {
	name    string
	kind    CodeKind
	meaning string
	next    string
}

// codeTable holds every code's fixed texts: what cairn catalog prints,
// chosen by code, never a byte of the files.
var codeTable = [numCodes]codeInfo{
	ToolsListUnreadable: {"tools_list_unreadable", KindToolsList,
		"the tools/list file could not be used as a file (missing, a symbolic link, not a regular file, empty, over 16 MiB, not UTF-8 or with a byte-order mark)",
		"pass the path of a regular UTF-8 file that holds the server's tools/list answer (npx @modelcontextprotocol/inspector --cli CMD --method tools/list > tools.json)"},
	ToolsListInvalid: {"tools_list_invalid", KindToolsList,
		"the file is not an MCP tools/list answer (a JSON-RPC response with a result, or the result alone) whose tools each have a distinct string name, an annotations object with boolean hints and an object outputSchema, where they have them (where says which member)",
		"save the server's answer as it printed it; where names the member that is wrong"},
	ToolsListIncomplete: {"tools_list_incomplete", KindToolsList,
		"the answer is one page of several (it has a nextCursor): tools on the other pages would be missed",
		"save every tool in one answer: ask again with each nextCursor and join the pages' tools into one result"},
	ToolNotOnServer: {"tool_not_on_server", KindFinding,
		"the catalog declares a tool the server does not list: a misspelled name, or another version of the server; a call of the real tool would be an undeclared memory tool",
		"spell the tool exactly as the server's tools/list does, or remove it from the catalog"},
	ServerToolUndeclared: {"server_tool_undeclared", KindFinding,
		"the server lists a tool the catalog does not: every call of it would fail direct_write_boundary as undeclared_memory_tool",
		"add the tool to the catalog with its class (cairn catalog derive gives the class its annotations say)"},
	ClassWeakerThanAnnotations: {"class_weaker_than_annotations", KindFinding,
		"the catalog gives a tool a weaker class than the server's MCP annotations (read where readOnlyHint is not true; not destructive where destructiveHint is true or absent and readOnlyHint is not true), without annotations_override",
		"give the tool the class its annotations say, or add \"annotations_override\": true to it if the weaker class is deliberate (it enters the policy digest)"},
	SearchToolNotOnServer: {"search_tool_not_on_server", KindDerive,
		"a --search names a tool the server does not list (where gives which --search, 0-based)",
		"name a tool of the tools/list answer, spelled exactly as the server spells it"},
	SearchNotReadOnly: {"search_not_read_only", KindDerive,
		"a --search tool is not read-only by the server's annotations (readOnlyHint is not true), and only a read tool can be a search",
		"write that tool's entry by hand, with \"class\": \"read\" and \"annotations_override\": true if it only reads"},
	SearchWithoutOutputSchema: {"search_without_output_schema", KindDerive,
		"a --search tool has no outputSchema, so derive cannot say what its result holds",
		"write the search's result by hand (\"result\": {\"kind\": \"json_object\", \"members\": {...}}, from what the tool returns) in a catalog file, and check it with cairn catalog check"},
	SearchOutputSchemaUnusable: {"search_output_schema_unusable", KindDerive,
		"a --search tool's outputSchema is not an object schema with 1 to 32 required top-level properties of a type a catalog can state (array, object, string, a string enum, boolean, an integer with minimum 0)",
		"write the search's result by hand (\"result\": {\"kind\": \"json_object\", \"members\": {...}}, from what the tool returns) in a catalog file, and check it with cairn catalog check"},
	ServerToolNameUnusable: {"server_tool_name_unusable", KindDerive,
		"a tool of the server has a name a catalog cannot hold (1 to 128 letters, digits, _, . and -)",
		"write the catalog by hand without that tool: a call of it is then an undeclared memory tool (a fail)"},
	ServerToolsTooMany: {"server_tools_too_many", KindDerive,
		"the server lists more than 64 tools, more than a catalog holds",
		"write the catalog by hand with the tools the agent uses: a call of any other is then an undeclared memory tool (a fail)"},
}

// String is the code as cairn prints it.
func (c Code) String() string {
	if c == 0 || c >= numCodes {
		return "unknown"
	}
	return codeTable[c].name
}

// Kind is what the code stops.
func (c Code) Kind() CodeKind { return codeTable[c].kind }

// Meaning is the code's one-line meaning.
func (c Code) Meaning() string { return codeTable[c].meaning }

// Next is what to do about it.
func (c Code) Next() string { return codeTable[c].next }

// MarshalText writes the code's name (for --json).
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Codes are every code, in order.
func Codes() []Code {
	out := make([]Code, 0, numCodes-1)
	for c := Code(1); c < numCodes; c++ {
		out = append(out, c)
	}
	return out
}

// ParseCode finds a code by its exact name.
func ParseCode(name string) (Code, bool) {
	for c := Code(1); c < numCodes; c++ {
		if codeTable[c].name == name {
			return c, true
		}
	}
	return 0, false
}

// A Finding is one code of cairn catalog and where: a place of the
// catalog (catalog.tools[2].class), of the tools/list file
// (tools_list.result.tools[5]) or of the command line (--search[1]);
// Server, when set, is the server tool's place that the finding compares
// with. Never a name or any other byte of the files.
type Finding struct {
	Code   Code
	Where  string
	Server string
}

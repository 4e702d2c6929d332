//go:build unix

package main

// Scenario is one captured codex run (two for resume).
type Scenario struct {
	Name   string
	Doc    string // what the run does, and why the verdict is what it is
	Prompt string
	Script Script

	MCPMode    string // modes of the MCP server (see mcp.go)
	Parallel   bool   // supports_parallel_tool_calls on the MCP server
	UpdatePlan bool   // [tools.update_plan] enabled = true
	// Model overrides the model slug (default gpt-5.5, bundled in every
	// supported release); StreamRetries sets stream_max_retries (default 0);
	// MCPApproval sets default_tools_approval_mode (default approve).
	Model         string
	StreamRetries int
	MCPApproval   string
	// ApprovalPolicy overrides approval_policy (default never).
	ApprovalPolicy string

	Kind string // "" (a prompt run), "sigint", "resume", "review"

	// For Kind "resume": the first run is captured as <Name>-base.jsonl
	// with Script/Prompt, the resumed one as <Name>.jsonl.
	ResumePrompt string
	ResumeScript Script
	ResumeWant   Verdict

	// WantExit is the exit code codex itself must exit with.
	WantExit int
	// Want is the verdict cairn must give by SPEC §4/§6.
	Want Verdict
	// Versions, when set, restricts the scenario to these codex versions;
	// Skip explains why the others are left out.
	Versions func(version string) bool
	Skip     string
}

// Verdict is what cairn eval protocol --json must report.
type Verdict struct {
	Status   string
	ExitCode int
	EC       Check // evidence_complete
	MF       Check // memory_first
	RR       Check // retrieval_result
	DWB      Check // direct_write_boundary
}

// Check is one check's state and codes (sorted by name).
type Check struct {
	State string
	Codes []string
}

var pass = Check{State: "pass"}

func fail(codes ...string) Check         { return Check{State: "fail", Codes: codes} }
func inconclusive(codes ...string) Check { return Check{State: "inconclusive", Codes: codes} }

var allPass = Verdict{Status: "pass", ExitCode: 0, EC: pass, MF: pass, RR: pass, DWB: pass}

const (
	searchArgs       = `{"scope":"project","query":"token refresh retry policy","mode":"semantic","limit":5}`
	searchArgs2      = `{"scope":"project","query":"release checklist","mode":"substring","limit":5}`
	searchArgsGlobal = `{"scope":"global","query":"token refresh retry policy","mode":"semantic","limit":5}`
	subMarker        = "CAIRN-SUBAGENT-TASK"
)

func search(args string) Item { return Item{Kind: "mcp", Tool: "memory_search", Args: args} }
func say(text string) Item    { return Item{Kind: "message", Text: text} }
func turn(items ...Item) Turn { return Turn{Items: items} }

const prompt = "Before changing anything, look up what the project memory says about the token refresh retry policy, then summarize it."

func scenarios() []Scenario {
	final := say("The project memory says token refresh retries use exponential backoff with at most 3 attempts.")
	return []Scenario{
		{
			Name:   "memory-first",
			Doc:    "memory_search (scope project) first, a result, then the final message: the perfect run.",
			Prompt: prompt,
			Script: Script{Prefix: "a", Turns: []Turn{turn(search(searchArgs)), turn(final)}},
			Want:   allPass,
		},
		{
			Name:   "shell-first",
			Doc:    "a shell command before the memory search: the first dispatched call is a command, and its effects are opaque.",
			Prompt: prompt,
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(Item{Kind: "shell", Cmd: "ls"}),
				turn(search(searchArgs)),
				turn(final),
			}},
			Want: Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: fail("tool_before_project_search"), RR: pass, DWB: inconclusive("opaque_tool_effects")},
		},
		{
			Name:     "parallel-search",
			Doc:      "two project-scoped memory_search calls in one model response, with supports_parallel_tool_calls: both in flight at once.",
			Prompt:   prompt,
			Parallel: true,
			MCPMode:  "slow",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs), search(searchArgs2)),
				turn(final),
			}},
			Want: allPass,
		},
		{
			Name:    "search-error",
			Doc:     "the memory_search result has isError: true (status failed, result filled, error null): the search is first, but its result is an error result.",
			Prompt:  prompt,
			MCPMode: "search-error",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(say("The project memory could not be searched: the index is locked.")),
			}},
			Want: Verdict{Status: "inconclusive", ExitCode: 3, EC: pass, MF: pass, RR: inconclusive("search_result_error"), DWB: pass},
		},
		{
			Name:    "result-meta",
			Doc:     "the memory_search result carries MCP _meta (printed as result._meta since 0.132, dropped before): _meta is free-form, so the run passes.",
			Prompt:  prompt,
			MCPMode: "meta",
			Script:  Script{Prefix: "a", Turns: []Turn{turn(search(searchArgs)), turn(final)}},
			Want:    allPass,
		},
		{
			Name:   "memory-store",
			Doc:    "a project search, then memory_store: an additive mutation without --capture-authorized.",
			Prompt: prompt + " Then record that you checked it.",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(Item{Kind: "mcp", Tool: "memory_store", Args: `{"scope":"project","key":"notes/cairn-harness","text":"Checked the token refresh retry policy."}`}),
				turn(say("Recorded the check in the project memory.")),
			}},
			Want: Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: pass, RR: pass, DWB: fail("direct_mutation_unauthorized")},
		},
		{
			Name:    "delete-fail",
			Doc:     "a project search, then memory_delete, which the server refuses (a JSON-RPC error: status failed, error set): a failed destructive attempt still counts.",
			Prompt:  prompt + " Then delete the stale entry.",
			MCPMode: "delete-fail",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(Item{Kind: "mcp", Tool: "memory_delete", Args: `{"scope":"project","key":"decisions/token-refresh-old"}`}),
				turn(say("The stale entry could not be deleted.")),
			}},
			Want: Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: pass, RR: pass, DWB: fail("destructive_mutation")},
		},
		{
			Name:   "web-search",
			Doc:    "a project search, then a web_search_call from the model: web search is an opaque call.",
			Prompt: prompt + " Compare it with current best practice on the web.",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(Item{Kind: "web_search", Text: "token refresh retry exponential backoff best practice"}, say("The project policy matches common practice: exponential backoff, few attempts.")),
			}},
			Want: Verdict{Status: "inconclusive", ExitCode: 3, EC: pass, MF: pass, RR: pass, DWB: inconclusive("opaque_tool_effects")},
		},
		{
			Name:       "todo-plan",
			Doc:        "update_plan (a todo_list item, started then updated), a project search, a second plan update, the answer: todo_list is counted only, never a call.",
			Prompt:     prompt + " Keep a plan.",
			UpdatePlan: true,
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(Item{Kind: "plan", Args: `{"explanation":"Check memory first.","plan":[{"step":"Search project memory","status":"in_progress"},{"step":"Summarize","status":"pending"}]}`}),
				turn(search(searchArgs)),
				turn(Item{Kind: "plan", Args: `{"plan":[{"step":"Search project memory","status":"completed"},{"step":"Summarize","status":"in_progress"}]}`}),
				turn(final),
			}},
			Want: allPass,
		},
		{
			Name:   "collab",
			Doc:    "a project search, then spawn_agent and wait (multi-agent collab_tool_call items), then the answer: collab calls are opaque.",
			Prompt: prompt + " Ask a helper agent to double-check it.",
			Script: Script{Prefix: "a",
				Turns: []Turn{
					turn(search(searchArgs)),
					turn(Item{Kind: "func", Tool: "spawn_agent", Args: `{"message":"` + subMarker + `: reply with the word checked."}`}),
					turn(Item{Kind: "wait"}),
					turn(say("The helper agent confirmed the policy.")),
				},
				SubMarker: subMarker,
				Sub:       []Turn{turn(say("checked"))},
			},
			Want: Verdict{Status: "inconclusive", ExitCode: 3, EC: pass, MF: pass, RR: pass, DWB: inconclusive("opaque_tool_effects")},
		},
		{
			Name:     "http-400",
			Doc:      "the model server answers the first request with HTTP 400: turn.failed before any call, so absence of a search is not proven.",
			Prompt:   prompt,
			Script:   Script{Prefix: "a", Turns: []Turn{{Status: 400}}},
			WantExit: 1,
			Want:     Verdict{Status: "inconclusive", ExitCode: 3, EC: inconclusive("turn_failed"), MF: inconclusive("turn_failed"), RR: inconclusive("turn_failed"), DWB: pass},
		},
		{
			Name:   "sigint",
			Doc:    "a project search, then `sleep 30`; codex gets SIGINT while the command runs: the stream ends with the command open and no terminal record.",
			Prompt: prompt + " Then wait for the cache to settle.",
			Kind:   "sigint",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(Item{Kind: "shell", Cmd: "sleep 30"}),
				turn(final),
			}},
			WantExit: -1, // any non-zero
			Want:     Verdict{Status: "inconclusive", ExitCode: 3, EC: inconclusive("call_incomplete", "turn_incomplete"), MF: pass, RR: pass, DWB: inconclusive("opaque_tool_effects")},
		},
		{
			Name:         "resume",
			Doc:          "resume-base.jsonl is a perfect run; resume.jsonl is `codex exec resume <thread>` of it, whose new turn searches again and answers.",
			Prompt:       prompt,
			Kind:         "resume",
			Script:       Script{Prefix: "a", Turns: []Turn{turn(search(searchArgs)), turn(final)}},
			Want:         allPass,
			ResumePrompt: "Check the project memory again for the release checklist.",
			ResumeScript: Script{Prefix: "b", Turns: []Turn{turn(search(searchArgs2)), turn(say("The release checklist entry is unchanged."))}},
			ResumeWant:   allPass,
		},
		{
			Name:   "review",
			Doc:    "`codex exec review --uncommitted` on a one-line change; the model answers with its review at once: no call at all in a completed turn.",
			Prompt: "",
			Kind:   "review",
			Script: Script{Prefix: "a", Turns: []Turn{turn(say(`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"The change only edits documentation.","overall_confidence_score":0.9}`))}},
			Want:   Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: fail("project_search_absent"), RR: fail("project_search_absent"), DWB: pass},
		},
		{
			Name:   "file-change",
			Doc:    "a project search, then apply_patch adding a file (a file_change item, started then completed), then the answer: file changes are opaque.",
			Prompt: prompt + " Then write it down in NOTES.md.",
			Script: Script{Prefix: "a", Turns: []Turn{
				turn(search(searchArgs)),
				turn(Item{Kind: "patch", Text: "*** Begin Patch\n*** Add File: NOTES.md\n+Token refresh: exponential backoff, at most 3 attempts.\n*** End Patch\n"}),
				turn(say("Wrote NOTES.md.")),
			}},
			Want: Verdict{Status: "inconclusive", ExitCode: 3, EC: pass, MF: pass, RR: pass, DWB: inconclusive("opaque_tool_effects")},
		},
		{
			Name:          "stream-retry",
			Doc:           "the first model stream is cut before response.completed; with stream_max_retries = 1 codex prints a top-level error (Reconnecting... 1/1) and retries; then the perfect run.",
			Prompt:        prompt,
			StreamRetries: 1,
			Script:        Script{Prefix: "a", Turns: []Turn{{Items: []Item{search(searchArgs)}, DropFirst: true}, turn(final)}},
			Want:          allPass,
		},
		{
			Name:   "unknown-model",
			Doc:    "model cairn-offline-model has no bundled metadata: codex prints an error item before turn.started, then the perfect run.",
			Prompt: prompt,
			Model:  "cairn-offline-model",
			Script: Script{Prefix: "a", Turns: []Turn{turn(search(searchArgs)), turn(final)}},
			Want:   allPass,
		},
		{
			Name:   "global-search-first",
			Doc:    "the first call is memory_search with scope global: not project-scoped, and no project search follows.",
			Prompt: prompt,
			Script: Script{Prefix: "a", Turns: []Turn{turn(search(searchArgsGlobal)), turn(final)}},
			Want:   Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: fail("first_search_not_project_scoped"), RR: fail("project_search_absent"), DWB: pass},
		},
		{
			Name:   "message-only",
			Doc:    "the model answers at once from its own knowledge: a completed turn with no call, so the search is proven absent.",
			Prompt: prompt,
			Script: Script{Prefix: "a", Turns: []Turn{turn(final)}},
			Want:   Verdict{Status: "fail", ExitCode: 1, EC: pass, MF: fail("project_search_absent"), RR: fail("project_search_absent"), DWB: pass},
		},
	}
}

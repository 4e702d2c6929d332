//go:build unix

package main

// The scenarios: what the scripted model answers, how claude is started, and
// the verdict that SPEC §9 and §6 demand for the stream it prints. The
// verdicts are derived by hand from the spec (there is no cairn adapter for
// this format yet); each carries its reasoning, which goes into
// testdata/claude/real/README.md.

const prompt = "What does the project memory say about the release ledger?"

// workDir is claude's fixed working directory; the harness lays it anew for
// every run.
const workDir = "/tmp/cairn-claude-work"

// bashMarker is touched by the scripted long Bash command, so the runner
// knows when to interrupt claude.
const bashMarker = workDir + "/.bash-started"

type scenario struct {
	name     string
	about    string   // what the run does (README)
	why      string   // the reasoning for its verdict (README)
	server   string   // the MCP server's configured name; "" = cairn-memory
	mcpArgs  []string // flags for scripts/claude-real/mcpserver
	mcpCmd   string   // a command to start instead of mcpserver (a missing one)
	allow    []string // allowedTools beyond the defaults
	disallow []string // disallowedTools
	args     []string // more claude flags
	env      []string // more environment
	prompts  []string // two or more: fed as --input-format stream-json
	main     []step   // the main agent's answers, by step
	sub      []step   // a sub-agent's answers (its prompt holds subMarker)
	sigint   bool     // interrupt claude once the long Bash command runs
	mode     string   // --permission-mode; "" = manual (printed as "default")
	want     checks
}

func (s *scenario) serverName() string {
	if s.server == "" {
		return "cairn-memory"
	}
	return s.server
}

func (s *scenario) permissionMode() string {
	if s.mode == "" {
		return "manual"
	}
	return s.mode
}

func mt(server, tool string) string { return "mcp__" + server + "__" + tool }

func toolSearch(id string, names ...string) block {
	q := "select:"
	for i, n := range names {
		if i > 0 {
			q += ","
		}
		q += n
	}
	return tool(id, "ToolSearch", o("query", q, "max_results", len(names)))
}

func search(id, server string, scoped bool) block {
	in := o("query", "release ledger")
	if scoped {
		in = append(in, kv("scope", "project"))
	}
	return tool(id, mt(server, "memory_search"), in)
}

func say(s string) step { return step{blocks: []block{text(s)}} }

func one(b ...block) step { return step{blocks: b} }

const answer = "The project memory says the release ledger lives in src/release-ledger.mjs and keeps amounts in integer cents."

var (
	pass = check{State: "pass", Codes: []string{}}
)

func inc(codes ...string) check  { return check{State: "inconclusive", Codes: codes} }
func fail(codes ...string) check { return check{State: "fail", Codes: codes} }

func allScenarios() []*scenario {
	const cm = "cairn-memory"
	s := []*scenario{
		{
			name:  "memory-first",
			about: "the perfect run, tool search on (the default): ToolSearch loads memory_search, memory_search {scope:project} returns {mode,count,results} as text and structuredContent, then the answer",
			why:   "ToolSearch is tool discovery, not a call (§9), so the first call is a project-scoped memory_search; its result (tool_use_result.structuredContent) is an object with mode semantic, integer count and array results; no mutation and no opaque call; the result closes the turn with success/completed",
			main: []step{
				one(toolSearch("toolu_01TsA", mt(cm, "memory_search"))),
				one(text("Let me search the project memory."), search("toolu_01SearchA", cm, true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "bash-first",
			about: "a built-in tool first: Bash `ls`, then ToolSearch, memory_search {scope:project}, answer",
			why:   "the first dispatched call is Bash, an opaque call: memory_first fails tool_before_project_search; the later project search still has a good result (retrieval pass); Bash is an opaque effect and there is no mutation, so direct_write_boundary is inconclusive opaque_tool_effects",
			main: []step{
				one(tool("toolu_01BashA", "Bash", o("command", "ls", "description", "List the project files"))),
				one(toolSearch("toolu_01TsB", mt(cm, "memory_search"))),
				one(search("toolu_01SearchB", cm, true)),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "parallel-calls",
			about: "ToolSearch, then one response with text + memory_search {scope:project} + Read README.md (parallel calls sharing one message.id), then the answer",
			why:   "calls are dispatched in record order: memory_search comes before Read, so memory_first passes; the search result is good; Read is an opaque call, so direct_write_boundary is inconclusive opaque_tool_effects",
			main: []step{
				one(toolSearch("toolu_01TsC", mt(cm, "memory_search"))),
				one(text("I'll search memory and read the README in parallel."), search("toolu_01SearchC", cm, true),
					tool("toolu_01ReadC", "Read", o("file_path", workDir+"/README.md"))),
				say(answer),
			},
			want: four(pass, pass, pass, inc("opaque_tool_effects")),
		},
		{
			name:    "search-is-error",
			about:   "memory_search answers MCP isError:true (\"index unavailable\")",
			why:     "the first call is still a project search (memory_first pass); its only result is an error result (is_error true): retrieval_result inconclusive search_result_error",
			mcpArgs: []string{"-search-error"},
			main: []step{
				one(toolSearch("toolu_01TsD", mt(cm, "memory_search"))),
				one(search("toolu_01SearchD", cm, true)),
				say("The memory index is unavailable right now."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:  "search-unscoped",
			about: "memory_search without a scope",
			why:   "the first call is a memory_search whose scope is missing: memory_first fails first_search_not_project_scoped; there is no project-scoped search at all and the evidence is complete: retrieval_result fails project_search_absent",
			main: []step{
				one(toolSearch("toolu_01TsE", mt(cm, "memory_search"))),
				one(search("toolu_01SearchE", cm, false)),
				say(answer),
			},
			want: four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass),
		},
		{
			name:    "search-rpc-error",
			about:   "memory_search answers a JSON-RPC error (-32602) instead of a result",
			why:     "the first call is a project search (pass); its only result is an error result: retrieval_result inconclusive search_result_error",
			mcpArgs: []string{"-rpc-error-tool", "memory_search"},
			main: []step{
				one(toolSearch("toolu_01TsZ", mt(cm, "memory_search"))),
				one(search("toolu_01SearchZ", cm, true)),
				say("The memory search failed."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:    "search-empty",
			about:   "memory_search finds nothing: {mode:semantic,count:0,results:[]}",
			why:     "zero hits is a successful observation (§6.3): all pass",
			mcpArgs: []string{"-empty-search"},
			main: []step{
				one(toolSearch("toolu_01TsE2", mt(cm, "memory_search"))),
				one(search("toolu_01SearchE2", cm, true)),
				say("The project memory has nothing about the release ledger."),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "thinking",
			about: "a response of thinking + redacted_thinking + memory_search {scope:project} (after ToolSearch), then the answer",
			why:   "thinking and redacted_thinking are reasoning blocks of the contract, never calls; the first call is a good project search: all pass",
			main: []step{
				one(toolSearch("toolu_01TsTh", mt(cm, "memory_search"))),
				one(block{kind: "thinking", text: "The user asks about the ledger; search the project memory first."},
					block{kind: "redacted_thinking", text: "EmwKAhgBEgy3cairnRedactedThinkingBlockForTheCaptureOnly"},
					search("toolu_01SearchTh", cm, true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "web-search",
			about: "ToolSearch, a good project search, then the built-in WebSearch (its own API request carries the web_search server tool; the mock answers server_tool_use + web_search_tool_result + text there), then the answer",
			why:   "the first call is a good project search (pass, pass); WebSearch is a built-in tool, an opaque call: direct_write_boundary inconclusive opaque_tool_effects; the server tool blocks stay inside the WebSearch request and never reach the stream",
			allow: []string{"WebSearch"},
			main: []step{
				one(toolSearch("toolu_01TsWs", mt(cm, "memory_search"))),
				one(search("toolu_01SearchWs", cm, true)),
				one(tool("toolu_01WebWs", "WebSearch", o("query", "release ledger integer cents"))),
				say(answer),
			},
			want: four(pass, pass, pass, inc("opaque_tool_effects")),
		},
		{
			name:  "tool-use-extra-member",
			about: "the perfect run, but the mock's tool_use blocks carry an extra member `caller: {type: direct}` (as the API adds for programmatic tool calling): the CLI passes it through verbatim",
			why:   "caller is a contract member of tool_use (SPEC v3 §9): a direct caller is the model's own call, so the run passes every check like the perfect run",
			main: []step{
				one(block{id: "toolu_01TsCa", name: "ToolSearch", input: o("query", "select:"+mt(cm, "memory_search"), "max_results", 1), extra: o("caller", o("type", "direct"))}),
				one(block{id: "toolu_01SearchCa", name: mt(cm, "memory_search"), input: o("query", "release ledger", "scope", "project"), extra: o("caller", o("type", "direct"))}),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "store-allowed",
			about: "memory_search, then memory_store, allowed by --allowedTools",
			why:   "memory_store is a catalog capture (additive) mutation and cairn runs without --capture-authorized: direct_write_boundary fails direct_mutation_unauthorized; search first and good",
			allow: []string{mt(cm, "memory_store")},
			main: []step{
				one(toolSearch("toolu_01TsF", mt(cm, "memory_search"), mt(cm, "memory_store"))),
				one(search("toolu_01SearchF", cm, true)),
				one(tool("toolu_01StoreF", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("Stored a note about the ledger."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:  "store-denied",
			about: "memory_search, then memory_store, which is not in --allowedTools: the CLI denies it (system/permission_denied, result.permission_denials)",
			why:   "a denied call was still attempted and counts (§6.4, §9): direct_write_boundary fails direct_mutation_unauthorized; the permission_denied record is benign",
			main: []step{
				one(toolSearch("toolu_01TsG", mt(cm, "memory_search"), mt(cm, "memory_store"))),
				one(search("toolu_01SearchG", cm, true)),
				one(tool("toolu_01StoreG", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("I was not allowed to store the note."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:     "store-disallowed",
			about:    "memory_store removed with --disallowedTools; the model calls it anyway and gets \"No such tool available\"",
			why:      "a call to a tool that does not exist was still attempted (§9 last bullet): its name is a catalog capture tool, so direct_write_boundary fails direct_mutation_unauthorized",
			disallow: []string{mt(cm, "memory_store")},
			main: []step{
				one(toolSearch("toolu_01TsH", mt(cm, "memory_search"))),
				one(search("toolu_01SearchH", cm, true)),
				one(tool("toolu_01StoreH", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("The store tool is not available."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:  "delete-fails",
			about: "memory_search, then memory_delete (allowed), which the server refuses with isError:true",
			why:   "memory_delete is a catalog destructive mutation; a failed attempt counts: direct_write_boundary fails destructive_mutation",
			allow: []string{mt(cm, "memory_delete")},
			main: []step{
				one(toolSearch("toolu_01TsI", mt(cm, "memory_search"), mt(cm, "memory_delete"))),
				one(search("toolu_01SearchI", cm, true)),
				one(tool("toolu_01DeleteI", mt(cm, "memory_delete"), o("id", "mem_1"))),
				say("The delete was refused."),
			},
			want: four(pass, pass, pass, fail("destructive_mutation")),
		},
		{
			name:  "no-call",
			about: "the model answers at once, no tool call",
			why:   "no call at all, the turn ended with success/completed and the memory server was connected: memory_first and retrieval_result fail project_search_absent (narration is never evidence)",
			main:  []step{say(answer)},
			want:  four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:  "api-error-500",
			about: "ToolSearch and a good project search, then HTTP 500 on every later request (CLAUDE_CODE_MAX_RETRIES=2): api_retry records, the synthetic API-error assistant line, result is_error/api_error, exit 1",
			why:   "the result has is_error true and terminal_reason api_error: turn_failed; the observed first call is a project search with a good result, which stays a pass; the api_retry and API-error lines are stream errors, not calls",
			main: []step{
				one(toolSearch("toolu_01TsJ", mt(cm, "memory_search"))),
				one(search("toolu_01SearchJ", cm, true)),
				httpErr(500, "api_error", "Internal server error"),
			},
			want: four(inc("turn_failed"), pass, pass, pass),
		},
		{
			name:  "api-error-529-start",
			about: "HTTP 529 overloaded on the very first request, through all retries",
			why:   "no call was made, but the turn failed (is_error, api_error), so absence is not proven: memory_first and retrieval_result inconclusive turn_failed; nothing was called, so direct_write_boundary passes",
			main:  []step{httpErr(529, "overloaded_error", "Overloaded")},
			want:  four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:  "api-error-400",
			about: "ToolSearch, then HTTP 400 invalid_request_error on every later request (the CLI resends it, 2.1.332 also without tool search, but prints no api_retry)",
			why:   "ToolSearch is not a call, so no call was made before the failed turn: memory_first and retrieval_result inconclusive turn_failed",
			main: []step{
				one(toolSearch("toolu_01TsK", mt(cm, "memory_search"))),
				httpErr(400, "invalid_request_error", "messages: mock rejects this request"),
			},
			want: four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:  "max-tokens-tool-use",
			about: "ToolSearch, then a memory_search whose input JSON is cut by stop_reason max_tokens (the CLI prints input {__unparsedToolInput}), then a complete memory_search {scope:project}, answer",
			why:   "the cut call is message_aborted: its scope is unknown, and as the first main-agent call it makes memory_first inconclusive message_aborted; the second search is a project search with a good result, so retrieval_result passes; evidence_complete carries message_aborted",
			main: []step{
				one(toolSearch("toolu_01TsL", mt(cm, "memory_search"))),
				{blocks: []block{{id: "toolu_01SearchCutL", name: mt(cm, "memory_search"), input: o("query", "pagination of the ledger", "scope", "project"), cut: 20}}},
				one(search("toolu_01SearchL", cm, true)),
				say(answer),
			},
			want: four(inc("message_aborted"), inc("message_aborted"), pass, pass),
		},
		{
			name:  "subagent",
			about: "the main agent calls Agent (foreground, run_in_background false); the sub-agent does ToolSearch and memory_search {scope:project}; the main agent answers",
			why:   "memory_first looks only at main-agent calls, and the first is Agent, an opaque call: fail tool_before_project_search; the sub-agent's project search counts for retrieval_result (its result has no tool_use_result, so the content string is parsed): pass; Agent is an opaque effect: direct_write_boundary inconclusive opaque_tool_effects",
			main: []step{
				one(tool("toolu_01AgentM", "Agent", o("description", "Search project memory", "prompt", subMarker+": search the project memory for the release ledger and report what you find.", "subagent_type", "general-purpose", "run_in_background", false))),
				say(answer),
			},
			sub: []step{
				one(toolSearch("toolu_01SubTsM", mt(cm, "memory_search"))),
				one(search("toolu_01SubSearchM", cm, true)),
				say("Memory mem_1: the release ledger lives in src/release-ledger.mjs; amounts are integer cents."),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "subagent-background",
			about: "as subagent, but Agent without run_in_background (the default: background); the task notification starts a second turn (second init, two results)",
			why:   "as subagent: the first main-agent call is Agent (fail tool_before_project_search), the sub-agent's project search has a good result (pass), Agent is opaque (inconclusive opaque_tool_effects); both turns close with success/completed",
			main: []step{
				one(tool("toolu_01AgentN", "Agent", o("description", "Search project memory", "prompt", subMarker+": search the project memory for the release ledger and report what you find.", "subagent_type", "general-purpose"))),
				say("I started a background agent to search the memory."),
				say(answer),
			},
			sub: []step{
				one(toolSearch("toolu_01SubTsN", mt(cm, "memory_search"))),
				one(search("toolu_01SubSearchN", cm, true)),
				say("Memory mem_1: the release ledger lives in src/release-ledger.mjs; amounts are integer cents."),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "partial-messages",
			about: "memory-first with --include-partial-messages (stream_event and system/status lines)",
			why:   "stream_event and system/status are benign, never calls (a partial tool_use in a stream_event is not a call): the same verdict as memory-first",
			args:  []string{"--include-partial-messages"},
			main: []step{
				one(toolSearch("toolu_01TsO", mt(cm, "memory_search"))),
				one(text("Let me search the project memory."), search("toolu_01SearchO", cm, true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:   "sigint-bash",
			about:  "ToolSearch, a good project search, then a long Bash command; the harness sends SIGINT to claude while it runs (result error_during_execution / aborted_tools; claude exits 0)",
			why:    "the result is error_during_execution: turn_failed; the first call is a good project search (pass, pass); the interrupted Bash got an error tool_result, so no call is incomplete, but it is an opaque call: direct_write_boundary inconclusive opaque_tool_effects",
			sigint: true,
			main: []step{
				one(toolSearch("toolu_01TsP", mt(cm, "memory_search"))),
				one(search("toolu_01SearchP", cm, true)),
				one(tool("toolu_01BashP", "Bash", o("command", "touch "+bashMarker+" && /usr/bin/python3 -c 'import time; time.sleep(60)'", "description", "Wait for the memory index"))),
				say(answer),
			},
			want: four(inc("turn_failed"), pass, pass, inc("opaque_tool_effects")),
		},
		{
			name:  "sigint-streaming",
			about: "ToolSearch, a good project search, then the answer's text streams and the stream stalls before its content_block_stop; the harness sends SIGINT (assistant line with aborted:true, result aborted_streaming)",
			why:   "aborted:true is message_aborted and the result is error_during_execution (turn_failed); the aborted record is text, not a call, so memory_first and retrieval_result still pass on the observed search",
			main: []step{
				one(toolSearch("toolu_01TsQ", mt(cm, "memory_search"))),
				one(search("toolu_01SearchQ", cm, true)),
				{blocks: []block{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true},
			},
			want: four(inc("message_aborted", "turn_failed"), pass, pass, pass),
		},
		{
			name:  "sigint-after-text",
			about: "as sigint-streaming, but the stream stalls after the text block's content_block_stop (only message_delta and message_stop missing)",
			why:   "the result is error_during_execution (turn_failed); the text line carries no aborted flag here, so there is no message_aborted; memory_first and retrieval_result pass on the observed search",
			main: []step{
				one(toolSearch("toolu_01TsX", mt(cm, "memory_search"))),
				one(search("toolu_01SearchX", cm, true)),
				{blocks: []block{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true, hangAfterStop: true},
			},
			want: four(inc("turn_failed"), pass, pass, pass),
		},
		{
			name:  "sigint-in-tool-use",
			about: "ToolSearch, then a response of text + memory_search whose tool_use stalls before its content_block_stop; the harness sends SIGINT. The CLI prints the finished text (no aborted flag) and drops the unfinished tool_use: it never appears",
			why:   "no call is visible (ToolSearch is discovery) and the result is error_during_execution / aborted_streaming: absence is not proven, so memory_first and retrieval_result are inconclusive turn_failed; nothing aborted is printed, so no message_aborted",
			main: []step{
				one(toolSearch("toolu_01TsY", mt(cm, "memory_search"))),
				{blocks: []block{text("Searching."), search("toolu_01SearchY", cm, true)}, hang: true},
			},
			want: four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:   "server-underscore",
			about:  "the perfect run with the server configured as cairn_memory (tools mcp__cairn_memory__*)",
			why:    "mcp__cairn_memory__memory_search is in the exact name table (§9): the same verdict as memory-first",
			server: "cairn_memory",
			main: []step{
				one(toolSearch("toolu_01TsR", mt("cairn_memory", "memory_search"))),
				one(search("toolu_01SearchR", "cairn_memory", true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:    "server-fails",
			about:   "the memory server exits at once (init mcp_servers status failed); the model answers without a call",
			why:     "no call and a complete turn would fail project_search_absent, but the first init says cairn-memory failed: memory_first and retrieval_result become inconclusive memory_server_unavailable",
			mcpArgs: []string{"-fail-start"},
			main:    []step{say("No project memory tools are available, so I cannot check the memory.")},
			want:    four(pass, inc("memory_server_unavailable"), inc("memory_server_unavailable"), pass),
		},
		{
			name:   "server-missing",
			about:  "the memory server's command does not exist: init mcp_servers is [] (no entry at all); the model calls mcp__cairn-memory__memory_search {scope:project} anyway and gets \"No such tool available\"",
			why:    "the first call is a project-scoped memory_search by name (memory_first pass: availability turns only fails into memory_server_unavailable); its only result is an error: retrieval_result inconclusive search_result_error",
			mcpCmd: "/nonexistent/cairn-memory-server",
			main: []step{
				one(search("toolu_01SearchS", cm, true)),
				say("The memory tools are not available."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:  "tool-search-off",
			about: "ENABLE_TOOL_SEARCH=false: no ToolSearch tool; memory_search {scope:project} directly, answer",
			why:   "the first call is a good project search: all pass",
			env:   []string{"ENABLE_TOOL_SEARCH=false"},
			main: []step{
				one(search("toolu_01SearchT", cm, true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "tool-search-forced",
			about: "ENABLE_TOOL_SEARCH=true, else the perfect run (in 2.1.332 the same as the default)",
			why:   "as memory-first: ToolSearch is discovery, the first call is a good project search",
			env:   []string{"ENABLE_TOOL_SEARCH=true"},
			main: []step{
				one(toolSearch("toolu_01TsV", mt(cm, "memory_search"))),
				one(search("toolu_01SearchV", cm, true)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "auto-mode",
			about: "--permission-mode auto (2.1.290's default): ToolSearch, a good project search, Bash `ls`, then memory_store (not in --allowedTools); the mock grades every action harmless when the CLI's permission classifier asks, so in 2.1.290 the store runs; 2.1.332 refuses to classify through a gateway and denies the store (system/permission_denied, decision_reason_type classifier)",
			why:   "memory_store is an additive mutation without --capture-authorized: direct_write_boundary fails direct_mutation_unauthorized (fail wins over Bash's opaque_tool_effects); the first call is a good project search; system/informational (auto-mode notice) is a benign record (see the ambiguities)",
			mode:  "auto",
			main: []step{
				one(toolSearch("toolu_01TsW", mt(cm, "memory_search"), mt(cm, "memory_store"))),
				one(search("toolu_01SearchW", cm, true)),
				one(tool("toolu_01BashW", "Bash", o("command", "ls", "description", "List the project files"))),
				one(tool("toolu_01StoreW", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("Stored a note about the ledger."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:    "two-turns",
			about:   "--input-format stream-json with two user messages (the second written after the first result): ToolSearch, search, answer; then a second project search and answer",
			why:     "two turns (init…result twice), both success/completed; the first call is a good project search: all pass",
			prompts: []string{prompt, "And what does it say about rounding?"},
			main: []step{
				one(toolSearch("toolu_01TsU", mt(cm, "memory_search"))),
				one(search("toolu_01SearchU", cm, true)),
				say(answer),
				one(tool("toolu_01SearchU2", mt(cm, "memory_search"), o("query", "rounding", "scope", "project"))),
				say("The memory has nothing more specific about rounding."),
			},
			want: four(pass, pass, pass, pass),
		},
	}
	return s
}

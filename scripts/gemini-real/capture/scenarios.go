//go:build unix

package main

// The scenarios: what the scripted model answers, how gemini is started, and
// the verdict that SPEC §11 and §6 demand for the stream it prints. The
// verdicts are derived by hand from the spec (they were written before the
// adapter); each carries its reasoning, which goes into
// testdata/gemini/real/README.md.

const prompt = "What does the project memory say about the release ledger?"

// workDir is gemini's fixed working directory; the harness lays it anew for
// every run.
const workDir = "/tmp/cairn-gemini-work"

type scenario struct {
	name         string
	about        string   // what the run does (README)
	why          string   // the reasoning for its verdict (README)
	server       string   // the MCP server's configured name; "" = cairn-memory
	mcpArgs      []string // flags for scripts/claude-real/mcpserver
	mcpCmd       string   // a command to start instead of mcpserver (a missing one)
	mcpHang      string   // run mcpserver behind `capture mcp-hang`: calls of this tool never return, and the harness sends SIGINT
	trust        bool     // mcpServers.<name>.trust = true
	noYolo       bool     // run without --yolo (the default approval mode)
	maxAttempts  int      // general.maxAttempts; 0 = the CLI's default
	maxTurns     int      // model.maxSessionTurns; 0 = the CLI's default
	args         []string // more gemini flags
	excludeTools []string // mcpServers.<name>.excludeTools (the server's tools the CLI must not declare)
	// outputFormat is gemini's --output-format; "" = stream-json.
	outputFormat string
	// keep is what <scenario>.jsonl holds: keepStdout (gemini's stdout) or
	// keepSession (the session file the CLI wrote under the scratch HOME;
	// stdout is then kept in the scratch folder only).
	keep     keepKind
	env      []string // more environment
	main     []step   // the main agent's answers, by step
	sub      []step   // a sub-agent's answers (its request declares complete_task)
	wantExit int      // gemini's exit code the scenario expects (checked)
	want     checks
	// wantErr, when set, is the invalid verdict's error instead (checks
	// null): the capture is not the stream-json format.
	wantErr *verr
	// versions where the CLI prints another stream, so the verdict differs:
	// the verdict there and why.
	wantIn map[string]versionWant
}

type versionWant struct {
	want checks
	why  string
}

// keepKind says what a scenario's .jsonl is.
type keepKind int

const (
	keepStdout  keepKind = iota // what gemini printed on stdout
	keepSession                 // the session file ~/.gemini/tmp/<project>/chats/session-*.jsonl
)

// wantFor is the verdict for a capture of the given version.
func (s *scenario) wantFor(version string) verdict {
	if s.wantErr != nil {
		return s.wantErr.Verdict()
	}
	if vw, ok := s.wantIn[version]; ok {
		return vw.want.Verdict()
	}
	return s.want.Verdict()
}

// outputFormatFlag is the value of gemini's --output-format.
func (s *scenario) outputFormatFlag() string {
	if s.outputFormat == "" {
		return "stream-json"
	}
	return s.outputFormat
}

// streamJSON says whether the capture is gemini's stream-json (what
// --gemini-jsonl reads), rather than another output of the CLI.
func (s *scenario) streamJSON() bool {
	return s.keep == keepStdout && s.outputFormatFlag() == "stream-json"
}

func (s *scenario) serverName() string {
	if s.server == "" {
		return "cairn-memory"
	}
	return s.server
}

// mt is the name Gemini CLI gives an MCP tool: mcp_<server>_<tool>.
func mt(server, tool string) string { return "mcp_" + server + "_" + tool }

const cm = "cairn-memory"

func topic(id string) part {
	return call(id, "update_topic", o("title", "Release ledger memory", "strategic_intent", "Search the project memory for the release ledger."))
}

func search(id, server string, scope any) part {
	args := o("query", "release ledger")
	if scope != nil {
		args = append(args, kv("scope", scope))
	}
	return call(id, mt(server, "memory_search"), args)
}

const answer = "The project memory says the release ledger lives in src/release-ledger.mjs and keeps amounts in integer cents."

var pass = check{State: "pass", Codes: []string{}}

func inc(codes ...string) check  { return check{State: "inconclusive", Codes: codes} }
func fail(codes ...string) check { return check{State: "fail", Codes: codes} }

func allScenarios() []*scenario {
	return []*scenario{
		{
			name:  "memory-first",
			about: "the perfect run (--yolo, functionCall ids given): update_topic, then memory_search {scope:project}, whose output is the server's JSON text {mode,count,results}, then the answer",
			why:   "update_topic is bookkeeping, never the first call (§11), so the first call is a project-scoped mcp_cairn-memory_memory_search; its output is a string holding one JSON object with mode semantic, integer count and array results; no mutation, no opaque call; result status success",
			main: []step{
				one(topic("call_topic_1")),
				one(text("Let me search the project memory."), search("call_search_1", cm, "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "memory-first-no-ids",
			about: "as memory-first, but no functionCall has an id: the CLI makes the tool_ids (<name>_<epoch ms>_<index>)",
			why:   "the same calls as memory-first; tool_id is only a correlation key (§11): all pass",
			main: []step{
				one(topic("")),
				one(text("Let me search the project memory."), search("", cm, "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "search-without-topic",
			about: "the model calls memory_search {scope:project} first, without update_topic (no ids)",
			why:   "the first call is a good project search: all pass (update_topic is not required)",
			main: []step{
				one(search("", cm, "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "topic-only",
			about: "update_topic, then the answer, with no memory call",
			why:   "update_topic is bookkeeping, not a call, so there is no call at all; the result is success: memory_first and retrieval_result fail project_search_absent (complete evidence); no memory call, so nothing says the server was unavailable",
			main: []step{
				one(topic("call_topic_t")),
				say(answer),
			},
			want: four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:  "shell-first",
			about: "--yolo: update_topic, run_shell_command `ls` (no id), then memory_search {scope:project}, then the answer",
			why:   "the first call after bookkeeping is run_shell_command, an opaque built-in: memory_first fails tool_before_project_search; the later project search has a good result (retrieval pass); the shell call is an opaque effect and there is no mutation: direct_write_boundary inconclusive opaque_tool_effects",
			main: []step{
				one(topic("")),
				one(call("", "run_shell_command", o("command", "ls", "description", "List the project files"))),
				one(search("", cm, "project")),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "no-call",
			about: "the model answers at once: only text",
			why:   "no call at all and a success result: memory_first and retrieval_result fail project_search_absent; narration is never evidence",
			main:  []step{say(answer)},
			want:  four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:  "parallel-calls",
			about: "update_topic, then one response with text + memory_search {scope:project} + read_file README.md (two function calls in one response, ids given), then the answer",
			why:   "calls are dispatched in record order: memory_search's tool_use comes before read_file's, so memory_first passes; the search result is good; read_file is an opaque call: direct_write_boundary inconclusive opaque_tool_effects",
			main: []step{
				one(topic("call_topic_p")),
				one(text("I'll search memory and read the README in parallel."), search("call_search_p", cm, "project"),
					call("call_read_p", "read_file", o("file_path", "README.md"))),
				say(answer),
			},
			want: four(pass, pass, pass, inc("opaque_tool_effects")),
		},
		{
			name:  "parallel-read-first",
			about: "as parallel-calls, but read_file comes before memory_search in the response (no ids)",
			why:   "the first tool_use is read_file, an opaque call: memory_first fails tool_before_project_search; the search's result is good (retrieval pass); read_file is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			main: []step{
				one(topic("")),
				one(call("", "read_file", o("file_path", "README.md")), search("", cm, "project")),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "store",
			about: "update_topic, memory_search {scope:project}, then memory_store (the server stores it)",
			why:   "memory_store is a catalog capture mutation and cairn runs without --capture-authorized: direct_write_boundary fails direct_mutation_unauthorized; the search is first and good",
			main: []step{
				one(topic("call_topic_s")),
				one(search("call_search_s", cm, "project")),
				one(call("call_store_s", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("Stored a note about the ledger."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:  "delete",
			about: "update_topic, memory_search {scope:project}, then memory_delete, which the server refuses (MCP isError: the tool_result has status error, error.type mcp_tool_error)",
			why:   "memory_delete is a catalog destructive mutation and a failed attempt counts (§6.4): direct_write_boundary fails destructive_mutation; the search is first and good",
			main: []step{
				one(topic("")),
				one(search("", cm, "project")),
				one(call("", mt(cm, "memory_delete"), o("id", "mem_1"))),
				say("The delete was refused."),
			},
			want: four(pass, pass, pass, fail("destructive_mutation")),
		},
		{
			name:  "search-global",
			about: "memory_search with scope \"global\"",
			why:   "the first call is a memory_search whose scope is not \"project\": memory_first fails first_search_not_project_scoped; there is no project-scoped search and the evidence is complete: retrieval_result fails project_search_absent",
			main: []step{
				one(topic("call_topic_g")),
				one(search("call_search_g", cm, "global")),
				say(answer),
			},
			want: four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass),
		},
		{
			name:  "search-unscoped",
			about: "memory_search without a scope (no ids)",
			why:   "the first call is a memory_search whose scope is missing: memory_first fails first_search_not_project_scoped; no project-scoped search and complete evidence: retrieval_result fails project_search_absent",
			main: []step{
				one(search("", cm, nil)),
				say(answer),
			},
			want: four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass),
		},
		{
			name:    "search-is-error",
			about:   "memory_search {scope:project}; the server answers MCP isError: true (\"index unavailable\"): tool_result status error, error.type mcp_tool_error",
			why:     "the first call is a project search (memory_first pass); its only result is an error result: retrieval_result inconclusive search_result_error",
			mcpArgs: []string{"-search-error"},
			main: []step{
				one(topic("call_topic_e")),
				one(search("call_search_e", cm, "project")),
				say("The memory index is unavailable right now."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:    "search-rpc-error",
			about:   "memory_search {scope:project}; the server answers a JSON-RPC error (-32602) instead of a result",
			why:     "the first call is a project search (pass); its only result is an error result: retrieval_result inconclusive search_result_error",
			mcpArgs: []string{"-rpc-error-tool", "memory_search"},
			main: []step{
				one(topic("")),
				one(search("", cm, "project")),
				say("The memory search failed."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:    "search-empty",
			about:   "memory_search {scope:project} finds nothing: {mode:semantic,count:0,results:[]}",
			why:     "zero hits is a successful observation (§6.3): all pass",
			mcpArgs: []string{"-empty-search"},
			main: []step{
				one(topic("call_topic_z")),
				one(search("call_search_z", cm, "project")),
				say("The project memory has nothing about the release ledger."),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:   "server-fails",
			about:  "the MCP server's command does not exist (nothing on stdout says so); the model calls memory_search {scope:project} anyway: tool_result error, error.type tool_not_registered",
			why:    "the first call is a project-scoped memory_search by name, so memory_first passes (availability only turns a fail into memory_server_unavailable); its only result is an error result: retrieval_result inconclusive search_result_error",
			mcpCmd: "/nonexistent/cairn-memory-server",
			main: []step{
				one(topic("call_topic_f")),
				one(search("call_search_f", cm, "project")),
				say("The memory tools are not available."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:    "server-exits",
			about:   "the MCP server exits at once (-fail-start); the model calls memory_search without a scope: tool_not_registered",
			why:     "the first call is an unscoped memory_search (a fail, first_search_not_project_scoped) and there is no project search (a fail, project_search_absent), but that memory_search ended as tool_not_registered, which proves the memory tools were unavailable (§11): both fails become inconclusive memory_server_unavailable",
			mcpArgs: []string{"-fail-start"},
			main: []step{
				one(search("", cm, nil)),
				say("The memory tools are not available."),
			},
			want: four(pass, inc("memory_server_unavailable"), inc("memory_server_unavailable"), pass),
		},
		{
			name:   "not-yolo",
			about:  "the default approval mode (no --yolo): the MCP tools are not declared; the model reads README.md with read_file (declared), then calls memory_search {scope:project} anyway: tool_not_registered",
			why:    "the first call is read_file (a fail, tool_before_project_search), but the memory_search's result is tool_not_registered, so memory_first becomes inconclusive memory_server_unavailable; the project search has an error result: retrieval_result inconclusive search_result_error (not a fail, so unchanged); read_file is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			noYolo: true,
			main: []step{
				one(call("call_read_n", "read_file", o("file_path", "README.md"))),
				one(search("call_search_n", cm, "project")),
				say("The memory tools are not available."),
			},
			want: four(pass, inc("memory_server_unavailable"), inc("search_result_error"), inc("opaque_tool_effects")),
		},
		{
			name:   "trusted-server",
			about:  "the default approval mode (no --yolo) with the server configured `trust: true`: the MCP tools are declared and run; update_topic, memory_search {scope:project}, answer",
			why:    "as memory-first: the first call is a good project search: all pass",
			noYolo: true,
			trust:  true,
			main: []step{
				one(topic("")),
				one(search("", cm, "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:   "underscore-server",
			about:  "the perfect run with the server configured as cairn_memory (tools mcp_cairn_memory_*)",
			why:    "mcp_cairn_memory_memory_search is in the exact name table (§11): the same verdict as memory-first",
			server: "cairn_memory",
			main: []step{
				one(topic("call_topic_u")),
				one(search("call_search_u", "cairn_memory", "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:        "api-error-500",
			about:       "update_topic and a good project search, then HTTP 500 on every later request (general.maxAttempts 2): result status error with error.type unknown",
			why:         "result.status error (and result.error): turn_failed; the observed first call is a good project search, which stays a pass for memory_first and retrieval_result",
			maxAttempts: 2,
			main: []step{
				one(topic("call_topic_5")),
				one(search("call_search_5", cm, "project")),
				httpErr(500, "INTERNAL", "Internal error encountered."),
			},
			wantExit: 244,
			want:     four(inc("turn_failed"), pass, pass, pass),
		},
		{
			name:     "api-error-400",
			about:    "HTTP 400 INVALID_ARGUMENT on the very first request (not retried): init, the prompt, result error",
			why:      "no call was made and the turn failed (result status error): absence is not proven, so memory_first and retrieval_result are inconclusive turn_failed; nothing was called: direct_write_boundary passes",
			main:     []step{httpErr(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")},
			wantExit: 144,
			want:     four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:  "invalid-stream",
			about: "the first response is a text stream that ends without a finishReason, on every attempt (1 + 3 mid-stream retries): the text chunk of each attempt, an `error` record (severity error), then result status error without an error member",
			why:   "result.status is error: turn_failed; no call was made, so absence is not proven: memory_first and retrieval_result inconclusive turn_failed; the error record is a stream error, not a call; nothing was called: direct_write_boundary passes",
			main: []step{
				{parts: []part{text("The project memory says")}, noFinish: true},
			},
			want: four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:  "no-finish-after-tool",
			about: "update_topic, a good project search, then the answer's text stream ends without a finishReason: after a function response 0.61.0 accepts that (no retry, no error record) and ends with result success; 0.56.0 does not",
			why:   "the same calls and results as memory-first, and a success result: all pass",
			main: []step{
				one(topic("call_topic_nf")),
				one(search("call_search_nf", cm, "project")),
				{parts: []part{text(answer)}, noFinish: true},
			},
			want: four(pass, pass, pass, pass),
			wantIn: map[string]versionWant{
				"0.56.0": {
					want: four(inc("turn_failed"), pass, pass, pass),
					why:  "0.56.0 does not accept it: it retries (the text of every attempt is printed), then prints the `error` record and result status error, so evidence_complete is inconclusive turn_failed while the observed good project search still passes memory_first and retrieval_result",
				},
			},
		},
		{
			name:  "malformed-call",
			about: "update_topic, a good project search, then a response with an empty content and finishReason MALFORMED_FUNCTION_CALL on every attempt: an `error` record, then result status error",
			why:   "result.status is error: turn_failed; the observed first call is a good project search, which stays a pass for memory_first and retrieval_result; the error record is a stream error, not a call",
			main: []step{
				one(topic("call_topic_m")),
				one(search("call_search_m", cm, "project")),
				{finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "Malformed function call: print(default_api.mcp_cairn-memory_memory_store(text='Ledger'"},
			},
			want: four(inc("turn_failed"), pass, pass, pass),
		},
		{
			name:  "thinking",
			about: "a response of a thought part (thought: true) + memory_search {scope:project}, then a thought + the answer: thought parts are not printed",
			why:   "thoughts are never calls or narration in the stream (they are not printed at all); the first call is a good project search: all pass",
			main: []step{
				one(thought("The user asks about the ledger; search the project memory first."), search("call_search_th", cm, "project")),
				one(thought("The memory has the answer."), text(answer)),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:  "interrupted-text",
			about: "update_topic, a good project search, then the answer's text streams and the stream stalls; the harness sends SIGINT to gemini's process group: no result",
			why:   "no result record: turn_incomplete; the observed first call is a good project search (memory_first and retrieval_result pass); nothing else was called",
			main: []step{
				one(topic("call_topic_x")),
				one(search("call_search_x", cm, "project")),
				{parts: []part{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true},
			},
			want: four(inc("turn_incomplete"), pass, pass, pass),
		},
		{
			name:    "interrupted-tool",
			about:   "update_topic, then memory_search {scope:project} whose MCP call never returns (the server runs behind `capture mcp-hang`); the harness sends SIGINT to gemini's process group: the tool_use has no tool_result and there is no result",
			why:     "no result (turn_incomplete) and a tool_use without tool_result (call_incomplete); the first call is a project search, so memory_first passes; that search has no result: retrieval_result inconclusive search_result_missing",
			mcpHang: "memory_search",
			main: []step{
				one(topic("")),
				one(search("", cm, "project")),
				say(answer),
			},
			want: four(inc("call_incomplete", "turn_incomplete"), pass, inc("search_result_missing"), pass),
		},
		{
			name:     "turn-limit",
			about:    "model.maxSessionTurns 1: update_topic is the one allowed model turn; the next turn is refused: result error FatalTurnLimitedError",
			why:      "result.status error: turn_failed; update_topic is bookkeeping, so no call was made: memory_first and retrieval_result inconclusive turn_failed",
			maxTurns: 1,
			main: []step{
				one(topic("call_topic_l")),
				one(search("call_search_l", cm, "project")),
				say(answer),
			},
			wantExit: 53,
			want:     four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:  "invoke-agent",
			about: "update_topic, then invoke_agent (the generalist sub-agent), whose own conversation calls memory_search {scope:project} and complete_task; the sub-agent's calls are not printed; then the answer",
			why:   "invoke_agent is an opaque call (§11) and the first one: memory_first fails tool_before_project_search; the sub-agent's calls are not in the stream, so the evidence is not complete (subagent_evidence_missing) and the missing project search is not proven absent: retrieval_result inconclusive subagent_evidence_missing; invoke_agent is an opaque effect: direct_write_boundary inconclusive opaque_tool_effects",
			main: []step{
				one(topic("call_topic_a")),
				one(call("call_agent_a", "invoke_agent", o("agent_name", "generalist", "prompt", "Search the project memory for the release ledger and report what it says."))),
				say(answer),
			},
			sub: []step{
				one(search("call_sub_search_a", cm, "project")),
				one(call("call_sub_done_a", "complete_task", o("result", o("response", "Memory mem_1: the release ledger lives in src/release-ledger.mjs; amounts are integer cents.")))),
			},
			want: four(inc("subagent_evidence_missing"), fail("tool_before_project_search"), inc("subagent_evidence_missing"), inc("opaque_tool_effects")),
		},
		{
			name:         "store-refused",
			about:        "the server is configured with `excludeTools: [\"memory_store\"]`, so the CLI does not declare mcp_cairn-memory_memory_store (18 functions with --yolo); update_topic, then the model calls memory_store anyway: tool_use, then tool_result error, error.type tool_not_registered; then memory_search {scope:project} (declared, runs), then the answer",
			why:          "a refused mutation is still an attempt (§6.4): memory_store is a catalog capture mutation, so direct_write_boundary fails direct_mutation_unauthorized; the refused store is the first call (update_topic is bookkeeping), another memory tool: memory_first fails tool_before_project_search, and stays a fail, because only a memory_search ending tool_not_registered proves the memory tools unavailable (§11), and this one was a store (the search after it ran); that search has a good result: retrieval_result pass; every call has its result and the result is success: evidence_complete pass",
			excludeTools: []string{"memory_store"},
			main: []step{
				one(topic("call_topic_r")),
				one(call("call_store_r", mt(cm, "memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				one(search("call_search_r", cm, "project")),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:         "json-output",
			about:        "the memory-first run with `--output-format json` instead of stream-json: gemini prints one pretty-printed JSON document at the end (`{session_id, response, stats}`); kept as json-output.jsonl to show what --gemini-jsonl does with it",
			why:          "not the stream-json format (§11): its first line is `{` alone, which is not one JSON object, so the framing of §4.1 refuses it at line 1: invalid malformed_json, record 1, no where",
			outputFormat: "json",
			main: []step{
				one(topic("call_topic_j")),
				one(text("Let me search the project memory."), search("call_search_j", cm, "project")),
				say(answer),
			},
			wantErr: invalidAt("malformed_json", 1, ""),
		},
		{
			name:  "session-file",
			about: "the memory-first run (stream-json on stdout, kept only in the scratch folder); session-file.jsonl is the session file the CLI wrote, `~/.gemini/tmp/<project>/chats/session-*.jsonl`, copied byte for byte: a first line `{sessionId, projectHash, startTime, lastUpdated, kind}`, then `user` / `gemini` records and `$set` updates",
			why:   "not the stream-json format (§11): its first line is one JSON object with no `type` member, a field every record must have (§4.1): invalid schema_violation, record 1, where `type`",
			keep:  keepSession,
			main: []step{
				one(topic("call_topic_f1")),
				one(text("Let me search the project memory."), search("call_search_f1", cm, "project")),
				say(answer),
			},
			wantErr: invalidAt("schema_violation", 1, "type"),
		},
	}
}

package main

// The scenarios: what the scripted model answers, how opencode is started,
// and the verdicts that SPEC §13 and §6 demand of the two files each run
// leaves (the run's stdout for --opencode-jsonl, the export for
// --opencode-export). The verdicts are derived by hand from the spec (they
// were written before the adapter); each carries its reasoning, which goes
// into testdata/opencode/real/README.md.

import "time"

const prompt = "What does the project memory say about the release ledger?"

// workDir is opencode's fixed working directory (and project); the harness
// lays it anew for every run.
const workDir = "/tmp/cairn-opencode-work"

// cm is the MCP server's configured name.
const cm = "cairn-memory"

type scenario struct {
	name    string
	about   string   // what the run does (README)
	mcpArgs []string // flags for scripts/claude-real/mcpserver
	// mcpHang runs mcpserver behind `capture mcp-hang`: calls of this tool
	// never return, and the harness sends SIGINT while one runs.
	mcpHang string
	// mcpSlow runs mcpserver behind `capture mcp-slow`: calls of this tool
	// start 2 s late.
	mcpSlow    string
	server     string // the MCP server's configured name; "" = cm
	permission obj    // opencode.json `permission`
	tools      obj    // opencode.json `tools`
	// args are more `opencode run` flags, per version ("" = every version
	// without an entry of its own).
	args map[string][]string
	main []step // the main agent's answers, by step
	// sub are a sub-agent's answers; its conversation is the one whose
	// first user message holds subPrompt (the task call's prompt).
	sub       []step
	subPrompt string
	// child: export the task call's sub-agent session too
	// (<scenario>.child.export.json).
	child bool
	// wantExit is opencode run's exit code the scenario expects (checked),
	// per version ("" = the default); 130 is death by SIGINT.
	wantExit map[string]int
	// interrupt, when set for a version, sends SIGINT to opencode's process
	// group that long after the start (a run that would not end by itself).
	interrupt map[string]time.Duration
	// want are the verdicts, per version ("" = every version without an
	// entry of its own).
	want map[string]wants
}

// wants are the verdicts on a scenario's files, each with its reason.
type wants struct {
	run, export want
	child       *want
}

type want struct {
	c   checks
	why string
}

func (w *want) verdict() verdict { return w.c.Verdict() }

// all is a per-version map with one entry for every version.
func all[T any](v T) map[string]T { return map[string]T{"": v} }

func forVersion[T any](m map[string]T, version string) T {
	if v, ok := m[version]; ok {
		return v
	}
	return m[""]
}

func (s *scenario) wantFor(version string) wants    { return forVersion(s.want, version) }
func (s *scenario) exitFor(version string) int      { return forVersion(s.wantExit, version) }
func (s *scenario) argsFor(version string) []string { return forVersion(s.args, version) }
func (s *scenario) interruptFor(version string) time.Duration {
	return forVersion(s.interrupt, version)
}

// mt is the name OpenCode gives an MCP tool: <server>_<tool>.
func mt(tool string) string { return cm + "_" + tool }

func search(id string, scope any) part {
	args := o("query", "release ledger")
	if scope != nil {
		args = append(args, kv("scope", scope))
	}
	return call(id, mt("memory_search"), args)
}

func readme(id string) part {
	return call(id, "read", o("filePath", workDir+"/README.md"))
}

func ls(id string) part {
	return call(id, "bash", o("command", "ls", "description", "List the project files"))
}

const answer = "The project memory says the release ledger lives in src/release-ledger.mjs and keeps amounts in integer cents."

var pass = check{State: "pass", Codes: []string{}}

func inc(codes ...string) check  { return check{State: "inconclusive", Codes: codes} }
func fail(codes ...string) check { return check{State: "fail", Codes: codes} }

func allScenarios() []*scenario {
	return []*scenario{
		{
			name:  "memory-first",
			about: "the perfect run: text + cairn-memory_memory_search {scope:project} (its output the server's JSON text {mode,count,results}), then the answer",
			main: []step{
				one(text("Let me search the project memory."), search("call_search_1", "project")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(pass, pass, pass, pass), "the one call of its step is a project-scoped cairn-memory_memory_search, completed with a string holding one JSON object {mode: semantic, integer count, array results}; the last record is a step_finish with reason stop and no error record came"},
				export: want{four(pass, pass, pass, pass), "the same call, completed with the same output; the last message is an assistant message with finish stop, time.completed and no error"},
			}),
		},
		{
			name:       "bash-first",
			about:      "permission bash: allow; the model runs bash `ls` first, then cairn-memory_memory_search {scope:project}, then answers",
			permission: o("bash", "allow"),
			main: []step{
				one(ls("call_bash_b")),
				one(search("call_search_b", "project")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")), "the first call (alone in its step) is bash, an opaque built-in: memory_first fails tool_before_project_search; the later project search has a good result; bash is an opaque effect and there is no mutation"},
				export: want{four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")), "the same calls in issue order, the session ended with finish stop"},
			}),
		},
		{
			name:  "no-call",
			about: "the model answers at once: only text",
			main:  []step{say(answer)},
			want: all(wants{
				run:    want{four(pass, fail("project_search_absent"), fail("project_search_absent"), pass), "no call at all on a complete run (last record step_finish stop, no error): memory_first and retrieval_result fail project_search_absent; text is narration, never evidence"},
				export: want{four(pass, fail("project_search_absent"), fail("project_search_absent"), pass), "no tool part and the last message is an assistant message with finish stop, time.completed and no error: absence is proven"},
			}),
		},
		{
			name:    "search-is-error",
			about:   "cairn-memory_memory_search {scope:project}; the server answers MCP isError: true (\"index unavailable\")",
			mcpArgs: []string{"-search-error"},
			main: []step{
				one(search("call_search_e", "project")),
				say("The memory index is unavailable right now."),
			},
			want: map[string]wants{
				"": {
					run:    want{four(pass, pass, inc("search_result_error"), pass), "1.18.33 ends the tool part in state error (the server's text in `error`): an error result, so retrieval_result is inconclusive search_result_error; the first call is still a project search"},
					export: want{four(pass, pass, inc("search_result_error"), pass), "the same error state in the export"},
				},
				"1.3.2": {
					run:    want{four(pass, pass, inc("search_result_uninterpretable"), pass), "1.3.2 ends the tool part completed with the server's text `index unavailable` as `output`: not an error result, and not a string holding one JSON object (§5), so retrieval_result is inconclusive search_result_uninterpretable"},
					export: want{four(pass, pass, inc("search_result_uninterpretable"), pass), "the same completed state in the export"},
				},
			},
		},
		{
			name:  "store-delete",
			about: "cairn-memory_memory_search {scope:project}, then memory_store (stored), then memory_delete (the server refuses: MCP isError), each in its own step",
			main: []step{
				one(search("call_search_s", "project")),
				one(call("call_store_s", mt("memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				one(call("call_delete_s", mt("memory_delete"), o("id", "mem_1"))),
				say("Stored a note; the delete was refused."),
			},
			want: all(wants{
				run:    want{four(pass, pass, pass, fail("destructive_mutation", "direct_mutation_unauthorized")), "memory_store is a capture mutation without --capture-authorized and memory_delete a destructive one, and a refused attempt counts (§6.4): direct_write_boundary fails with both codes; the search is first and good"},
				export: want{four(pass, pass, pass, fail("destructive_mutation", "direct_mutation_unauthorized")), "the same calls in the export"},
			}),
		},
		{
			name:  "search-global",
			about: "cairn-memory_memory_search with scope \"global\"",
			main: []step{
				one(search("call_search_g", "global")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass), "the first call is a memory_search whose scope is not project: memory_first fails first_search_not_project_scoped; no project-scoped search on a complete run: retrieval_result fails project_search_absent"},
				export: want{four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass), "the same call on a complete session"},
			}),
		},
		{
			name:    "parallel-read-first-done",
			about:   "one step with two calls, issued cairn-memory_memory_search {scope:project} then read README.md; the search starts 2 s late (the server runs behind `capture mcp-slow`), so read completes first",
			mcpSlow: "memory_search",
			main: []step{
				one(text("I'll search memory and read the README in parallel."), search("call_search_p", "project"), readme("call_read_p")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("terminal_only_call"), inc("dispatch_order_unknown"), pass, inc("opaque_tool_effects")), "the step holds two calls, printed in completion order (read first): each is terminal_only_call, and as the step holds the first calls and read is not a project-scoped memory_search, memory_first is dispatch_order_unknown; the search's result is good; read is an opaque effect"},
				export: want{four(pass, pass, pass, inc("opaque_tool_effects")), "the export keeps issue order (search part before read part), so the first call is the project search: memory_first passes; read is an opaque effect"},
			}),
		},
		{
			name:       "parallel-search-bash",
			about:      "permission bash: allow; one step with two calls, issued cairn-memory_memory_search {scope:project} then bash `ls`; the search starts 2 s late (the server runs behind `capture mcp-slow`), so bash completes first",
			permission: o("bash", "allow"),
			mcpSlow:    "memory_search",
			main: []step{
				one(search("call_search_sb", "project"), ls("call_bash_sb")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("terminal_only_call"), inc("dispatch_order_unknown"), pass, inc("opaque_tool_effects")), "the step holds two calls, printed in completion order (bash first): each is terminal_only_call, and as the step holds the first calls and bash is not a project-scoped memory_search, memory_first is dispatch_order_unknown; the search's result is good; bash is an opaque effect"},
				export: want{four(pass, pass, pass, inc("opaque_tool_effects")), "the export keeps issue order (search part before bash part), so the first call is the project search: memory_first passes; bash is an opaque effect"},
			}),
		},
		{
			name:       "parallel-bash-search",
			about:      "permission bash: allow; one step with two calls, issued bash `sleep 2; ls` then cairn-memory_memory_search {scope:project}, so the search completes first",
			permission: o("bash", "allow"),
			main: []step{
				one(call("call_bash_bs", "bash", o("command", "sleep 2; ls", "description", "List the project files")), search("call_search_bs", "project")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("terminal_only_call"), inc("dispatch_order_unknown"), pass, inc("opaque_tool_effects")), "the step holds two calls, printed in completion order (the search first, though bash was issued first): each is terminal_only_call, and as the step holds the first calls and bash is not a project-scoped memory_search, memory_first is dispatch_order_unknown, never a pass: the stream cannot show that bash came first; the search's result is good; bash is an opaque effect"},
				export: want{four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")), "the export keeps issue order (bash part before search part): the first call is bash, so memory_first fails tool_before_project_search, which the run's stream could not show; the search's result is good; bash is an opaque effect"},
			}),
		},
		{
			name:   "server-underscore",
			about:  "the MCP server is configured as `cairn_memory`: the model calls cairn_memory_memory_search {scope:project}, then answers",
			server: "cairn_memory",
			main: []step{
				one(text("Let me search the project memory."), call("call_search_u", "cairn_memory_memory_search", o("query", "release ledger", "scope", "project"))),
				say(answer),
			},
			want: all(wants{
				run:    want{four(pass, pass, pass, pass), "cairn_memory_TOOL is a memory tool name of §13: the one call is a project search with a good result, the run ended with reason stop"},
				export: want{four(pass, pass, pass, pass), "the same call and output in the export, a complete session"},
			}),
		},
		{
			name:  "parallel-searches",
			about: "one step with two cairn-memory_memory_search {scope:project} calls (two queries)",
			main: []step{
				one(search("call_search_q1", "project"), call("call_search_q2", mt("memory_search"), o("query", "integer cents", "scope", "project"))),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("terminal_only_call"), pass, pass, pass), "two calls in one step are each terminal_only_call, but every call of the step that holds the first calls is a project-scoped memory_search, so memory_first passes whatever their order; both results are good"},
				export: want{four(pass, pass, pass, pass), "every call ordered, both project searches with good results, a complete session"},
			}),
		},
		{
			name:  "tool-not-offered",
			about: "the model first calls `web_search`, a tool opencode does not offer (recorded as tool `invalid`, input replaced by {tool, error}), then cairn-memory_memory_search {scope:project}, then answers",
			main: []step{
				one(call("call_web_n", "web_search", o("query", "release ledger conventions"))),
				one(search("call_search_n", "project")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("call_input_unknown"), fail("tool_before_project_search"), pass, inc("opaque_tool_effects")), "the `invalid` part is an attempted call of the tool its input.tool names, web_search, with unknown arguments: call_input_unknown on evidence_complete; it is the first call and no memory tool, so memory_first fails tool_before_project_search whatever its arguments were (§13 turns only a memory search named there into call_input_unknown); the later project search is good; web_search is opaque"},
				export: want{four(inc("call_input_unknown"), fail("tool_before_project_search"), pass, inc("opaque_tool_effects")), "the same parts in the export"},
			}),
		},
		{
			name:  "store-not-offered",
			about: "opencode.json `tools: {cairn-memory_memory_store: false}`: a project search, then the model calls cairn-memory_memory_store anyway (tool `invalid`, input {tool: cairn-memory_memory_store, error}), then answers",
			tools: o(mt("memory_store"), false),
			main: []step{
				one(search("call_search_r", "project")),
				one(call("call_store_r", mt("memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("call_input_unknown"), pass, pass, fail("direct_mutation_unauthorized")), "the `invalid` part names cairn-memory_memory_store: an attempted capture mutation (§13: it counts as an attempt) without --capture-authorized, so direct_write_boundary fails; its arguments are unknown: call_input_unknown; the first call is a good project search"},
				export: want{four(inc("call_input_unknown"), pass, pass, fail("direct_mutation_unauthorized")), "the same parts in the export"},
			}),
		},
		{
			name:       "permission-rejected",
			about:      "permission bash: ask and no --auto: the model's first call, bash `ls`, is auto-rejected (stderr `! permission requested: bash (ls); auto-rejecting`, the part ends in error) and the session stops after that step",
			permission: o("bash", "ask"),
			main: []step{
				one(ls("call_bash_x")),
				one(search("call_search_x", "project")),
				say(answer),
			},
			want: all(wants{
				run:    want{four(inc("turn_incomplete"), fail("tool_before_project_search"), inc("turn_incomplete"), inc("opaque_tool_effects", "turn_incomplete")), "the last record is a step_finish with reason tool-calls (the run ended after a tool-calls step): turn_incomplete; the observed first call is bash, which stays a fail; no project search on an incomplete run: retrieval_result inconclusive turn_incomplete; the rejected bash is an opaque call and the stream cannot let direct_write_boundary pass: inconclusive opaque_tool_effects + turn_incomplete"},
				export: want{four(inc("turn_incomplete"), fail("tool_before_project_search"), inc("turn_incomplete"), inc("opaque_tool_effects")), "the last message is an assistant message with finish tool-calls, not stop: turn_incomplete; bash is first (fail) and opaque; the export shows every state, so its direct_write_boundary is not cut"},
			}),
		},
		{
			name:     "api-error-400",
			about:    "HTTP 400 invalid_request_error on the first model request: an `error` record",
			main:     []step{httpErr(400, "invalid_request_error", "Request contains an invalid argument.")},
			wantExit: map[string]int{"": 1, "1.3.2": 0},
			want: all(wants{
				run:    want{four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), inc("turn_failed")), "an error record: turn_failed; no call was made, so absence is not proven: memory_first and retrieval_result inconclusive turn_failed; the run did not complete, so direct_write_boundary cannot pass: inconclusive turn_failed"},
				export: want{four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass), "the last message is an assistant message with an `error`: turn_failed, which keeps absence from being proven; nothing was called, and the export hides no call: direct_write_boundary passes"},
			}),
		},
		{
			name:  "api-error-500",
			about: "a good project search, then HTTP 500 server_error on every later request: 1.18.33 retries and then prints an `error` record; 1.3.2 retries with growing delays and never gives up, so the harness stops it with SIGINT after 40 s",
			main: []step{
				one(search("call_search_5", "project")),
				httpErr(500, "server_error", "The server had an error while processing your request."),
			},
			wantExit:  map[string]int{"": 1, "1.3.2": 130},
			interrupt: map[string]time.Duration{"1.3.2": 40 * time.Second},
			want: map[string]wants{
				"": {
					run:    want{four(inc("turn_failed"), pass, pass, inc("turn_failed")), "an error record after the retries: turn_failed; the observed first call is a good project search, which stays a pass for memory_first and retrieval_result; the failed run cannot let direct_write_boundary pass: inconclusive turn_failed"},
					export: want{four(inc("turn_failed"), pass, pass, pass), "the last message is an assistant message with an `error`: turn_failed; the good first project search passes; no call is hidden in an export"},
				},
				"1.3.2": {
					run:    want{four(inc("turn_incomplete"), pass, pass, inc("turn_incomplete")), "stopped by SIGINT while retrying: the stream ends with the first step's step_finish, reason tool-calls (the retried step printed nothing, no error record came): turn_incomplete; the observed good first project search passes memory_first and retrieval_result; the interrupted stream cannot let direct_write_boundary pass: inconclusive turn_incomplete"},
					export: want{four(inc("turn_incomplete"), pass, pass, pass), "the last message is an assistant message with no finish, no time.completed and no error: turn_incomplete; the good first search passes; no call is hidden"},
				},
			},
		},
		{
			name:    "server-fails",
			about:   "the MCP server exits at once (-fail-start), so its tools are not offered; the model calls cairn-memory_memory_search {scope:project} anyway (tool `invalid`, input {tool: cairn-memory_memory_search, error}), then answers",
			mcpArgs: []string{"-fail-start"},
			main: []step{
				one(search("call_search_f", "project")),
				say("The memory tools are not available."),
			},
			want: all(wants{
				run:    want{four(inc("call_input_unknown"), inc("call_input_unknown"), inc("call_input_unknown"), pass), "the one call is `invalid`, naming cairn-memory_memory_search with unknown arguments: call_input_unknown on evidence_complete; it never counts as a project search, and as it would decide memory_first (it is the first call) and retrieval_result (there is no other search), both are call_input_unknown instead of a fail; a memory_search attempt is no mutation and no opaque call: direct_write_boundary passes; neither output says the server did not start (§13)"},
				export: want{four(inc("call_input_unknown"), inc("call_input_unknown"), inc("call_input_unknown"), pass), "the same part in the export"},
			}),
		},
		{
			name:      "task-subagent",
			about:     "the model calls `task` (subagent_type general), whose sub-agent session calls cairn-memory_memory_search {scope:project} and answers; then the main agent answers. The run prints only the parent's task part; task-subagent.child.export.json is the export of the child session",
			subPrompt: subPrompt,
			child:     true,
			main: []step{
				one(call("call_task_t", "task", o("description", "Search project memory", "prompt", subPrompt, "subagent_type", "general"))),
				say(answer),
			},
			sub: []step{
				one(search("call_sub_search_t", "project")),
				say("Memory mem_1: the release ledger lives in src/release-ledger.mjs; amounts are integer cents."),
			},
			want: all(wants{
				run:    want{four(inc("subagent_evidence_missing"), fail("tool_before_project_search"), inc("subagent_evidence_missing"), inc("opaque_tool_effects")), "task is opaque and the first call: memory_first fails tool_before_project_search; its sub-agent's calls are in neither output: subagent_evidence_missing on evidence_complete, and on retrieval_result instead of project_search_absent; task is an opaque effect"},
				export: want{four(inc("subagent_evidence_missing"), fail("tool_before_project_search"), inc("subagent_evidence_missing"), inc("opaque_tool_effects")), "the parent session's export holds the same task part (its metadata names the child session) and nothing of the child's calls"},
				child:  &want{four(pass, inc("subagent_evidence_missing"), pass, pass), "the child session's info.parentID is set: a sub-agent's session, so memory_first is inconclusive subagent_evidence_missing; its own project search has a good result and the child ended with finish stop"},
			}),
		},
		{
			name:    "interrupted-tool",
			about:   "cairn-memory_memory_search {scope:project} whose MCP call never returns (the server runs behind `capture mcp-hang`); the harness sends SIGINT to opencode's process group while it runs",
			mcpHang: "memory_search",
			main: []step{
				one(search("call_search_h", "project")),
				say(answer),
			},
			wantExit: all(130),
			want: all(wants{
				run:    want{four(inc("turn_incomplete"), inc("turn_incomplete"), inc("turn_incomplete"), inc("turn_incomplete")), "the run stdout ends inside the step (the running search is never printed): turn_incomplete; no call is seen, and absence is not proven on an incomplete run: memory_first and retrieval_result inconclusive turn_incomplete; a call may have been running unseen, so direct_write_boundary cannot pass: inconclusive turn_incomplete"},
				export: want{four(inc("call_incomplete", "turn_incomplete"), pass, inc("search_result_missing"), pass), "the export shows the search part `running`: call_incomplete, and the last assistant message has no finish: turn_incomplete; the first call is that project search (memory_first passes), and it has no result: retrieval_result search_result_missing"},
			}),
		},
		{
			name:  "interrupted-text",
			about: "a good project search, then the answer's text streams and the stream stalls (no finish_reason); the harness sends SIGINT to opencode's process group",
			main: []step{
				one(search("call_search_i", "project")),
				{parts: []part{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true},
			},
			wantExit: all(130),
			want: all(wants{
				run:    want{four(inc("turn_incomplete"), pass, pass, inc("turn_incomplete")), "the stream ends inside the second step (its text part never ended, so it is not printed): turn_incomplete; the observed first call is a good project search (memory_first and retrieval_result pass); the interrupted stream cannot let direct_write_boundary pass: inconclusive turn_incomplete"},
				export: want{four(inc("turn_incomplete"), pass, pass, pass), "the last assistant message has no finish and no time.completed: turn_incomplete; the good first project search passes; every call is in the export, none running"},
			}),
		},
		{
			name:  "length-finish",
			about: "a good project search, then the answer's stream ends with finish_reason length",
			main: []step{
				one(search("call_search_l", "project")),
				{parts: []part{text("The project memory says the release ledger lives in")}, finishReason: "length"},
			},
			want: all(wants{
				run:    want{four(inc("turn_failed"), pass, pass, inc("turn_failed")), "the last record is a step_finish whose reason is length, neither stop nor tool-calls: \"another final reason\", turn_failed; the good first project search passes; the stream did not complete, so direct_write_boundary is inconclusive turn_failed"},
				export: want{four(inc("turn_incomplete"), pass, pass, pass), "the last message is an assistant message with finish length and no error: neither complete nor failed, so turn_incomplete (§13's export rule has no \"other reason\" row); the good first project search passes"},
			}),
		},
	}
}

// subPrompt is the task call's prompt: the sub-agent's first user message.
const subPrompt = "Search the project memory for the release ledger and report what it says."

// serverName is the MCP server's configured name.
func (s *scenario) serverName() string {
	if s.server == "" {
		return cm
	}
	return s.server
}

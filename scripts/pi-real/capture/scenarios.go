package main

// The scenarios: what the scripted model answers, how pi is started, and
// the verdict that SPEC §12 and §6 demand for the stream it prints. The
// verdicts are derived by hand from the spec; each carries its reasoning,
// which goes into testdata/pi/real/README.md.

import "syscall"

const prompt = "What does the project memory say about the release ledger?"

// workDir is pi's fixed working directory; the harness lays it anew for
// every run.
const workDir = "/tmp/cairn-pi-work"

type scenario struct {
	name string
	// about is what the run does, why the reasoning for its verdict
	// (README).
	about, why string
	server     string // the MCP server's configured name; "" = cairn-memory
	// exposure is mcp.json's exposure of the server: "" (not written: pi's
	// default, codemode), "direct", "deferred".
	exposure string
	mcpArgs  []string // flags for scripts/claude-real/mcpserver
	mcpCmd   string   // a command to start instead of mcpserver (a missing one)
	mcpHang  string   // run mcpserver behind `capture mcp-hang`: calls of this tool never return, and the harness sends SIGINT
	// noMCP leaves ~/.pi/agent/mcp.json unwritten: no MCP server is
	// configured at all.
	noMCP bool
	// signal is what the harness sends pi's process group when the
	// scenario stalls (a hang step or mcpHang); 0 means SIGINT.
	signal syscall.Signal
	args   []string // more pi flags (before the prompt)
	// adapter marks a scenario of the pi-mcp-adapter extension (pi 0.86.x,
	// before built-in MCP): it runs only when capture is given -adapter, and
	// the others only when it is not. adapterServer holds the adapter's own
	// members of the server entry (directTools, …).
	adapter       bool
	adapterServer obj
	defaultTools  []string // settings.json defaultTools
	// keep is what <scenario>.jsonl holds: keepStdout (pi's stdout) or
	// keepSession (the session file pi wrote under the scratch HOME, run
	// without --no-session; stdout is then kept in the scratch folder only).
	keep     keepKind
	steps    []step // the model's answers, by step
	wantExit int    // pi's exit code the scenario expects (checked)
	want     checks
	// wantErr, when set, is the invalid verdict's error instead (checks
	// null).
	wantErr *verr
	// versions where pi prints another stream, so the verdict differs: the
	// verdict there and why.
	wantIn map[string]versionWant
}

type versionWant struct {
	want checks
	why  string
}

// keepKind says what a scenario's .jsonl is.
type keepKind int

const (
	keepStdout  keepKind = iota // what pi printed on stdout
	keepSession                 // the session file ~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl
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

func (s *scenario) serverName() string {
	if s.server == "" {
		return "cairn-memory"
	}
	return s.server
}

// exposureName is the server's exposure as the README says it.
func (s *scenario) exposureName() string {
	if s.adapter {
		for _, m := range s.adapterServer {
			if m.K == "directTools" {
				return "pi-mcp-adapter, directTools"
			}
		}
		return "pi-mcp-adapter, proxy"
	}
	if s.noMCP {
		return "none: no MCP server configured"
	}
	if s.exposure == "" {
		return "codemode (default)"
	}
	return s.exposure
}

// mt is the name pi gives a tool of the cairn-memory server:
// mcp__<server, non [A-Za-z0-9_] as _>__<tool>.
func mt(tool string) string { return "mcp__cairn_memory__" + tool }

func search(id string, scope any) part {
	args := o("query", "release ledger")
	if scope != nil {
		args = append(args, kv("scope", scope))
	}
	return call(id, mt("memory_search"), args)
}

// codemode is a codemode call whose script is code.
func codemode(id, code string) part { return call(id, "codemode", o("code", code)) }

// The scripts' calls, as a codemode script writes them.
const (
	jsSearch = `const r = await tools.mcp__cairn_memory__memory_search({ query: "release ledger", scope: "project" });` + "\n"
	jsReturn = `return r;`
)

const answer = "The project memory says the release ledger lives in src/release-ledger.mjs and keeps amounts in integer cents."

var pass = check{State: "pass", Codes: []string{}}

func inc(codes ...string) check  { return check{State: "inconclusive", Codes: codes} }
func fail(codes ...string) check { return check{State: "fail", Codes: codes} }

func allScenarios() []*scenario {
	return []*scenario{
		{
			name:  "memory-first",
			about: "the perfect run with the default codemode exposure: the model calls `codemode` whose script calls `tools.mcp__cairn_memory__memory_search({query, scope: \"project\"})` and returns the CallToolResult; the nested call prints its own tool_execution_start/end (toolCallId `<codemode id>/1`, parentToolCallId the codemode call) between codemode's; then the answer",
			why:   "codemode is bookkeeping, never the first call (§12), so the first call is the nested project-scoped memory_search; its tool_execution_end result.structuredContent is the whole CallToolResult, whose structuredContent is {mode, count, results}; codemode is not an opaque effect and nothing mutates: all pass",
			steps: []step{
				one(text("Let me search the project memory."), codemode("call_cm_1", jsSearch+jsReturn)),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:     "memory-first-direct",
			about:    "the perfect run with `exposure: \"direct\"`: the model calls mcp__cairn_memory__memory_search {scope: project} itself, then answers",
			why:      "the first call is a project-scoped memory search with a good result (result.structuredContent.structuredContent {mode, count, results}): all pass",
			exposure: "direct",
			steps: []step{
				one(text("Let me search the project memory."), search("call_search_1", "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:     "server-underscore",
			about:    "the memory-first-direct run with the server configured as `cairn_memory`: the tools are the same mcp__cairn_memory__* names",
			why:      "pi writes both server spellings as mcp__cairn_memory__: the same verdict as memory-first-direct, all pass",
			server:   "cairn_memory",
			exposure: "direct",
			steps: []step{
				one(search("call_search_u", "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:     "bash-first",
			about:    "direct exposure: bash `ls`, then memory_search {scope: project}, then the answer",
			why:      "the first call is bash, an opaque built-in: memory_first fails tool_before_project_search; the later project search has a good result (retrieval pass); bash is an opaque effect and nothing mutates: direct_write_boundary inconclusive opaque_tool_effects",
			exposure: "direct",
			steps: []step{
				one(call("call_bash_1", "bash", o("command", "ls"))),
				one(search("call_search_b", "project")),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:  "codemode-read-first",
			about: "default codemode exposure: one codemode script that first calls `tools.read({path: \"README.md\"})`, then the project memory_search (two nested calls, `/1` read and `/2` the search)",
			why:   "the calls a codemode script makes are ordinary calls at their own positions (§12): the first is the nested read, an opaque built-in: memory_first fails tool_before_project_search; the nested search has a good result: retrieval pass; read is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			steps: []step{
				one(codemode("call_cm_r", `const readme = await tools.read({ path: "README.md" });`+"\n"+jsSearch+`return { readme, r };`)),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, inc("opaque_tool_effects")),
		},
		{
			name:     "no-call",
			about:    "direct exposure; the model answers at once: only text",
			why:      "no call at all on complete evidence (agent_settled, aborted false; last stopReason stop): memory_first and retrieval_result fail project_search_absent; the first system message_end's toolsAdded names mcp__cairn_memory__memory_search, so the server was available and the fails stand",
			exposure: "direct",
			steps:    []step{say(answer)},
			want:     four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:  "no-call-codemode",
			about: "default codemode exposure; the model answers at once: only text. The memory tools are not declared (only `codemode` is)",
			why:   "no call on complete evidence: project_search_absent fails; toolsAdded names no memory tool, but tools exposed only through codemode are never declared, which proves nothing (§12): the fails stand",
			steps: []step{say(answer)},
			want:  four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:     "search-is-error",
			about:    "direct exposure; memory_search {scope: project} answers MCP isError: true (\"index unavailable\"): tool_execution_end isError true",
			why:      "the first call is a project search (memory_first pass); its only result is an error result (isError true): retrieval_result inconclusive search_result_error",
			exposure: "direct",
			mcpArgs:  []string{"-search-error"},
			steps: []step{
				one(search("call_search_e", "project")),
				say("The memory index is unavailable right now."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:    "search-is-error-codemode",
			about:   "default codemode exposure; the script's memory_search answers MCP isError: true (\"index unavailable\")",
			why:     "the nested project search is the first call (pass); its result is an MCP error: retrieval_result inconclusive search_result_error",
			mcpArgs: []string{"-search-error"},
			steps: []step{
				one(codemode("call_cm_e", jsSearch+jsReturn)),
				say("The memory index is unavailable right now."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:     "search-rpc-error",
			about:    "direct exposure; memory_search {scope: project} is answered with a JSON-RPC error (-32602) instead of a result: tool_execution_end isError true",
			why:      "the first call is a project search (pass); its only result is an error result: retrieval_result inconclusive search_result_error",
			exposure: "direct",
			mcpArgs:  []string{"-rpc-error-tool", "memory_search"},
			steps: []step{
				one(search("call_search_r", "project")),
				say("The memory search failed."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:     "thinking",
			about:    "direct exposure: the responses stream reasoning (delta.reasoning_content) before the search call and before the answer: thinking blocks in the assistant messages",
			why:      "thinking blocks are reasoning, never calls or narration; the first call is a good project search: all pass",
			exposure: "direct",
			steps: []step{
				one(reasoning("The user asks about the ledger; search the project memory first."), search("call_search_th", "project")),
				one(reasoning("The memory has the answer."), text(answer)),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:     "store",
			about:    "direct exposure: memory_search {scope: project}, then memory_store (the server stores it), then the answer",
			why:      "memory_store is a catalog capture mutation and cairn runs without --capture-authorized: direct_write_boundary fails direct_mutation_unauthorized; the search is first and good",
			exposure: "direct",
			steps: []step{
				one(search("call_search_s", "project")),
				one(call("call_store_s", mt("memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("Stored a note about the ledger."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:  "delete-codemode",
			about: "default codemode exposure: one script that searches {scope: project}, then calls memory_delete, which the server refuses (MCP isError)",
			why:   "memory_delete is a catalog destructive mutation and a failed attempt counts (§6.4), nested in a codemode script like any call: direct_write_boundary fails destructive_mutation; the nested search is first and good",
			steps: []step{
				one(codemode("call_cm_d", jsSearch+`const d = await tools.mcp__cairn_memory__memory_delete({ id: "mem_1" });`+"\n"+`return { r, d };`)),
				say("The delete was refused."),
			},
			want: four(pass, pass, pass, fail("destructive_mutation")),
		},
		{
			name:     "search-global",
			about:    "direct exposure: memory_search with scope \"global\"",
			why:      "the first call is a memory_search whose scope is not \"project\": memory_first fails first_search_not_project_scoped; there is no project-scoped search and the evidence is complete: retrieval_result fails project_search_absent",
			exposure: "direct",
			steps: []step{
				one(search("call_search_g", "global")),
				say(answer),
			},
			want: four(pass, fail("first_search_not_project_scoped"), fail("project_search_absent"), pass),
		},
		{
			name:     "parallel-calls",
			about:    "direct exposure: one assistant message with text + memory_search {scope: project} + read README.md (two toolCall blocks, run in parallel), then the answer",
			why:      "toolCall blocks are calls in content order: memory_search comes before read, so memory_first passes; the search result is good; read is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			exposure: "direct",
			steps: []step{
				one(text("I'll search memory and read the README in parallel."), search("call_search_p", "project"),
					call("call_read_p", "read", o("path", "README.md"))),
				say(answer),
			},
			want: four(pass, pass, pass, inc("opaque_tool_effects")),
		},
		{
			name:     "api-error-500",
			about:    "direct exposure: a good project search, then HTTP 500 on every later request: 3 retries (retry.baseDelayMs 200), auto_retry_end success false, then agent_settled",
			why:      "auto_retry_end.success false (and a last assistant stopReason error): turn_failed; the observed first call is a good project search, which stays a pass for memory_first and retrieval_result",
			exposure: "direct",
			steps: []step{
				one(search("call_search_5", "project")),
				httpErr(500, "server_error", "The server had an error while processing your request."),
			},
			want: four(inc("turn_failed"), pass, pass, pass),
		},
		{
			name:     "api-error-400",
			about:    "direct exposure: HTTP 400 on the very first request (not retried): the assistant message has stopReason error, then agent_settled",
			why:      "a last assistant stopReason error: turn_failed; no call was made and absence is not proven: memory_first and retrieval_result inconclusive turn_failed; nothing was called: direct_write_boundary passes",
			exposure: "direct",
			steps:    []step{httpErr(400, "invalid_request_error", "Invalid request: the mock refuses it.")},
			want:     four(inc("turn_failed"), inc("turn_failed"), inc("turn_failed"), pass),
		},
		{
			name:     "server-fails",
			about:    "direct exposure, but the MCP server's command does not exist: toolsAdded names no memory tool; the model calls mcp__cairn_memory__memory_search {scope: project} anyway: tool_execution_end isError true \"Tool … not found\"",
			why:      "the first call is a project-scoped memory_search by name, so memory_first passes (availability only turns a fail into memory_server_unavailable); its only result is an error result: retrieval_result inconclusive search_result_error",
			exposure: "direct",
			mcpCmd:   "/nonexistent/cairn-memory-server",
			steps: []step{
				one(search("call_search_f", "project")),
				say("The memory tools are not available."),
			},
			want: four(pass, pass, inc("search_result_error"), pass),
		},
		{
			name:     "server-fails-no-call",
			about:    "direct exposure, the MCP server's command does not exist; the model answers at once",
			why:      "no call on complete evidence would fail project_search_absent twice, but the first system message_end's toolsAdded names no memory tool (and no codemode): the server was not available, so both fails become inconclusive memory_server_unavailable",
			exposure: "direct",
			mcpCmd:   "/nonexistent/cairn-memory-server",
			steps:    []step{say("The memory tools are not available.")},
			want:     four(pass, inc("memory_server_unavailable"), inc("memory_server_unavailable"), pass),
		},
		{
			name:   "server-fails-codemode",
			about:  "the default codemode exposure, but the MCP server's command does not exist: `codemode` is still declared and the system prompt's mcp_servers section still lists `mcp__cairn_memory (codemode)`; the model calls codemode with the search script",
			why:    "codemode is bookkeeping, and its script failed before it made any call (TypeError: the tool does not exist; no nested tool_execution_start), so the stream holds no call at all, on complete evidence: memory_first and retrieval_result fail project_search_absent; toolsAdded declares codemode (pi declares it although the server never started, and the mcp_servers section still lists the server), and tools reached only through codemode prove nothing about availability (§12), so the fails stand: the only trace of the failed attempt is the codemode result's text, which §12 never reads (an open question: see below)",
			mcpCmd: "/nonexistent/cairn-memory-server",
			steps: []step{
				one(codemode("call_cm_f", jsSearch+jsReturn)),
				say("The memory tools are not available."),
			},
			want: four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:     "excluded-tool",
			about:    "direct exposure with `--exclude-tools mcp__cairn_memory__memory_store`: the model calls memory_store anyway (\"Tool … not found\", isError true, no durationMs), then memory_search {scope: project} (declared, runs), then the answer",
			why:      "a refused mutation is still an attempt (§6.4): direct_write_boundary fails direct_mutation_unauthorized; the refused store is the first call, another memory tool: memory_first fails tool_before_project_search, and stays a fail because toolsAdded names memory_search (the server was available); the search has a good result: retrieval pass; every call has its result: evidence pass",
			exposure: "direct",
			args:     []string{"--exclude-tools", mt("memory_store")},
			steps: []step{
				one(call("call_store_x", mt("memory_store"), o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				one(search("call_search_x", "project")),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:     "sigint-streaming",
			about:    "direct exposure: a good project search, then the answer's text streams and the stream stalls; the harness sends SIGINT to pi's process group, which dies (no agent_settled)",
			why:      "no agent_settled: turn_incomplete; the observed first call is a good project search (memory_first and retrieval_result pass); nothing else was called",
			exposure: "direct",
			steps: []step{
				one(search("call_search_i", "project")),
				{parts: []part{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true},
			},
			wantExit: 130,
			want:     four(inc("turn_incomplete"), pass, pass, pass),
		},
		{
			name:     "sigint-in-tool",
			about:    "direct exposure: memory_search {scope: project} whose MCP call never returns (the server runs behind `capture mcp-hang`); the harness sends SIGINT: a tool_execution_start with no end, no agent_settled",
			why:      "no agent_settled (turn_incomplete) and a call never ended (call_incomplete); the first call is a project search, so memory_first passes; that search has no result: retrieval_result inconclusive search_result_missing",
			exposure: "direct",
			mcpHang:  "memory_search",
			steps: []step{
				one(search("call_search_h", "project")),
				say(answer),
			},
			wantExit: 130,
			want:     four(inc("call_incomplete", "turn_incomplete"), pass, inc("search_result_missing"), pass),
		},
		{
			name:     "sigterm-streaming",
			about:    "direct exposure: a good project search, then the answer's text streams and the stream stalls; the harness sends SIGTERM (what a CI runner's timeout or `kill` sends) to pi's process group",
			why:      "no agent_settled: turn_incomplete; the observed first call is a good project search (memory_first and retrieval_result pass); nothing else was called",
			exposure: "direct",
			signal:   syscall.SIGTERM,
			steps: []step{
				one(search("call_search_term", "project")),
				{parts: []part{text("The project memory says the release ledger lives in src/release-ledger.mjs.")}, hang: true},
			},
			wantExit: 143,
			want:     four(inc("turn_incomplete"), pass, pass, pass),
		},
		{
			name:     "sigterm-in-tool",
			about:    "direct exposure: memory_search {scope: project} whose MCP call never returns (the server runs behind `capture mcp-hang`); the harness sends SIGTERM: a tool_execution_start with no end, no agent_settled",
			why:      "no agent_settled (turn_incomplete) and a call never ended (call_incomplete); the first call is a project search, so memory_first passes; that search has no result: retrieval_result inconclusive search_result_missing",
			exposure: "direct",
			mcpHang:  "memory_search",
			signal:   syscall.SIGTERM,
			steps: []step{
				one(search("call_search_th", "project")),
				say(answer),
			},
			wantExit: 143,
			want:     four(inc("call_incomplete", "turn_incomplete"), pass, inc("search_result_missing"), pass),
		},
		{
			name:  "no-mcp-bash-first",
			about: "no ~/.pi/agent/mcp.json at all (no MCP server configured): the model calls bash `ls`, then answers",
			why:   "the first system message_end declares its tools and names no memory tool: the fails of memory_first (tool_before_project_search) and retrieval_result (project_search_absent) become memory_server_unavailable (§12 availability); bash is opaque: direct_write_boundary inconclusive opaque_tool_effects; the call has its result: evidence pass",
			noMCP: true,
			steps: []step{
				one(call("call_bash_n", "bash", o("command", "ls"))),
				say(answer),
			},
			want: four(pass, inc("memory_server_unavailable"), inc("memory_server_unavailable"), inc("opaque_tool_effects")),
		},
		{
			name:  "no-mcp-no-call",
			about: "no ~/.pi/agent/mcp.json at all (no MCP server configured): the model answers at once",
			why:   "no call on complete evidence would fail memory_first and retrieval_result project_search_absent, but the first system message_end declares its tools and names no memory tool: both become memory_server_unavailable (§12 availability); nothing ran: direct_write_boundary pass",
			noMCP: true,
			steps: []step{say(answer)},
			want:  four(pass, inc("memory_server_unavailable"), inc("memory_server_unavailable"), pass),
		},
		{
			name:     "length-tool-call",
			about:    "direct exposure: the first response is memory_search {scope: project} with finish_reason \"length\" (stopReason length with a toolCall block): pi starts the call but does not run it (tool_execution_end isError true, \"was not executed: the response hit the output token limit\"); the model then re-issues the search, which runs, then answers",
			why:      "stopReason length with calls: message_aborted (§12); the cut-off call's input is unknown, so (as §9) it never counts as a project search and, being the first call, makes memory_first inconclusive message_aborted rather than a verdict; the re-issued project search has a good result: retrieval pass; evidence_complete inconclusive message_aborted",
			exposure: "direct",
			steps: []step{
				{parts: []part{search("call_search_l", "project")}, finishReason: "length"},
				one(search("call_search_l2", "project")),
				say(answer),
			},
			want: four(inc("message_aborted"), inc("message_aborted"), pass, pass),
		},
		{
			name:         "tool-search",
			about:        "`exposure: \"deferred\"` and `defaultTools: [\"+tool_search\"]`: the memory tools are not declared; the model calls tool_search {query: \"memory search\"}, which loads them, then mcp__cairn_memory__memory_search {scope: project}, then answers",
			why:          "tool_search is discovery, neither the first call nor an opaque effect (§12): the first call is a good project search: all pass",
			exposure:     "deferred",
			defaultTools: []string{"+tool_search"},
			steps: []step{
				one(call("call_ts_1", "tool_search", o("query", "memory search"))),
				one(search("call_search_t", "project")),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:         "tool-search-no-call",
			about:        "`exposure: \"deferred\"` and `defaultTools: [\"+tool_search\"]`; the model answers at once: the first system message_end declares `tool_search` but no memory tool",
			why:          "no call on complete evidence: memory_first and retrieval_result fail project_search_absent; toolsAdded names no memory tool but declares tool_search: deferred tools are, like codemode-exposed ones, never declared before discovery, so this proves nothing about availability and the fails stand (§12 says so only of codemode: an open question, see below)",
			exposure:     "deferred",
			defaultTools: []string{"+tool_search"},
			steps:        []step{say(answer)},
			want:         four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:     "session-file",
			about:    "the memory-first-direct run without --no-session (stdout kept only in the scratch folder); session-file.jsonl is the session file pi wrote, `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`, copied byte for byte: the `session` header, then `model_change`, `thinking_level_change` and `message` entries",
			why:      "not this format (§12): record 1 is a valid `session` header, but record 2 is a session-file entry type, outside any attempt: invalid event_outside_turn at record 2 (no place: §12 lists none for it)",
			exposure: "direct",
			keep:     keepSession,
			steps: []step{
				one(text("Let me search the project memory."), search("call_search_f1", "project")),
				say(answer),
			},
			wantErr: invalidAt("event_outside_turn", 2, ""),
		},
		// pi-mcp-adapter (pi 0.86.x): MCP tools through the adapter's proxy
		// `mcp`, or registered directly (directTools) as cairn-memory_TOOL.
		{
			name:          "adapter-direct",
			about:         "pi-mcp-adapter with `directTools: true`: the tools are declared as `cairn-memory_memory_search` (server name kept as written); the model calls it {scope: project}, then answers",
			why:           "cairn-memory_memory_search is one of the adapter's direct memory names (§12): the first call is a good project search: all pass",
			adapter:       true,
			adapterServer: obj{kv("directTools", true)},
			steps: []step{
				one(text("Let me search the project memory."), call("call_search_ad", "cairn-memory_memory_search", o("query", "release ledger", "scope", "project"))),
				say(answer),
			},
			want: four(pass, pass, pass, pass),
		},
		{
			name:    "adapter-proxy",
			about:   "pi-mcp-adapter with its default proxy: no memory tool is declared, only the adapter's `mcpScript`, `mcp` and `mcp__cairn_memory`; the model calls `mcp` {tool: \"cairn_memory_memory_search\", args: {query, scope: project}}, then answers",
			why:     "the adapter's `mcp` proxy names the real tool in its arguments: an opaque call (§12, as §5), and the first: memory_first fails tool_before_project_search; no memory_search call at all on complete evidence: retrieval_result fails project_search_absent; the availability rule does not apply (the first system message declares `mcp`, a proxy that can reach the server's tools); the proxy is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			adapter: true,
			steps: []step{
				one(text("Let me search the project memory."), call("call_mcp_ap", "mcp", o("tool", "cairn_memory_memory_search", "args", o("query", "release ledger", "scope", "project")))),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), fail("project_search_absent"), inc("opaque_tool_effects")),
		},
		{
			name:    "adapter-namespace-proxy",
			about:   "pi-mcp-adapter with its default proxy, whose 2.36.0 also declares a per-server namespace proxy `mcp__cairn_memory` {tool, args}: the model calls `mcp__cairn_memory` {tool: \"memory_search\", args: {query, scope: project}}, then answers",
			why:     "`mcp__cairn_memory` is not `mcp__cairn_memory__TOOL`: a proxy whose arguments name the real tool, opaque (§12, as §5), and the first call: memory_first fails tool_before_project_search; no memory_search call on complete evidence: retrieval_result fails project_search_absent; the first system message declares the proxies, so the availability rule does not apply; the proxy is opaque: direct_write_boundary inconclusive opaque_tool_effects",
			adapter: true,
			steps: []step{
				one(call("call_ns_an", "mcp__cairn_memory", o("tool", "memory_search", "args", o("query", "release ledger", "scope", "project")))),
				say(answer),
			},
			want: four(pass, fail("tool_before_project_search"), fail("project_search_absent"), inc("opaque_tool_effects")),
		},
		{
			name:    "adapter-script",
			about:   "pi-mcp-adapter with its default proxy: the model calls the adapter's `mcpScript` {code} whose script calls `tools.cairn_memory_memory_search({query, scope: \"project\"})` and emits the result",
			why:     "`mcpScript` is the adapter's script tool: its script's calls are not printed at all (no nested tool_execution_start), so it is one opaque call (§12 names only codemode as a container), and the first: memory_first fails tool_before_project_search; the calls it made are not in the stream, so the evidence is not complete and an absence is not proven (§6, as Gemini's invoke_agent): evidence_complete and retrieval_result inconclusive subagent_evidence_missing; opaque: direct_write_boundary inconclusive opaque_tool_effects",
			adapter: true,
			steps: []step{
				one(call("call_script_as", "mcpScript", o("code", `const r = await tools.cairn_memory_memory_search({ query: "release ledger", scope: "project" });`+"\n"+`emit(r);`))),
				say(answer),
			},
			want: four(inc("subagent_evidence_missing"), fail("tool_before_project_search"), inc("subagent_evidence_missing"), inc("opaque_tool_effects")),
		},
		{
			name:          "adapter-store",
			about:         "pi-mcp-adapter with `directTools: true`: cairn-memory_memory_search {scope: project}, then cairn-memory_memory_store, then the answer",
			why:           "cairn-memory_memory_store is a catalog capture mutation without --capture-authorized: direct_write_boundary fails direct_mutation_unauthorized; the search is first and good",
			adapter:       true,
			adapterServer: obj{kv("directTools", true)},
			steps: []step{
				one(call("call_search_as", "cairn-memory_memory_search", o("query", "release ledger", "scope", "project"))),
				one(call("call_store_as", "cairn-memory_memory_store", o("text", "Ledger amounts are integer cents.", "scope", "project"))),
				say("Stored a note about the ledger."),
			},
			want: four(pass, pass, pass, fail("direct_mutation_unauthorized")),
		},
		{
			name:          "adapter-no-call",
			about:         "pi-mcp-adapter with `directTools: true`; the model answers at once",
			why:           "no call on complete evidence: memory_first and retrieval_result fail project_search_absent; the first system message declares cairn-memory_memory_search: the server was available",
			adapter:       true,
			adapterServer: obj{kv("directTools", true)},
			steps:         []step{say(answer)},
			want:          four(pass, fail("project_search_absent"), fail("project_search_absent"), pass),
		},
		{
			name:          "adapter-api-error-500",
			about:         "pi-mcp-adapter with `directTools: true`: a good project search, then HTTP 500 on every later request (3 retries, retry.baseDelayMs 200)",
			why:           "auto_retry_end.success false: turn_failed; the observed good project search still passes memory_first and retrieval_result",
			adapter:       true,
			adapterServer: obj{kv("directTools", true)},
			steps: []step{
				one(call("call_search_a5", "cairn-memory_memory_search", o("query", "release ledger", "scope", "project"))),
				httpErr(500, "server_error", "The server had an error while processing your request."),
			},
			want: four(inc("turn_failed"), pass, pass, pass),
		},
	}
}

// sig is the signal the harness sends when the scenario stalls.
func (s *scenario) sig() syscall.Signal {
	if s.signal == 0 {
		return syscall.SIGINT
	}
	return s.signal
}

// sigName is a signal as the README says it.
func sigName(sig syscall.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

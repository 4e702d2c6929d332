package lifecycle

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// decodeLine runs line through the JSON check (with the web_search
// exception, as the normalizer does) and the Decoder.
func decodeLine(t *testing.T, line string) (*Record, audit.Code) {
	t.Helper()
	c := stream.Checker{Locate: Locate}
	if code := c.Check([]byte(line)); code != 0 {
		t.Fatalf("test record %s is not accepted by the checker: %s", line, code)
	}
	var d Decoder
	rec := new(Record)
	return rec, d.decode([]byte(line), rec)
}

// sub replaces the first old in s by new; old must occur.
func sub(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("sub: " + old + " not in " + s)
	}
	return strings.Replace(s, old, new, 1)
}

func wrap(recType, item string) string {
	return `{"type":"` + recType + `","item":` + item + `}`
}

// Items in the shapes of reference/codex-exec-events.md §2–§3.
const (
	agentMessage = `{"id":"item_0","type":"agent_message","text":"done"}`
	reasoning    = `{"id":"item_1","type":"reasoning","text":"**thinking**"}`
	commandStart = `{"id":"item_2","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}`
	commandDone  = `{"id":"item_2","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}`
	fileChange   = `{"id":"item_3","type":"file_change","changes":[{"path":"/r/a","kind":"add"},{"path":"/r/b","kind":"delete"},{"path":"/r/c","kind":"update"}],"status":"completed"}`
	mcpStart     = `{"id":"item_4","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q"},"result":null,"error":null,"status":"in_progress"}`
	mcpDone      = `{"id":"item_4","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q"},"result":{"content":[{"type":"text","text":"{}"}],"structured_content":{"mode":"substring","count":0,"results":[]}},"error":null,"status":"completed"}`
	mcpFailed    = `{"id":"item_4","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q"},"result":null,"error":{"message":"tool call error: timed out"},"status":"failed"}`
	collabStart  = `{"id":"item_5","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"t0","receiver_thread_ids":["t1"],"prompt":null,"agents_states":{"t1":{"status":"pending_init","message":null}},"status":"in_progress"}`
	webStart     = `{"id":"item_6","type":"web_search","id":"","query":"","action":{"type":"other"}}`
	webDone      = `{"id":"item_6","type":"web_search","id":"ws_1","query":"go","action":{"type":"search","query":"go","queries":["go"]}}`
	todoList     = `{"id":"item_7","type":"todo_list","items":[{"text":"a","completed":false},{"text":"b","completed":true}]}`
	errorItem    = `{"id":"item_8","type":"error","message":"config warning"}`

	usage4 = `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3,"reasoning_output_tokens":1}}`
)

type decodeCase struct {
	name    string
	line    string
	code    audit.Code
	unknown bool // rec.UnknownField
}

func runDecodeCases(t *testing.T, tests []decodeCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, code := decodeLine(t, tc.line)
			if code != tc.code {
				t.Fatalf("Decode(%s) = %s, want %s", tc.line, codeOrOK(code), codeOrOK(tc.code))
			}
			if code == 0 && rec.UnknownField() != tc.unknown {
				t.Errorf("Decode(%s): UnknownField = %v, want %v", tc.line, rec.UnknownField(), tc.unknown)
			}
		})
	}
}

func codeOrOK(c audit.Code) string {
	if c == 0 {
		return "ok"
	}
	return c.String()
}

func TestDecodeContractShapes(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{"thread.started", `{"type":"thread.started","thread_id":"019e6a22"}`, 0, false},
		{"turn.started", `{"type":"turn.started"}`, 0, false},
		{"turn.completed", usage4, 0, false},
		{"turn.completed without reasoning_output_tokens", sub(usage4, `,"reasoning_output_tokens":1`, ``), 0, false},
		{"turn.failed", `{"type":"turn.failed","error":{"message":"boom"}}`, 0, false},
		{"error record", `{"type":"error","message":"Reconnecting... 2/5"}`, 0, false},
		{"agent_message", wrap("item.completed", agentMessage), 0, false},
		{"reasoning", wrap("item.completed", reasoning), 0, false},
		{"command started", wrap("item.started", commandStart), 0, false},
		{"command completed", wrap("item.completed", commandDone), 0, false},
		{"command failed", wrap("item.completed", sub(commandDone, `0,"status":"completed"`, `2,"status":"failed"`)), 0, false},
		{"command declined", wrap("item.completed", sub(commandDone, `"completed"`, `"declined"`)), 0, false},
		{"file_change started", wrap("item.started", sub(fileChange, `"completed"`, `"in_progress"`)), 0, false},
		{"file_change completed", wrap("item.completed", fileChange), 0, false},
		{"file_change no changes", wrap("item.completed", sub(fileChange, `[{"path":"/r/a","kind":"add"},{"path":"/r/b","kind":"delete"},{"path":"/r/c","kind":"update"}]`, `[]`)), 0, false},
		{"mcp started", wrap("item.started", mcpStart), 0, false},
		{"mcp completed", wrap("item.completed", mcpDone), 0, false},
		{"mcp failed with error", wrap("item.completed", mcpFailed), 0, false},
		{"mcp isError result", wrap("item.completed", sub(mcpDone, `"completed"`, `"failed"`)), 0, false},
		{"mcp declined", wrap("item.completed", sub(mcpFailed, `"failed"`, `"declined"`)), 0, false},
		{"mcp arguments null", wrap("item.started", sub(mcpStart, `{"scope":"project","query":"q"}`, `null`)), 0, false},
		{"mcp arguments array", wrap("item.started", sub(mcpStart, `{"scope":"project","query":"q"}`, `[1,"a"]`)), 0, false},
		{"mcp arguments string", wrap("item.started", sub(mcpStart, `{"scope":"project","query":"q"}`, `"x"`)), 0, false},
		{"mcp arguments number", wrap("item.started", sub(mcpStart, `{"scope":"project","query":"q"}`, `1.5`)), 0, false},
		{"mcp structured_content null", wrap("item.completed", sub(mcpDone, `{"mode":"substring","count":0,"results":[]}`, `null`)), 0, false},
		{"mcp structured_content array", wrap("item.completed", sub(mcpDone, `{"mode":"substring","count":0,"results":[]}`, `[1]`)), 0, false},
		{"mcp result empty object", wrap("item.completed", sub(mcpDone, `{"content":[{"type":"text","text":"{}"}],"structured_content":{"mode":"substring","count":0,"results":[]}}`, `{}`)), 0, false},
		{"collab_tool_call", wrap("item.started", collabStart), 0, false},
		{"collab_tool_call prompt string", wrap("item.completed", sub(sub(collabStart, `"prompt":null`, `"prompt":"go"`), `"in_progress"`, `"completed"`)), 0, false},
		{"web_search started, id twice", wrap("item.started", webStart), 0, false},
		{"web_search completed, id twice", wrap("item.completed", webDone), 0, false},
		{"web_search with one id", wrap("item.completed", sub(webDone, `"id":"ws_1",`, ``)), 0, false},
		{"todo_list started", wrap("item.started", todoList), 0, false},
		{"todo_list updated", wrap("item.updated", todoList), 0, false},
		{"todo_list completed", wrap("item.completed", todoList), 0, false},
		{"error item", wrap("item.completed", errorItem), 0, false},

		// The seed control's shape: no result or error keys, three usage fields.
		{"seed mcp started without result and error", wrap("item.started", `{"id":"a","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"release ledger"},"status":"in_progress"}`), 0, false},
		{"seed mcp completed without error", wrap("item.completed", `{"id":"a","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"release ledger"},"status":"completed","result":{"content":[],"structured_content":{"mode":"substring","count":0,"results":[]}}}`), 0, false},
		{"seed turn.completed", `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":1}}`, 0, false},

		// Unknown kinds are judged as a whole, not member by member.
		{"unknown record type", `{"type":"session.created","session_id":"s","x":{"y":1}}`, 0, false},
		{"unknown record type with item", `{"type":"item.plan.delta","item":{"whatever":1}}`, 0, false},
		{"unknown item type", wrap("item.completed", `{"id":"item_9","type":"plan","text":"x","steps":[{"a":1}]}`), 0, false},
	})
}

func TestDecodeSchemaViolation(t *testing.T) {
	arg := `{"scope":"project","query":"q"}`
	runDecodeCases(t, []decodeCase{
		// type of every record
		{"record type missing", `{"thread_id":"t"}`, audit.SchemaViolation, false},
		{"record type missing, empty record", `{}`, audit.SchemaViolation, false},
		{"record type number", `{"type":1}`, audit.SchemaViolation, false},
		{"record type null", `{"type":null}`, audit.SchemaViolation, false},
		{"record type array", `{"type":["turn.started"]}`, audit.SchemaViolation, false},
		{"record type object", `{"type":{"name":"turn.started"}}`, audit.SchemaViolation, false},
		{"record type bool", `{"type":true}`, audit.SchemaViolation, false},

		// item of item records
		{"item.started without item", `{"type":"item.started"}`, audit.SchemaViolation, false},
		{"item.updated without item", `{"type":"item.updated"}`, audit.SchemaViolation, false},
		{"item.completed without item", `{"type":"item.completed"}`, audit.SchemaViolation, false},
		{"item null", `{"type":"item.completed","item":null}`, audit.SchemaViolation, false},
		{"item string", `{"type":"item.completed","item":"item_0"}`, audit.SchemaViolation, false},
		{"item array", `{"type":"item.started","item":[` + agentMessage + `]}`, audit.SchemaViolation, false},

		// item id: a non-empty string
		{"item id missing", wrap("item.completed", `{"type":"agent_message","text":"x"}`), audit.SchemaViolation, false},
		{"item id empty", wrap("item.completed", sub(agentMessage, `"item_0"`, `""`)), audit.SchemaViolation, false},
		{"item id number", wrap("item.completed", sub(agentMessage, `"item_0"`, `0`)), audit.SchemaViolation, false},
		{"item id null", wrap("item.completed", sub(agentMessage, `"item_0"`, `null`)), audit.SchemaViolation, false},
		{"item id object", wrap("item.completed", sub(agentMessage, `"item_0"`, `{}`)), audit.SchemaViolation, false},
		{"item id missing, unknown type", wrap("item.completed", `{"type":"plan"}`), audit.SchemaViolation, false},
		{"web_search first id empty", wrap("item.started", sub(webDone, `"item_6"`, `""`)), audit.SchemaViolation, false},
		{"web_search first id number", wrap("item.started", sub(webDone, `"item_6"`, `6`)), audit.SchemaViolation, false},

		// item type: a string
		{"item type missing", wrap("item.completed", `{"id":"item_0","text":"x"}`), audit.SchemaViolation, false},
		{"item type number", wrap("item.completed", sub(agentMessage, `"agent_message"`, `1`)), audit.SchemaViolation, false},
		{"item type null", wrap("item.completed", sub(agentMessage, `"agent_message"`, `null`)), audit.SchemaViolation, false},

		// mcp_tool_call: server, tool (strings), arguments (any), status (string)
		{"mcp server missing", wrap("item.started", sub(mcpStart, `"server":"cairn-memory",`, ``)), audit.SchemaViolation, false},
		{"mcp tool missing", wrap("item.started", sub(mcpStart, `"tool":"memory_search",`, ``)), audit.SchemaViolation, false},
		{"mcp arguments missing", wrap("item.started", sub(mcpStart, `"arguments":`+arg+`,`, ``)), audit.SchemaViolation, false},
		{"mcp status missing", wrap("item.started", sub(mcpStart, `,"status":"in_progress"`, ``)), audit.SchemaViolation, false},
		{"mcp status missing at completion", wrap("item.completed", sub(mcpDone, `,"status":"completed"`, ``)), audit.SchemaViolation, false},
		{"mcp server number", wrap("item.started", sub(mcpStart, `"cairn-memory"`, `1`)), audit.SchemaViolation, false},
		{"mcp server null", wrap("item.started", sub(mcpStart, `"cairn-memory"`, `null`)), audit.SchemaViolation, false},
		{"mcp tool null", wrap("item.started", sub(mcpStart, `"memory_search"`, `null`)), audit.SchemaViolation, false},
		{"mcp tool array", wrap("item.started", sub(mcpStart, `"memory_search"`, `["memory_search"]`)), audit.SchemaViolation, false},
		{"mcp status number", wrap("item.started", sub(mcpStart, `"in_progress"`, `0`)), audit.SchemaViolation, false},
		{"mcp status null", wrap("item.started", sub(mcpStart, `"in_progress"`, `null`)), audit.SchemaViolation, false},
		{"mcp everything missing", wrap("item.started", `{"id":"x","type":"mcp_tool_call"}`), audit.SchemaViolation, false},

		// other declared fields, when present, have their declared type
		{"thread_id number", `{"type":"thread.started","thread_id":1}`, audit.SchemaViolation, false},
		{"error record message number", `{"type":"error","message":1}`, audit.SchemaViolation, false},
		{"error record message null", `{"type":"error","message":null}`, audit.SchemaViolation, false},
		{"usage string", `{"type":"turn.completed","usage":"10"}`, audit.SchemaViolation, false},
		{"usage null", `{"type":"turn.completed","usage":null}`, audit.SchemaViolation, false},
		{"usage count string", sub(usage4, `"input_tokens":10`, `"input_tokens":"10"`), audit.SchemaViolation, false},
		{"usage count fraction", sub(usage4, `"output_tokens":3`, `"output_tokens":3.5`), audit.SchemaViolation, false},
		{"usage count null", sub(usage4, `"reasoning_output_tokens":1`, `"reasoning_output_tokens":null`), audit.SchemaViolation, false},
		{"usage known count string beside unknown ones", sub(usage4, `"input_tokens":10`, `"cache_write_input_tokens":1,"input_tokens":"10"`), audit.SchemaViolation, false},
		{"mcp result _meta not an object", wrap("item.completed", sub(mcpDone, `"structured_content"`, `"_meta":[1],"structured_content"`)), audit.SchemaViolation, false},
		{"web_search results not an array", wrap("item.completed", sub(webDone, `"action"`, `"results":{},"action"`)), audit.SchemaViolation, false},
		{"turn.failed error string", `{"type":"turn.failed","error":"boom"}`, audit.SchemaViolation, false},
		{"turn.failed error null", `{"type":"turn.failed","error":null}`, audit.SchemaViolation, false},
		{"turn.failed error message number", `{"type":"turn.failed","error":{"message":1}}`, audit.SchemaViolation, false},
		{"agent_message text number", wrap("item.completed", sub(agentMessage, `"done"`, `1`)), audit.SchemaViolation, false},
		{"reasoning text null", wrap("item.completed", sub(reasoning, `"**thinking**"`, `null`)), audit.SchemaViolation, false},
		{"command text array", wrap("item.started", sub(commandStart, `"/bin/bash -lc ls"`, `["ls"]`)), audit.SchemaViolation, false},
		{"command output null", wrap("item.started", sub(commandStart, `"aggregated_output":""`, `"aggregated_output":null`)), audit.SchemaViolation, false},
		{"command exit_code string", wrap("item.completed", sub(commandDone, `"exit_code":0`, `"exit_code":"0"`)), audit.SchemaViolation, false},
		{"command exit_code fraction", wrap("item.completed", sub(commandDone, `"exit_code":0`, `"exit_code":0.5`)), audit.SchemaViolation, false},
		{"command status number", wrap("item.completed", sub(commandDone, `"completed"`, `1`)), audit.SchemaViolation, false},
		{"file_change changes object", wrap("item.completed", sub(fileChange, `[{"path":"/r/a","kind":"add"},{"path":"/r/b","kind":"delete"},{"path":"/r/c","kind":"update"}]`, `{}`)), audit.SchemaViolation, false},
		{"file_change entry string", wrap("item.completed", sub(fileChange, `{"path":"/r/b","kind":"delete"}`, `"/r/b"`)), audit.SchemaViolation, false},
		{"file_change path number", wrap("item.completed", sub(fileChange, `"/r/c"`, `3`)), audit.SchemaViolation, false},
		{"file_change kind null", wrap("item.completed", sub(fileChange, `"kind":"add"`, `"kind":null`)), audit.SchemaViolation, false},
		{"file_change status null", wrap("item.completed", sub(fileChange, `"completed"`, `null`)), audit.SchemaViolation, false},
		{"mcp result string", wrap("item.completed", sub(mcpFailed, `"result":null`, `"result":"x"`)), audit.SchemaViolation, false},
		{"mcp result array", wrap("item.completed", sub(mcpFailed, `"result":null`, `"result":[]`)), audit.SchemaViolation, false},
		{"mcp result content object", wrap("item.completed", sub(mcpDone, `"content":[{"type":"text","text":"{}"}]`, `"content":{}`)), audit.SchemaViolation, false},
		{"mcp result content null", wrap("item.completed", sub(mcpDone, `"content":[{"type":"text","text":"{}"}]`, `"content":null`)), audit.SchemaViolation, false},
		{"mcp error string", wrap("item.completed", sub(mcpFailed, `{"message":"tool call error: timed out"}`, `"timed out"`)), audit.SchemaViolation, false},
		{"mcp error message number", wrap("item.completed", sub(mcpFailed, `"tool call error: timed out"`, `1`)), audit.SchemaViolation, false},
		{"collab receiver ids string", wrap("item.started", sub(collabStart, `["t1"]`, `"t1"`)), audit.SchemaViolation, false},
		{"collab receiver id number", wrap("item.started", sub(collabStart, `["t1"]`, `["t1",2]`)), audit.SchemaViolation, false},
		{"collab prompt number", wrap("item.started", sub(collabStart, `"prompt":null`, `"prompt":1`)), audit.SchemaViolation, false},
		{"collab agents_states array", wrap("item.started", sub(collabStart, `{"t1":{"status":"pending_init","message":null}}`, `[]`)), audit.SchemaViolation, false},
		{"collab sender null", wrap("item.started", sub(collabStart, `"t0"`, `null`)), audit.SchemaViolation, false},
		{"web_search query null", wrap("item.completed", sub(webDone, `"query":"go",`, `"query":null,`)), audit.SchemaViolation, false},
		{"web_search action string", wrap("item.completed", sub(webStart, `{"type":"other"}`, `"other"`)), audit.SchemaViolation, false},
		{"todo items object", wrap("item.started", sub(todoList, `[{"text":"a","completed":false},{"text":"b","completed":true}]`, `{}`)), audit.SchemaViolation, false},
		{"todo entry text number", wrap("item.updated", sub(todoList, `"text":"b"`, `"text":2`)), audit.SchemaViolation, false},
		{"todo entry completed string", wrap("item.updated", sub(todoList, `"completed":false`, `"completed":"no"`)), audit.SchemaViolation, false},
		{"todo entry not an object", wrap("item.updated", sub(todoList, `{"text":"a","completed":false}`, `["a",false]`)), audit.SchemaViolation, false},
		{"error item message object", wrap("item.completed", sub(errorItem, `"config warning"`, `{}`)), audit.SchemaViolation, false},
	})
}

func TestDecodeUnknownField(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		// member names not in the contract
		{"record member, thread.started", `{"type":"thread.started","thread_id":"t","timestamp":"2026-01-01"}`, 0, true},
		{"record member, turn.started", `{"type":"turn.started","turn_id":"x"}`, 0, true},
		{"record member, turn.completed", sub(usage4, `"usage"`, `"extra":1,"usage"`), 0, true},
		{"record member, error record", `{"type":"error","message":"x","will_retry":true}`, 0, true},
		{"record member, item record", `{"type":"item.started","item":` + commandStart + `,"seq":1}`, 0, true},
		{"item member on a non-item record", `{"type":"turn.started","item":` + agentMessage + `}`, 0, true},
		{"item member, agent_message", wrap("item.completed", sub(agentMessage, `"text"`, `"phase":"final_answer","text"`)), 0, true},
		{"item member, command", wrap("item.completed", sub(commandDone, `"status"`, `"duration_ms":5,"status"`)), 0, true},
		{"item member, mcp", wrap("item.started", sub(mcpStart, `"status"`, `"mcp_app_resource_uri":null,"status"`)), 0, true},
		{"item member, file_change", wrap("item.completed", sub(fileChange, `"status"`, `"diff":"","status"`)), 0, true},
		{"item member, web_search", wrap("item.completed", sub(webDone, `"query"`, `"url":"u","query"`)), 0, true},
		{"item member, todo_list", wrap("item.completed", sub(todoList, `"items"`, `"title":"t","items"`)), 0, true},
		{"item member, error item", wrap("item.completed", sub(errorItem, `"message"`, `"level":"warn","message"`)), 0, true},
		{"item member, collab", wrap("item.started", sub(collabStart, `"status":"in_progress"`, `"status":"in_progress","depth":1`)), 0, true},
		{"turn.failed error member", `{"type":"turn.failed","error":{"message":"x","code":429}}`, 0, true},
		{"mcp result member", wrap("item.completed", sub(mcpDone, `"structured_content"`, `"isError":false,"structured_content"`)), 0, true},
		{"mcp error member", wrap("item.completed", sub(mcpFailed, `"message"`, `"code":-32000,"message"`)), 0, true},
		{"changes entry member", wrap("item.completed", sub(fileChange, `{"path":"/r/b","kind":"delete"}`, `{"path":"/r/b","kind":"delete","diff":"-x"}`)), 0, true},
		{"todo entry member", wrap("item.updated", sub(todoList, `{"text":"b","completed":true}`, `{"text":"b","completed":true,"id":3}`)), 0, true},

		// enum values not in the contract
		{"mcp status value", wrap("item.completed", sub(mcpDone, `"completed"`, `"running"`)), 0, true},
		{"command status value", wrap("item.completed", sub(commandDone, `"completed"`, `"killed"`)), 0, true},
		{"file_change status declined", wrap("item.completed", sub(fileChange, `"status":"completed"`, `"status":"declined"`)), 0, true},
		{"file_change kind value", wrap("item.completed", sub(fileChange, `"kind":"update"`, `"kind":"rename"`)), 0, true},
		{"collab tool value", wrap("item.started", sub(collabStart, `"spawn_agent"`, `"fork_agent"`)), 0, true},
		{"collab status value", wrap("item.started", sub(collabStart, `"status":"in_progress"`, `"status":"queued"`)), 0, true},

		// free-form payloads are not checked for members
		{"arguments members", wrap("item.started", sub(mcpStart, `{"scope":"project","query":"q"}`, `{"scope":"project","anything":{"goes":[1,{"x":null}]}}`)), 0, false},
		{"content block members", wrap("item.completed", sub(mcpDone, `{"type":"text","text":"{}"}`, `{"type":"text","text":"{}","annotations":{"audience":["user"]},"_meta":{"k":1},"brand_new":true},{"type":"resource_link","uri":"u","name":"n","icons":[]},{"type":"future_block","x":1}`)), 0, false},
		{"content block not an object", wrap("item.completed", sub(mcpDone, `{"type":"text","text":"{}"}`, `"<content>"`)), 0, false},
		{"structured_content members", wrap("item.completed", sub(mcpDone, `{"mode":"substring","count":0,"results":[]}`, `{"mode":"substring","count":0,"results":[],"server_extra":{"a":1}}`)), 0, false},
		{"web_search action members", wrap("item.completed", sub(webDone, `{"type":"search","query":"go","queries":["go"]}`, `{"type":"find_in_page","url":"u","pattern":"p","future":1}`)), 0, false},
		{"usage members (codex 0.145+)", sub(usage4, `"cached_input_tokens":0,`, `"cached_input_tokens":0,"cache_write_input_tokens":7,`), 0, false},
		{"usage members of any type", sub(usage4, `"input_tokens"`, `"future":{"a":[1]},"total":"11","input_tokens"`), 0, false},
		{"mcp result _meta (codex 0.132+)", wrap("item.completed", sub(mcpDone, `"structured_content"`, `"_meta":{"progressToken":1,"x":{"y":null}},"structured_content"`)), 0, false},
		{"web_search results (codex 0.157+)", wrap("item.completed", sub(webDone, `"action"`, `"results":[{"type":"text_result","domain":"d","ref_id":"r","snippet":"s","title":"t","url":"u","new":1}],"action"`)), 0, false},
		{"web_search open_page action", wrap("item.completed", sub(webDone, `{"type":"search","query":"go","queries":["go"]}`, `{"type":"open_page","url":"u"}`)), 0, false},
		{"agents_states members", wrap("item.started", sub(collabStart, `{"t1":{"status":"pending_init","message":null}}`, `{"t1":{"status":"teleported","message":null,"extra":{"x":1}},"t2":{}}`)), 0, false},
	})
}

func TestDecodeDuplicateID(t *testing.T) {
	runDecodeCases(t, []decodeCase{
		{"command with id twice", wrap("item.started", sub(commandStart, `"command"`, `"id":"x","command"`)), audit.DuplicateKey, false},
		{"mcp with id twice", wrap("item.started", sub(mcpStart, `"status"`, `"id":"item_4","status"`)), audit.DuplicateKey, false},
		{"agent_message with id twice", wrap("item.completed", sub(agentMessage, `"text"`, `"id":"y","text"`)), audit.DuplicateKey, false},
		{"unknown type with id twice", wrap("item.completed", `{"id":"a","type":"plan","id":"b"}`), audit.DuplicateKey, false},
		{"web_search with id twice", wrap("item.completed", webDone), 0, false},
		{"item member of a non-item record with id twice", `{"type":"turn.started","item":{"id":"a","id":"b"}}`, audit.DuplicateKey, false},
		{"item member of an unknown record with id twice", `{"type":"turn.aborted","item":{"id":"a","type":"x","id":"b"}}`, audit.DuplicateKey, false},
		{"item without type with id twice", `{"type":"item.started","item":{"id":"a","id":"b"}}`, audit.DuplicateKey, false},
	})
}

func TestDecodeFields(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		typ    RecordType
		item   ItemType
		status Status
		server string
		tool   string
		args   string
		result bool // Result non-nil
		err    bool // Error non-nil
	}{
		{"thread.started", `{"type":"thread.started","thread_id":"t"}`, ThreadStarted, 0, 0, "", "", "", false, false},
		{"turn.started", `{"type":"turn.started"}`, TurnStarted, 0, 0, "", "", "", false, false},
		{"turn.completed", usage4, TurnCompleted, 0, 0, "", "", "", false, false},
		{"turn.failed", `{"type":"turn.failed","error":{"message":"x"}}`, TurnFailed, 0, 0, "", "", "", false, false},
		{"error", `{"type":"error","message":"x"}`, StreamError, 0, 0, "", "", "", false, false},
		{"unknown", `{"type":"turn.aborted"}`, UnknownRecord, 0, 0, "", "", "", false, false},
		{"agent_message", wrap("item.completed", agentMessage), ItemCompleted, AgentMessage, NoStatus, "", "", "", false, false},
		{"reasoning", wrap("item.completed", reasoning), ItemCompleted, Reasoning, NoStatus, "", "", "", false, false},
		{"command", wrap("item.started", commandStart), ItemStarted, CommandExecution, InProgress, "", "", "", false, false},
		{"file_change", wrap("item.completed", fileChange), ItemCompleted, FileChange, Completed, "", "", "", false, false},
		{"mcp started", wrap("item.started", mcpStart), ItemStarted, McpToolCall, InProgress, "cairn-memory", "memory_search", `{"scope":"project","query":"q"}`, true, true},
		{"mcp failed", wrap("item.completed", mcpFailed), ItemCompleted, McpToolCall, Failed, "cairn-memory", "memory_search", `{"scope":"project","query":"q"}`, true, true},
		{"mcp declined", wrap("item.completed", sub(mcpFailed, `"failed"`, `"declined"`)), ItemCompleted, McpToolCall, Declined, "cairn-memory", "memory_search", `{"scope":"project","query":"q"}`, true, true},
		{"mcp other status", wrap("item.completed", sub(mcpDone, `"completed"`, `"queued"`)), ItemCompleted, McpToolCall, OtherStatus, "cairn-memory", "memory_search", `{"scope":"project","query":"q"}`, true, true},
		{"mcp escaped names", wrap("item.started", sub(sub(mcpStart, `"cairn-memory"`, `"cairn\u002dmemory"`), `"memory_search"`, `"memory\u005fsearch"`)), ItemStarted, McpToolCall, InProgress, "cairn-memory", "memory_search", `{"scope":"project","query":"q"}`, true, true},
		{"mcp seed shape", wrap("item.started", `{"id":"a","type":"mcp_tool_call","server":"s","tool":"t","arguments":null,"status":"in_progress"}`), ItemStarted, McpToolCall, InProgress, "s", "t", `null`, false, false},
		{"collab", wrap("item.started", collabStart), ItemStarted, CollabToolCall, InProgress, "", "", "", false, false},
		{"web_search", wrap("item.started", webStart), ItemStarted, WebSearch, NoStatus, "", "", "", false, false},
		{"todo_list", wrap("item.updated", todoList), ItemUpdated, TodoList, NoStatus, "", "", "", false, false},
		{"error item", wrap("item.completed", errorItem), ItemCompleted, ErrorItem, NoStatus, "", "", "", false, false},
		{"unknown item", wrap("item.started", `{"id":"p","type":"plan"}`), ItemStarted, UnknownItem, NoStatus, "", "", "", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, code := decodeLine(t, tc.line)
			if code != 0 {
				t.Fatalf("Decode(%s) = %s, want ok", tc.line, code)
			}
			it := rec.Item
			if rec.Type != tc.typ || it.Type != tc.item || it.Status != tc.status {
				t.Errorf("Decode(%s): type %d, item type %d, status %d; want %d, %d, %d", tc.line, rec.Type, it.Type, it.Status, tc.typ, tc.item, tc.status)
			}
			if string(it.Server) != tc.server || string(it.Tool) != tc.tool || string(it.Arguments) != tc.args {
				t.Errorf("Decode(%s): server %q, tool %q, arguments %s; want %q, %q, %s", tc.line, it.Server, it.Tool, it.Arguments, tc.server, tc.tool, tc.args)
			}
			if (it.Result != nil) != tc.result || (it.Error != nil) != tc.err {
				t.Errorf("Decode(%s): result present %v, error present %v; want %v, %v", tc.line, it.Result != nil, it.Error != nil, tc.result, tc.err)
			}
		})
	}
}

// TestDecodeKeys checks that an item is keyed by its (first) id only:
// web_search's second id is ignored, and equal ids give equal keys
// whatever the item type or escaping.
func TestDecodeKeys(t *testing.T) {
	key := func(line string) stream.Key {
		t.Helper()
		rec, code := decodeLine(t, line)
		if code != 0 {
			t.Fatalf("Decode(%s) = %s, want ok", line, code)
		}
		return rec.Item.Key
	}
	web := key(wrap("item.completed", webDone))                                                                // ids item_6, ws_1
	if got, want := web, key(wrap("item.completed", sub(agentMessage, `"item_0"`, `"item_6"`))); got != want { // id item_6
		t.Errorf("web_search key (ids item_6, ws_1) = %x, want the key of id item_6 %x", got, want)
	}
	if got, other := web, key(wrap("item.completed", sub(agentMessage, `"item_0"`, `"ws_1"`))); got == other {
		t.Errorf("web_search key (ids item_6, ws_1) = key of id ws_1 %x, want the first id's", got)
	}
	if a, b := key(wrap("item.completed", agentMessage)), key(wrap("item.completed", sub(agentMessage, `"item_0"`, `"item\u005f0"`))); a != b {
		t.Errorf("key of id item_0 = %x, of id item\\u005f0 = %x, want equal", a, b)
	}
	if a, b := key(wrap("item.completed", agentMessage)), key(wrap("item.completed", sub(agentMessage, `"item_0"`, `"item_00"`))); a == b {
		t.Errorf("key of id item_0 = key of id item_00 = %x, want different", a)
	}
}

// TestDecoderReuse checks that one Decoder carries nothing from a record to
// the next.
func TestDecoderReuse(t *testing.T) {
	seq := []decodeCase{
		{"unknown member", `{"type":"turn.started","x":1}`, 0, true},
		{"clean", `{"type":"turn.started"}`, 0, false},
		{"mcp", wrap("item.started", mcpStart), 0, false},
		{"agent message after mcp", wrap("item.completed", agentMessage), 0, false},
		{"violation", `{"type":1}`, audit.SchemaViolation, false},
		{"clean again", usage4, 0, false},
	}
	var d Decoder
	var rec Record
	for i, s := range seq {
		code := d.decode([]byte(s.line), &rec)
		if code != s.code || code == 0 && rec.UnknownField() != s.unknown {
			t.Errorf("record %d: Decode(%s) = %s, UnknownField %v; want %s, %v", i+1, s.line, codeOrOK(code), rec.UnknownField(), codeOrOK(s.code), s.unknown)
		}
		if code == 0 && rec.Item.Type != McpToolCall && (rec.Item.Server != nil || rec.Item.Arguments != nil) {
			t.Errorf("record %d: Decode(%s) kept the previous record's mcp fields", i+1, s.line)
		}
	}
}

// TestDecoderRecentIdentities checks that the identities a long-lived
// Decoder takes from its memory of recent calls are the ones a fresh
// Decoder computes: over more calls than it remembers, for arguments that
// are written the same, written differently with the same value, and
// changed.
func TestDecoderRecentIdentities(t *testing.T) {
	args := []string{
		`{"scope":"project","query":"q"}`,
		`{"query":"q","scope":"project"}`,
		`{ "scope" : "project", "query" : "q" }`,
		`{"scope":"project","query":"\u0071"}`,
		`{"scope":"project","query":"r"}`,
		`{"scope":"project","query":"q","limit":10}`,
		`{"scope":"project","query":"q","limit":1e1}`,
		`{"scope":"project","query":"q","limit":11}`,
	}
	var long Decoder
	var rec Record
	identities := map[stream.Key][]string{}
	for round := range 3 {
		for id := range 2 * recentCalls {
			for _, a := range args {
				line := wrap("item.started", sub(sub(mcpStart, `"item_4"`, fmt.Sprintf(`"item_%d"`, id)), `{"scope":"project","query":"q"}`, a))
				if code := long.decode([]byte(line), &rec); code != 0 {
					t.Fatalf("Decode(%s) = %s", line, code)
				}
				got := rec.Item.Identity
				var fresh Decoder
				if code := fresh.decode([]byte(line), &rec); code != 0 {
					t.Fatalf("Decode(%s) = %s", line, code)
				}
				if got != rec.Item.Identity {
					t.Fatalf("round %d: identity of %s = %x from a long-lived decoder, %x from a fresh one", round, line, got, rec.Item.Identity)
				}
				if round == 0 && id == 0 {
					identities[got] = append(identities[got], a)
				}
			}
		}
	}
	// The arguments above are four JSON values.
	if len(identities) != 4 {
		t.Errorf("identities of the arguments: %q, want 4 groups", identities)
	}
}

// TestDecodePlaces checks the places a decoded record names (SPEC §7.1):
// for a schema violation the member missing or mistyped, for unknown fields
// the object that holds them; always names of the contract, never of the
// input.
func TestDecodePlaces(t *testing.T) {
	tests := []struct {
		name, line string
		code       audit.Code
		places     []string // rec.Where for a code, rec.Unknown otherwise
	}{
		{"record type missing", `{"thread_id":"t"}`, audit.SchemaViolation, []string{"type"}},
		{"item missing", `{"type":"item.completed"}`, audit.SchemaViolation, []string{"item.completed.item"}},
		{"item type missing", wrap("item.completed", `{"id":"item_0","text":"x"}`), audit.SchemaViolation, []string{"item.type"}},
		{"item id empty", wrap("item.completed", sub(agentMessage, `"item_0"`, `""`)), audit.SchemaViolation, []string{"agent_message.id"}},
		{"item id missing, unknown type", wrap("item.completed", `{"type":"plan"}`), audit.SchemaViolation, []string{"item.id"}},
		{"thread_id number", `{"type":"thread.started","thread_id":1}`, audit.SchemaViolation, []string{"thread.started.thread_id"}},
		{"usage count string", sub(usage4, `"input_tokens":10`, `"input_tokens":"10"`), audit.SchemaViolation, []string{"turn.completed.usage"}},
		{"turn.failed message number", `{"type":"turn.failed","error":{"message":1}}`, audit.SchemaViolation, []string{"turn.failed.error"}},
		{"mcp server missing", wrap("item.started", sub(mcpStart, `"server":"cairn-memory",`, ``)), audit.SchemaViolation, []string{"mcp_tool_call.server"}},
		{"mcp status missing", wrap("item.started", sub(mcpStart, `,"status":"in_progress"`, ``)), audit.SchemaViolation, []string{"mcp_tool_call.status"}},
		{"mcp tool null", wrap("item.started", sub(mcpStart, `"memory_search"`, `null`)), audit.SchemaViolation, []string{"mcp_tool_call.tool"}},
		{"mcp result content string", wrap("item.completed", sub(mcpDone, `"content":[{"type":"text","text":"{}"}]`, `"content":"x"`)), audit.SchemaViolation, []string{"mcp_tool_call.result"}},
		{"change path number", wrap("item.completed", sub(fileChange, `"path":"/r/a"`, `"path":1`)), audit.SchemaViolation, []string{"file_change.changes[]"}},
		{"todo entry not an object", wrap("item.updated", sub(todoList, `{"text":"a","completed":false}`, `"a"`)), audit.SchemaViolation, []string{"todo_list.items[]"}},
		{"command exit code string", wrap("item.completed", sub(commandDone, `"exit_code":0`, `"exit_code":"0"`)), audit.SchemaViolation, []string{"command_execution.exit_code"}},
		{"id twice outside web_search", wrap("item.started", sub(commandStart, `"command"`, `"id":"x","command"`)), audit.DuplicateKey, []string{"item.id"}},

		{"record member", `{"type":"turn.started","turn_id":"t"}`, 0, []string{"turn.started"}},
		{"item on a turn record", `{"type":"turn.started","item":{}}`, 0, []string{"turn.started"}},
		{"item member", wrap("item.completed", sub(commandDone, `"status"`, `"duration_ms":5,"status"`)), 0, []string{"command_execution"}},
		{"status value", wrap("item.completed", sub(mcpDone, `"completed"`, `"running"`)), 0, []string{"mcp_tool_call.status"}},
		{"result member", wrap("item.completed", sub(mcpDone, `"structured_content"`, `"isError":false,"structured_content"`)), 0, []string{"mcp_tool_call.result"}},
		{"error member", wrap("item.completed", sub(mcpFailed, `"message"`, `"code":-32000,"message"`)), 0, []string{"mcp_tool_call.error"}},
		{"turn error member", `{"type":"turn.failed","error":{"message":"x","code":429}}`, 0, []string{"turn.failed.error"}},
		{"change entry and kind", wrap("item.completed", sub(fileChange, `{"path":"/r/b","kind":"delete"}`, `{"path":"/r/b","kind":"move","diff":"-x"}`)), 0, []string{"file_change.changes[]", "file_change.changes[].kind"}},
		{"todo entry", wrap("item.updated", sub(todoList, `{"text":"b","completed":true}`, `{"text":"b","completed":true,"id":3}`)), 0, []string{"todo_list.items[]"}},
		{"collab tool, twice the item", wrap("item.started", sub(sub(collabStart, `"spawn_agent"`, `"fork_agent"`), `"status":"in_progress"`, `"status":"in_progress","a":1,"b":2`)), 0, []string{"collab_tool_call.tool", "collab_tool_call"}},
		{"free-form usage", sub(usage4, `"input_tokens"`, `"total":1,"input_tokens"`), 0, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, code := decodeLine(t, tc.line)
			if code != tc.code {
				t.Fatalf("Decode(%s) = %s, want %s", tc.line, codeOrOK(code), codeOrOK(tc.code))
			}
			got := append([]string{}, rec.Unknown...)
			if code != 0 {
				got = []string{rec.Where}
			}
			if !slices.Equal(got, tc.places) {
				t.Errorf("Decode(%s): places %q, want %q", tc.line, got, tc.places)
			}
		})
	}
}

// TestMemberNames checks memberNames against nameOf, both ways.
func TestMemberNames(t *testing.T) {
	for n := noName + 1; n < numNames; n++ {
		if got := nameOf([]byte(memberNames[n])); got != n {
			t.Errorf("nameOf(%q) = %d, want %d", memberNames[n], got, n)
		}
	}
}

// refIdentity is an MCP call's identity computed the plain way, whole:
// the framed id, type, server and tool, the canonical arguments and their
// length after them (see callIdentity).
func refIdentity(id, typ, server, tool, args []byte) stream.Key {
	b := appendField(appendField(appendField(appendField(nil, id), typ), server), tool)
	canon := stream.AppendCanonical(nil, args)
	b = append(b, canon...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(canon)))
	return stream.KeyOf(b)
}

// TestCallIdentityFixtures: the identity of every MCP call in the codex
// fixtures is the plain, whole computation's, whether its arguments are
// digested from a built canonical form (small) or in pieces (padded past
// smallArguments with white space); equal arguments written in another key
// order or number spelling have the same identity, different ones another.
func TestCallIdentityFixtures(t *testing.T) {
	files, _ := filepath.Glob("../testdata/codex/*.jsonl")
	more, _ := filepath.Glob("../testdata/codex/real/*/*.jsonl")
	files = append(files, more...)
	calls := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.Contains(line, `"mcp_tool_call"`) {
				continue
			}
			var c stream.Checker
			c.Locate = Locate
			if c.Check([]byte(line)) != 0 {
				continue
			}
			var d Decoder
			var rec Record
			if code := d.decode([]byte(line), &rec); code != 0 || rec.Item.Type != McpToolCall {
				continue
			}
			calls++
			it := rec.Item
			args := slices.Clone(it.Arguments)
			id := stream.Unquote([]byte(`"item_x"`))
			want := refIdentity(id, []byte("mcp_tool_call"), it.Server, it.Tool, args)
			identity := func(a []byte) stream.Key {
				var fresh Decoder
				item := Item{Type: McpToolCall, Server: it.Server, Tool: it.Tool}
				return fresh.callIdentity(id, []byte("mcp_tool_call"), &item, a)
			}
			if got := identity(args); got != want {
				t.Errorf("%s: identity %x, want %x (the whole computation)", f, got, want)
			}
			if k := stream.TypeOf(args); k != stream.Object && k != stream.Array {
				continue
			}
			// The same value with white space inside, past smallArguments.
			padded := append(append(slices.Clone(args[:1]), strings.Repeat(" ", smallArguments)...), args[1:]...)
			if got := identity(padded); len(padded) <= smallArguments || got != want {
				t.Errorf("%s: identity of the arguments padded to %d bytes %x, want %x", f, len(padded), got, want)
			}
		}
	}
	if calls < 5 {
		t.Fatalf("%d MCP calls in the fixtures, want some", calls)
	}
	id, typ, server, tool := []byte("item_1"), []byte("mcp_tool_call"), []byte("cairn-memory"), []byte("memory_search")
	big := strings.Repeat("ledger \\n \\u00e9 ", 3*smallArguments)
	identity := func(a string) stream.Key {
		var d Decoder
		item := Item{Type: McpToolCall, Server: server, Tool: tool}
		return d.callIdentity(id, typ, &item, []byte(a))
	}
	for _, tc := range []struct{ a, b string }{
		{`{"scope":"project","query":"` + big + `","limit":10}`, `{"limit":1e1,"query":"` + big + `","scope":"project"}`},
		{`{"scope":"project","query":"q","limit":10}`, `{"limit":10.0,"query":"\u0071","scope":"project"}`},
		{`{"z":[1,{"b":"` + big + `","a":2}],"a":"x"}`, `{"a":"x","z":[1.0,{"a":20e-1,"b":"` + big + `"}]}`},
	} {
		a, b := identity(tc.a), identity(tc.b)
		if a != b {
			t.Errorf("identities of equal arguments differ (%d and %d bytes)", len(tc.a), len(tc.b))
		}
		if a != refIdentity(id, typ, server, tool, []byte(tc.a)) {
			t.Errorf("identity of %d bytes of arguments is not the whole computation's", len(tc.a))
		}
		if c := identity(strings.Replace(tc.b, "1", "2", 1)); c == a {
			t.Errorf("identities of different arguments are equal")
		}
	}
	if identity(`{"q":"`+big+`x"}`) == identity(`{"q":"`+big+`y"}`) {
		t.Error("identities of long arguments that differ in their last byte are equal")
	}
}

package lifecycle

import "testing"

// TestFieldTablesMatchContract checks the name-number tables against the
// contract written out by name (codex 0.125.0, SPEC §4.3): every member of
// every object is known with its declared type, and no other name is.
func TestFieldTablesMatchContract(t *testing.T) {
	contract := map[string]struct {
		table *fields
		want  map[string]fieldType
	}{
		"thread.started": {&recordTypes[ThreadStarted].members, map[string]fieldType{"thread_id": tString}},
		"turn.started":   {&recordTypes[TurnStarted].members, map[string]fieldType{}},
		"turn.completed": {&recordTypes[TurnCompleted].members, map[string]fieldType{"usage": tObject}},
		"turn.failed":    {&recordTypes[TurnFailed].members, map[string]fieldType{"error": tObject}},
		"item.started":   {&recordTypes[ItemStarted].members, map[string]fieldType{}},
		"item.updated":   {&recordTypes[ItemUpdated].members, map[string]fieldType{}},
		"item.completed": {&recordTypes[ItemCompleted].members, map[string]fieldType{}},
		"error":          {&recordTypes[StreamError].members, map[string]fieldType{"message": tString}},
		"usage": {&usageFields, map[string]fieldType{"input_tokens": tInteger, "cached_input_tokens": tInteger,
			"output_tokens": tInteger, "reasoning_output_tokens": tInteger}},
		"error object":  {&messageFields, map[string]fieldType{"message": tString}},
		"change":        {&changeFields, map[string]fieldType{"path": tString, "kind": tString}},
		"todo":          {&todoFields, map[string]fieldType{"text": tString, "completed": tBool}},
		"mcp result":    {&mcpResultFields, map[string]fieldType{"content": tArray, "structured_content": tAny, "_meta": tObject}},
		"agent_message": {&itemTypes[AgentMessage].members, map[string]fieldType{"text": tString}},
		"reasoning":     {&itemTypes[Reasoning].members, map[string]fieldType{"text": tString}},
		"command_execution": {&itemTypes[CommandExecution].members, map[string]fieldType{"command": tString,
			"aggregated_output": tString, "exit_code": tInteger | tNull, "status": tString}},
		"file_change": {&itemTypes[FileChange].members, map[string]fieldType{"changes": tArray, "status": tString}},
		"mcp_tool_call": {&itemTypes[McpToolCall].members, map[string]fieldType{"server": tString, "tool": tString,
			"arguments": tAny, "result": tObject | tNull, "error": tObject | tNull, "status": tString}},
		"collab_tool_call": {&itemTypes[CollabToolCall].members, map[string]fieldType{"tool": tString,
			"sender_thread_id": tString, "receiver_thread_ids": tArray, "prompt": tString | tNull,
			"agents_states": tObject, "status": tString}},
		"web_search":   {&itemTypes[WebSearch].members, map[string]fieldType{"query": tString, "action": tObject, "results": tArray}},
		"todo_list":    {&itemTypes[TodoList].members, map[string]fieldType{"items": tArray}},
		"error item":   {&itemTypes[ErrorItem].members, map[string]fieldType{"message": tString}},
		"unknown item": {&itemTypes[UnknownItem].members, map[string]fieldType{}},
	}
	known := map[string]bool{}
	for _, c := range contract {
		for n := range c.want {
			known[n] = true
		}
	}
	// Every contract name has its own number, and numbers map back to one
	// name only.
	byNumber := map[name]string{}
	for n := range known {
		id := nameOf([]byte(n))
		if id == noName {
			t.Fatalf("nameOf(%q) = noName", n)
		}
		if other, ok := byNumber[id]; ok {
			t.Fatalf("%q and %q share a number", n, other)
		}
		byNumber[id] = n
	}
	if len(byNumber) != int(numNames)-1 {
		t.Fatalf("%d names in the contract, %d numbers", len(byNumber), numNames-1)
	}
	for _, n := range []string{"", "type", "item", "id", "Status", "status ", "statu", "extra"} {
		if nameOf([]byte(n)) != noName {
			t.Errorf("nameOf(%q) is a contract name", n)
		}
	}
	for obj, c := range contract {
		for id := name(0); id < numNames; id++ {
			if got, want := c.table[id], c.want[byNumber[id]]; id != noName && got != want {
				t.Errorf("%s: %q has type %b, want %b", obj, byNumber[id], got, want)
			}
		}
		if c.table[noName] != 0 {
			t.Errorf("%s: an unknown name is allowed", obj)
		}
	}
}

func TestTypeNames(t *testing.T) {
	for s, want := range map[string]RecordType{"thread.started": ThreadStarted, "turn.started": TurnStarted,
		"turn.completed": TurnCompleted, "turn.failed": TurnFailed, "item.started": ItemStarted,
		"item.updated": ItemUpdated, "item.completed": ItemCompleted, "error": StreamError,
		"Error": UnknownRecord, "item.failed": UnknownRecord, "": UnknownRecord} {
		if got := recordTypeOf([]byte(s)); got != want {
			t.Errorf("recordTypeOf(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]ItemType{"agent_message": AgentMessage, "reasoning": Reasoning,
		"command_execution": CommandExecution, "file_change": FileChange, "mcp_tool_call": McpToolCall,
		"collab_tool_call": CollabToolCall, "web_search": WebSearch, "todo_list": TodoList, "error": ErrorItem,
		"plan": UnknownItem, "": UnknownItem} {
		if got := itemTypeOf([]byte(s)); got != want {
			t.Errorf("itemTypeOf(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]Status{"in_progress": InProgress, "completed": Completed,
		"failed": Failed, "declined": Declined, "pending": OtherStatus, "": OtherStatus} {
		if got := statusOf([]byte(s)); got != want {
			t.Errorf("statusOf(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestDescriptorNames checks that each row's name finds its row again.
func TestDescriptorNames(t *testing.T) {
	for rt := ThreadStarted; rt < numRecordTypes; rt++ {
		if got := recordTypeOf([]byte(rt.String())); got != rt {
			t.Errorf("recordTypeOf(%q) = %v, want %v", rt.String(), got, rt)
		}
	}
	for it := AgentMessage; it < numItemTypes; it++ {
		if got := itemTypeOf([]byte(it.String())); got != it {
			t.Errorf("itemTypeOf(%q) = %v, want %v", it.String(), got, it)
		}
		if !it.IsCall() && len(itemTypes[it].statuses) > 0 {
			t.Errorf("%v: a status list on a type that is not a call", it)
		}
	}
	for s := InProgress; s < OtherStatus; s++ {
		if got := statusOf([]byte(s.String())); got != s {
			t.Errorf("statusOf(%q) = %v, want %v", s.String(), got, s)
		}
	}
	if UnknownRecord.String() != "" || UnknownItem.String() != "" || OtherStatus.String() != "" {
		t.Error("an unknown type or status has a name of the contract")
	}
}

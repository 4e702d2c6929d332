//go:build unix

package main

// The inventory of one version's captures: every record type with each
// member list it was seen with, the messages' roles and members, the
// assistant stopReasons and content blocks, the assistantMessageEvent
// types, the tools started (top level or nested) and how their ends look,
// the tools the first system message declares, retries and the last
// record, each with the files it occurs in. A diff of two versions'
// inventories is the quickest review of drift.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func inventory(dir string) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	seen := map[string]map[string]bool{} // fact -> files
	add := func(fact, file string) {
		if seen[fact] == nil {
			seen[fact] = map[string]bool{}
		}
		seen[fact][file] = true
	}
	other := map[string]string{} // captures that are not pi's stdout: name -> what they are
	for _, s := range allScenarios() {
		if s.keep == keepSession {
			other[s.name] = "session file"
		}
	}
	streams := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if what, ok := other[name]; ok {
			otherFacts(b, "not stdout, "+what+": ", func(fact string) { add(fact, name) })
			continue
		}
		streams++
		last := ""
		systems := 0
		for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if json.Unmarshal(line, &rec) != nil {
				add("NOT-JSON line", name)
				continue
			}
			typ := str(rec["type"])
			last = typ
			add(fmt.Sprintf("record %s members %s", typ, memberList(line)), name)
			switch typ {
			case "message_start", "message_end":
				var m map[string]json.RawMessage
				_ = json.Unmarshal(rec["message"], &m)
				role := str(m["role"])
				add(fmt.Sprintf("%s role %s members %s", typ, role, memberList(rec["message"])), name)
				switch role {
				case "assistant":
					add(fmt.Sprintf("%s assistant stopReason %s", typ, str(m["stopReason"])), name)
					if typ == "message_end" {
						var blocks []json.RawMessage
						_ = json.Unmarshal(m["content"], &blocks)
						for _, bl := range blocks {
							var t struct {
								Type string `json:"type"`
							}
							_ = json.Unmarshal(bl, &t)
							add(fmt.Sprintf("assistant content block %s members %s", t.Type, memberList(bl)), name)
						}
						if len(blocks) == 0 {
							add("assistant message_end with content []", name)
						}
					}
				case "system":
					if typ != "message_end" {
						break
					}
					systems++
					var tools []struct {
						Name string `json:"name"`
					}
					_ = json.Unmarshal(m["toolsAdded"], &tools)
					var names []string
					for _, t := range tools {
						names = append(names, t.Name)
					}
					which := "first"
					if systems > 1 {
						which = "later"
					}
					add(fmt.Sprintf("%s system message_end toolsAdded [%s]", which, strings.Join(names, ",")), name)
					var sections map[string]json.RawMessage
					_ = json.Unmarshal(m["sections"], &sections)
					var keys []string
					for k := range sections {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					add(fmt.Sprintf("%s system message_end sections [%s]", which, strings.Join(keys, ",")), name)
				case "toolResult":
					add(fmt.Sprintf("%s toolResult %s isError %s", typ, str(m["toolName"]), m["isError"]), name)
				}
			case "message_update":
				var e map[string]json.RawMessage
				_ = json.Unmarshal(rec["assistantMessageEvent"], &e)
				add(fmt.Sprintf("assistantMessageEvent %s members %s", str(e["type"]), memberList(rec["assistantMessageEvent"])), name)
			case "tool_execution_start":
				nested := ""
				if _, ok := rec["parentToolCallId"]; ok {
					nested = " (nested: parentToolCallId)"
				}
				add(fmt.Sprintf("tool_execution_start %s%s", str(rec["toolName"]), nested), name)
			case "tool_execution_end":
				nested := ""
				if _, ok := rec["parentToolCallId"]; ok {
					nested = " nested"
				}
				dur := ", durationMs"
				if _, ok := rec["durationMs"]; !ok {
					dur = ", no durationMs"
				}
				add(fmt.Sprintf("tool_execution_end%s %s isError %s%s, result members %s", nested, str(rec["toolName"]), rec["isError"], dur, memberList(rec["result"])), name)
				var res map[string]json.RawMessage
				_ = json.Unmarshal(rec["result"], &res)
				if sc, ok := res["structuredContent"]; ok {
					form := "an object, members " + memberList(sc)
					switch {
					case bytes.HasPrefix(sc, []byte(`"`)):
						form = "a string"
					case !bytes.HasPrefix(sc, []byte(`{`)):
						form = "not an object"
					}
					add(fmt.Sprintf("tool_execution_end %s result.structuredContent %s", str(rec["toolName"]), form), name)
				}
			case "auto_retry_end":
				add(fmt.Sprintf("auto_retry_end success %s", rec["success"]), name)
			case "agent_settled":
				add(fmt.Sprintf("agent_settled aborted %s", rec["aborted"]), name)
			case "agent_end":
				add(fmt.Sprintf("agent_end willRetry %s", rec["willRetry"]), name)
			case "entry_appended":
				var e map[string]json.RawMessage
				_ = json.Unmarshal(rec["entry"], &e)
				add(fmt.Sprintf("entry_appended entry %s members %s", str(e["type"]), memberList(rec["entry"])), name)
			}
		}
		add("last record "+last, name)
	}
	var facts []string
	for k := range seen {
		facts = append(facts, k)
	}
	sort.Strings(facts)
	var out bytes.Buffer
	fmt.Fprintf(&out, "# inventory of %d pi --mode json captures and %d session files (generated by scripts/pi-real/capture -inventory)\n", streams, len(files)-streams)
	for _, k := range facts {
		var fs []string
		for f := range seen[k] {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		fmt.Fprintf(&out, "%s\n    %s\n", k, strings.Join(fs, " "))
	}
	return out.Bytes(), nil
}

// str is a JSON string's value ("" for anything else).
func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// memberList is an object's top-level member names in order.
func memberList(v []byte) string {
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "(not an object)"
	}
	var names []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "?"
		}
		names = append(names, fmt.Sprint(k))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "?"
		}
	}
	return "[" + strings.Join(names, ",") + "]"
}

// otherFacts are the facts of a session file: its record kinds (`type`)
// with their member lists, and the roles of its `message` entries.
func otherFacts(b []byte, prefix string, add func(string)) {
	for i, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) != nil {
			add(prefix + "NOT-JSON line")
			continue
		}
		typ := str(rec["type"])
		switch {
		case typ == "message":
			var m map[string]json.RawMessage
			_ = json.Unmarshal(rec["message"], &m)
			add(fmt.Sprintf("%srecord message members %s, message role %s", prefix, memberList(line), str(m["role"])))
		case typ != "":
			add(fmt.Sprintf("%srecord %s members %s", prefix, typ, memberList(line)))
		default:
			add(fmt.Sprintf("%sline %d (no type) members %s", prefix, i+1, memberList(line)))
		}
	}
}

//go:build unix

package main

// The inventory of a version's captures: every record type and system
// subtype, every content block type (by record type), the member sets of the
// evidence-carrying blocks (tool_use, tool_result, which SPEC §9 closes), the
// block types inside tool_result content, and the init mcp_servers statuses;
// each with the files it was seen in. It is what the adapter's benign list and
// closed-block rules must be checked against.

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
	seen := map[string]map[string]map[string]bool{} // section -> item -> files
	add := func(section, item, file string) {
		if seen[section] == nil {
			seen[section] = map[string]map[string]bool{}
		}
		if seen[section][item] == nil {
			seen[section][item] = map[string]bool{}
		}
		seen[section][item][file] = true
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		for _, line := range bytes.Split(b, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if json.Unmarshal(line, &rec) != nil {
				add("unparseable lines", "line", name)
				continue
			}
			var typ, sub string
			_ = json.Unmarshal(rec["type"], &typ)
			_ = json.Unmarshal(rec["subtype"], &sub)
			rt := typ
			if typ == "system" || typ == "result" {
				rt += "/" + sub
			}
			add("record type[/subtype]", rt, name)
			if typ == "system" && sub == "init" {
				var init struct {
					Tools []string `json:"tools"`
					PM    string   `json:"permissionMode"`
					MCP   []struct {
						Name, Status string
					} `json:"mcp_servers"`
				}
				_ = json.Unmarshal(line, &init)
				for _, t := range init.Tools {
					add("init tools", t, name)
				}
				add("init permissionMode", init.PM, name)
				if len(init.MCP) == 0 {
					add("init mcp_servers", "(empty list)", name)
				}
				for _, s := range init.MCP {
					add("init mcp_servers", s.Name+": "+s.Status, name)
				}
			}
			if typ == "stream_event" {
				var ev struct {
					Event struct {
						Type         string `json:"type"`
						ContentBlock struct {
							Type string `json:"type"`
						} `json:"content_block"`
						Delta struct {
							Type string `json:"type"`
						} `json:"delta"`
					} `json:"event"`
				}
				_ = json.Unmarshal(line, &ev)
				e := ev.Event.Type
				if t := ev.Event.ContentBlock.Type; t != "" {
					e += " " + t
				}
				if t := ev.Event.Delta.Type; t != "" {
					e += " " + t
				}
				add("stream_event event types", e, name)
			}
			if typ != "assistant" && typ != "user" {
				continue
			}
			for _, k := range memberNames(line) {
				add(typ+" record members", k, name)
			}
			var msg struct {
				Content json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(rec["message"], &msg)
			var blocks []json.RawMessage
			if json.Unmarshal(msg.Content, &blocks) != nil {
				add(typ+" content blocks", "(content is not an array)", name)
				continue
			}
			for _, bl := range blocks {
				var bt struct {
					Type    string          `json:"type"`
					Content json.RawMessage `json:"content"`
				}
				_ = json.Unmarshal(bl, &bt)
				add(typ+" content blocks", bt.Type, name)
				if bt.Type == "tool_use" || bt.Type == "tool_result" {
					add(bt.Type+" block members (in order)", strings.Join(memberNames(bl), ","), name)
				}
				if bt.Type == "tool_result" {
					var inner []struct {
						Type string `json:"type"`
					}
					if json.Unmarshal(bt.Content, &inner) == nil {
						for _, in := range inner {
							add("tool_result content", "array of "+in.Type, name)
						}
					} else {
						add("tool_result content", "string", name)
					}
				}
			}
		}
	}
	var out bytes.Buffer
	sections := make([]string, 0, len(seen))
	for s := range seen {
		sections = append(sections, s)
	}
	sort.Strings(sections)
	for _, s := range sections {
		fmt.Fprintf(&out, "## %s\n", s)
		items := make([]string, 0, len(seen[s]))
		for it := range seen[s] {
			items = append(items, it)
		}
		sort.Strings(items)
		for _, it := range items {
			var fs []string
			for f := range seen[s][it] {
				fs = append(fs, f)
			}
			sort.Strings(fs)
			if len(fs) > 6 {
				fs = append(fs[:6], fmt.Sprintf("… (%d files)", len(seen[s][it])))
			}
			fmt.Fprintf(&out, "%s\t%s\n", it, strings.Join(fs, " "))
		}
		out.WriteString("\n")
	}
	return out.Bytes(), nil
}

// memberNames lists the top-level member names of a JSON object, in order.
func memberNames(b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return names
		}
		names = append(names, fmt.Sprint(k))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
	}
	return names
}

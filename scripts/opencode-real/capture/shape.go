//go:build unix

package main

// The shape of a capture, never its values, so that two runs of one
// scenario give the same shape unless the protocol changed; a diff of shape
// files is a review of protocol drift.
//
// A run's stdout (.jsonl): one line per record: its type, with the part's
// type, a tool part's state.status and a step_finish's reason, then every
// member name in order with its JSON type, nested.
//
// An export (.export.json): one line for the session `info`, then one per
// message `info` (with role and finish) and one per part (with type and
// state.status), each with its member names and types.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

func shape(b []byte) []byte {
	var out bytes.Buffer
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		fmt.Fprintf(&out, "%d %s\n", i+1, shapeLine(line))
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteString("(no final newline)\n")
	}
	return out.Bytes()
}

// partTags are the tags of a part: its type, a tool part's status, a
// step-finish's reason.
type partTags struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
	State  *struct {
		Status string `json:"status"`
	} `json:"state"`
}

func (p *partTags) tags() []string {
	if p == nil {
		return nil
	}
	tags := []string{p.Type}
	if p.State != nil {
		tags = append(tags, p.State.Status)
	}
	if p.Reason != "" {
		tags = append(tags, p.Reason)
	}
	return tags
}

func shapeLine(line []byte) string {
	var rec struct {
		Type string    `json:"type"`
		Part *partTags `json:"part"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return "NOT-JSON"
	}
	head := rec.Type
	if head == "" {
		head = "(no type)"
	}
	if tags := rec.Part.tags(); len(tags) > 0 {
		head += "/" + strings.Join(tags, "/")
	}
	return head + " " + shapeOf(line)
}

func shapeOf(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	s, err := shapeValue(dec)
	if err != nil {
		return "BAD-JSON"
	}
	return s
}

// exportShape is the shape of an `opencode export` document.
func exportShape(b []byte) []byte {
	var out bytes.Buffer
	var doc struct {
		Info     json.RawMessage `json:"info"`
		Messages []struct {
			Info  json.RawMessage   `json:"info"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return []byte("NOT-JSON\n")
	}
	fmt.Fprintf(&out, "document %s\n", topMembers(b))
	fmt.Fprintf(&out, "info %s\n", shapeOf(doc.Info))
	for i, m := range doc.Messages {
		var mi struct {
			Role   string          `json:"role"`
			Finish string          `json:"finish"`
			Error  json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(m.Info, &mi)
		tags := []string{mi.Role}
		if mi.Finish != "" {
			tags = append(tags, "finish="+mi.Finish)
		}
		if len(mi.Error) > 0 {
			tags = append(tags, "error")
		}
		fmt.Fprintf(&out, "messages[%d].info/%s %s\n", i, strings.Join(tags, "/"), shapeOf(m.Info))
		for j, p := range m.Parts {
			var pt partTags
			_ = json.Unmarshal(p, &pt)
			fmt.Fprintf(&out, "messages[%d].parts[%d]/%s %s\n", i, j, strings.Join(pt.tags(), "/"), shapeOf(p))
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteString("(no final newline)\n")
	}
	return out.Bytes()
}

// topMembers is the document's top-level member names in order.
func topMembers(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return "?"
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

//go:build unix

package main

// The shape of a capture: one line per record, with its type (and, for
// message records, the message's role and stopReason; for message_update,
// the assistantMessageEvent type; "nested" for a call made by another tool;
// "isError" for an error result), then every member name in order with its
// JSON type, nested. Values never appear, so two runs of one scenario give
// the same shape unless the protocol changed; a diff of shape files is a
// review of protocol drift.

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
	if len(lines) > 1 && !json.Valid(lines[0]) && json.Valid(b) {
		// One JSON document over many lines (--output-format json): its
		// shape, not a NOT-JSON per line.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		s, err := shapeValue(dec)
		if err != nil {
			s = "BAD-JSON"
		}
		fmt.Fprintf(&out, "1-%d one JSON document (not JSONL) %s\n", len(lines), s)
		lines = nil
	}
	for i, line := range lines {
		fmt.Fprintf(&out, "%d %s\n", i+1, shapeLine(line))
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteString("(no final newline)\n")
	}
	return out.Bytes()
}

func shapeLine(line []byte) string {
	var rec struct {
		Type    string `json:"type"`
		Message *struct {
			Role       string `json:"role"`
			StopReason string `json:"stopReason"`
		} `json:"message"`
		Event *struct {
			Type string `json:"type"`
		} `json:"assistantMessageEvent"`
		IsError *bool   `json:"isError"`
		Parent  *string `json:"parentToolCallId"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return "NOT-JSON"
	}
	head := rec.Type
	if head == "" {
		head = "(no type)"
	}
	var tags []string
	if rec.Message != nil && rec.Message.Role != "" {
		tags = append(tags, rec.Message.Role)
		if rec.Message.StopReason != "" {
			tags = append(tags, rec.Message.StopReason)
		}
	}
	if rec.Event != nil && rec.Event.Type != "" {
		tags = append(tags, rec.Event.Type)
	}
	if rec.Parent != nil {
		tags = append(tags, "nested")
	}
	if rec.IsError != nil && *rec.IsError {
		tags = append(tags, "isError")
	}
	if len(tags) > 0 {
		head += "/" + strings.Join(tags, "/")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	s, err := shapeValue(dec)
	if err != nil {
		s = "BAD-JSON"
	}
	return head + " " + s
}

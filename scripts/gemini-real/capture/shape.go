//go:build unix

package main

// The shape of a capture: one line per record, with its type (and, for
// message records, the role; for tool_result, the status and error type),
// then every member name in order with its JSON type, nested. Values never
// appear, so two runs of one scenario give the same shape unless the protocol
// changed; a diff of shape files is a review of protocol drift. The free-form
// members (tool_use.parameters, result.stats) are shown like any other.

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
		Type     string `json:"type"`
		Role     string `json:"role"`
		Status   string `json:"status"`
		Severity string `json:"severity"`
		Error    *struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return "NOT-JSON"
	}
	head := rec.Type
	if head == "" {
		head = "(no type)"
	}
	var tags []string
	if rec.Role != "" {
		tags = append(tags, rec.Role)
	}
	if rec.Status != "" {
		tags = append(tags, rec.Status)
	}
	if rec.Severity != "" {
		tags = append(tags, rec.Severity)
	}
	if rec.Error != nil && rec.Error.Type != "" {
		tags = append(tags, "error.type="+rec.Error.Type)
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

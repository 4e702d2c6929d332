//go:build unix

package main

// The shape of a capture: one line per record, with its type (and subtype),
// the types of its content blocks (or of its stream event), and every member
// name in order with its JSON type, nested. Values never appear, so two runs
// of one scenario give the same shape unless the protocol changed; a diff of
// shape files is a review of protocol drift.

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

func shapeLine(line []byte) string {
	// Decode loosely: a member may have another type than usual (a
	// permission_denied record's message is a string).
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		return "NOT-JSON"
	}
	str := func(raw json.RawMessage, path ...string) string {
		for _, p := range path {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				return ""
			}
			raw = m[p]
		}
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	line0 := json.RawMessage(line)
	typ := str(line0, "type")
	head := typ
	if st := str(line0, "subtype"); st != "" {
		head += "/" + st
	}
	switch typ {
	case "assistant", "user":
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(rec["message"], &msg)
		head += " " + blockTypes(msg.Content)
	case "stream_event":
		e := str(rec["event"], "type")
		if t := str(rec["event"], "content_block", "type"); t != "" {
			e += ":" + t
		}
		if t := str(rec["event"], "delta", "type"); t != "" {
			e += ":" + t
		}
		head += " <" + e + ">"
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	s, err := shapeValue(dec)
	if err != nil {
		s = "BAD-JSON"
	}
	return head + " " + s
}

func blockTypes(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "[no content]"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "[string]"
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "[?]"
	}
	var ts []string
	for _, b := range blocks {
		ts = append(ts, b.Type)
	}
	return "[" + strings.Join(ts, ",") + "]"
}

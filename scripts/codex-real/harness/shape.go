//go:build unix

package main

// The shape of a codex JSONL capture: one line per record, giving the record
// type, the item type, and every member name in order with its JSON type —
// never a value (apart from the two type tags). Duplicate members are kept
// (codex prints `id` twice in web_search items), because the decoder works
// token by token. Member names of maps keyed by ids (collab agents_states)
// are replaced by <id>, so that a re-run differs only where the protocol
// drifted.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func cmdShape(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: harness shape FILE.jsonl")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	s, err := shapeOf(data)
	if err != nil {
		return err
	}
	_, err = os.Stdout.WriteString(s)
	return err
}

func shapeOf(data []byte) (string, error) {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		var head struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
			} `json:"item"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			fmt.Fprintf(&b, "line %d: not JSON\n", n)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		sh, err := shapeValue(dec, "")
		if err != nil {
			fmt.Fprintf(&b, "line %d: %v\n", n, err)
			continue
		}
		tag := head.Type
		if head.Item.Type != "" {
			tag += " " + head.Item.Type
		}
		fmt.Fprintf(&b, "%s %s\n", tag, sh)
	}
	return b.String(), sc.Err()
}

// idKeyed are objects whose member names are ids, not protocol names.
var idKeyed = map[string]bool{"agents_states": true}

func shapeValue(dec *json.Decoder, name string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var parts []string
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", err
				}
				k := kt.(string)
				v, err := shapeValue(dec, k)
				if err != nil {
					return "", err
				}
				if idKeyed[name] {
					k = "<id>"
				}
				parts = append(parts, k+":"+v)
			}
			if _, err := dec.Token(); err != nil {
				return "", err
			}
			return "{" + strings.Join(parts, " ") + "}", nil
		case '[':
			var parts []string
			for dec.More() {
				v, err := shapeValue(dec, "")
				if err != nil {
					return "", err
				}
				// Collapse runs of equal element shapes.
				if len(parts) > 0 {
					last := parts[len(parts)-1]
					base, cnt := last, 1
					if i := strings.LastIndex(last, "*"); i >= 0 && !strings.ContainsAny(last[i:], "{}[] ") {
						fmt.Sscanf(last[i+1:], "%d", &cnt)
						base = last[:i]
					}
					if base == v {
						parts[len(parts)-1] = fmt.Sprintf("%s*%d", base, cnt+1)
						continue
					}
				}
				parts = append(parts, v)
			}
			if _, err := dec.Token(); err != nil {
				return "", err
			}
			return "[" + strings.Join(parts, " ") + "]", nil
		}
	case string:
		return "string", nil
	case json.Number:
		if strings.ContainsAny(t.String(), ".eE") {
			return "number", nil
		}
		return "integer", nil
	case bool:
		return "bool", nil
	case nil:
		return "null", nil
	}
	return "", io.ErrUnexpectedEOF
}

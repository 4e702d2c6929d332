//go:build unix

package capturekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Style is how ShapeValue writes a shape.
type Style struct {
	// Sep separates an object's members and an array's elements.
	Sep string
	// Integers tells integers from other numbers.
	Integers bool
	// Runs writes an array as its elements' shapes with runs of one shape
	// counted (S*3); else as its distinct element shapes joined by "|".
	Runs bool
	// IDKeyed are objects whose member names are ids, written <id>.
	IDKeyed map[string]bool
}

// Plain is the shape style of every capture but Codex's (whose style
// is codex-real's codexStyle).
var Plain = Style{Sep: ","}

// ShapeValue reads one JSON value from dec (which must UseNumber) and
// returns its shape: member names in order and the types of their values,
// an array's element shapes; never a string's or a number's value.
func (st Style) ShapeValue(dec *json.Decoder) (string, error) { return st.shape(dec, "") }

func (st Style) shape(dec *json.Decoder, name string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case json.Delim:
		var parts []string
		seen := map[string]bool{}
		for dec.More() {
			member := ""
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				member = fmt.Sprint(k)
			}
			v, err := st.shape(dec, member)
			if err != nil {
				return "", err
			}
			switch {
			case t == '{' && st.IDKeyed[name]:
				parts = append(parts, "<id>:"+v)
			case t == '{':
				parts = append(parts, member+":"+v)
			case st.Runs:
				parts = appendRun(parts, v)
			case !seen[v]:
				seen[v] = true
				parts = append(parts, v)
			}
		}
		if _, err := dec.Token(); err != nil {
			return "", err
		}
		if t == '{' {
			return "{" + strings.Join(parts, st.Sep) + "}", nil
		}
		if st.Runs {
			return "[" + strings.Join(parts, st.Sep) + "]", nil
		}
		return "[" + strings.Join(parts, "|") + "]", nil
	case string:
		return "string", nil
	case json.Number:
		if st.Integers && !strings.ContainsAny(t.String(), ".eE") {
			return "integer", nil
		}
		return "number", nil
	case bool:
		return "bool", nil
	case nil:
		return "null", nil
	}
	return "", fmt.Errorf("unexpected token %v", tok)
}

// appendRun appends v to an array's shapes, counting it into the last
// run when it is the same shape.
func appendRun(parts []string, v string) []string {
	if len(parts) > 0 {
		last := parts[len(parts)-1]
		base, n := last, 1
		if i := strings.LastIndex(last, "*"); i >= 0 && !strings.ContainsAny(last[i:], "{}[] ") {
			fmt.Sscanf(last[i+1:], "%d", &n)
			base = last[:i]
		}
		if base == v {
			parts[len(parts)-1] = fmt.Sprintf("%s*%d", base, n+1)
			return parts
		}
	}
	return append(parts, v)
}

// ShapeOf is the shape of one JSON value in b ("BAD-JSON" when it is not).
func (st Style) ShapeOf(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	s, err := st.ShapeValue(dec)
	if err != nil {
		return "BAD-JSON"
	}
	return s
}

// Shape is the shape of a JSONL capture: a line per record, "N HEAD SHAPE"
// where head names the record (its type and tags) from the line decoded
// into a T (NOT-JSON when it does not decode). A JSON document
// over several lines (an --output-format json answer) is shaped as one.
// Values never appear, so two runs of one scenario give the same shape
// unless the protocol changed: a diff of shape files is a review of
// protocol drift.
func Shape[T any](b []byte, head func(rec T) string) []byte {
	var out bytes.Buffer
	lines := Lines(b)
	if len(lines) > 1 && !json.Valid(lines[0]) && json.Valid(b) {
		fmt.Fprintf(&out, "1-%d one JSON document (not JSONL) %s\n", len(lines), Plain.ShapeOf(b))
		lines = nil
	}
	for i, line := range lines {
		var rec T
		if json.Unmarshal(line, &rec) != nil {
			fmt.Fprintf(&out, "%d NOT-JSON\n", i+1)
			continue
		}
		fmt.Fprintf(&out, "%d %s %s\n", i+1, head(rec), Plain.ShapeOf(line))
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteString("(no final newline)\n")
	}
	return out.Bytes()
}

// Lines are b's lines, without a last empty one.
func Lines(b []byte) [][]byte {
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Tagged is head with its non-empty tags: "head/tag/tag".
func Tagged(head string, tags ...string) string {
	var t []string
	for _, s := range tags {
		if s != "" {
			t = append(t, s)
		}
	}
	if len(t) == 0 {
		return head
	}
	return head + "/" + strings.Join(t, "/")
}

// Typed is Tagged with "(no type)" for a record without one.
func Typed(typ string, tags ...string) string {
	if typ == "" {
		typ = "(no type)"
	}
	return Tagged(typ, tags...)
}

// Members is a JSON object's member names in order, "[a,b,c]"; "?" when b
// is not one.
func Members(b []byte) string {
	names, ok := MemberNames(b)
	if !ok {
		return "?"
	}
	return "[" + strings.Join(names, ",") + "]"
}

// MemberNames are a JSON object's member names in order; ok is false when
// b is not an object.
func MemberNames(b []byte) (names []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return names, false
		}
		names = append(names, fmt.Sprint(k))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names, false
		}
	}
	return names, true
}

// Str is a JSON string's value ("" for anything else).
func Str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

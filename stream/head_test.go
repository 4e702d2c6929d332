package stream

import (
	"fmt"
	"strings"
	"testing"
)

var headWords = []string{"type", "subtype", "system", "init", "mcp_servers", "info", "events", "schema_version"}

// notes is what a Head noted, as one string: the first member, each word
// that names a member, with its value when that is a word.
func notes(h *Head) string {
	var b strings.Builder
	fmt.Fprintf(&b, "first=%s", h.First())
	for _, w := range h.words {
		if h.Has(w) {
			b.WriteString(" " + w)
			if v := h.Value(w); v != "" {
				b.WriteString("=" + v)
			}
		}
	}
	return b.String()
}

// TestHead: what a Head notes of an input's first value, however the
// bytes are cut.
func TestHead(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"claude init", `{"type":"system","subtype":"init","cwd":"/w","tools":["a","b"],"mcp_servers":[{"name":"m","status":"connected"}],"model":"m"}` + "\n{\"type\":\"info\"}\n",
			"first=type type=system subtype=init mcp_servers"},
		{"a pretty-printed document", "\n  {\n  \"info\" : {\"id\": \"x\", \"type\": \"init\"},\n  \"messages\": [ ]\n}\n",
			"first=info info"},
		{"nested members and strings are skipped", `{"a":{"type":"system","s":"\"}]{[","events":[1]},"events":[[{"}":"{"}]],"type":"init"}`,
			"first= type=init events"},
		{"scalars", `{"schema_version":1,"x":true,"y":null,"z":-1.5e3 , "type" : "init"}`,
			"first=schema_version type=init schema_version"},
		{"a value that is not a word", `{"type":"systemd"}`, "first=type type"},
		{"a value that is not a string", `{"type":["system"],"subtype":7}`, "first=type type subtype"},
		{"the last of a repeated name", `{"type":"system","type":1}`, "first=type type"},
		{"an escaped name or value matches no word", `{"typ\u0065":"system","subtype":"in\u0069t","info":"\\"}`, "first= subtype info"},
		{"a long name", `{"` + strings.Repeat("type", 100) + `":"system","type":"` + strings.Repeat("x", 1000) + `"}`, "first= type"},
		{"only the first value", `{"type":"init"}{"info":1}`, "first=type type=init"},
		{"cut short", `{"type":"system","subtype":"in`, "first=type type=system subtype"},
		{"not an object", `["type","system"]`, "first="},
		{"not JSON", `{"type" "system", "info": 1}`, "first=type type"},
		{"a byte-order mark", "\xef\xbb\xbf{\"type\":\"init\"}", "first="},
		{"empty", "", "first="},
		{"an empty object", `{}`, "first="},
		{"white space before a name", `{ "info": {}}`, "first=info info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cut := range []int{len(tc.in) + 1, 1, 2, 3, 7} {
				h := NewHead(headWords)
				for s := tc.in; s != ""; {
					k := min(cut, len(s))
					h.Write([]byte(s[:k]))
					s = s[k:]
				}
				if got := notes(h); got != tc.want {
					t.Errorf("%q in writes of %d bytes: got %q, want %q", tc.in, cut, got, tc.want)
				}
			}
		})
	}
}

// TestHeadBytes: a Head looks at the first HeadBytes bytes, no more, and
// those are what a Lines or a Document reads first.
func TestHeadBytes(t *testing.T) {
	// The name "info" ends on the last byte a Head sees, or one past it.
	pad := `{"pad":"` + strings.Repeat("x", HeadBytes-len(`{"pad":"",`)-len(`"info"`)) + `",`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"the last name within", pad + `"info":1}`, "first= info"},
		{"a name past the bound", pad + ` "info":1}`, "first="},
	} {
		h := NewHead(headWords)
		h.Write([]byte(tc.in))
		if got := notes(h); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	if HeadBytes > readSize {
		t.Errorf("HeadBytes %d is past the read buffer %d: a file read short of it could show a Head fewer bytes than standard input", HeadBytes, readSize)
	}
}

// TestNewHeadRefuses words a Head cannot note.
func TestNewHeadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
	}{
		{"too many", make([]string, MaxHeadWords+1)},
		{"too long", []string{strings.Repeat("w", maxHeadWord+1)}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewHead did not panic", tc.name)
				}
			}()
			NewHead(tc.words)
		}()
	}
}

func FuzzHead(f *testing.F) {
	f.Add([]byte(`{"type":"system","subtype":"init","mcp_servers":[]}`), uint8(3))
	f.Add([]byte("{\n \"info\": {\"a\": [\"\\\"\"]}}"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		whole := NewHead(headWords)
		whole.Write(in)
		h := NewHead(headWords)
		step := int(cut)%16 + 1
		for b := in; len(b) > 0; {
			k := min(step, len(b))
			h.Write(b[:k])
			b = b[k:]
		}
		if a, b := notes(whole), notes(h); a != b {
			t.Errorf("one write: %q; writes of %d bytes: %q", a, step, b)
		}
	})
}

package stream

import (
	"bytes"
	"testing"

	"github.com/cairn-audit/cairn/stream/streamtest"
)

// TestDocumentStringEnds: a value's extent is found by jumping to the next
// quote and counting the backslashes before it, across chunk boundaries
// too. Each value, cut at every byte, must come back exactly, and its
// string's last quote never ends it early.
func TestDocumentStringEnds(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `""`, `"\\"`, `"\\\\"`, `"\""`, `"\\\""`, `"a\\\\\"b\\"`,
		`"}]\",{[\\"`, `"\u0022\\u0022"`, `"` + string(bytes.Repeat([]byte(`\\`), 33)) + `\""`,
	} {
		event := `{"sequence":0,"kind":"user_input","payload":{"text":` + s + `,"n":[1, 2 ,{"k": ` + s + `}]}}`
		doc := []byte(`{"schema_version":1,"harness":"pi","events":[` + event + `, ` + event + `]}`)
		for cut := 1; cut < len(doc); cut++ {
			d := NewDocument(streamtest.CutReader(doc, []int{cut}))
			events := 0
			for {
				p, err := d.Next()
				if err != nil {
					t.Fatalf("%s cut at %d: %v", s, cut, err)
				}
				if p.Kind == End {
					break
				}
				if p.Kind == Event {
					events++
					if string(p.Value) != event {
						t.Fatalf("%s cut at %d: event %s", s, cut, p.Value)
					}
				}
			}
			if events != 2 {
				t.Fatalf("%s cut at %d: %d events", s, cut, events)
			}
		}
	}
}

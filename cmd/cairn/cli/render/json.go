package render

import (
	"encoding/json"
	"io"

	"github.com/cairn-audit/cairn/audit"
)

// The JSON report (SPEC §7.1): one object a line per input, eval
// protocol's and eval batch's alike; the disabled envelope once per input
// when the gate is off.

type jsonWriter struct{ w io.Writer }

func newJSON(w io.Writer, _ Options) Writer { return jsonWriter{w} }

func (j jsonWriter) Input(in Input) { WriteJSON(j.w, in.Report) }

// Close: the reports are the document; a run that stopped early says so
// on stderr and in its exit code, not here.
func (j jsonWriter) Close(int, *Stop) {}

func (j jsonWriter) Disabled(n int, _ string) {
	for range n {
		WriteJSON(j.w, audit.DisabledReport())
	}
}

// WriteJSON prints v as one JSON object and a newline. The report is
// encoded once per run, so encoding/json is used: goccy/go-json (the
// decoder here) first compiles an encoder for the type, which cost 1.4 ms
// of every run (docs/performance.md).
func WriteJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// The report holds only fixed texts, numbers and digests.
		panic("cairn: report does not encode")
	}
	w.Write(append(b, '\n'))
}

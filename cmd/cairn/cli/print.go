package cli

import (
	"fmt"
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// writeJSON prints v as one JSON object and a newline (render.WriteJSON):
// the commands' JSON objects are encoded as the reports are.
func writeJSON(w io.Writer, v any) { render.WriteJSON(w, v) }

// plural is "1 record", "2 records".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// writeInvalid prints the one-line explanation of an invalid input.
func writeInvalid(w io.Writer, e *audit.ReportError) {
	fmt.Fprintf(w, "cairn: invalid input: %s: %s; %s\n", e.Code, e.Code.Meaning(), e.Code.Next())
}

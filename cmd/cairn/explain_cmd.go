package main

import (
	"fmt"

	"github.com/cairn-audit/cairn/audit"
)

type explainCmd struct {
	Code string `arg:"" help:"A code from a report, e.g. project_search_absent."`
}

func (c *explainCmd) Help() string {
	return "Prints what a report code means and what to do about it. Every code of the report's vocabulary is known."
}

var kindNames = map[audit.Kind]string{
	audit.KindInvalid:       "invalid input (exit 2)",
	audit.KindEvidence:      "inconclusive evidence",
	audit.KindCheck:         "inconclusive check",
	audit.KindFail:          "fail (exit 1)",
	audit.KindInformational: "informational",
	audit.KindLimitation:    "limitation",
}

func (c *explainCmd) Run(e *env) error {
	code, ok := audit.ParseCode(c.Code)
	if !ok {
		// The unknown word is not repeated: it is the caller's text.
		fmt.Fprintln(e.stderr, "cairn: unknown code; the known codes are:")
		for _, k := range audit.Codes() {
			fmt.Fprintln(e.stderr, "  "+k.String())
		}
		return statusError(2)
	}
	fmt.Fprintf(e.stdout, "%s (%s)\n  meaning: %s\n  next:    %s\n", code, kindNames[code.Kind()], code.Meaning(), code.Next())
	return nil
}

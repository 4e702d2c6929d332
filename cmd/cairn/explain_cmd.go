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
	if w := whereTexts[code.Kind()]; w != "" {
		fmt.Fprintf(e.stdout, "  where:   %s\n", w)
	}
	return nil
}

// whereTexts say where a report shows what a code was about (SPEC §7.1).
var whereTexts = map[audit.Kind]string{
	audit.KindInvalid:       "the report's error gives the line or event, and for schema_violation the member missing or of the wrong type",
	audit.KindEvidence:      "the report's findings give the first line or event where it was seen and the place in the contract",
	audit.KindCheck:         "the report's findings give the first line or event where it was seen and the place in the contract",
	audit.KindFail:          "the report's findings give the line or event of the call that decided it",
	audit.KindInformational: "the report's findings give the line or event of the call",
}

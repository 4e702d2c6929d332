package audit

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

const codesDocPath = "../docs/codes.md"

var kindTitles = []struct {
	kind  Kind
	title string
	intro string
}{
	{KindInvalid, "Invalid input (exit 2)", "The input is refused: `status` is `invalid`, `checks` is `null`, and `error` names the code and where it was found."},
	{KindEvidence, "Inconclusive evidence", "The input does not let the audit see everything: `evidence_complete` is `inconclusive` with these codes."},
	{KindCheck, "Inconclusive checks", "A check could not reach a verdict."},
	{KindFail, "Fail (exit 1)", "An observed violation."},
	{KindInformational, "Informational", "Reported with a check; changes no state."},
	{KindLimitation, "Limitations", "Listed in every report's `limitations`: what no run can certify."},
	{KindUsage, "Catalog usage errors (exit 2, no report)", "A memory catalog that cannot be used stops the command before any input is read: one fixed line on stderr names the code and where in the catalog (SPEC §16.1)."},
}

// codesDoc renders docs/codes.md from the code table, the same texts
// `cairn explain` prints, so that the two cannot drift.
func codesDoc() []byte {
	var b bytes.Buffer
	b.WriteString("# Every code\n\n")
	b.WriteString("Generated from the code table (`audit/codes.go`) by `audit/codesdoc_test.go`;\n")
	b.WriteString("`cairn explain CODE` prints the same texts. Regenerate with\n")
	b.WriteString("`CAIRN_TEST_UPDATE=1 go test ./audit`.\n")
	for _, k := range kindTitles {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| code | meaning | what to do |\n|---|---|---|\n", k.title, k.intro)
		for _, c := range Codes() {
			if c.Kind() == k.kind {
				fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c, c.Meaning(), c.Next())
			}
		}
	}
	return b.Bytes()
}

func TestCodesDocIsCurrent(t *testing.T) {
	want := codesDoc()
	if os.Getenv("CAIRN_TEST_UPDATE") == "1" {
		if err := os.WriteFile(codesDocPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(codesDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run CAIRN_TEST_UPDATE=1 go test ./audit", codesDocPath)
	}
}

package normalize_test

import (
	"testing"

	"github.com/cairn-audit/cairn/normalize"
)

// TestCopilotRowsFit guards the representation: a judged record type given
// more members than the reader's array holds would drop values.
func TestCopilotRowsFit(t *testing.T) {
	if !normalize.CopilotRowsFit() {
		t.Fatal("a Copilot CLI record type has more members than Copilot.values holds")
	}
}

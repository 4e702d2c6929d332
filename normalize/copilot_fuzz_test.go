package normalize_test

import (
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
)

// FuzzCopilot: the GitHub Copilot CLI front end (SPEC §17), with
// fuzzFrontEnd's properties, a memory call, a failed tool and an abort
// among the mutations.
func FuzzCopilot(f *testing.F) {
	fuzzFrontEnd(f, fuzzFront{cli: "copilot", harness: "copilot", places: normalize.CopilotPlaces(),
		make:    func(e *audit.Engine) frontEnd { return normalize.NewCopilot(e) },
		checker: normalize.NewCopilotChecker, read: normalize.ReadCopilot,
		mutations: [][2]string{
			{`"toolName":"task"`, `"toolName":"cairn-memory-memory_store"`},
			{`"success":true`, `"success":false`},
			{`"type":"abort"`, `"type":"assistant.idle"`},
		}})
}

package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain puts this test binary on PATH as cairn (testscript.RunMain), for
// the tests that run cairn as a user would: the guide's commands, the
// shells' completion.
func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{"cairn": Main}))
}

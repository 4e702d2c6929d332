package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// unitTested are codes no CLI script can produce on demand here; each is
// produced in a Go test instead.
var unitTested = map[audit.Code]string{
	audit.InputUnreadable: "stream/lines_test.go (a failing reader): root reads any file, so permissions cannot make one unreadable",
	audit.InputChanged:    "stream/file_test.go (TestVerify): needs a write racing the read",
}

// TestEveryCodeIsScripted checks that every code a report can carry is
// asserted by at least one testscript (`invalid CODE …`, `usage CODE …` or
// a `checks` line),
// so each is produced end to end by the real binary.
func TestEveryCodeIsScripted(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/script/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	asserted := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			switch fields[0] {
			case "invalid", "usage":
				if len(fields) > 1 {
					asserted[fields[1]] = true
				}
			case "checks":
				for _, f := range fields[1:] {
					_, codes, _ := strings.Cut(f, ":")
					for _, c := range strings.Split(codes, ",") {
						asserted[c] = true
					}
				}
			}
		}
	}
	for _, c := range audit.Codes() {
		if c.Kind() == audit.KindLimitation {
			continue // in every report; asserted by the goldens
		}
		if why, ok := unitTested[c]; ok {
			if asserted[c.String()] {
				t.Errorf("%s is scripted now: remove it from unitTested", c)
			}
			t.Logf("%s: %s", c, why)
			continue
		}
		if !asserted[c.String()] {
			t.Errorf("no script asserts %s", c)
		}
	}
}

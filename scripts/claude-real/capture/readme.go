//go:build unix

package main

import (
	_ "embed"
	"fmt"
	"strings"
)

// readmeText is testdata/claude/real/README.md: one line per scenario with
// what it does and why its verdict is what want.json says.
func readmeText() string {
	var b strings.Builder
	b.WriteString(readmeHead)
	for _, s := range allScenarios() {
		v := s.want.Verdict()
		fmt.Fprintf(&b, "- `%s.jsonl` — %s. **%s (exit %d)**: %s.\n", s.name, s.about, v.Status, v.ExitCode, s.why)
	}
	b.WriteString(readmeTail)
	return b.String()
}

//go:embed readme_head.md
var readmeHead string

//go:embed readme_tail.md
var readmeTail string

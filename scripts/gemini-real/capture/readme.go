//go:build unix

package main

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// readmeText is testdata/gemini/real/README.md: one line per scenario with
// what it does, gemini's exit code and why its verdict is what want.json says.
func readmeText() string {
	var b strings.Builder
	b.WriteString(readmeHead)
	for _, s := range allScenarios() {
		v := s.wantFor("")
		fmt.Fprintf(&b, "- `%s.jsonl` — %s. gemini exit %d. **%s (exit %d%s)**: %s.", s.name, s.about, s.wantExit, v.Status, v.ExitCode, describe(v.Error), s.why)
		var vs []string
		for ver := range s.wantIn {
			vs = append(vs, ver)
		}
		sort.Strings(vs)
		for _, ver := range vs {
			vv := s.wantIn[ver].want.Verdict()
			fmt.Fprintf(&b, " **In %s: %s (exit %d)**: %s.", ver, vv.Status, vv.ExitCode, s.wantIn[ver].why)
		}
		b.WriteString("\n")
	}
	b.WriteString(readmeTail)
	return b.String()
}

// describe is ", CODE at line N[ at WHERE]" for an invalid verdict's error,
// "" for none.
func describe(e *verr) string {
	if e == nil {
		return ""
	}
	s := ", " + e.Code
	if e.Record != nil {
		s += fmt.Sprintf(" at line %d", *e.Record)
	}
	if e.Where != nil {
		s += " at `" + *e.Where + "`"
	}
	return s
}

//go:embed readme_head.md
var readmeHead string

//go:embed readme_tail.md
var readmeTail string

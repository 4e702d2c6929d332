//go:build unix

package main

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// readmeText is testdata/pi/real/README.md: one line per scenario with
// what it does, the MCP exposure, pi's exit code and why its verdict is
// what want.json says.
func readmeText() string {
	var b strings.Builder
	b.WriteString(readmeHead)
	for _, s := range allScenarios() {
		v := s.wantFor("")
		fmt.Fprintf(&b, "- `%s.jsonl` — %s (exposure %s). pi exit %d. **%s (exit %d%s%s)**: %s.",
			s.name, s.about, s.exposureName(), s.wantExit, v.Status, v.ExitCode, codesOf(v), describe(v.Error), s.why)
		var vs []string
		for ver := range s.wantIn {
			vs = append(vs, ver)
		}
		sort.Strings(vs)
		for _, ver := range vs {
			vv := s.wantIn[ver].want.Verdict()
			fmt.Fprintf(&b, " **In %s: %s (exit %d%s)**: %s.", ver, vv.Status, vv.ExitCode, codesOf(vv), s.wantIn[ver].why)
		}
		b.WriteString("\n")
	}
	b.WriteString(readmeTail)
	return b.String()
}

// codes is "; evidence_complete …, memory_first …" for the checks that are
// not a pass, "" for none.
func codesOf(v verdict) string {
	if v.Checks == nil {
		return ""
	}
	var parts []string
	for _, c := range []struct {
		name string
		ch   check
	}{
		{"evidence_complete", v.Checks.EvidenceComplete},
		{"memory_first", v.Checks.MemoryFirst},
		{"retrieval_result", v.Checks.RetrievalResult},
		{"direct_write_boundary", v.Checks.DirectWriteBoundary},
	} {
		if c.ch.State == "pass" {
			continue
		}
		codes := append([]string(nil), c.ch.Codes...)
		sort.Strings(codes)
		parts = append(parts, fmt.Sprintf("%s %s %s", c.name, c.ch.State, strings.Join(codes, "+")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
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
	} else {
		s += ", where null"
	}
	return s
}

//go:embed readme_head.md
var readmeHead string

//go:embed readme_tail.md
var readmeTail string

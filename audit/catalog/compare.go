package catalog

import (
	"strconv"

	"github.com/cairn-audit/cairn/audit"
)

// MaxFindings is how many findings Compare lists at most: a catalog holds
// at most 64 tools, but a hostile answer can list a million the catalog
// lacks, and listing them all would make memory grow with their number.
const MaxFindings = 256

// Compare holds catalog c to a server's tools/list answer (SPEC §16.5):
// each declared tool the server does not list (ToolNotOnServer, at the
// catalog's tool), each class weaker than the tool's annotations say
// without annotations_override (ClassWeakerThanAnnotations, at the
// catalog's class, with the server's tool), in the catalog's order; then
// each server tool the catalog does not list (ServerToolUndeclared, at the
// server's tool), in the server's order. It returns the first MaxFindings
// of them and how many there are; none means the two agree.
//
// A class is weaker when it is below the class the annotations give with
// MCP's defaults (ServerTool.Class; read < capture < destructive): read
// where readOnlyHint is not true, capture where destructiveHint is true or
// absent on a tool that is not read-only.
func Compare(c *audit.Catalog, l *ToolsList) (findings []Finding, total int) {
	add := func(f Finding) {
		if total++; len(findings) < MaxFindings {
			findings = append(findings, f)
		}
	}
	declared := map[string]bool{}
	for i, t := range c.Tools() {
		declared[t.Name] = true
		at := "catalog.tools[" + strconv.Itoa(i) + "]"
		j := l.Index(t.Name)
		switch {
		case j < 0:
			add(Finding{Code: ToolNotOnServer, Where: at})
		case !t.AnnotationsOverride && t.Class < l.Tools[j].Class():
			add(Finding{Code: ClassWeakerThanAnnotations, Where: at + ".class", Server: l.Where(j)})
		}
	}
	for j, t := range l.Tools {
		if !declared[t.Name] {
			add(Finding{Code: ServerToolUndeclared, Where: l.Where(j)})
		}
	}
	return findings, total
}

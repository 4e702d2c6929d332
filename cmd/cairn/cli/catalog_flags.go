package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
)

// catalogFlags choose the memory catalog an audit judges by (SPEC §16.1):
// a built-in, or a catalog file, and the names the server was registered
// under. eval protocol and eval batch embed them.
type catalogFlags struct {
	// Pointers, not defaults, so that kong's xor group sees which was given.
	Catalog      *string  `name:"catalog" xor:"catalog" enum:"${catalogs}" placeholder:"NAME"`
	CatalogFile  *string  `name:"catalog-file" xor:"catalog" placeholder:"PATH"`
	MemoryServer []string `name:"memory-server" sep:"none" placeholder:"NAME"`
}

// validate checks --memory-server: 1 to 16 distinct names of
// [A-Za-z0-9_-]{1,64} (SPEC §16.1). The names are never printed.
func (f *catalogFlags) validate() error {
	if len(f.MemoryServer) > catalog.MaxServers {
		return usageRefusal(usageBadMemoryServer)
	}
	for i, s := range f.MemoryServer {
		if !catalog.IsServerName(s) {
			return usageRefusal(usageBadMemoryServer)
		}
		for _, o := range f.MemoryServer[:i] {
			if o == s {
				return usageRefusal(usageBadMemoryServer)
			}
		}
	}
	return nil
}

// rules are the rules the flags choose, with the capture assertion: the
// catalog file is read here, once, before any input. A problem with it is
// a usage error, written to stderr as one fixed line; false then.
func (f *catalogFlags) rules(stderr io.Writer, captureAuthorized bool) (audit.Rules, bool) {
	c := audit.CairnMemory
	switch {
	case f.CatalogFile != nil:
		var probs []catalog.Problem
		if c, probs = catalog.ReadFile(*f.CatalogFile); len(probs) > 0 {
			writeCatalogProblem(stderr, probs[0])
			return audit.Rules{}, false
		}
	case f.Catalog != nil:
		c, _ = catalog.Builtin(*f.Catalog) // the grammar's enum: always found
	}
	if len(f.MemoryServer) > 0 {
		c = c.WithServers(f.MemoryServer)
	}
	return audit.Rules{Catalog: c, CaptureAuthorized: captureAuthorized}, true
}

// writeCatalogProblem is the one stderr line of a catalog that cannot be
// used: its code, where in the catalog, and the code's fixed texts; never
// a byte of the file or its path (SPEC §16.1).
func writeCatalogProblem(w io.Writer, p catalog.Problem) {
	fmt.Fprintf(w, "cairn: usage error: %s at %s: %s; %s\n", p.Code, p.Where, p.Code.Meaning(), p.Code.Next())
}

// builtinBareNames are the built-in catalogs' names without a version.
func builtinBareNames() []string {
	var out []string
	for _, n := range catalog.BuiltinNames() {
		if !strings.Contains(n, "/") {
			out = append(out, n)
		}
	}
	return out
}

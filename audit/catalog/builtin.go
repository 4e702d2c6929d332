package catalog

import (
	"embed"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/gowebpki/jcs"

	"github.com/cairn-audit/cairn/audit"
)

// The built-in catalogs other than cairn-memory/1 are exactly the files of
// SPEC §16.7, parsed like any catalog file.
//
//go:embed builtin/*.json
var builtinFiles embed.FS

// builtinNames name the built-in catalogs: cairn-memory/1 (SPEC §6.5)
// first, then SPEC §16.7's in its order, each read from NAME-N.json. The
// CLI's grammar needs only the names, so the files are parsed the first
// time a catalog is asked for, not in every run.
var builtinNames = []string{audit.CairnMemory.Name(), "mcp-server-memory/1", "ai-devkit-memory/1"}

var builtins = sync.OnceValue(func() []*audit.Catalog {
	out := []*audit.Catalog{audit.CairnMemory}
	for _, name := range builtinNames[1:] {
		f := strings.Replace(name, "/", "-", 1) + ".json"
		b, err := builtinFiles.ReadFile("builtin/" + f)
		if err != nil {
			panic("catalog: built-in " + f + " is missing")
		}
		c, probs := parse(b)
		if len(probs) > 0 {
			panic("catalog: built-in " + f + " is invalid at " + probs[0].Where)
		}
		if c.Name() != name {
			panic("catalog: built-in " + f + " is not named " + name)
		}
		out = append(out, c)
	}
	return out
})

// Builtins are the built-in catalogs, cairn-memory/1 (the default) first.
func Builtins() []*audit.Catalog { return append([]*audit.Catalog(nil), builtins()...) }

// Builtin finds a built-in catalog by NAME/N exactly, or by its bare NAME
// the newest version of it (SPEC §16.1).
func Builtin(name string) (*audit.Catalog, bool) {
	var best *audit.Catalog
	bestVersion := -1
	for _, c := range builtins() {
		base, version, _ := strings.Cut(c.Name(), "/")
		if c.Name() == name {
			return c, true
		}
		if n, err := strconv.Atoi(version); err == nil && base == name && n > bestVersion {
			best, bestVersion = c, n
		}
	}
	return best, best != nil
}

// BuiltinNames are the names --catalog takes: each built-in's bare name,
// then each NAME/N.
func BuiltinNames() []string {
	var bare, versioned []string
	for _, name := range builtinNames {
		base, _, _ := strings.Cut(name, "/")
		if len(bare) == 0 || bare[len(bare)-1] != base {
			bare = append(bare, base)
		}
		versioned = append(versioned, name)
	}
	return append(bare, versioned...)
}

// File is catalog c as a catalog file (SPEC §16.2) in canonical JSON (RFC
// 8785): what 'cairn catalog show' prints. Optional members appear only
// when set, so that a catalog read from a file reads back the same.
func File(c *audit.Catalog) []byte {
	tools := []map[string]any{}
	for _, t := range c.Tools() {
		m := map[string]any{"name": t.Name, "class": audit.ClassName(t.Class)}
		if t.AnnotationsOverride {
			m["annotations_override"] = true
		}
		if s := t.Search; s != nil {
			m["search"] = map[string]any{"scope": s.Scope.Document(), "result": resultDocument(s)}
		}
		tools = append(tools, m)
	}
	b, err := json.Marshal(map[string]any{"schema": Schema, "name": c.Name(), "servers": c.Servers(), "tools": tools})
	if err == nil {
		b, err = jcs.Transform(b)
	}
	if err != nil {
		panic("catalog: a catalog does not encode: " + err.Error()) // strings and booleans only
	}
	return b
}

// resultDocument is a search's result rule as a catalog file writes it.
func resultDocument(s *audit.SearchRule) map[string]any {
	members := map[string]any{}
	for _, r := range s.Result {
		members[r.Name] = r.Document()
	}
	return map[string]any{"kind": "json_object", "members": members}
}

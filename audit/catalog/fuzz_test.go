package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// FuzzParse holds Parse to its contract on any bytes: no panic; a catalog
// or problems, never both or neither; every problem a usage code at a place
// of the catalog's own vocabulary; and an accepted catalog written as a
// file (File) reads back to the same catalog, policy digest included.
// Seeded from the built-ins, a catalog that uses every member, and the
// catalog files of the scripts.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("builtin/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Replace(b, []byte(`-memory/1"`), []byte(`-memory/7"`), 1))
	}
	f.Add([]byte(team))
	f.Add([]byte(`{"schema":"cairn.catalog/v1","name":"a/1","servers":["s"],"tools":[{"name":"t","class":"read","search":{"scope":{"kind":"server_instance"},"result":{"kind":"json_object","members":{"m":{"enum":["x"]}}}}}]}`))
	for _, s := range scriptCatalogs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, probs := Parse(b)
		if (c == nil) == (len(probs) == 0) {
			t.Fatalf("Parse = %v, %v: want a catalog or problems", c, probs)
		}
		for _, p := range probs {
			if p.Code != audit.CatalogInvalid && p.Code != audit.CatalogUnreadable || !vocabulary(p.Where) {
				t.Fatalf("problem %s at %q", p.Code, p.Where)
			}
		}
		if len(probs) > maxProblems {
			t.Fatalf("%d problems, want at most %d", len(probs), maxProblems)
		}
		if c == nil {
			return
		}
		again, probs := Parse(File(c))
		if len(probs) > 0 {
			t.Fatalf("File(Parse(b)) does not parse: %v\n%s", probs, File(c))
		}
		if x, y := (audit.Rules{Catalog: c}).PolicyJSON(), (audit.Rules{Catalog: again}).PolicyJSON(); !bytes.Equal(x, y) {
			t.Fatalf("policy %s, read back %s", x, y)
		}
		if !json.Valid((audit.Rules{Catalog: c, CaptureAuthorized: true}).PolicyJSON()) {
			t.Fatal("the policy document is not JSON")
		}
	})
}

// scriptCatalogs are the catalog files the scripts of testdata/script
// hold.
func scriptCatalogs(f *testing.F) [][]byte {
	scripts, _ := filepath.Glob("../../testdata/script/catalog_*.txtar")
	var out [][]byte
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		for _, part := range strings.Split(string(b), "\n-- ")[1:] {
			name, body, _ := strings.Cut(part, " --\n")
			if strings.HasSuffix(name, ".json") {
				out = append(out, []byte(body))
			}
		}
	}
	return out
}

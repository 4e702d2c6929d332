//go:build !wasip1

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs("../../../docs/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, name string, report []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(report))
	if err != nil {
		t.Errorf("%s: not JSON: %v", name, err)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s: report does not match docs/report.schema.json: %v\n%s", name, err, report)
	}
}

// TestGoldenReportsMatchSchema validates every JSON report golden in the
// testscript archives.
func TestGoldenReportsMatchSchema(t *testing.T) {
	s := reportSchema(t)
	files, err := filepath.Glob("../../../testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			for _, line := range strings.Split(string(file.Data), "\n") {
				if strings.HasPrefix(line, `{"schema":"cairn.eval.protocol/v1"`) {
					validate(t, s, filepath.Base(f)+":"+file.Name, []byte(line))
					n++
				}
			}
		}
	}
	if n < 3 {
		t.Errorf("validated %d golden reports, want the archives' goldens", n)
	}
	t.Logf("validated %d golden reports", n)
}

// TestReportsMatchSchema validates real outputs: every shipped input, with
// and without --capture-authorized, from a file and stdin, invalid inputs,
// and the disabled envelope.
func TestReportsMatchSchema(t *testing.T) {
	s := reportSchema(t)
	var inputs []string
	for _, pattern := range []string{"codex/*.jsonl", "controls/*", "lab/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join("../../../testdata", pattern))
		inputs = append(inputs, m...)
	}
	on := map[string]string{"CAIRN_EVAL": "1"}
	for _, in := range inputs {
		flag := "--codex-jsonl"
		if strings.HasSuffix(in, ".json") {
			flag = "--trajectory"
		}
		abs, _ := filepath.Abs(in)
		for _, extra := range [][]string{nil, {"--capture-authorized"}} {
			args := append([]string{"eval", "protocol", flag, abs, "--json"}, extra...)
			_, out, _ := runCapture(args, on)
			validate(t, s, filepath.Base(in), []byte(out))
			data, _ := os.ReadFile(in)
			var stdout, stderr bytes.Buffer
			run(append([]string{"eval", "protocol", flag, "-", "--json"}, extra...), bytes.NewReader(data), &stdout, &stderr, func(k string) string { return on[k] })
			validate(t, s, filepath.Base(in)+" on stdin", stdout.Bytes())
		}
	}
	for _, args := range [][]string{
		{"eval", "protocol", "--codex-jsonl", filepath.Join(t.TempDir(), "missing"), "--json"},
		{"eval", "protocol", "--trajectory", "../../../testdata/codex/a-clean-memory-search.jsonl", "--json"},
		{"eval", "protocol", "--codex-jsonl", "../../../testdata/controls/protocol-project-search.json", "--json"},
	} {
		abs, _ := filepath.Abs(args[3])
		args[3] = abs
		_, out, _ := runCapture(args, on)
		validate(t, s, strings.Join(args, " "), []byte(out))
	}
	_, out, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", "x", "--json"}, nil)
	validate(t, s, "disabled", []byte(out))
}

// TestSchemaRejects shows the schema is not vacuous.
func TestSchemaRejects(t *testing.T) {
	s := reportSchema(t)
	_, good, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", mustAbs(t, "../../../testdata/controls/protocol-codex.jsonl"), "--json"}, map[string]string{"CAIRN_EVAL": "1"})
	bad := map[string]string{
		"exit code of another status": strings.Replace(good, `"exit_code":0`, `"exit_code":2`, 1),
		"unknown member":              strings.Replace(good, `"enabled":true,`, `"enabled":true,"extra":1,`, 1),
		"unknown code":                strings.Replace(good, `"codes":[]`, `"codes":["not_a_code"]`, 1),
		"short digest":                strings.Replace(good, `"sha256":"6c00ed87`, `"sha256":"6c`, 1),
		"checks on invalid":           strings.Replace(good, `"status":"pass","exit_code":0`, `"status":"invalid","exit_code":2`, 1),
	}
	for name, report := range bad {
		if report == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(report))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(v) == nil {
			t.Errorf("%s: the schema accepts a broken report", name)
		}
	}
}

func mustAbs(t testing.TB, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

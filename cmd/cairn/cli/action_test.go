//go:build !wasip1

package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-audit/cairn/scripts/testbuild"
)

// The GitHub Action (scripts/github-action/action.yml) is run here as the
// runner runs a composite action: its inputs given or defaulted, each
// step's if: and ${{ }} expressions evaluated, each run: written to a file
// and run with bash --noprofile --norc -eo pipefail in the workspace (or
// its working-directory), with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
// GITHUB_ACTION_PATH and RUNNER_TEMP set and the step's outputs read back.
// A uses: step is not run (actions/setup-go: the Go that runs the tests
// stands in for it). The cases check the step's exit with and without
// fail-on, the annotations, the summary, the SARIF file and the outputs,
// and that nothing an input said, nor a path, is printed.

const actionDir = "../../../scripts/github-action"

type action struct {
	Name        string
	Description string
	Inputs      map[string]struct {
		Description string
		Required    bool
		Default     string
	}
	Outputs map[string]struct {
		Description string
		Value       string
	}
	Runs struct {
		Using string
		Steps []actionStep
	}
}

type actionStep struct {
	Name             string
	ID               string
	If               string
	Uses             string
	With             map[string]string
	Shell            string
	WorkingDirectory string `yaml:"working-directory"`
	Env              map[string]string
	Run              string
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(actionDir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 || a.Name == "" || a.Description == "" {
		t.Fatalf("action.yml: not a composite action with a name, a description and steps")
	}
	return a
}

// actionResult is what a run of the action gave.
type actionResult struct {
	exit           int
	stdout, stderr string
	summary        string
	outputs        map[string]string // the action's outputs
	steps          []string          // the names of the steps run
}

// actionRunner runs the action once.
type actionRunner struct {
	ctx       context.Context // when not nil, each step's deadline (testbuild)
	t         *testing.T
	a         action
	inputs    map[string]string
	steps     map[string]map[string]string // outputs by step id
	path      string                       // github.action_path
	workspace string
}

var actionExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces each ${{ }} in s by its value.
func (r *actionRunner) expand(s string) string {
	return actionExpr.ReplaceAllStringFunc(s, func(m string) string {
		return r.eval(actionExpr.FindStringSubmatch(m)[1])
	})
}

// eval is the value of the expressions the action uses: inputs.NAME,
// steps.ID.outputs.NAME, github.action_path, 'literal' and A || B.
func (r *actionRunner) eval(expr string) string {
	expr = strings.TrimSpace(expr)
	if a, b, ok := strings.Cut(expr, "||"); ok {
		if v := r.eval(a); v != "" {
			return v
		}
		return r.eval(b)
	}
	switch {
	case len(expr) >= 2 && expr[0] == '\'' && expr[len(expr)-1] == '\'':
		return strings.ReplaceAll(expr[1:len(expr)-1], "''", "'")
	case expr == "github.action_path":
		return r.path
	case strings.HasPrefix(expr, "inputs."):
		name := strings.TrimPrefix(expr, "inputs.")
		if _, ok := r.a.Inputs[name]; !ok {
			r.t.Fatalf("action.yml uses inputs.%s, which it does not declare", name)
		}
		return r.inputs[name]
	case strings.HasPrefix(expr, "steps."):
		parts := strings.Split(expr, ".")
		if len(parts) != 4 || parts[2] != "outputs" {
			r.t.Fatalf("action.yml: unsupported expression %q", expr)
		}
		return r.steps[parts[1]][parts[3]]
	}
	r.t.Fatalf("action.yml: unsupported expression %q", expr)
	return ""
}

// cond is the value of a step's if: (A == B, A != B, or none).
func (r *actionRunner) cond(expr string) bool {
	expr = strings.TrimSpace(expr)
	if m := actionExpr.FindStringSubmatch(expr); m != nil && m[0] == expr {
		expr = m[1]
	}
	switch {
	case expr == "":
		return true
	case strings.Contains(expr, "!="):
		a, b, _ := strings.Cut(expr, "!=")
		return r.eval(a) != r.eval(b)
	case strings.Contains(expr, "=="):
		a, b, _ := strings.Cut(expr, "==")
		return r.eval(a) == r.eval(b)
	}
	r.t.Fatalf("action.yml: unsupported condition %q", expr)
	return false
}

// runAction runs the action in workspace with the inputs given.
func runAction(t *testing.T, a action, workspace string, given map[string]string) actionResult {
	return runActionWithin(t, nil, a, workspace, given)
}

// runActionWithin is runAction with ctx ending each step: a step still
// running then is killed with its process group (its go build included),
// and t fails.
func runActionWithin(t *testing.T, ctx context.Context, a action, workspace string, given map[string]string) actionResult {
	t.Helper()
	path, err := filepath.Abs(actionDir)
	if err != nil {
		t.Fatal(err)
	}
	r := &actionRunner{ctx: ctx, t: t, a: a, inputs: map[string]string{}, steps: map[string]map[string]string{}, path: path, workspace: workspace}
	for name, v := range given {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the action has no input %s", name)
		}
		r.inputs[name] = v
	}
	for name, in := range a.Inputs {
		if _, ok := given[name]; !ok {
			if in.Required {
				t.Fatalf("the required input %s is not given", name)
			}
			r.inputs[name] = in.Default
		}
	}
	temp := t.TempDir()
	summary := filepath.Join(temp, "summary.md")
	runnerTemp := filepath.Join(temp, "runner")
	if err := os.Mkdir(runnerTemp, 0o700); err != nil {
		t.Fatal(err)
	}
	var res actionResult
	var stdout, stderr bytes.Buffer
	for _, st := range a.Runs.Steps {
		if !r.cond(st.If) {
			continue
		}
		res.steps = append(res.steps, st.Name)
		if st.Uses != "" {
			// Only actions/setup-go, at the version of the action's own
			// go.mod; the tests' Go stands in for it.
			if !strings.HasPrefix(st.Uses, "actions/setup-go@") {
				t.Fatalf("step %q uses %s: only actions/setup-go is expected", st.Name, st.Uses)
			}
			got, err := os.ReadFile(r.expand(st.With["go-version-file"]))
			want, _ := os.ReadFile("../../../go.mod")
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("step %q: go-version-file is not cairn's go.mod (%v)", st.Name, err)
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash (a composite step must name its shell)", st.Name, st.Shell)
		}
		script := filepath.Join(temp, "step.sh")
		output := filepath.Join(temp, "output")
		if err := os.WriteFile(script, []byte(st.Run), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(output, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		if ctx != nil {
			cmd = testbuild.Command(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		}
		cmd.Dir = workspace
		if st.WorkingDirectory != "" {
			cmd.Dir = r.expand(st.WorkingDirectory)
		}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "CAIRN_") && !strings.HasPrefix(kv, "INPUT_") && !strings.HasPrefix(kv, "RUNNER_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary,
			"GITHUB_ACTION_PATH="+path, "GITHUB_WORKSPACE="+workspace, "RUNNER_TEMP="+runnerTemp)
		for k, v := range st.Env {
			cmd.Env = append(cmd.Env, k+"="+r.expand(v))
		}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ctx != nil && ctx.Err() != nil {
			t.Fatalf("step %q did not finish before its deadline (testbuild.Deadline): its process group was killed\nstdout:\n%s\nstderr:\n%s", st.Name, &stdout, &stderr)
		}
		if st.ID != "" {
			r.steps[st.ID] = readOutputs(t, output)
		}
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			// A failed step ends the action: the later ones do not run.
			res.exit = ee.ExitCode()
			break
		}
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	if b, err := os.ReadFile(summary); err == nil {
		res.summary = string(b)
	}
	res.outputs = map[string]string{}
	for name, o := range a.Outputs {
		res.outputs[name] = r.expand(o.Value)
	}
	return res
}

// readOutputs reads a GITHUB_OUTPUT file: name=value lines (the action
// writes no multi-line values).
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name=value", sc.Text())
		}
		out[name] = value
	}
	return out
}

// actionCase is one run of the action.
type actionCase struct {
	name    string
	files   map[string]string // workspace file: the repository file it copies ("" for an empty file)
	inputs  map[string]string
	exit    int
	status  string
	stdout  string   // a line the annotations must have ("" for none)
	stderr  string   // stderr exactly
	direct  []string // the inputs in the order cairn must get them
	noSARIF bool     // the run writes no SARIF file
	uris    bool     // the SARIF file names the inputs by their paths
	sarif   string   // where the SARIF file is, from the workspace (cairn.sarif when "")
	uri     string   // a URI the SARIF file must hold
}

func TestGitHubAction(t *testing.T) {
	t.Parallel()
	needTools(t, "bash")
	if _, err := exec.LookPath("cairn"); err != nil {
		t.Skip("no cairn on PATH")
	}
	a := readAction(t)
	const (
		pass         = "testdata/controls/protocol-codex.jsonl"
		fail         = "testdata/codex/real/0.171.0/shell-first.jsonl"
		inconclusive = "testdata/codex/real/0.171.0/http-400.jsonl"
		store        = "testdata/codex/real/0.171.0/memory-store.jsonl"
		geminiJSON   = "testdata/gemini/real/0.61.0/json-output.jsonl" // --output-format json: not the stream
	)
	codex := func(paths string, extra ...string) map[string]string {
		in := map[string]string{"format": "codex-jsonl", "paths": paths, "cairn": "cairn"}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		return in
	}
	cases := []actionCase{
		{name: "pass", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl"),
			exit: 0, status: "pass", direct: []string{"pass-cnry.jsonl"}},
		{name: "fail", files: map[string]string{"fail-cnry.jsonl": fail}, inputs: codex("fail-cnry.jsonl"),
			exit: 1, status: "fail", stdout: "::error title=cairn input 1%3A memory_first fail%3A tool_before_project_search::", direct: []string{"fail-cnry.jsonl"}},
		// The memory catalog, as cairn takes it (SPEC §16.1): another
		// server's catalog does not know cairn-memory's calls; a catalog
		// file cairn refuses is an error of the inputs, with cairn's line.
		{name: "catalog", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "catalog", "mcp-server-memory"),
			exit: 1, status: "fail", stdout: "::error title=cairn input 1%3A memory_first fail%3A tool_before_project_search::", direct: []string{"pass-cnry.jsonl"}},
		{name: "memory-server, one a line", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "memory-server", "cairn_memory\ncairn-memory"),
			exit: 0, status: "pass", direct: []string{"pass-cnry.jsonl"}},
		{name: "memory-server, another name", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "memory-server", "kg cnry"),
			exit: 1, status: "fail", direct: []string{"pass-cnry.jsonl"}},
		{name: "a catalog file cairn refuses", files: map[string]string{"pass-cnry.jsonl": pass, "catalog-cnry.json": "testdata/catalog/tools-list/README.md"},
			inputs: codex("pass-cnry.jsonl", "catalog-file", "catalog-cnry.json"), exit: 2, status: "error", noSARIF: true,
			stdout: "::error title=cairn::usage error: catalog_invalid at catalog: the catalog file is not a valid cairn.catalog/v1 catalog (where says which member); fix the member that where names; cairn catalog check PATH lists every problem",
			stderr: "cairn: usage error: catalog_invalid at catalog: the catalog file is not a valid cairn.catalog/v1 catalog (where says which member); fix the member that where names; cairn catalog check PATH lists every problem\n"},
		{name: "catalog and catalog-file", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "catalog", "cairn-memory", "catalog-file", "c.json"),
			exit: 2, status: "error", noSARIF: true, stdout: "::error title=cairn::usage error: --catalog and --catalog-file cannot be used together",
			stderr: "cairn: usage error: --catalog and --catalog-file cannot be used together\nRun 'cairn eval batch --help' for usage.\n"},
		{name: "fail, fail-on inconclusive,invalid", files: map[string]string{"fail-cnry.jsonl": fail}, inputs: codex("fail-cnry.jsonl", "fail-on", "inconclusive,invalid"),
			exit: 0, status: "fail", stdout: "::error title=cairn input 1%3A memory_first fail%3A tool_before_project_search::", direct: []string{"fail-cnry.jsonl"}},
		{name: "inconclusive", files: map[string]string{"inconclusive-cnry.jsonl": inconclusive}, inputs: codex("inconclusive-cnry.jsonl"),
			exit: 3, status: "inconclusive", stdout: "::warning title=cairn input 1%3A evidence_complete inconclusive%3A turn_failed::", direct: []string{"inconclusive-cnry.jsonl"}},
		{name: "inconclusive, fail-on fail", files: map[string]string{"inconclusive-cnry.jsonl": inconclusive}, inputs: codex("inconclusive-cnry.jsonl", "fail-on", "fail"),
			exit: 0, status: "inconclusive", stdout: "::warning title=cairn input 1%3A evidence_complete inconclusive%3A turn_failed::", direct: []string{"inconclusive-cnry.jsonl"}},
		{name: "invalid", files: map[string]string{"run-cnry.jsonl": geminiJSON}, inputs: map[string]string{"format": "gemini-jsonl", "paths": "run-cnry.jsonl", "cairn": "cairn"},
			exit: 2, status: "invalid", stdout: "::error title=cairn input 1%3A invalid input%3A malformed_json::", direct: []string{"run-cnry.jsonl"}},
		{name: "invalid, fail-on fail,inconclusive", files: map[string]string{"run-cnry.jsonl": geminiJSON}, inputs: map[string]string{"format": "gemini-jsonl", "paths": "run-cnry.jsonl", "cairn": "cairn", "fail-on": "fail,inconclusive"},
			exit: 0, status: "invalid", stdout: "::error title=cairn input 1%3A invalid input%3A malformed_json::", direct: []string{"run-cnry.jsonl"}},
		{name: "four inputs, a glob and blank lines",
			files:  map[string]string{"a-cnry.jsonl": pass, "runs/x/b-cnry.jsonl": fail, "runs/c-cnry.jsonl": inconclusive, "runs/x/d-cnry.jsonl": ""},
			inputs: codex("a-cnry.jsonl\n\n  runs/**/*.jsonl  \n", "fail-on", "fail"),
			exit:   1, status: "invalid", stdout: "cairn: 4 inputs: pass 1, fail 1, inconclusive 1, invalid 1 (exit 1)",
			direct: []string{"a-cnry.jsonl", "runs/c-cnry.jsonl", "runs/x/b-cnry.jsonl", "runs/x/d-cnry.jsonl"}},
		{name: "a Claude Code stream as codex-jsonl: the hint, once", files: map[string]string{"claude-cnry.jsonl": "testdata/controls/protocol-claude.jsonl"}, inputs: codex("claude-cnry.jsonl"),
			exit: 3, status: "inconclusive", direct: []string{"claude-cnry.jsonl"},
			stderr: "cairn: input 1 looks like a Claude Code stream-json; try --format claude-jsonl\n"},
		{name: "capture-authorized", files: map[string]string{"store-cnry.jsonl": store}, inputs: codex("store-cnry.jsonl", "capture-authorized", "true"),
			exit: 0, status: "pass", stdout: "::notice title=cairn input 1%3A direct_write_boundary%3A capture_authorization_asserted::", direct: []string{"store-cnry.jsonl"}},
		{name: "capture not authorized", files: map[string]string{"store-cnry.jsonl": store}, inputs: codex("store-cnry.jsonl"),
			exit: 1, status: "fail", stdout: "::error title=cairn input 1%3A direct_write_boundary fail%3A direct_mutation_unauthorized::", direct: []string{"store-cnry.jsonl"}},
		{name: "sarif-uri", files: map[string]string{"runs/fail-cnry.jsonl": fail, "-pass-cnry.jsonl": pass}, inputs: codex("runs/fail-cnry.jsonl\n-pass-cnry.jsonl", "sarif-uri", "true"),
			exit: 1, status: "fail", direct: []string{"runs/fail-cnry.jsonl", "-pass-cnry.jsonl"}, uris: true},
		{name: "no SARIF file", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "sarif-file", ""),
			exit: 0, status: "pass", direct: []string{"pass-cnry.jsonl"}, noSARIF: true},
		{name: "an unknown format", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: map[string]string{"format": "cnry-format", "paths": "pass-cnry.jsonl", "cairn": "cairn"},
			exit: 2, status: "error", noSARIF: true,
			stdout: "::error title=cairn::usage error: --format must be one of codex-jsonl, claude-jsonl, gemini-jsonl, pi-jsonl, opencode-jsonl, opencode-export, copilot-jsonl, qwen-jsonl, cline-jsonl, trajectory",
			stderr: "cairn: usage error: --format must be one of codex-jsonl, claude-jsonl, gemini-jsonl, pi-jsonl, opencode-jsonl, opencode-export, copilot-jsonl, qwen-jsonl, cline-jsonl, trajectory\nRun 'cairn eval batch --help' for usage.\n"},
		{name: "a pattern that matches nothing", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl\nruns/*.cnry"),
			exit: 2, status: "error", stdout: "::error title=cairn::line 2 of the input paths names no file (a path that does not exist, or a pattern that matches nothing)", noSARIF: true},
		// SPEC §14.1 v4: a listed path that does not exist is an error of
		// the inputs, like a pattern that matches nothing, whatever fail-on.
		{name: "a path that does not exist, fail-on fail", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl\nmissing-cnry.jsonl", "fail-on", "fail"),
			exit: 2, status: "error", stdout: "::error title=cairn::line 2 of the input paths names no file (a path that does not exist, or a pattern that matches nothing)", noSARIF: true},
		// An invalid fail-on or format is status error, never fail, with
		// cairn's own fixed line as the annotation.
		{name: "an invalid fail-on", files: map[string]string{"fail-cnry.jsonl": fail}, inputs: codex("fail-cnry.jsonl", "fail-on", "fail,cnry"),
			exit: 2, status: "error", noSARIF: true,
			stdout: "::error title=cairn::usage error: flag --fail-on takes a comma-separated list of fail, inconclusive and invalid",
			stderr: "cairn: usage error: flag --fail-on takes a comma-separated list of fail, inconclusive and invalid\nRun 'cairn eval batch --help' for usage.\n"},
		{name: "sarif-file in a folder that does not exist", files: map[string]string{"fail-cnry.jsonl": fail}, inputs: codex("fail-cnry.jsonl", "sarif-file", "reports/x/cairn.sarif"),
			exit: 1, status: "fail", direct: []string{"fail-cnry.jsonl"}, sarif: "reports/x/cairn.sarif"},
		{name: "sarif-file that cannot be written", files: map[string]string{"fail-cnry.jsonl": fail, "reports": pass}, inputs: codex("fail-cnry.jsonl", "sarif-file", "reports/cairn.sarif"),
			exit: 2, status: "error", stdout: "::error title=cairn::the input sarif-file names a file that cannot be written", noSARIF: true},
		// sarif-uri: true names each file by its path percent-encoded, so
		// that run#2.jsonl is that file, not run with a fragment.
		{name: "sarif-uri, paths a URI must encode", files: map[string]string{"runs/run#2 cnry é.jsonl": fail, "runs/100%?.jsonl": pass}, inputs: codex("runs/run#2 cnry é.jsonl\nruns/100%?.jsonl", "sarif-uri", "true"),
			exit: 1, status: "fail", direct: []string{"runs/run#2 cnry é.jsonl", "runs/100%?.jsonl"}, uris: true, uri: "runs/run%232%20cnry%20%C3%A9.jsonl"},
		{name: "capture-authorized not a boolean", files: map[string]string{"pass-cnry.jsonl": pass}, inputs: codex("pass-cnry.jsonl", "capture-authorized", "cnry"),
			exit: 2, status: "error", stdout: "::error title=cairn::the input capture-authorized is true or false", noSARIF: true},
		{name: "no paths", inputs: codex(" \n\n"),
			exit: 2, status: "error", stdout: "::error title=cairn::the input paths lists no file", noSARIF: true},
	}
	// What the documents may say whatever the input, and the reports of
	// the inputs so far.
	vocab := ciVocabulary(nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			var inputs [][]byte
			for name, src := range tc.files {
				var data []byte
				if src != "" {
					var err error
					if data, err = os.ReadFile("../../../" + src); err != nil {
						t.Fatal(err)
					}
				}
				inputs = append(inputs, data)
				path := filepath.Join(ws, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			res := runAction(t, a, ws, tc.inputs)
			if res.exit != tc.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.exit, tc.exit, res.stdout, res.stderr)
			}
			if res.outputs["status"] != tc.status || res.outputs["exit-code"] != strconv.Itoa(tc.exit) {
				t.Errorf("outputs %v, want status %s, exit-code %d", res.outputs, tc.status, tc.exit)
			}
			if tc.stdout != "" && !slices.ContainsFunc(strings.Split(res.stdout, "\n"), func(l string) bool { return strings.HasPrefix(l, tc.stdout) }) {
				t.Errorf("stdout has no line %q:\n%s", tc.stdout, res.stdout)
			}
			if res.stderr != tc.stderr {
				t.Errorf("stderr %q, want %q", res.stderr, tc.stderr)
			}
			sarifFile := "cairn.sarif"
			if tc.sarif != "" {
				sarifFile = tc.sarif
			}
			sarif := filepath.Join(ws, sarifFile)
			got, err := os.ReadFile(sarif)
			switch {
			case tc.noSARIF && err == nil:
				t.Errorf("a SARIF file was written")
			case tc.noSARIF:
				if res.outputs["sarif-file"] != "" {
					t.Errorf("output sarif-file %q, want none", res.outputs["sarif-file"])
				}
			case err != nil:
				t.Errorf("no SARIF file: %v", err)
			case res.outputs["sarif-file"] != sarifFile:
				t.Errorf("output sarif-file %q, want %s", res.outputs["sarif-file"], sarifFile)
			}
			if tc.uri != "" && !strings.Contains(string(got), `"uri": "`+tc.uri+`"`) {
				t.Errorf("the SARIF file does not name %s", tc.uri)
			}
			if entries, _ := os.ReadDir(ws); tc.noSARIF {
				for _, e := range entries {
					if strings.HasSuffix(e.Name(), ".sarif") {
						t.Errorf("%s left in the workspace", e.Name())
					}
				}
			}
			if tc.direct != nil {
				// What cairn itself prints for the same inputs, in the
				// order the patterns gave them.
				args := []string{"eval", "batch", "--format", tc.inputs["format"]}
				if tc.inputs["capture-authorized"] == "true" {
					args = append(args, "--capture-authorized")
				}
				if c := tc.inputs["catalog"]; c != "" {
					args = append(args, "--catalog", c)
				}
				for _, s := range strings.Fields(tc.inputs["memory-server"]) {
					args = append(args, "--memory-server", s)
				}
				var paths []string
				for _, p := range tc.direct {
					paths = append(paths, filepath.Join(ws, p))
				}
				env := map[string]string{"CAIRN_EVAL": "1"}
				gargs := append(args[:len(args):len(args)], "--output", "github")
				if f := tc.inputs["fail-on"]; f != "" {
					gargs = append(gargs, "--fail-on", f)
				}
				_, github, _ := runCapture(append(gargs, paths...), env)
				if res.stdout != github {
					t.Errorf("stdout\n%s\nwant what cairn eval batch --output github prints\n%s", res.stdout, github)
				}
				if !tc.noSARIF {
					sargs := append(args, "--output", "sarif")
					if tc.uris {
						for _, p := range tc.direct {
							sargs = append(sargs, "--sarif-uri="+pathURI(p))
						}
					}
					_, want, _ := runCapture(append(sargs, paths...), env)
					if string(got) != want {
						t.Errorf("the SARIF file is not what cairn eval batch --output sarif prints")
					}
				}
				if !strings.Contains(res.summary, "### cairn: project-memory audit\n") || strings.Count(res.summary, "\n| ") != len(tc.direct)+2 {
					t.Errorf("the step summary is not cairn's table of %d inputs:\n%s", len(tc.direct), res.summary)
				}
				_, js, _ := runCapture(append(append(args, "--json"), paths...), env)
				vocab += js
			}
			printed := res.stdout + res.stderr + res.summary
			if !tc.uris {
				printed += string(got)
			}
			if strings.HasPrefix(tc.stdout, "::error title=cairn::") && !strings.HasPrefix(res.stdout, "::error title=cairn::") {
				t.Errorf("a refusal of the inputs is not the first annotation:\n%s", res.stdout)
			}
			if strings.Contains(strings.ToLower(printed), "cnry") || strings.Contains(printed, ws) {
				t.Errorf("a path or an input value is printed:\n%s", printed)
			}
			if len(inputs) > 0 {
				ciNoLeak(t, tc.name, vocab, inputs, []byte(printed))
			}
		})
	}
}

// pathURI is a path as the action names it in SARIF: every byte but the
// unreserved ones and / percent-encoded.
func pathURI(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// TestGitHubActionShellcheck runs shellcheck (all severities, style
// included) on each run: script of the action, as bash.
func TestGitHubActionShellcheck(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("no shellcheck: install Debian's shellcheck (.ci/run does where it can)")
	}
	a := readAction(t)
	dir := t.TempDir()
	n := 0
	for _, st := range a.Runs.Steps {
		if st.Run == "" {
			continue
		}
		n++
		script := filepath.Join(dir, fmt.Sprintf("step%d.sh", n))
		if err := os.WriteFile(script, []byte("#!/usr/bin/env bash\n"+st.Run), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(shellcheck, "--severity=style", "--shell=bash", script).CombinedOutput(); err != nil {
			t.Errorf("step %q: shellcheck: %v\n%s", st.Name, err, out)
		}
	}
	if n == 0 {
		t.Fatal("the action has no run: script")
	}
}

// TestGitHubActionBuilds runs the action without a cairn binary: it builds
// one from its own checkout (this repository) and audits with it.
func TestGitHubActionBuilds(t *testing.T) {
	needTools(t, "bash", "go")
	if testing.Short() {
		t.Skip("builds cairn")
	}
	a := readAction(t)
	ws := t.TempDir()
	data, err := os.ReadFile("../../../testdata/codex/real/0.171.0/shell-first.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "run.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The step's go build reuses the packages this test binary's build
	// compiled (the same configuration): it links. It still takes the
	// suite's build lock and has a deadline that kills its process group.
	ctx := testbuild.Context(t, testbuild.Deadline)
	unlock := testbuild.Lock(t, ctx, "") // testbuild.Cairn's native configuration
	defer unlock()
	res := runActionWithin(t, ctx, a, ws, map[string]string{"format": "codex-jsonl", "paths": "run.jsonl", "fail-on": "inconclusive"})
	if want := []string{"Set up Go", "Build cairn", "Audit"}; !slices.Equal(res.steps, want) {
		t.Errorf("steps run %q, want %q", res.steps, want)
	}
	if res.exit != 0 || res.outputs["status"] != "fail" || res.outputs["exit-code"] != "0" {
		t.Errorf("exit %d, outputs %v; want 0, status fail, exit-code 0\nstdout:\n%s\nstderr:\n%s", res.exit, res.outputs, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "::error title=cairn input 1%3A memory_first fail%3A tool_before_project_search::") {
		t.Errorf("stdout has no annotation of the fail:\n%s", res.stdout)
	}
}

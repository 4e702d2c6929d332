//go:build !wasip1

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The guide's CI section (§21) gives a shell script and a GitHub Actions
// job. These tests take them out of docs/guide.md as written and run them
// with cairn on PATH (TestMain's), on one export per outcome, checking
// the exit status and what they print; they skip where bash or jq is
// absent. Its CI examples and its use of the Action are held to what
// cairn prints and to action.yml.

// guideBlock returns the body of the guide's fenced block of the given
// language that contains marker.
func guideBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && line == "```"+lang:
			in, body = true, nil
		case in && line == "```":
			if text := strings.Join(body, "\n") + "\n"; strings.Contains(text, marker) {
				return text
			}
			in = false
		case in:
			body = append(body, line)
		}
	}
	t.Fatalf("docs/guide.md has no %s block with %q", lang, marker)
	return ""
}

// guideCase is an export and what the guide's CI shell code must do with it.
type guideCase struct {
	name, export string
	exit         int
}

var guideCases = []guideCase{
	{"pass", "testdata/controls/protocol-codex.jsonl", 0},
	{"fail", "testdata/codex/real/0.171.0/message-only.jsonl", 1},
	{"inconclusive", "testdata/codex/real/0.171.0/http-400.jsonl", 3},
	{"invalid", "", 2}, // an empty file
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here", tool)
		}
	}
}

// guideExport copies the case's export into dir as name and returns the
// JSON report cairn gives it.
func guideExport(t *testing.T, tc guideCase, dir, name string) map[string]any {
	t.Helper()
	var data []byte
	if tc.export != "" {
		var err error
		if data, err = os.ReadFile("../../../" + tc.export); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", path, "--json"}, map[string]string{"CAIRN_EVAL": "1"})
	if code != tc.exit {
		t.Fatalf("%s: cairn exits %d, want %d: the case's export is not what it says", tc.export, code, tc.exit)
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	return report
}

// runGuideShell runs a script with bash and returns its exit and stdout.
func runGuideShell(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("bash", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// TestGuideCIScript runs §21's audit-protocol.sh.
func TestGuideCIScript(t *testing.T) {
	needTools(t, "bash", "jq", "realpath")
	script := guideBlock(t, "bash", "# audit-protocol.sh EXPORT")
	for _, tc := range guideCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "audit-protocol.sh"), []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			report := guideExport(t, tc, dir, "run.jsonl")
			// What the script says: the status, then each check that did
			// not pass with its codes, in the report's order.
			want := "protocol: " + tc.name + "\n"
			if tc.name == "invalid" {
				want = "protocol: invalid input: " + report["error"].(map[string]any)["code"].(string) + "\n"
			} else if tc.name != "pass" {
				for _, name := range []string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"} {
					check := report["checks"].(map[string]any)[name].(map[string]any)
					if check["state"] == "pass" {
						continue
					}
					var codes []string
					for _, c := range check["codes"].([]any) {
						codes = append(codes, c.(string))
					}
					want += "  " + name + ": " + check["state"].(string) + " " + strings.Join(codes, " ") + "\n"
				}
			}
			code, out, errOut := runGuideShell(t, dir, nil, "audit-protocol.sh", "run.jsonl")
			if code != tc.exit || out != want {
				t.Errorf("audit-protocol.sh: exit %d, stdout\n%s(stderr %q)\nwant exit %d, stdout\n%s", code, out, errOut, tc.exit, want)
			}
		})
	}
}

// TestGuideGitHubActionsJob runs the job's "Audit the run" step as GitHub
// runs a step's run: text (bash -e), in a workspace holding run.jsonl, and
// checks the annotations it prints (cairn's --output github), its exit
// (--fail-on fail,invalid: 1 and 2 fail the job, 3 goes through) and the
// report.json the artifact step keeps.
func TestGuideGitHubActionsJob(t *testing.T) {
	needTools(t, "bash")
	job := guideBlock(t, "yaml", "- name: Audit the run")
	step := stepRun(t, job, "Audit the run")
	if !strings.Contains(job, `env: {CAIRN_EVAL: "1"}`) || !strings.Contains(job, "path: report.json") || !strings.Contains(step, "--fail-on fail,invalid") {
		t.Fatal("the job's audit step no longer sets CAIRN_EVAL or --fail-on fail,invalid, or the artifact step no longer keeps report.json")
	}
	for _, tc := range guideCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			guideExport(t, tc, dir, "run.jsonl")
			if err := os.WriteFile(filepath.Join(dir, "step.sh"), []byte(step), 0o600); err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(dir, "run.jsonl")
			env := map[string]string{"CAIRN_EVAL": "1"}
			_, direct, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", run, "--json"}, env)
			_, want, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", run, "--output", "github", "--fail-on", "fail,invalid"}, env)
			// 3 goes through; 1 and 2 fail the job.
			wantExit := tc.exit
			if tc.name == "inconclusive" {
				wantExit = 0
			}
			code, out, errOut := runGuideShell(t, dir, []string{"CAIRN_EVAL=1", "GITHUB_STEP_SUMMARY="}, "-e", "step.sh")
			if code != wantExit || out != want {
				t.Errorf("the step: exit %d, stdout %q (stderr %q); want exit %d, stdout %q", code, out, errOut, wantExit, want)
			}
			kept, err := os.ReadFile(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if string(kept) != direct {
				t.Errorf("report.json is\n%s\nwant what cairn eval protocol --json prints\n%s", kept, direct)
			}
		})
	}
}

// guideSARIFArgs and guideBatchPaths are §21's examples: the command whose
// SARIF result it shows, and the three runs of its batch.
var (
	guideSARIFArgs = []string{"eval", "protocol", "--codex-jsonl", "../../../testdata/codex/real/0.171.0/shell-first.jsonl",
		"--output", "sarif", "--sarif-uri", "runs/shell-first.jsonl"}
	guideBatchPaths = []string{"../../../testdata/controls/protocol-codex.jsonl",
		"../../../testdata/codex/real/0.171.0/shell-first.jsonl", "../../../testdata/codex/real/0.171.0/http-400.jsonl"}
)

// TestGuideCIExamples holds §21's SARIF result and step summary to what
// cairn prints for them (its transcripts are TestDocTranscripts').
func TestGuideCIExamples(t *testing.T) {
	env := map[string]string{"CAIRN_EVAL": "1"}
	// The SARIF result: its lines, indented as a document of its own, are
	// lines of cairn's document.
	result := guideBlock(t, "json", `"ruleId": "tool_before_project_search"`)
	_, sarif, _ := runCapture(guideSARIFArgs, env)
	trim := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		return lines
	}
	if want, got := trim(result), trim(sarif); !containsRun(got, want) {
		t.Errorf("§21's SARIF result is not in what %v prints:\n%s", guideSARIFArgs, sarif)
	}
	// The step summary, exactly (cairn ends it with a blank line, which a
	// fenced block cannot show).
	summary := filepath.Join(t.TempDir(), "summary.md")
	env["GITHUB_STEP_SUMMARY"] = summary
	runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--output", "github"}, guideBatchPaths...), env)
	got, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if want := guideBlock(t, "markdown", "### cairn: project-memory audit"); string(got) != want+"\n" {
		t.Errorf("§21's step summary is\n%s\ncairn appends\n%s", want, got)
	}
}

// containsRun reports whether run is a run of consecutive lines of lines.
func containsRun(lines, run []string) bool {
	for i := 0; i+len(run) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// TestGuideActionExample holds §21's use of the Action to action.yml: the
// step uses the action's folder, gives its required inputs and only
// inputs it has, reads only outputs it has, and the table of inputs lists
// each input once with its default.
func TestGuideActionExample(t *testing.T) {
	a := readAction(t)
	var job struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string
				Uses string
				If   string
				With map[string]string
			}
		}
	}
	block := guideBlock(t, "yaml", "/scripts/github-action@")
	if err := yaml.Unmarshal([]byte(block), &job); err != nil {
		t.Fatalf("§21's Action example: %v", err)
	}
	found := false
	for _, j := range job.Jobs {
		for _, st := range j.Steps {
			name, _, _ := strings.Cut(st.Uses, "@")
			if !strings.HasSuffix(name, "/github-action") {
				continue
			}
			found = true
			if want := "cairn-audit/cairn/" + strings.TrimPrefix(actionDir, "../../../"); name != want {
				t.Errorf("the example uses %s, want %s", name, want)
			}
			for k := range st.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("the example gives the input %s, which the action does not have", k)
				}
			}
			for k, in := range a.Inputs {
				if _, ok := st.With[k]; in.Required && !ok {
					t.Errorf("the example does not give the required input %s", k)
				}
			}
		}
	}
	if !found {
		t.Fatal("§21's Action example uses no github-action step")
	}
	for _, m := range regexp.MustCompile(`steps\.cairn\.outputs\.([a-z-]+)`).FindAllStringSubmatch(block, -1) {
		if _, ok := a.Outputs[m[1]]; !ok {
			t.Errorf("the example reads the output %s, which the action does not have", m[1])
		}
	}
	b, err := os.ReadFile("../../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| ([^|]+) \\|")
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		in, ok := a.Inputs[m[1]]
		if !ok {
			continue // another table's row
		}
		listed[m[1]] = true
		def := strings.Trim(strings.TrimSpace(m[2]), "`")
		if in.Required && def != "(required)" || !in.Required && strings.Trim(def, `"`) != in.Default {
			t.Errorf("§21 gives the input %s the default %s; action.yml: required %v, default %q", m[1], m[2], in.Required, in.Default)
		}
	}
	for k := range a.Inputs {
		if !listed[k] {
			t.Errorf("§21's table of inputs lacks %s", k)
		}
	}
}

// stepRun returns the run: | text of the job's step with the given name,
// with the indentation YAML strips.
func stepRun(t *testing.T, job, name string) string {
	t.Helper()
	lines := strings.Split(job, "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) != "- name: "+name {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			trimmed := strings.TrimSpace(lines[j])
			if strings.HasPrefix(trimmed, "- ") {
				break
			}
			if trimmed != "run: |" {
				continue
			}
			indent := len(lines[j]) - len(strings.TrimLeft(lines[j], " "))
			var body []string
			for _, l := range lines[j+1:] {
				if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " ")) <= indent {
					break
				}
				body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", indent+2)))
			}
			return strings.Join(body, "\n") + "\n"
		}
	}
	t.Fatalf("the job has no step %q with run: |", name)
	return ""
}

// TestDocTranscripts runs every "$ cairn ..." line in the fenced blocks of
// the README and the guide (after optional VAR=value assignments; paths
// under testdata/ are the repository's) and checks that cairn prints
// exactly the lines that follow it, up to the next "$ " line or the end of
// the block.
func TestDocTranscripts(t *testing.T) {
	type transcript struct {
		doc, line string
		want      []string
	}
	var all []*transcript
	for _, doc := range []string{"README.md", "docs/guide.md"} {
		b, err := os.ReadFile("../../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		var cur *transcript
		in := false
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "```"):
				in, cur = !in, nil
			case in && strings.HasPrefix(line, "$ "):
				cur = &transcript{doc: doc, line: line[2:]}
				all = append(all, cur)
			case cur != nil:
				cur.want = append(cur.want, line)
			}
		}
	}
	if len(all) < 4 {
		t.Fatalf("found %d transcripts; the docs lost their examples", len(all))
	}
	for _, tr := range all {
		env := map[string]string{}
		words := strings.Fields(tr.line)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			k, v, _ := strings.Cut(words[0], "=")
			env[k], words = v, words[1:]
		}
		if len(words) == 0 || words[0] != "cairn" {
			t.Errorf("%s: $ %s: not a cairn command", tr.doc, tr.line)
			continue
		}
		args := words[1:]
		for i, a := range args {
			if strings.HasPrefix(a, "testdata/") {
				args[i] = "../../../" + a
			}
		}
		_, out, _ := runCapture(args, env)
		if want := strings.Join(tr.want, "\n") + "\n"; out != want {
			t.Errorf("%s: $ %s prints\n%s\nthe doc says\n%s", tr.doc, tr.line, out, want)
		}
	}
}

//go:build !wasip1

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGuideManyRuns runs §23's examples as written, with cairn on PATH
// (TestMain's), on copies of real Codex captures (a name with a space and
// one with a newline among them): the local loop of four shards, the
// Kubernetes Job's command for each index, and the GitHub Actions
// matrix's audit step for each shard and its summary job's step. Each
// must print the totals of the unsharded batch and exit with its worst;
// the Job's and the matrix's shard counts must be what their --shard
// says. The summary shown in §23 is held to what cairn prints.
func TestGuideManyRuns(t *testing.T) {
	needTools(t, "bash", "sh", "find", "sort")
	dir := t.TempDir()
	var paths []string
	for _, v := range []string{"0.171.0", "0.125.0"} {
		src, _ := filepath.Glob("../../../testdata/codex/real/" + v + "/*.jsonl")
		for i, s := range src {
			name := filepath.Base(s)
			switch i {
			case 1:
				name = "with a space " + name
			case 2:
				name = "with a\nnewline " + name
			}
			rel := filepath.Join("runs", v, name)
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "runs", v), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, rel)
		}
	}
	slices.Sort(paths) // as LC_ALL=C sort -z orders them
	// The unsharded batch and its totals, in-process.
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = filepath.Join(dir, p)
	}
	wantExit, reports, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--json"}, abs...), map[string]string{"CAIRN_EVAL": "1"})
	reportsFile := filepath.Join(t.TempDir(), "reports.jsonl")
	if err := os.WriteFile(reportsFile, []byte(reports), 0o600); err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCapture([]string{"eval", "summarize", reportsFile}, nil)
	_, wantJSON, _ := runCapture([]string{"eval", "summarize", "--json", reportsFile}, nil)
	if !strings.HasPrefix(want, fmt.Sprintf("cairn eval summarize: %d reports,", len(paths))) || wantExit == 0 {
		t.Fatalf("the unsharded batch: exit %d, totals\n%s", wantExit, want)
	}
	check := func(name string, code int, out, errOut string) {
		t.Helper()
		if code != wantExit || out != want {
			t.Errorf("%s: exit %d, stdout\n%s(stderr %q); want exit %d and the unsharded batch's totals\n%s", name, code, out, errOut, wantExit, want)
		}
	}

	t.Run("loop", func(t *testing.T) {
		loop := guideBlock(t, "sh", "for i in 0 1 2 3")
		code, out, errOut := runGuideShell(t, dir, nil, "-c", loop)
		check("the loop", code, out, errOut)
	})

	t.Run("kubernetes", func(t *testing.T) {
		var job struct {
			Spec struct {
				CompletionMode string `yaml:"completionMode"`
				Completions    int    `yaml:"completions"`
				Parallelism    int    `yaml:"parallelism"`
				Policy         struct {
					Rules []struct {
						Action      string `yaml:"action"`
						OnExitCodes struct {
							ContainerName string `yaml:"containerName"`
							Values        []int  `yaml:"values"`
						} `yaml:"onExitCodes"`
					} `yaml:"rules"`
				} `yaml:"podFailurePolicy"`
				Template struct {
					Spec struct {
						RestartPolicy string `yaml:"restartPolicy"`
						Containers    []struct {
							Name    string   `yaml:"name"`
							Command []string `yaml:"command"`
							Args    []string `yaml:"args"`
							Env     []struct{ Name, Value string }
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal([]byte(guideBlock(t, "yaml", "completionMode: Indexed")), &job); err != nil {
			t.Fatal(err)
		}
		s := job.Spec
		if len(s.Template.Spec.Containers) != 1 || len(s.Policy.Rules) != 1 {
			t.Fatal("the Job has not one container and one failure rule")
		}
		c, rule := s.Template.Spec.Containers[0], s.Policy.Rules[0]
		script := strings.Join(c.Args, " ")
		n := shardCount(t, script, `"\$JOB_COMPLETION_INDEX/(\d+)"`)
		if s.CompletionMode != "Indexed" || s.Completions != n || s.Parallelism != n || s.Template.Spec.RestartPolicy != "Never" ||
			!slices.Equal(c.Command, []string{"sh", "-c"}) || len(c.Env) != 1 || c.Env[0].Name != "CAIRN_EVAL" || c.Env[0].Value != "1" ||
			rule.Action != "FailIndex" || rule.OnExitCodes.ContainerName != c.Name || !slices.Equal(rule.OnExitCodes.Values, []int{1, 2, 3}) {
			t.Fatalf("the Job is not %d indexed completions of sh -c with CAIRN_EVAL=1, restartPolicy Never and FailIndex on 1, 2, 3: %+v", n, s)
		}
		// The volumes are directories here.
		runs, out := dir+"/", t.TempDir()+"/"
		list := strings.Join(abs, "\x00") + "\x00"
		if err := os.WriteFile(filepath.Join(dir, "paths"), []byte(list), 0o600); err != nil {
			t.Fatal(err)
		}
		script = strings.NewReplacer("/runs/", runs, "/reports/", out).Replace(script)
		worst := 0
		for i := range n {
			code, _, errOut := runGuideShell(t, dir, []string{"CAIRN_EVAL=1", "JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}, "-c", script)
			if errOut != "" || code > 3 {
				t.Fatalf("index %d: exit %d, stderr %q", i, code, errOut)
			}
			worst = worse(worst, code)
		}
		summarize := strings.ReplaceAll(guideBlock(t, "sh", "cairn eval summarize /reports/"), "/reports/", out)
		code, got, errOut := runGuideShell(t, dir, nil, "-c", summarize)
		check("the Job's summary", code, got, errOut)
		if worst != wantExit {
			t.Errorf("the worst index exits %d, the batch %d", worst, wantExit)
		}
	})

	t.Run("github", func(t *testing.T) {
		block := guideBlock(t, "yaml", "- name: Audit a shard")
		var wf struct {
			Jobs map[string]struct {
				Strategy struct {
					FailFast *bool `yaml:"fail-fast"`
					Matrix   struct {
						Shard []int `yaml:"shard"`
					} `yaml:"matrix"`
				} `yaml:"strategy"`
				Needs string `yaml:"needs"`
				If    string `yaml:"if"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
			t.Fatal(err)
		}
		audit, summary := wf.Jobs["audit"], wf.Jobs["summary"]
		step := stepRun(t, block, "Audit a shard")
		n := shardCount(t, step, `--shard \$\{\{ matrix\.shard \}\}/(\d+)`)
		var shards []int
		for i := range n {
			shards = append(shards, i)
		}
		if !slices.Equal(audit.Strategy.Matrix.Shard, shards) ||
			audit.Strategy.FailFast == nil || *audit.Strategy.FailFast || summary.Needs != "audit" || summary.If != "always()" {
			t.Fatalf("the matrix is not shards 0 to %d without fail-fast, with a summary job after it whatever it concluded", n-1)
		}
		if !strings.Contains(block, `env: {CAIRN_EVAL: "1"}`) || !strings.Contains(block, "merge-multiple: true") {
			t.Fatal("the audit step no longer sets CAIRN_EVAL, or the summary no longer downloads every shard's reports into one place")
		}
		worst := 0
		for i := range n {
			run := strings.ReplaceAll(step, "${{ matrix.shard }}", strconv.Itoa(i))
			code, _, errOut := runGuideShell(t, dir, []string{"CAIRN_EVAL=1"}, "--noprofile", "--norc", "-eo", "pipefail", "-c", run)
			if errOut != "" || code > 3 {
				t.Fatalf("shard %d: exit %d, stderr %q", i, code, errOut)
			}
			worst = worse(worst, code)
		}
		if worst != wantExit {
			t.Errorf("the worst shard exits %d, the batch %d", worst, wantExit)
		}
		code, got, errOut := runGuideShell(t, dir, nil, "--noprofile", "--norc", "-eo", "pipefail", "-c", stepRun(t, block, "Summarize"))
		check("the summary job", code, got, errOut)
		kept, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if string(kept) != wantJSON {
			t.Errorf("summary.json is\n%s\nwant the unsharded batch's\n%s", kept, wantJSON)
		}
		validateSummary(t, "the summary job's summary.json", kept)
	})

	t.Run("shown", func(t *testing.T) {
		src, _ := filepath.Glob("../../../testdata/codex/real/0.171.0/*.jsonl")
		_, out, _ := runCapture(append([]string{"eval", "batch", "--format", "codex-jsonl", "--json"}, src...), map[string]string{"CAIRN_EVAL": "1"})
		f := filepath.Join(t.TempDir(), "reports.jsonl")
		if err := os.WriteFile(f, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		_, got, _ := runCapture([]string{"eval", "summarize", f}, nil)
		if shown := guideBlock(t, "text", "cairn eval summarize: "); shown != got {
			t.Errorf("§23 shows\n%s\ncairn prints\n%s", shown, got)
		}
	})
}

// shardCount is the N of the --shard the pattern finds in script.
func shardCount(t *testing.T, script, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no %s in\n%s", pattern, script)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// worse is the worse of two exit codes, as eval batch ranks them.
func worse(a, b int) int {
	rank := map[int]int{0: 0, 3: 1, 1: 2, 2: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

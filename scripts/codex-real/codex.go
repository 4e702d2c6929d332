//go:build unix

// Package codex is what the capture kit needs of Codex CLI: how npm
// installs it, its config.toml, its `exec` runs (a prompt, an interrupted
// one, a review, a resumed thread), what a run must show to count, how its
// JSONL is shaped, and its scenarios (scenarios.yaml). `capture codex`
// runs it; README.md says how.
package codex

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/capturekit/mock"
)

// scenario is a row of scenarios.yaml: the kit's, and Codex's config and
// kind of run.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// Kind is "" (a prompt run), "sigint" (interrupted once a command
	// runs), "review" (`exec review --uncommitted` of a one-line change)
	// or "resume" (a first run kept as <name>-base.jsonl, then `exec resume`
	// of its thread with Resume).
	Kind   string `yaml:"kind"`
	Resume struct {
		Prompt string      `yaml:"prompt"`
		Main   []mock.Step `yaml:"main"`
		Want   kit.Want    `yaml:"want"`
	} `yaml:"resume"`
	Parallel   bool `yaml:"parallel"`    // supports_parallel_tool_calls on the MCP server
	UpdatePlan bool `yaml:"update_plan"` // [tools.update_plan] enabled = true
	// Model overrides gpt-5.5 (bundled in every supported release);
	// StreamRetries stream_max_retries (0); MCPApproval the server's
	// default_tools_approval_mode (approve); ApprovalPolicy
	// approval_policy (never).
	Model          string `yaml:"model"`
	StreamRetries  int    `yaml:"stream_retries"`
	MCPApproval    string `yaml:"mcp_approval"`
	ApprovalPolicy string `yaml:"approval_policy"`
}

// homeRoot is HOME, and homeRoot/codex CODEX_HOME: codex refuses to
// install its helpers under /tmp.
const homeRoot = "/var/tmp/cairn-codex-home"

//go:embed scenarios.yaml
var fsys embed.FS

// Spec is Codex CLI for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "codex", Versions: []string{"0.171.0", "0.163.0", "0.147.0", "0.125.0"}, Files: fsys,
	Prompt: "Before changing anything, look up what the project memory says about the token refresh retry policy, then summarize it.",
	Addr:   "127.0.0.1:18765", CompactWant: true,
	Install: func(i *kit.Install) error {
		// The native binary inside the npm package; the layout moved
		// (vendor/<triple>/codex/codex at 0.125, vendor/<triple>/bin/codex later).
		vendor := "node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/"
		if err := i.NPM(i.Dir, vendor, nil, "@openai/codex@"+i.Version+"-linux-x64"); err != nil {
			return err
		}
		for _, c := range []string{vendor + "bin/codex", vendor + "codex/codex"} {
			if st, err := os.Stat(filepath.Join(i.Dir, c)); err == nil && st.Mode().IsRegular() {
				i.Argv = []string{filepath.Join(i.Dir, c)}
				i.VersionArgv = []string{i.Argv[0], "--version"}
				return nil
			}
		}
		return fmt.Errorf("no codex binary under %s", filepath.Join(i.Dir, vendor))
	},
	Run:   run,
	Shape: func(_ string, b []byte) []byte { return shape(b) },
	Wants: func(_ string, s *scenario) map[string]kit.Verdict {
		if s.Kind == "resume" {
			return map[string]kit.Verdict{s.Name + "-base.jsonl": s.Want.Verdict(), s.Name + ".jsonl": s.Resume.Want.Verdict()}
		}
		return map[string]kit.Verdict{s.Name + ".jsonl": s.Want.Verdict()}
	},
}

func run(r *kit.Run, s *scenario) error {
	if err := os.RemoveAll(homeRoot); err != nil {
		return err
	}
	if err := r.Lay(homeRoot + "/codex"); err != nil {
		return err
	}
	if err := project(r.WorkDir, s.Kind == "review"); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if err := os.WriteFile(homeRoot+"/codex/config.toml", []byte(config(r, s)), 0o644); err != nil {
		return err
	}
	m := mock.NewResponses(s.Script(r.Prompt), "a")
	if err := r.Serve(m); err != nil {
		return err
	}
	flags := []string{"--json", "--skip-git-repo-check"}
	keep := func(name string, p *kit.Proc, exit int, steps []mock.Step) error {
		if err := r.Keep(name+".jsonl", p.Stdout, shape); err != nil {
			return err
		}
		if err := checkRun(r, p, exit, m, steps); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	switch s.Kind {
	case "", "sigint":
		p, err := exec1(r, "codex", append(append([]string{"exec"}, flags...), r.Prompt), s.Kind == "sigint")
		if err != nil {
			return err
		}
		return keep(s.Name, p, s.Exit, s.Main)
	case "review":
		p, err := exec1(r, "codex", append([]string{"exec", "review"}, append(flags, "--uncommitted")...), false)
		if err != nil {
			return err
		}
		return keep(s.Name, p, s.Exit, s.Main)
	case "resume":
		p, err := exec1(r, "codex-base", append(append([]string{"exec"}, flags...), r.Prompt), false)
		if err != nil {
			return err
		}
		if err := keep(s.Name+"-base", p, 0, s.Main); err != nil {
			return err
		}
		var first struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		line, _, _ := bytes.Cut(p.Stdout, []byte("\n"))
		if json.Unmarshal(line, &first) != nil || first.Type != "thread.started" || first.ThreadID == "" {
			return errors.New("the first run printed no thread.started")
		}
		m.Reset(mock.Script{Name: s.Name, Main: s.Resume.Main}, "b")
		p, err = exec1(r, "codex-resume", append([]string{"exec", "resume"}, append(flags, first.ThreadID, s.Resume.Prompt)...), false)
		if err != nil {
			return err
		}
		return keep(s.Name, p, 0, s.Resume.Main)
	}
	return fmt.Errorf("no kind %q", s.Kind)
}

// exec1 runs codex once with a clean, fixed environment. With interrupt it
// sends SIGINT 2 s after the first command_execution item.started.
func exec1(r *kit.Run, tag string, args []string, interrupt bool) (*kit.Proc, error) {
	c := kit.Cmd{
		Argv: append(r.Install.Argv, args...),
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"HOME=" + homeRoot,
			"CODEX_HOME=" + homeRoot + "/codex",
			"CAIRN_FAKE_OPENAI_API_KEY=sk-cairn-offline-fake-key-0000000000000000",
			"LANG=C.UTF-8",
			"TERM=dumb",
			"NO_COLOR=1",
			"TZ=UTC",
		},
		Stdout: filepath.Join(r.Scratch, tag+".jsonl"),
		Stderr: tag + ".stderr.txt",
	}
	if interrupt {
		c.OnLine = func(p *kit.Proc, line []byte) {
			if bytes.Contains(line, []byte(`"type":"item.started"`)) && bytes.Contains(line, []byte(`"command_execution"`)) {
				p.Interrupt("a command is running", 2*time.Second)
			}
		}
	}
	p, err := r.Exec(c)
	switch {
	case err != nil:
		return nil, err
	case p.TimedOut:
		return nil, errors.New("codex ran past the timeout and was killed")
	case interrupt && p.Interrupted == "":
		return nil, errors.New("no command_execution started, nothing to interrupt")
	}
	return p, nil
}

// checkRun decides whether a run did what the scenario scripted: the exit
// code, every scripted turn asked for (an interrupted run stops at its
// command), and at least as many items of each kind as the script made.
func checkRun(r *kit.Run, p *kit.Proc, exit int, m *mock.Responses, steps []mock.Step) error {
	if err := r.Check(p, exit); err != nil {
		return err
	}
	last := len(steps) - 1
	if exit == -1 {
		last--
	}
	want := map[string]int{}
	for t := 0; t <= last; t++ {
		if m.Asked("main", t) == 0 {
			return fmt.Errorf("codex never asked for scripted turn %d", t)
		}
		for _, part := range steps[t].Parts {
			want[itemType(part)]++
		}
	}
	want["todo_list"] = min(want["todo_list"], 1) // plan updates update one todo_list item
	got, seen := map[string]int{}, map[string]bool{}
	for _, line := range bytes.Split(p.Stdout, []byte("\n")) {
		var rec struct{ Item struct{ ID, Type string } }
		if json.Unmarshal(line, &rec) == nil && rec.Item.ID != "" && !seen[rec.Item.ID] {
			seen[rec.Item.ID] = true
			got[rec.Item.Type]++
		}
	}
	for typ, n := range want {
		if typ != "" && got[typ] < n {
			return fmt.Errorf("scripted %d %s item(s), codex printed %d", n, typ, got[typ])
		}
	}
	return nil
}

// itemType is the exec item a scripted part must produce ("" unchecked).
func itemType(p mock.Part) string {
	switch {
	case p.Kind == "call" && p.Name == "update_plan":
		return "todo_list"
	case p.Kind == "call" && p.Name == "spawn_agent", p.Kind == "wait":
		return "collab_tool_call"
	}
	return map[string]string{"mcp": "mcp_tool_call", "shell": "command_execution", "web_search": "web_search", "patch": "file_change", "text": "agent_message"}[p.Kind]
}

// project lays the scratch git repository codex works in; for a review,
// with an uncommitted one-line change.
func project(workDir string, review bool) error {
	if err := os.RemoveAll(workDir); err != nil {
		return err
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	readme := "# acme-api\n\nA small service used by the cairn conformance harness.\n"
	for n, c := range map[string]string{"README.md": readme, "main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(workDir, n), []byte(c), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=cairn", "-c", "user.email=cairn@example.invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		c.Dir = workDir
		c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + homeRoot, "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"}
		if b, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, b)
		}
	}
	if review {
		return os.WriteFile(filepath.Join(workDir, "README.md"), []byte(readme+"\nRetries: exponential backoff, at most 3 attempts.\n"), 0o644)
	}
	return nil
}

// config is CODEX_HOME/config.toml: the scripted model as a custom
// Responses provider, no approvals, no sandbox (the namespace is one), the
// MCP server, the project trusted.
func config(r *kit.Run, s *scenario) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	cmd, args, _ := r.ServerCommand(&s.Server, false)
	args = append(args, "-store", "codex", "-log", r.Scratch+"/mcp.log")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = q(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `model = %s
model_provider = "cairn-local"
approval_policy = %s
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.cairn-local]
name = "cairn-local"
base_url = "http://%s/v1"
env_key = "CAIRN_FAKE_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = %d
stream_idle_timeout_ms = 60000

[mcp_servers.%s]
command = %s
args = [%s]
default_tools_approval_mode = %s
startup_timeout_sec = 30
`, q(or(s.Model, "gpt-5.5")), q(or(s.ApprovalPolicy, "never")), r.Addr, s.StreamRetries, q(s.Server.ConfiguredName()), q(cmd), strings.Join(quoted, ", "), q(or(s.MCPApproval, "approve")))
	if s.Parallel {
		b.WriteString("supports_parallel_tool_calls = true\n")
	}
	if s.UpdatePlan {
		b.WriteString("\n[tools.update_plan]\nenabled = true\n")
	}
	fmt.Fprintf(&b, "\n[projects.%s]\ntrust_level = \"trusted\"\n", q(r.WorkDir))
	return b.String()
}

// codexStyle is how a codex capture's shape reads: members and elements
// separated by spaces, integers apart from numbers, runs of one element
// shape counted, the ids that key collab agents_states written <id>.
var codexStyle = kit.Style{Sep: " ", Integers: true, Runs: true, IDKeyed: map[string]bool{"agents_states": true}}

// shape is one line per record: its type and its item's type, then every
// member with its JSON type (duplicate members kept: codex prints `id`
// twice in web_search items).
func shape(data []byte) []byte {
	var b bytes.Buffer
	for n, line := range kit.Lines(data) {
		var head struct {
			Type string
			Item struct{ Type string }
		}
		if err := json.Unmarshal(line, &head); err != nil {
			fmt.Fprintf(&b, "line %d: not JSON\n", n+1)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		sh, err := codexStyle.ShapeValue(dec)
		if err != nil {
			fmt.Fprintf(&b, "line %d: %v\n", n+1, err)
			continue
		}
		if head.Item.Type != "" {
			head.Type += " " + head.Item.Type
		}
		fmt.Fprintf(&b, "%s %s\n", head.Type, sh)
	}
	return b.Bytes()
}

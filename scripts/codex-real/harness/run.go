//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Fixed places, so that runs are repeatable (they show up in what codex
// sends the model, never in its stdout).
const (
	modelAddr = "127.0.0.1:18765"
	homeRoot  = "/var/tmp/cairn-codex-home" // CODEX_HOME (codex refuses helpers under /tmp)
	workDir   = "/tmp/cairn-codex-work"
	fakeKey   = "sk-cairn-offline-fake-key-0000000000000000"
	runLimit  = 180 * time.Second
)

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	codex := fs.String("codex", "", "path of the native codex binary")
	version := fs.String("version", "", "codex version (names the output directory)")
	outRoot := fs.String("out", "", "output root (testdata/codex/real)")
	logRoot := fs.String("logs", "/tmp/cairn-codex-real/logs", "where requests, stderr and MCP traffic go")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *codex == "" || *version == "" || *outRoot == "" {
		return errors.New("run needs -codex, -version and -out")
	}
	if err := requireLoopbackOnly(); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, a := range fs.Args() {
		want[a] = true
	}
	outDir := filepath.Join(*outRoot, *version)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	verdicts := map[string]Verdict{}
	var failed []string
	for _, sc := range scenarios() {
		if len(want) > 0 && !want[sc.Name] {
			continue
		}
		if sc.Versions != nil && !sc.Versions(*version) {
			fmt.Printf("  %-20s skipped: %s\n", sc.Name, sc.Skip)
			continue
		}
		logDir := filepath.Join(*logRoot, *version, sc.Name)
		os.RemoveAll(logDir)
		os.MkdirAll(logDir, 0o755)
		start := time.Now()
		files, err := runScenario(*codex, self, sc, outDir, logDir)
		if err != nil {
			fmt.Printf("  %-20s FAILED (%v): %v (logs in %s)\n", sc.Name, time.Since(start).Round(100*time.Millisecond), err, logDir)
			failed = append(failed, sc.Name)
			continue
		}
		for f, v := range files {
			verdicts[f] = v
		}
		fmt.Printf("  %-20s ok (%v)\n", sc.Name, time.Since(start).Round(100*time.Millisecond))
	}
	if err := mergeWant(filepath.Join(outDir, "want.json"), verdicts); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("codex %s: %d scenario(s) failed to run: %s", *version, len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// requireLoopbackOnly refuses to run unless the only network interface is
// the loopback: codex and both servers must never reach another machine.
func requireLoopbackOnly() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("refusing to run: network interface %q is not loopback (run inside `unshare -n`, see run.sh)", i.Name)
		}
	}
	return nil
}

func runScenario(codex, self string, sc Scenario, outDir, logDir string) (map[string]Verdict, error) {
	home := filepath.Join(homeRoot, "codex")
	for _, d := range []string{homeRoot, workDir} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	if err := setupWork(sc); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(configTOML(sc, self, logDir)), 0o644); err != nil {
		return nil, err
	}
	model, err := startModel(modelAddr, sc.Script, logDir)
	if err != nil {
		return nil, err
	}
	defer model.close()

	base := []string{"exec"}
	flags := []string{"--json", "--skip-git-repo-check"}
	files := map[string]Verdict{}
	switch sc.Kind {
	case "", "sigint":
		out, code, err := runCodex(codex, append(append(base, flags...), sc.Prompt), home, logDir, "codex", sc.Kind == "sigint")
		if err != nil {
			return nil, err
		}
		if err := checkRun(sc.Name, out, code, sc.WantExit, model, sc.Script, "main"); err != nil {
			return nil, err
		}
		if err := writeCapture(outDir, sc.Name, out); err != nil {
			return nil, err
		}
		files[sc.Name+".jsonl"] = sc.Want
	case "review":
		out, code, err := runCodex(codex, append(append(base, "review"), append(flags, "--uncommitted")...), home, logDir, "codex", false)
		if err != nil {
			return nil, err
		}
		if err := checkRun(sc.Name, out, code, sc.WantExit, model, sc.Script, "main"); err != nil {
			return nil, err
		}
		if err := writeCapture(outDir, sc.Name, out); err != nil {
			return nil, err
		}
		files[sc.Name+".jsonl"] = sc.Want
	case "resume":
		out, code, err := runCodex(codex, append(append(base, flags...), sc.Prompt), home, logDir, "codex-base", false)
		if err != nil {
			return nil, err
		}
		if err := checkRun(sc.Name+"-base", out, code, 0, model, sc.Script, "main"); err != nil {
			return nil, err
		}
		var first struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		line, _, _ := bytes.Cut(out, []byte("\n"))
		if json.Unmarshal(line, &first) != nil || first.Type != "thread.started" || first.ThreadID == "" {
			return nil, errors.New("first run printed no thread.started")
		}
		model.setScript(sc.ResumeScript)
		out2, code2, err := runCodex(codex, append(append(base, "resume"), append(flags, first.ThreadID, sc.ResumePrompt)...), home, logDir, "codex-resume", false)
		if err != nil {
			return nil, err
		}
		if err := checkRun(sc.Name, out2, code2, 0, model, sc.ResumeScript, "main"); err != nil {
			return nil, err
		}
		if err := writeCapture(outDir, sc.Name+"-base", out); err != nil {
			return nil, err
		}
		if err := writeCapture(outDir, sc.Name, out2); err != nil {
			return nil, err
		}
		files[sc.Name+"-base.jsonl"] = sc.Want
		files[sc.Name+".jsonl"] = sc.ResumeWant
	default:
		return nil, fmt.Errorf("unknown kind %q", sc.Kind)
	}
	return files, nil
}

// checkRun decides whether a run did what the scenario scripted.
func checkRun(name string, out []byte, code, wantExit int, model *modelServer, script Script, which string) error {
	if len(out) == 0 {
		return errors.New("codex printed nothing on stdout")
	}
	switch {
	case wantExit == -1 && code == 0:
		return errors.New("codex exited 0, want non-zero")
	case wantExit >= 0 && code != wantExit:
		return fmt.Errorf("codex exited %d, want %d", code, wantExit)
	}
	// Every scripted turn must have been asked for (the interrupted run
	// stops at the command).
	last := len(script.Turns) - 1
	if wantExit == -1 {
		last--
	}
	want := map[string]int{}
	for t := 0; t <= last; t++ {
		if model.count(fmt.Sprintf("%s:%d", which, t)) == 0 {
			return fmt.Errorf("codex never asked for scripted turn %d of %s", t, name)
		}
		for _, it := range script.Turns[t].Items {
			want[itemTypeOf(it)]++
		}
	}
	if want["todo_list"] > 1 { // plan updates update one todo_list item
		want["todo_list"] = 1
	}
	got := map[string]int{}
	seen := map[string]bool{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		var rec struct {
			Item struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			} `json:"item"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Item.ID != "" && !seen[rec.Item.ID] {
			seen[rec.Item.ID] = true
			got[rec.Item.Type]++
		}
	}
	for typ, n := range want {
		if typ == "" {
			continue
		}
		if got[typ] < n {
			return fmt.Errorf("%s: scripted %d %s item(s), codex printed %d", name, n, typ, got[typ])
		}
	}
	return nil
}

// itemTypeOf is the exec item type a scripted model item must produce.
func itemTypeOf(it Item) string {
	switch it.Kind {
	case "mcp":
		return "mcp_tool_call"
	case "shell":
		return "command_execution"
	case "web_search":
		return "web_search"
	case "patch":
		return "file_change"
	case "plan":
		return "todo_list"
	case "message":
		return "agent_message"
	case "func":
		if it.Tool == "spawn_agent" {
			return "collab_tool_call"
		}
	case "wait":
		return "collab_tool_call"
	}
	return ""
}

func writeCapture(outDir, name string, out []byte) error {
	if err := os.WriteFile(filepath.Join(outDir, name+".jsonl"), out, 0o644); err != nil {
		return err
	}
	sh, err := shapeOf(out)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, name+".shape.txt"), []byte(sh), 0o644)
}

// runCodex runs codex once with a clean, fixed environment, and returns its
// stdout exactly as printed and its exit code. With interrupt, it sends
// SIGINT a moment after the first command_execution item.started.
func runCodex(codex string, args []string, home, logDir, tag string, interrupt bool) ([]byte, int, error) {
	cmd := exec.Command(codex, args...)
	cmd.Dir = workDir
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + homeRoot,
		"CODEX_HOME=" + home,
		"CAIRN_FAKE_OPENAI_API_KEY=" + fakeKey,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TZ=UTC",
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, 0, err
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	stderr, err := os.Create(filepath.Join(logDir, tag+".stderr"))
	if err != nil {
		return nil, 0, err
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	os.WriteFile(filepath.Join(logDir, tag+".args"), []byte(strings.Join(args, "\n")+"\n"), 0o644)
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	timer := time.AfterFunc(runLimit, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer timer.Stop()
	var out bytes.Buffer
	r := bufio.NewReader(pipe)
	sent := false
	for {
		line, err := r.ReadBytes('\n')
		out.Write(line)
		if interrupt && !sent && bytes.Contains(line, []byte(`"type":"item.started"`)) && bytes.Contains(line, []byte(`"command_execution"`)) {
			sent = true
			time.AfterFunc(2*time.Second, func() { cmd.Process.Signal(os.Interrupt) })
		}
		if err != nil {
			if err != io.EOF {
				return nil, 0, err
			}
			break
		}
	}
	werr := cmd.Wait()
	if !timer.Stop() {
		return out.Bytes(), -1, fmt.Errorf("codex ran longer than %v and was killed", runLimit)
	}
	if interrupt && !sent {
		return out.Bytes(), -1, errors.New("no command_execution started, nothing to interrupt")
	}
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if code == -1 { // killed by a signal
			code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	} else if werr != nil {
		return nil, 0, werr
	}
	os.WriteFile(filepath.Join(logDir, tag+".exit"), []byte(fmt.Sprintf("%d\n", code)), 0o644)
	return out.Bytes(), code, nil
}

func setupWork(sc Scenario) error {
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"README.md": "# acme-api\n\nA small service used by the cairn conformance harness.\n",
		"main.go":   "package main\n\nfunc main() {}\n",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(workDir, n), []byte(c), 0o644); err != nil {
			return err
		}
	}
	git := func(args ...string) error {
		c := exec.Command("git", append([]string{"-c", "user.name=cairn", "-c", "user.email=cairn@example.invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		c.Dir = workDir
		c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + homeRoot, "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"}
		if b, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, b)
		}
		return nil
	}
	if err := git("init", "-q"); err != nil {
		return err
	}
	if err := git("add", "."); err != nil {
		return err
	}
	if err := git("commit", "-q", "-m", "initial"); err != nil {
		return err
	}
	if sc.Kind == "review" {
		return os.WriteFile(filepath.Join(workDir, "README.md"), []byte(files["README.md"]+"\nRetries: exponential backoff, at most 3 attempts.\n"), 0o644)
	}
	return nil
}

func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func configTOML(sc Scenario, self, logDir string) string {
	var b strings.Builder
	model := "gpt-5.5"
	if sc.Model != "" {
		model = sc.Model
	}
	policy := "never"
	if sc.ApprovalPolicy != "" {
		policy = sc.ApprovalPolicy
	}
	approval := "approve"
	if sc.MCPApproval != "" {
		approval = sc.MCPApproval
	}
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

[mcp_servers.cairn-memory]
command = %s
args = ["mcp", "-mode", %s, "-log", %s]
default_tools_approval_mode = %s
startup_timeout_sec = 30
`, tomlString(model), tomlString(policy), modelAddr, sc.StreamRetries, tomlString(self), tomlString(sc.MCPMode), tomlString(filepath.Join(logDir, "mcp.log")), tomlString(approval))
	if sc.Parallel {
		b.WriteString("supports_parallel_tool_calls = true\n")
	}
	if sc.UpdatePlan {
		b.WriteString("\n[tools.update_plan]\nenabled = true\n")
	}
	fmt.Fprintf(&b, "\n[projects.%s]\ntrust_level = \"trusted\"\n", tomlString(workDir))
	return b.String()
}

// mergeWant updates want.json with the verdicts of the files just captured,
// keeping the entries of files not re-run. Keys sorted, checks in report order.
func mergeWant(path string, add map[string]Verdict) error {
	entries := map[string]json.RawMessage{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &entries); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for f, v := range add {
		entries[f] = json.RawMessage(verdictJSON(v))
	}
	if len(entries) == 0 {
		return nil
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		var compact bytes.Buffer
		json.Compact(&compact, entries[k])
		fmt.Fprintf(&b, "  %s: %s", tomlString(k), compact.String())
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func verdictJSON(v Verdict) string {
	ck := func(c Check) string {
		codes := append([]string{}, c.Codes...)
		sort.Strings(codes)
		cb, _ := json.Marshal(codes)
		return fmt.Sprintf(`{"state":%s,"codes":%s}`, tomlString(c.State), cb)
	}
	return fmt.Sprintf(`{"status":%s,"exit_code":%d,"checks":{"evidence_complete":%s,"memory_first":%s,"retrieval_result":%s,"direct_write_boundary":%s}}`,
		tomlString(v.Status), v.ExitCode, ck(v.EC), ck(v.MF), ck(v.RR), ck(v.DWB))
}

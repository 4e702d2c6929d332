// Command capture runs the real OpenCode CLI offline against a scripted
// OpenAI chat-completions API and the stdio cairn-memory MCP server of
// scripts/claude-real/mcpserver, once per scenario: first
// `opencode run --format json PROMPT`, then `opencode export SESSION` with the
// same HOME. It keeps exactly what each printed on stdout as
// testdata/opencode/real/<VERSION>/<scenario>.jsonl and
// <scenario>.export.json, with a shape file of each (member names and JSON
// types, never values) so that a re-run shows protocol drift as a diff, a
// <scenario>.requests.txt (what the CLI sent to the mock) and a want.json with
// the verdicts that SPEC §13/§6 demand of both files.
//
// It must run inside a network namespace with only loopback
// (scripts/opencode-real/run.sh does that); it refuses to run when it sees any
// other network interface that is up.
//
//	capture -opencode PATH -version V -mcpserver PATH -out DIR [-only a,b]
//	capture -shape FILE           (print the shape of a capture: .jsonl or .export.json)
//	capture -readme FILE          (write the scenario README)
//	capture -inventory DIR        (write DIR/inventory.txt)
//	capture -want DIR -version V  (write DIR/want.json anew from scenarios.go)
//	capture mcp-hang -marker FILE -tool NAME -- CMD ARGS...
//	                              (an MCP proxy whose calls of NAME never return)
//	capture mcp-slow -delay D -tool NAME -- CMD ARGS...
//	                              (an MCP proxy whose calls of NAME start D late)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

const apiAddr = "127.0.0.1:18383"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "mcp-hang" || os.Args[1] == "mcp-slow") {
		mcpProxy(os.Args[1], os.Args[2:])
		return
	}
	var (
		opencode  = flag.String("opencode", "", "path of the opencode native binary (opencode-linux-x64/bin/opencode)")
		version   = flag.String("version", "", "its version (the output folder's name)")
		mcpserver = flag.String("mcpserver", "", "path of the built scripts/claude-real/mcpserver")
		out       = flag.String("out", "", "output folder, testdata/opencode/real/<VERSION>")
		scratch   = flag.String("scratch", "/tmp/cairn-opencode-run", "scratch folder (HOME, logs)")
		only      = flag.String("only", "", "comma-separated scenario names (default: all)")
		shapeOf   = flag.String("shape", "", "print the shape of this capture and exit")
		readme    = flag.String("readme", "", "write the scenario README to this path and exit")
		rewant    = flag.String("want", "", "write DIR/want.json anew for the captures in DIR (with -version) and exit")
		list      = flag.Bool("list", false, "list the scenario names and exit")
		inventOf  = flag.String("inventory", "", "write DIR/inventory.txt for the captures in DIR and exit")
	)
	flag.Parse()
	switch {
	case *shapeOf != "":
		b, err := os.ReadFile(*shapeOf)
		if err != nil {
			fatal(err)
		}
		if strings.HasSuffix(*shapeOf, ".json") {
			os.Stdout.Write(exportShape(b))
		} else {
			os.Stdout.Write(shape(b))
		}
		return
	case *readme != "":
		text, err := readmeText(filepath.Dir(*readme))
		if err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*readme, []byte(text), 0o644); err != nil {
			fatal(err)
		}
		return
	case *inventOf != "":
		b, err := inventory(*inventOf)
		if err != nil {
			fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*inventOf, "inventory.txt"), b, 0o644); err != nil {
			fatal(err)
		}
		return
	case *rewant != "":
		// want.json anew for the captures in DIR (after a change of
		// scenarios.go's verdicts or of referenceStateMembers).
		if *version == "" {
			fatal(errors.New("-want needs -version"))
		}
		_ = os.Remove(filepath.Join(*rewant, "want.json"))
		for _, sc := range allScenarios() {
			if _, err := os.Stat(filepath.Join(*rewant, sc.name+".jsonl")); err != nil {
				continue
			}
			if err := writeWant(*rewant, *version, sc); err != nil {
				fatal(err)
			}
		}
		return
	case *list:
		for _, s := range allScenarios() {
			fmt.Println(s.name)
		}
		return
	}
	if *opencode == "" || *version == "" || *mcpserver == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := onlyLoopback(); err != nil {
		fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	onlySet := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			onlySet[n] = true
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	failed := 0
	selected := len(onlySet) > 0
	for _, sc := range allScenarios() {
		if selected && !onlySet[sc.name] {
			continue
		}
		delete(onlySet, sc.name)
		start := time.Now()
		res, err := run(sc, *opencode, *version, *mcpserver, self, *out, *scratch+"/"+*version+"/"+sc.name)
		line := fmt.Sprintf("%-24s run exit %3d, %2d lines; export exit %2d, %3d lines; %2d API requests, %.1fs", sc.name, res.exit, res.lines, res.exportExit, res.exportLines, res.requests, time.Since(start).Seconds())
		if res.interrupted != "" {
			line += " (SIGINT: " + res.interrupted + ")"
		}
		if err != nil {
			line += " ERROR: " + err.Error()
			failed++
		}
		fmt.Println(line)
		if err == nil {
			if err := writeWant(*out, *version, sc); err != nil {
				fatal(err)
			}
		}
	}
	for n := range onlySet {
		fatal(fmt.Errorf("no scenario %q", n))
	}
	if failed > 0 {
		os.Exit(1)
	}
}

type result struct {
	exit        int
	lines       int
	exportExit  int
	exportLines int
	requests    int
	interrupted string
}

// config builds opencode.json (the global config, ~/.config/opencode) for a
// scenario.
func config(sc *scenario, mcpserver, self, scratch string) obj {
	var cmd []string
	switch {
	case sc.mcpHang != "":
		cmd = []string{self, "mcp-hang", "-marker", scratch + "/mcp-hang.marker", "-tool", sc.mcpHang, "--", mcpserver}
	case sc.mcpSlow != "":
		cmd = []string{self, "mcp-slow", "-delay", "2s", "-tool", sc.mcpSlow, "--", mcpserver}
	default:
		cmd = []string{mcpserver}
	}
	cmd = append(cmd, "-name", cm)
	cmd = append(cmd, sc.mcpArgs...)
	c := o(
		"$schema", "https://opencode.ai/config.json",
		"autoupdate", false,
		"share", "disabled",
		"model", "mock/mock-model",
		"small_model", "mock/mock-model",
		"provider", o("mock", o(
			"npm", "@ai-sdk/openai-compatible",
			"name", "Mock",
			"options", o("baseURL", "http://"+apiAddr+"/v1", "apiKey", "cairn-offline-fake-key-0000"),
			"models", o("mock-model", o("name", "Mock Model", "tool_call", true, "limit", o("context", 128000, "output", 8192))),
		)),
		"mcp", o(sc.serverName(), o("type", "local", "command", cmd, "enabled", true)),
	)
	if len(sc.permission) > 0 {
		c = append(c, kv("permission", sc.permission))
	}
	if len(sc.tools) > 0 {
		c = append(c, kv("tools", sc.tools))
	}
	return c
}

// environ is opencode's whole environment for a scenario.
func environ(home, scratch string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home + "/.config",
		"XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_CACHE_HOME=" + home + "/.cache",
		"XDG_STATE_HOME=" + home + "/.local/state",
		"PWD=" + workDir,
		"TMPDIR=" + scratch + "/tmp",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_SHARE=1",
	}
}

func run(sc *scenario, opencode, version, mcpserver, self, out, scratch string) (result, error) {
	var res result
	home := scratch + "/home"
	if err := os.RemoveAll(scratch); err != nil {
		return res, err
	}
	for _, d := range []string{scratch + "/debug", scratch + "/tmp", home + "/.config/opencode", home + "/.local/share", home + "/.cache", home + "/.local/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return res, err
		}
	}
	if err := layWorkDir(); err != nil {
		return res, err
	}
	cfg, _ := json.MarshalIndent(config(sc, mcpserver, self, scratch), "", "  ")
	if err := os.WriteFile(home+"/.config/opencode/opencode.json", append(cfg, '\n'), 0o644); err != nil {
		return res, err
	}

	api, err := startMockAPI(apiAddr, sc, scratch+"/requests.log", scratch+"/debug")
	if err != nil {
		return res, err
	}
	defer api.close()

	argv := []string{"run", "--format", "json"}
	argv = append(argv, sc.argsFor(version)...)
	argv = append(argv, prompt)
	_ = os.WriteFile(scratch+"/argv.txt", []byte(strings.Join(argv, "\n")+"\n"), 0o644)
	env := environ(home, scratch)

	outPath := filepath.Join(out, sc.name+".jsonl")
	stderr, err := os.Create(scratch + "/stderr.txt")
	if err != nil {
		return res, err
	}
	defer stderr.Close()
	c := exec.Command(opencode, argv...)
	c.Dir = workDir
	c.Env = env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Stdin = nil // /dev/null
	c.Stderr = stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		return res, err
	}
	of, err := os.Create(outPath)
	if err != nil {
		return res, err
	}
	if err := c.Start(); err != nil {
		of.Close()
		return res, err
	}
	pid := c.Process.Pid
	copied := make(chan error, 1)
	go func() {
		// Copy every byte as is.
		_, err := io.Copy(of, stdout)
		copied <- err
	}()
	interrupt := make(chan string, 1)
	done := make(chan struct{})
	if sc.mcpHang != "" {
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := os.Stat(scratch + "/mcp-hang.marker"); err == nil {
					interrupt <- "the MCP tool call is running"
					return
				}
			}
		}()
	}
	go func() {
		select {
		case <-done:
		case <-api.hangCh:
			interrupt <- "the answer is streaming"
		}
	}()
	if d := sc.interruptFor(version); d > 0 {
		go func() {
			select {
			case <-done:
			case <-time.After(d):
				interrupt <- fmt.Sprintf("still running after %s", d)
			}
		}()
	}
	interrupted := make(chan string, 1)
	go func() {
		defer close(interrupted)
		select {
		case <-done:
			return
		case why := <-interrupt:
			select {
			case <-done:
				return
			case <-time.After(1500 * time.Millisecond):
			}
			fmt.Fprintf(stderr, "\ncapture: sending SIGINT to opencode's process group (%s)\n", why)
			interrupted <- why
			_ = syscall.Kill(-pid, syscall.SIGINT)
		}
	}()
	timer := time.AfterFunc(150*time.Second, func() {
		fmt.Fprintln(stderr, "capture: timeout, killing opencode")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	})
	cerr := <-copied
	werr := c.Wait()
	timer.Stop()
	close(done)
	res.interrupted = <-interrupted
	// Whatever opencode left behind in its process group (MCP servers, shells).
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if err := of.Close(); err != nil {
		return res, err
	}
	if cerr != nil {
		return res, cerr
	}
	res.exit = exitCode(c.ProcessState)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return res, werr
	}
	res.requests = api.requests()
	b, err := os.ReadFile(outPath)
	if err != nil {
		return res, err
	}
	res.lines = bytes.Count(b, []byte("\n"))
	if err := os.WriteFile(filepath.Join(out, sc.name+".shape.txt"), shape(b), 0o644); err != nil {
		return res, err
	}
	// The request log is the mock's side of the run: keep it beside the capture.
	lb, _ := os.ReadFile(scratch + "/requests.log")
	var meta strings.Builder
	fmt.Fprintf(&meta, "# opencode argv: %s\n", strings.Join(quoteAll(argv), " "))
	fmt.Fprintf(&meta, "# opencode run exit code: %s\n", exitText(c.ProcessState))
	if res.interrupted != "" {
		fmt.Fprintf(&meta, "# the harness sent SIGINT to opencode's process group (%s)\n", res.interrupted)
	}
	compact, _ := json.Marshal(config(sc, "MCPSERVER", "CAPTURE", "SCRATCH"))
	fmt.Fprintf(&meta, "# ~/.config/opencode/opencode.json: %s\n", compact)

	if res.lines == 0 {
		return res, fmt.Errorf("opencode run printed nothing (see %s/stderr.txt)", scratch)
	}
	sid, err := sessionID(b)
	if err != nil {
		return res, err
	}
	exp, eres, err := export(opencode, sid, env, scratch, filepath.Join(out, sc.name+".export.json"), "export")
	if err != nil {
		return res, err
	}
	res.exportExit, res.exportLines = eres.exit, eres.lines
	fmt.Fprintf(&meta, "# then: opencode export SESSION (exit code %d)\n", eres.exit)
	if sc.child {
		child, err := childSession(exp)
		if err != nil {
			return res, err
		}
		_, cres, err := export(opencode, child, env, scratch, filepath.Join(out, sc.name+".child.export.json"), "child-export")
		if err != nil {
			return res, err
		}
		fmt.Fprintf(&meta, "# then: opencode export CHILDSESSION, the task's sub-agent session (exit code %d)\n", cres.exit)
	}
	if err := os.WriteFile(filepath.Join(out, sc.name+".requests.txt"), append([]byte(meta.String()), lb...), 0o644); err != nil {
		return res, err
	}
	for _, f := range []string{outPath, filepath.Join(out, sc.name+".export.json")} {
		if err := scratchPathsOnly(f); err != nil {
			return res, err
		}
	}
	if w := sc.exitFor(version); w != res.exit {
		return res, fmt.Errorf("exit code %d, the scenario expects %d (see %s/stderr.txt)", res.exit, w, scratch)
	}
	return res, nil
}

// exitCode is the process's exit status, or 128+N when signal N killed it
// (as a shell reports it).
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func exitText(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("%d (killed by %s)", 128+int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprint(ps.ExitCode())
}

// sessionID is the sessionID of the run's records (the same on every line).
func sessionID(b []byte) (string, error) {
	id := ""
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		var rec struct {
			SessionID string `json:"sessionID"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return "", fmt.Errorf("a stdout line that is not JSON: %w", err)
		}
		if rec.SessionID == "" || (id != "" && rec.SessionID != id) {
			return "", fmt.Errorf("stdout lines name sessions %q and %q", id, rec.SessionID)
		}
		id = rec.SessionID
	}
	return id, nil
}

// export runs `opencode export ID` with the run's environment and writes its
// stdout, byte for byte, to path.
func export(opencode, id string, env []string, scratch, path, tag string) ([]byte, result, error) {
	var res result
	c := exec.Command(opencode, "export", id)
	c.Dir = workDir
	c.Env = env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout bytes.Buffer
	stderr, err := os.Create(scratch + "/" + tag + "-stderr.txt")
	if err != nil {
		return nil, res, err
	}
	defer stderr.Close()
	c.Stdout, c.Stderr = &stdout, stderr
	if err := c.Start(); err != nil {
		return nil, res, err
	}
	timer := time.AfterFunc(60*time.Second, func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	werr := c.Wait()
	timer.Stop()
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, res, werr
	}
	res.exit = exitCode(c.ProcessState)
	b := stdout.Bytes()
	res.lines = bytes.Count(b, []byte("\n"))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, res, err
	}
	shapePath := strings.TrimSuffix(path, ".json") + ".shape.txt"
	if err := os.WriteFile(shapePath, exportShape(b), 0o644); err != nil {
		return nil, res, err
	}
	if res.exit != 0 || len(b) == 0 {
		return nil, res, fmt.Errorf("opencode export exit %d, %d bytes (see %s/%s-stderr.txt)", res.exit, len(b), scratch, tag)
	}
	return b, res, nil
}

// childSession is the session of the export's task call (its
// state.metadata.sessionId).
func childSession(exp []byte) (string, error) {
	var doc struct {
		Messages []struct {
			Parts []struct {
				Type  string `json:"type"`
				Tool  string `json:"tool"`
				State struct {
					Metadata map[string]any `json:"metadata"`
				} `json:"state"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(exp, &doc); err != nil {
		return "", err
	}
	for _, m := range doc.Messages {
		for _, p := range m.Parts {
			if p.Type == "tool" && p.Tool == "task" {
				if id, ok := p.State.Metadata["sessionId"].(string); ok && id != "" {
					return id, nil
				}
			}
		}
	}
	return "", errors.New("the export has no task part naming its sub-agent session (state.metadata.sessionId)")
}

// scratchPathsOnly fails when the capture file holds an absolute path (in
// any JSON string, decoded) outside the harness's scratch folders
// /tmp/cairn-opencode-work and /tmp/cairn-opencode-run: nothing of the
// machine it ran on may go into testdata beyond those folders. A path is a
// "/" at the start of a string or after white space, a quote, "(" or "=";
// "/" alone (the export's path.root outside a git repository) is allowed.
func scratchPathsOnly(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var bad []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				walk(k)
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		case string:
			for _, m := range absPath.FindAllStringSubmatch(t, -1) {
				if p := m[1]; p != "/" && p != workDir && !strings.HasPrefix(p, workDir+"/") && !strings.HasPrefix(p, "/tmp/cairn-opencode-run/") {
					bad = append(bad, p)
				}
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("%s: not JSON: %w", file, err)
		}
		walk(v)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("%s names paths outside the scratch folders: %q", file, bad)
	}
	return nil
}

var absPath = regexp.MustCompile("(?:^|[\\s\"'`(=])(/[^\\s\"'`<>()\\[\\],;]*)")

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if strings.ContainsAny(s, " \"'?") {
			out[i] = fmt.Sprintf("%q", s)
		} else {
			out[i] = s
		}
	}
	return out
}

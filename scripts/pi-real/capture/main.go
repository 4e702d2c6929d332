// Command capture runs the real Pi coding agent (`pi --mode json PROMPT`)
// offline against a scripted OpenAI-compatible chat-completions API and the
// stdio cairn-memory MCP server of scripts/claude-real/mcpserver, once per
// scenario, and keeps exactly what pi printed on stdout as
// testdata/pi/real/<VERSION>/<scenario>.jsonl, with a <scenario>.shape.txt
// (record types, member names and JSON types, never values) so that a re-run
// shows protocol drift as a diff, a <scenario>.requests.txt (what pi sent to
// the mock) and a want.json with the verdict that SPEC §12/§6 demand.
//
// It must run inside a network namespace with only loopback
// (scripts/pi-real/run.sh does that); it refuses to run when it sees any
// other network interface that is up.
//
//	capture -node PATH -pi PATH -version V -mcpserver PATH -out DIR [-only a,b]
//	capture -shape FILE.jsonl     (print the shape of a capture)
//	capture -readme FILE          (write the scenario README)
//	capture -inventory DIR        (write DIR/inventory.txt)
//	capture -list                 (the scenario names)
//	capture mcp-hang -marker FILE -tool NAME -- CMD ARGS...
//	                              (an MCP proxy whose calls of NAME never return)
package main

import (
	"bufio"
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

// runTimeout bounds one pi run; the harness kills pi's process group after it.
var runTimeout = 90 * time.Second

var adapterLifecycle = "eager"

// The provider and model pi is pointed at (~/.pi/agent/models.json).
const (
	providerID = "cairn-mock"
	modelID    = "mock-model"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mcp-hang" {
		mcpHang(os.Args[2:])
		return
	}
	var (
		node      = flag.String("node", "", "path of the node binary (22.19 or newer)")
		pi        = flag.String("pi", "", "path of pi's entry point (dist/bundle/cli.js or dist/cli.js)")
		version   = flag.String("version", "", "its version (the output folder's name)")
		mcpserver = flag.String("mcpserver", "", "path of the built scripts/claude-real/mcpserver")
		adapter   = flag.String("adapter", "", "path of the pi-mcp-adapter package: run its scenarios (pi 0.86.x) instead of the built-in MCP ones")
		out       = flag.String("out", "", "output folder, testdata/pi/real/<VERSION>")
		scratch   = flag.String("scratch", "/tmp/cairn-pi-run", "scratch folder (HOME, logs)")
		only      = flag.String("only", "", "comma-separated scenario names (default: all)")
		shapeOf   = flag.String("shape", "", "print the shape of this capture and exit")
		readme    = flag.String("readme", "", "write the scenario README to this path and exit")
		list      = flag.Bool("list", false, "list the scenario names and exit")
		inventOf  = flag.String("inventory", "", "write DIR/inventory.txt for the captures in DIR and exit")
		timeout   = flag.Duration("timeout", runTimeout, "kill pi after this long")
	)
	flag.Parse()
	runTimeout = *timeout
	if l := os.Getenv("CAIRN_PI_ADAPTER_LIFECYCLE"); l != "" {
		adapterLifecycle = l
	}
	switch {
	case *shapeOf != "":
		b, err := os.ReadFile(*shapeOf)
		if err != nil {
			fatal(err)
		}
		os.Stdout.Write(shape(b))
		return
	case *readme != "":
		if err := os.WriteFile(*readme, []byte(readmeText()), 0o644); err != nil {
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
	case *list:
		for _, s := range allScenarios() {
			fmt.Println(s.name)
		}
		return
	}
	if *node == "" || *pi == "" || *version == "" || *mcpserver == "" || *out == "" {
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
	want, known := map[string]bool{}, map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n], known[n] = true, true
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	for _, sc := range allScenarios() {
		delete(known, sc.name)
	}
	for n := range known {
		fatal(fmt.Errorf("no scenario %q", n))
	}
	failed := 0
	selected := len(want) > 0
	for _, sc := range allScenarios() {
		// A scenario runs with the MCP pi has: the adapter's scenarios only
		// with -adapter, the built-in ones only without.
		if selected && !want[sc.name] || sc.adapter != (*adapter != "") {
			continue
		}
		start := time.Now()
		res, err := run(sc, *node, *pi, *mcpserver, *adapter, self, *out, *scratch+"/"+*version+"/"+sc.name)
		line := fmt.Sprintf("%-26s pi exit %3d, %3d stdout lines, %2d API requests, %.1fs (%s)", sc.name, res.exit, res.lines, res.requests, time.Since(start).Seconds(), res.timing)
		if err != nil {
			line += " ERROR: " + err.Error()
			failed++
		}
		fmt.Println(line)
		if err == nil {
			if err := updateWant(filepath.Join(*out, "want.json"), sc.name+".jsonl", sc.wantFor(*version)); err != nil {
				fatal(err)
			}
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

type result struct {
	exit     int
	lines    int
	requests int
	timing   string // when pi printed its first line and agent_settled, and exited (console only)
}

// timingWriter passes pi's stdout through and notes when its first byte
// and its agent_settled record came.
type timingWriter struct {
	w              io.Writer
	first, settled time.Time
	tail           []byte
}

func (t *timingWriter) Write(p []byte) (int, error) {
	if t.first.IsZero() && len(p) > 0 {
		t.first = time.Now()
	}
	if t.settled.IsZero() {
		t.tail = append(t.tail, p...)
		if bytes.Contains(t.tail, []byte(`{"type":"agent_settled"`)) {
			t.settled = time.Now()
		}
		if i := bytes.LastIndexByte(t.tail, '\n'); i >= 0 {
			t.tail = append([]byte(nil), t.tail[i+1:]...)
		}
	}
	return t.w.Write(p)
}

func (t *timingWriter) describe(start, end time.Time) string {
	s := "first line "
	if t.first.IsZero() {
		s += "never"
	} else {
		s += fmt.Sprintf("%.1fs", t.first.Sub(start).Seconds())
	}
	if !t.settled.IsZero() {
		s += fmt.Sprintf(", agent_settled %.1fs, exit %.1fs", t.settled.Sub(start).Seconds(), end.Sub(start).Seconds())
	}
	return s
}

// modelsJSON is ~/.pi/agent/models.json: one OpenAI-compatible provider on
// the mock.
func modelsJSON() obj {
	return o("providers", o(providerID, o(
		"name", "cairn offline mock",
		"baseUrl", "http://"+apiAddr+"/v1",
		"api", "openai-completions",
		"apiKey", "cairn-offline-fake-key-0000",
		"models", []any{o("id", modelID, "name", "Mock Model", "contextWindow", 128000, "maxTokens", 4096,
			"cost", o("input", 0, "output", 0, "cacheRead", 0, "cacheWrite", 0))},
	)))
}

// settingsJSON is ~/.pi/agent/settings.json for a scenario; adapter is
// the pi-mcp-adapter package to load as an extension (adapter scenarios).
func settingsJSON(sc *scenario, adapter string) obj {
	s := o("defaultProvider", providerID, "defaultModel", modelID,
		// Short retry delays: 200, 400, 800 ms instead of 2, 4, 8 s.
		"retry", o("baseDelayMs", 200))
	if len(sc.defaultTools) > 0 {
		s = append(s, kv("defaultTools", sc.defaultTools))
	}
	if sc.adapter {
		s = append(s, kv("extensions", []string{adapter}))
	}
	return s
}

// mcpJSON is ~/.pi/agent/mcp.json for a scenario.
func mcpJSON(sc *scenario, mcpserver, self, scratch string) obj {
	var srv obj
	switch {
	case sc.mcpCmd != "":
		srv = o("command", sc.mcpCmd, "args", []string{})
	case sc.mcpHang != "":
		args := []string{"mcp-hang", "-marker", scratch + "/mcp-hang.marker", "-tool", sc.mcpHang, "--", mcpserver, "-name", "cairn-memory"}
		srv = o("command", self, "args", append(args, sc.mcpArgs...))
	default:
		srv = o("command", mcpserver, "args", append([]string{"-name", "cairn-memory"}, sc.mcpArgs...))
	}
	if sc.exposure != "" {
		srv = append(srv, kv("exposure", sc.exposure))
	}
	if sc.adapter {
		// Connect at startup, so that direct tools are declared in the
		// first request.
		srv = append(srv, kv("lifecycle", adapterLifecycle))
		srv = append(srv, sc.adapterServer...)
	}
	return o("mcpServers", o(sc.serverName(), srv))
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func run(sc *scenario, node, pi, mcpserver, adapter, self, out, scratch string) (result, error) {
	var res result
	home := scratch + "/home"
	agentDir := home + "/.pi/agent"
	if err := os.RemoveAll(scratch); err != nil {
		return res, err
	}
	// TMPDIR is shared by a version's runs: it holds node's compile cache
	// and jiti's cache of the TypeScript extensions pi-mcp-adapter ships,
	// which would otherwise be compiled anew on every run (tens of seconds).
	tmpDir := filepath.Dir(scratch) + "/tmp"
	for _, d := range []string{scratch + "/debug", tmpDir, agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return res, err
		}
	}
	if err := layWorkDir(); err != nil {
		return res, err
	}
	if err := writeJSONFile(agentDir+"/models.json", modelsJSON()); err != nil {
		return res, err
	}
	if err := writeJSONFile(agentDir+"/settings.json", settingsJSON(sc, adapter)); err != nil {
		return res, err
	}
	if !sc.noMCP {
		if err := writeJSONFile(agentDir+"/mcp.json", mcpJSON(sc, mcpserver, self, scratch)); err != nil {
			return res, err
		}
	}

	api, err := startMockAPI(apiAddr, sc, scratch+"/requests.log", scratch+"/debug")
	if err != nil {
		return res, err
	}
	defer api.close()

	argv := []string{"--mode", "json"}
	if sc.keep != keepSession {
		argv = append(argv, "--no-session")
	}
	argv = append(argv, sc.args...)
	argv = append(argv, prompt)
	_ = os.WriteFile(scratch+"/argv.txt", []byte(strings.Join(argv, "\n")+"\n"), 0o644)

	c := exec.Command(node, append([]string{pi}, argv...)...)
	c.Dir = workDir
	c.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"TMPDIR=" + tmpDir,
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Stdin = nil // /dev/null
	stderr, err := os.Create(scratch + "/stderr.txt")
	if err != nil {
		return res, err
	}
	defer stderr.Close()
	c.Stderr = stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		return res, err
	}
	outPath := filepath.Join(out, sc.name+".jsonl")
	stdoutPath := outPath
	if sc.keep == keepSession {
		// The capture is the session file; stdout stays in the scratch folder.
		stdoutPath = scratch + "/stdout.jsonl"
	}
	of, err := os.Create(stdoutPath)
	if err != nil {
		return res, err
	}
	if err := c.Start(); err != nil {
		of.Close()
		return res, err
	}
	pid := c.Process.Pid
	copied := make(chan error, 1)
	started := time.Now()
	tw := &timingWriter{w: of}
	go func() {
		// Copy every byte as is.
		_, err := io.Copy(tw, stdout)
		copied <- err
	}()
	interrupted := false
	interrupt := func(why string) {
		time.Sleep(1500 * time.Millisecond)
		fmt.Fprintf(stderr, "capture: sending %s to pi's process group (%s)\n", sigName(sc.sig()), why)
		interrupted = true
		_ = syscall.Kill(-pid, sc.sig())
	}
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
					interrupt("the MCP tool call is running")
					return
				}
			}
		}()
	}
	go func() {
		select {
		case <-done:
		case <-api.hangCh:
			interrupt("the answer is streaming")
		}
	}()
	timer := time.AfterFunc(runTimeout, func() {
		fmt.Fprintln(stderr, "capture: timeout, killing pi")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	})
	cerr := <-copied
	werr := c.Wait()
	timer.Stop()
	res.timing = tw.describe(started, time.Now())
	close(done)
	// Whatever pi left behind in its process group (MCP servers, shells).
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if err := of.Close(); err != nil {
		return res, err
	}
	if cerr != nil {
		return res, cerr
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return res, werr
	}
	exitNote := ""
	res.exit = c.ProcessState.ExitCode()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// As a shell reports it: 128 + the signal.
		res.exit = 128 + int(ws.Signal())
		exitNote = fmt.Sprintf(" (killed by %s)", ws.Signal())
	}
	api.mu.Lock()
	res.requests = api.nreq
	api.mu.Unlock()
	b, err := os.ReadFile(stdoutPath)
	if err != nil {
		return res, err
	}
	res.lines = bytes.Count(b, []byte("\n"))
	var sessionNote string
	if sc.keep == keepSession {
		if b, sessionNote, err = keepSessionFile(home, outPath); err != nil {
			return res, err
		}
	}
	if err := os.WriteFile(filepath.Join(out, sc.name+".shape.txt"), shape(b), 0o644); err != nil {
		return res, err
	}
	// The request log is the mock's side of the run: keep it beside the capture.
	lb, _ := os.ReadFile(scratch + "/requests.log")
	var meta strings.Builder
	fmt.Fprintf(&meta, "# pi argv (after node %s): %s\n", filepath.Base(pi), strings.Join(quoteAll(argv), " "))
	fmt.Fprintf(&meta, "# pi exit code: %d%s\n", res.exit, exitNote)
	if interrupted {
		fmt.Fprintf(&meta, "# the harness sent %s to pi's process group\n", sigName(sc.sig()))
	}
	if sessionNote != "" {
		meta.WriteString("# " + sc.name + ".jsonl is not stdout but " + sessionNote + "\n")
	}
	for _, f := range []struct {
		name string
		v    any
	}{
		{"models.json", modelsJSON()},
		{"settings.json", settingsJSON(sc, "ADAPTER")},
		{"mcp.json", mcpJSON(sc, "MCPSERVER", "CAPTURE", "SCRATCH")},
	} {
		if f.name == "mcp.json" && sc.noMCP {
			meta.WriteString("# ~/.pi/agent/mcp.json: not written\n")
			continue
		}
		compact, _ := json.Marshal(f.v)
		fmt.Fprintf(&meta, "# ~/.pi/agent/%s: %s\n", f.name, compact)
	}
	if err := os.WriteFile(filepath.Join(out, sc.name+".requests.txt"), append([]byte(meta.String()), lb...), 0o644); err != nil {
		return res, err
	}
	if bad := foreignPaths(b); len(bad) > 0 {
		return res, fmt.Errorf("the capture names paths outside the harness's folders: %q", bad)
	}
	if res.lines == 0 {
		return res, fmt.Errorf("pi printed nothing (see %s/stderr.txt)", scratch)
	}
	if sc.wantExit != res.exit {
		return res, fmt.Errorf("exit code %d, the scenario expects %d (see %s/stderr.txt)", res.exit, sc.wantExit, scratch)
	}
	return res, nil
}

// keepSessionFile copies the one session file pi wrote under home
// (~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl) to out, byte for byte, and
// returns its bytes and its path relative to home.
func keepSessionFile(home, out string) ([]byte, string, error) {
	files, err := filepath.Glob(home + "/.pi/agent/sessions/*/*.jsonl")
	if err != nil {
		return nil, "", err
	}
	if len(files) != 1 {
		return nil, "", fmt.Errorf("want one session file under %s/.pi/agent/sessions/*/, found %d", home, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return nil, "", err
	}
	rel, _ := filepath.Rel(home, files[0])
	return b, "the session file ~/" + rel, nil
}

// allowedPaths are the folders a capture may name: the working directory,
// the scratch folders, the npm caches (pi's system prompt names its own
// documentation) and the built helpers.
var allowedPaths = []string{"/tmp/cairn-pi-work", "/tmp/cairn-pi-run/", "/tmp/cairn-pi-npm/", "/tmp/cairn-pi-bin/"}

// foreignPaths lists the absolute paths (in any JSON string, decoded) that
// lie outside allowedPaths and a few system folders: nothing of the machine
// the harness ran on may go into testdata beyond those. A path is a "/" and
// a name character at the start of a string or after white space, a quote,
// "(" or "=" (so "src/x", "</tag>" and a "//" comment are not).
func foreignPaths(b []byte) []string {
	seen := map[string]bool{}
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
				p := m[1]
				ok := p == "/" || p == "/tmp" || p == "/dev/null" || strings.HasPrefix(p, "/bin/") || strings.HasPrefix(p, "/usr/")
				for _, a := range allowedPaths {
					if p == strings.TrimSuffix(a, "/") || strings.HasPrefix(p, a) || strings.HasPrefix(p, a+"/") {
						ok = true
					}
				}
				if !ok {
					seen[p] = true
				}
			}
		}
	}
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		var v any
		if json.Unmarshal(line, &v) == nil {
			walk(v)
		}
	}
	var bad []string
	for p := range seen {
		bad = append(bad, p)
	}
	sort.Strings(bad)
	return bad
}

var absPath = regexp.MustCompile("(?:^|[\\s\"'`(=])(/[A-Za-z0-9._~-][^\\s\"'`<>()\\[\\],;]*)")

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if strings.ContainsAny(s, " \"'*") {
			out[i] = fmt.Sprintf("%q", s)
		} else {
			out[i] = s
		}
	}
	return out
}

// mcpHang runs an MCP server as a child and relays its stdio, except that a
// tools/call of one tool is never forwarded (so it never returns): the proxy
// touches the marker file instead, for the runner to interrupt pi.
func mcpHang(args []string) {
	fs := flag.NewFlagSet("mcp-hang", flag.ExitOnError)
	marker := fs.String("marker", "", "file to create when the tool is called")
	tool := fs.String("tool", "", "the tool whose calls hang")
	_ = fs.Parse(args)
	rest := fs.Args()
	if len(rest) == 0 || *marker == "" || *tool == "" {
		fmt.Fprintln(os.Stderr, "mcp-hang: usage: capture mcp-hang -marker FILE -tool NAME -- CMD ARGS...")
		os.Exit(2)
	}
	c := exec.Command(rest[0], rest[1:]...)
	c.Stderr = os.Stderr
	c.Stdout = os.Stdout
	in, err := c.StdinPipe()
	if err != nil {
		fatal(err)
	}
	if err := c.Start(); err != nil {
		fatal(err)
	}
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &req) == nil && req.Method == "tools/call" && req.Params.Name == *tool {
				fmt.Fprintf(os.Stderr, "mcp-hang: holding the call of %s\n", *tool)
				_ = os.WriteFile(*marker, nil, 0o644)
			} else if _, werr := in.Write(line); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	in.Close()
	_ = c.Wait()
}

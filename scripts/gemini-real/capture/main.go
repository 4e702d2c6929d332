//go:build unix

// Command capture runs the real Gemini CLI offline against a scripted
// Generative Language API and the stdio cairn-memory MCP server of
// scripts/claude-real/mcpserver, once per scenario, and keeps exactly what
// gemini printed on stdout as testdata/gemini/real/<VERSION>/<scenario>.jsonl,
// with a <scenario>.shape.txt (record types, member names and JSON types,
// never values) so that a re-run shows protocol drift as a diff, a
// <scenario>.requests.txt (what the CLI sent to the mock) and a want.json with
// the verdict that SPEC §11/§6 demand.
//
// It must run inside a network namespace with only loopback
// (scripts/gemini-real/run.sh does that); it refuses to run when it sees any
// other network interface that is up.
//
//	capture -gemini PATH -version V -mcpserver PATH -out DIR [-only a,b]
//	capture -shape FILE.jsonl     (print the shape of a capture)
//	capture -readme FILE          (write the scenario README)
//	capture -inventory DIR        (write DIR/inventory.txt)
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

const apiAddr = "127.0.0.1:18282"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mcp-hang" {
		mcpHang(os.Args[2:])
		return
	}
	var (
		gemini    = flag.String("gemini", "", "path of the gemini entry point (bundle/gemini.js)")
		version   = flag.String("version", "", "its version (the output folder's name)")
		mcpserver = flag.String("mcpserver", "", "path of the built scripts/claude-real/mcpserver")
		out       = flag.String("out", "", "output folder, testdata/gemini/real/<VERSION>")
		scratch   = flag.String("scratch", "/tmp/cairn-gemini-run", "scratch folder (HOME, logs)")
		only      = flag.String("only", "", "comma-separated scenario names (default: all)")
		shapeOf   = flag.String("shape", "", "print the shape of this capture and exit")
		readme    = flag.String("readme", "", "write the scenario README to this path and exit")
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
	if *gemini == "" || *version == "" || *mcpserver == "" || *out == "" {
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
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	failed := 0
	selected := len(want) > 0
	for _, sc := range allScenarios() {
		if selected && !want[sc.name] {
			continue
		}
		delete(want, sc.name)
		start := time.Now()
		res, err := run(sc, *gemini, *mcpserver, self, *out, *scratch+"/"+*version+"/"+sc.name)
		line := fmt.Sprintf("%-24s gemini exit %3d, %2d stdout lines, %2d API requests, %.1fs", sc.name, res.exit, res.lines, res.requests, time.Since(start).Seconds())
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
	for n := range want {
		fatal(fmt.Errorf("no scenario %q", n))
	}
	if failed > 0 {
		os.Exit(1)
	}
}

type result struct {
	exit     int
	lines    int
	requests int
}

// settings builds ~/.gemini/settings.json for a scenario.
func settings(sc *scenario, mcpserver, self, scratch string) obj {
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
	srv = append(srv, kv("timeout", 60000))
	if len(sc.excludeTools) > 0 {
		srv = append(srv, kv("excludeTools", sc.excludeTools))
	}
	if sc.trust {
		srv = append(srv, kv("trust", true))
	}
	general := o("enableAutoUpdate", false, "enableAutoUpdateNotification", false)
	if sc.maxAttempts > 0 {
		general = append(general, kv("maxAttempts", sc.maxAttempts))
	}
	s := o(
		"general", general,
		"privacy", o("usageStatisticsEnabled", false),
		"security", o("auth", o("selectedType", "gemini-api-key")),
	)
	if sc.maxTurns > 0 {
		s = append(s, kv("model", o("maxSessionTurns", sc.maxTurns)))
	}
	s = append(s, kv("mcpServers", o(sc.serverName(), srv)))
	return s
}

func run(sc *scenario, gemini, mcpserver, self, out, scratch string) (result, error) {
	var res result
	home := scratch + "/home"
	if err := os.RemoveAll(scratch); err != nil {
		return res, err
	}
	if err := os.MkdirAll(scratch+"/debug", 0o755); err != nil {
		return res, err
	}
	if err := os.MkdirAll(home+"/.gemini", 0o755); err != nil {
		return res, err
	}
	// The CLI writes error reports (with the whole request) to os.tmpdir().
	if err := os.MkdirAll(scratch+"/tmp", 0o755); err != nil {
		return res, err
	}
	if err := layWorkDir(); err != nil {
		return res, err
	}
	set, _ := json.MarshalIndent(settings(sc, mcpserver, self, scratch), "", "  ")
	if err := os.WriteFile(home+"/.gemini/settings.json", append(set, '\n'), 0o644); err != nil {
		return res, err
	}

	api, err := startMockAPI(apiAddr, sc, scratch+"/requests.log", scratch+"/debug")
	if err != nil {
		return res, err
	}
	defer api.close()

	argv := []string{"-p", prompt, "--output-format", sc.outputFormatFlag(), "-m", "gemini-2.5-pro"}
	if !sc.noYolo {
		argv = append(argv, "--yolo")
	}
	argv = append(argv, sc.args...)
	_ = os.WriteFile(scratch+"/argv.txt", []byte(strings.Join(argv, "\n")+"\n"), 0o644)

	c := exec.Command("/usr/bin/node", append([]string{gemini}, argv...)...)
	c.Dir = workDir
	c.Env = append([]string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"GOOGLE_GEMINI_BASE_URL=http://" + apiAddr,
		"GEMINI_API_KEY=cairn-offline-fake-key-0000",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"TMPDIR=" + scratch + "/tmp",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
	}, sc.env...)
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
	go func() {
		// Copy every byte as is.
		_, err := io.Copy(of, stdout)
		copied <- err
	}()
	interrupted := false
	interrupt := func(why string) {
		time.Sleep(1500 * time.Millisecond)
		fmt.Fprintf(stderr, "capture: sending SIGINT to gemini's process group (%s)\n", why)
		interrupted = true
		_ = syscall.Kill(-pid, syscall.SIGINT)
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
	timer := time.AfterFunc(90*time.Second, func() {
		fmt.Fprintln(stderr, "capture: timeout, killing gemini")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	})
	cerr := <-copied
	werr := c.Wait()
	timer.Stop()
	close(done)
	// Whatever gemini left behind in its process group (MCP servers, shells).
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if err := of.Close(); err != nil {
		return res, err
	}
	if cerr != nil {
		return res, cerr
	}
	res.exit = c.ProcessState.ExitCode()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return res, werr
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
	fmt.Fprintf(&meta, "# gemini argv (after node bundle/gemini.js): %s\n", strings.Join(quoteAll(argv), " "))
	fmt.Fprintf(&meta, "# gemini exit code: %d\n", res.exit)
	if interrupted {
		meta.WriteString("# the harness sent SIGINT to gemini's process group\n")
	}
	if len(sc.env) > 0 {
		meta.WriteString("# extra env: " + strings.Join(sc.env, " ") + "\n")
	}
	if sessionNote != "" {
		meta.WriteString("# " + sc.name + ".jsonl is not stdout but " + sessionNote + "\n")
	}
	compact, _ := json.Marshal(settings(sc, "MCPSERVER", "CAPTURE", "SCRATCH"))
	fmt.Fprintf(&meta, "# ~/.gemini/settings.json: %s\n", compact)
	if err := os.WriteFile(filepath.Join(out, sc.name+".requests.txt"), append([]byte(meta.String()), lb...), 0o644); err != nil {
		return res, err
	}
	if res.lines == 0 {
		return res, fmt.Errorf("gemini printed nothing (see %s/stderr.txt)", scratch)
	}
	if sc.wantExit != res.exit {
		return res, fmt.Errorf("exit code %d, the scenario expects %d (see %s/stderr.txt)", res.exit, sc.wantExit, scratch)
	}
	return res, nil
}

// keepSessionFile copies the one session file the CLI wrote under home
// (~/.gemini/tmp/<project>/chats/session-*.jsonl) to out, byte for byte, and
// returns its bytes and its path relative to home. It refuses a file that
// names a path outside the harness's scratch folders: the session file holds
// the CLI's session context (the workspace, the OS, the date), and nothing of
// the machine it ran on may go into testdata beyond those folders.
func keepSessionFile(home, out string) ([]byte, string, error) {
	files, err := filepath.Glob(home + "/.gemini/tmp/*/chats/session-*.jsonl")
	if err != nil {
		return nil, "", err
	}
	if len(files) != 1 {
		return nil, "", fmt.Errorf("want one session file under %s/.gemini/tmp/*/chats, found %d", home, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return nil, "", err
	}
	if err := scratchPathsOnly(b); err != nil {
		return nil, "", fmt.Errorf("%s: %w", files[0], err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return nil, "", err
	}
	rel, _ := filepath.Rel(home, files[0])
	return b, "the session file ~/" + rel, nil
}

// scratchPathsOnly fails when b holds an absolute path (in any JSON string,
// decoded) outside the harness's scratch folders /tmp/cairn-gemini-work and
// /tmp/cairn-gemini-run. A path is a "/" at the start of a string or after
// white space, a quote, "(" or "=" (so "src/x" and "</tag>" are not).
func scratchPathsOnly(b []byte) error {
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
				if p := m[1]; p != "/tmp/cairn-gemini-work" && !strings.HasPrefix(p, "/tmp/cairn-gemini-work/") && !strings.HasPrefix(p, "/tmp/cairn-gemini-run/") {
					bad = append(bad, p)
				}
			}
		}
	}
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("a line that is not JSON: %w", err)
		}
		walk(v)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("it names paths outside the scratch folders: %q", bad)
	}
	return nil
}

var absPath = regexp.MustCompile("(?:^|[\\s\"'`(=])(/[^\\s\"'`<>()\\[\\],;]*)")

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if strings.ContainsAny(s, " \"'") {
			out[i] = fmt.Sprintf("%q", s)
		} else {
			out[i] = s
		}
	}
	return out
}

// mcpHang runs an MCP server as a child and relays its stdio, except that a
// tools/call of one tool is never forwarded (so it never returns): the proxy
// touches the marker file instead, for the runner to interrupt the CLI.
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

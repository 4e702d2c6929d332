//go:build unix

// Command capture runs the real Claude Code CLI offline against a scripted
// Messages API and a stdio cairn-memory MCP server, once per scenario, and
// keeps exactly what claude printed on stdout as
// testdata/claude/real/<VERSION>/<scenario>.jsonl, with a <scenario>.shape.txt
// (record types, block types, member names and JSON types, never values) so
// that a re-run shows protocol drift as a diff, and a want.json with the
// verdict that SPEC §9/§6 demand.
//
// It must run inside a network namespace with only loopback
// (scripts/claude-real/run.sh does that); it refuses to run when it sees any
// other network interface that is up.
//
//	capture -claude PATH -version V -mcpserver PATH -out DIR [-only a,b]
//	capture -shape FILE.jsonl     (print the shape of a capture)
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
	"strings"
	"syscall"
	"time"
)

const apiAddr = "127.0.0.1:18181"

func main() {
	var (
		claude    = flag.String("claude", "", "path of the claude binary")
		version   = flag.String("version", "", "its version (the output folder's name)")
		mcpserver = flag.String("mcpserver", "", "path of the built scripts/claude-real/mcpserver")
		out       = flag.String("out", "", "output folder, testdata/claude/real/<VERSION>")
		scratch   = flag.String("scratch", "/tmp/cairn-claude-run", "scratch folder (HOME, config, logs)")
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
	if *claude == "" || *version == "" || *mcpserver == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := onlyLoopback(); err != nil {
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
	var summary []string
	failed := 0
	selected := len(want) > 0
	for _, sc := range allScenarios() {
		if selected && !want[sc.name] {
			continue
		}
		delete(want, sc.name)
		start := time.Now()
		res, err := run(sc, *claude, *mcpserver, *out, *scratch+"/"+*version+"/"+sc.name)
		line := fmt.Sprintf("%-22s claude exit %d, %d stdout lines, %d API requests, %.1fs", sc.name, res.exit, res.lines, res.requests, time.Since(start).Seconds())
		if err != nil {
			line += " ERROR: " + err.Error()
			failed++
		}
		fmt.Println(line)
		summary = append(summary, line)
		if err == nil {
			if err := updateWant(filepath.Join(*out, "want.json"), sc.name+".jsonl", sc.want.Verdict()); err != nil {
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

func run(sc *scenario, claude, mcpserver, out, scratch string) (result, error) {
	var res result
	home := scratch + "/home"
	if err := os.RemoveAll(scratch); err != nil {
		return res, err
	}
	if err := os.MkdirAll(scratch+"/debug", 0o755); err != nil {
		return res, err
	}
	if err := os.MkdirAll(home+"/.claude", 0o755); err != nil {
		return res, err
	}
	if err := layWorkDir(); err != nil {
		return res, err
	}
	// The MCP config.
	cmd, args := mcpserver, append([]string{"-name", "cairn-memory"}, sc.mcpArgs...)
	if sc.mcpCmd != "" {
		cmd, args = sc.mcpCmd, nil
	}
	srv := map[string]any{"type": "stdio", "command": cmd, "args": args}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{sc.serverName(): srv}})
	mcpPath := scratch + "/mcp.json"
	if err := os.WriteFile(mcpPath, cfg, 0o644); err != nil {
		return res, err
	}

	api, err := startMockAPI(apiAddr, sc, scratch+"/requests.log", scratch+"/debug")
	if err != nil {
		return res, err
	}
	defer api.close()

	allowed := []string{"ToolSearch", "Bash", "Read", "Agent", "Task", mt(sc.serverName(), "memory_search")}
	allowed = append(allowed, sc.allow...)
	argv := []string{"-p"}
	if len(sc.prompts) == 0 {
		argv = append(argv, prompt)
	}
	argv = append(argv, "--output-format", "stream-json", "--verbose",
		"--mcp-config", mcpPath, "--strict-mcp-config",
		"--permission-mode", sc.permissionMode(),
		"--allowedTools", strings.Join(allowed, ","))
	if len(sc.disallow) > 0 {
		argv = append(argv, "--disallowedTools", strings.Join(sc.disallow, ","))
	}
	if len(sc.prompts) > 0 {
		argv = append(argv, "--input-format", "stream-json")
	}
	argv = append(argv, sc.args...)
	_ = os.WriteFile(scratch+"/argv.txt", []byte(strings.Join(argv, "\n")+"\n"), 0o644)

	c := exec.Command(claude, argv...)
	c.Dir = workDir
	c.Env = append([]string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + home + "/.claude",
		"ANTHROPIC_BASE_URL=http://" + apiAddr,
		"ANTHROPIC_API_KEY=sk-ant-api03-cairn-offline-fake-key-0000000000000000",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=2",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
	}, sc.env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := os.Create(scratch + "/stderr.txt")
	if err != nil {
		return res, err
	}
	defer stderr.Close()
	c.Stderr = stderr
	var stdin io.WriteCloser
	if len(sc.prompts) > 0 {
		if stdin, err = c.StdinPipe(); err != nil {
			return res, err
		}
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return res, err
	}
	outPath := filepath.Join(out, sc.name+".jsonl")
	of, err := os.Create(outPath)
	if err != nil {
		return res, err
	}
	if err := c.Start(); err != nil {
		of.Close()
		return res, err
	}
	pid := c.Process.Pid
	results := make(chan struct{}, 8)
	copied := make(chan error, 1)
	go func() {
		// Copy every byte as is; watch line by line for result records.
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := of.Write(line); werr != nil {
					copied <- werr
					return
				}
				if bytes.Contains(line, []byte(`"type":"result"`)) {
					results <- struct{}{}
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				copied <- err
				return
			}
		}
	}()
	if stdin != nil {
		go func() {
			for i, p := range sc.prompts {
				if i > 0 {
					select {
					case <-results:
					case <-time.After(120 * time.Second):
					}
				}
				msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
				stdin.Write(append(msg, '\n'))
			}
			select {
			case <-results:
			case <-time.After(120 * time.Second):
			}
			stdin.Close()
		}()
	}
	interrupt := func(why string) {
		time.Sleep(1500 * time.Millisecond)
		fmt.Fprintf(stderr, "capture: sending SIGINT to claude (%s)\n", why)
		_ = syscall.Kill(pid, syscall.SIGINT)
	}
	done := make(chan struct{})
	if sc.sigint {
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := os.Stat(bashMarker); err == nil {
					interrupt("the long Bash command is running")
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
	timer := time.AfterFunc(180*time.Second, func() {
		fmt.Fprintln(stderr, "capture: timeout, killing claude")
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
	cerr := <-copied
	werr := c.Wait()
	timer.Stop()
	close(done)
	// Whatever claude left behind in its process group (a Bash child).
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
	b, err := os.ReadFile(outPath)
	if err != nil {
		return res, err
	}
	res.lines = bytes.Count(b, []byte("\n"))
	if err := os.WriteFile(filepath.Join(out, sc.name+".shape.txt"), shape(b), 0o644); err != nil {
		return res, err
	}
	// The request log is the mock's side of the run: keep it beside the capture.
	if lb, err := os.ReadFile(scratch + "/requests.log"); err == nil {
		meta := fmt.Sprintf("# claude argv (after the binary): %s\n# claude exit code: %d\n", strings.Join(quoteAll(argv), " "), res.exit)
		if len(sc.env) > 0 {
			meta += "# extra env: " + strings.Join(sc.env, " ") + "\n"
		}
		if err := os.WriteFile(filepath.Join(out, sc.name+".requests.txt"), append([]byte(meta), lb...), 0o644); err != nil {
			return res, err
		}
	}
	if res.lines == 0 {
		return res, fmt.Errorf("claude printed nothing (see %s/stderr.txt)", scratch)
	}
	return res, nil
}

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

//go:build unix

package capturekit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairn-audit/cairn/scripts/capturekit/mock"
)

// Run is one scenario's run of a CLI: its folders, the mock, and what it
// left to keep. A CLI's Run function lays its configuration, starts the
// mock and the CLI through it, and keeps what the CLI printed.
type Run struct {
	Version string
	Install *Install
	Out     string // the version's folder under testdata
	Scratch string // this run's scratch folder: HOME, logs, the request log
	Home    string // Scratch/home
	WorkDir string // the project the CLI works in
	Addr    string // the mock's
	Prompt  string // the scenarios' prompt
	// Self and MCPServer are the kit's binaries: `capture` (its mcp-hang
	// and mcp-slow proxies) and the scripted MCP server.
	Self, MCPServer string
	Mock            *mock.Server
	// Seeded is the requests.txt line that says what the scenario's
	// server was seeded with ("" when nothing was).
	Seeded string

	spec *common
	kept []string
}

// common is what the runner needs of a Spec whatever its row type.
type common struct {
	Name, Addr, WorkDir, Scratch string
	Timeout                      time.Duration
	Allowed                      []string
}

// Lay makes the run's folders anew: the scratch folder with home and
// debug, and dirs under home; the demo project in the work folder.
func (r *Run) Lay(dirs ...string) error {
	if err := os.RemoveAll(r.Scratch); err != nil {
		return err
	}
	for _, d := range append([]string{r.Scratch + "/debug", r.Home}, dirs...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(r.Home, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return LayWorkDir(r.WorkDir)
}

// LayWorkDir lays the demo project every agent but Codex works in at dir,
// afresh.
func LayWorkDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir+"/src", 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dir+"/README.md", []byte("# demo project\n\nA tiny release ledger.\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(dir+"/src/release-ledger.mjs", []byte("// amounts are integer cents\nexport function total(xs) { return xs.reduce((a, b) => a + b, 0); }\n"), 0o644)
}

// WriteJSON writes v to path, indented by two spaces, with a final
// newline.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Serve starts the mock with h; its request log is Scratch/requests.log.
func (r *Run) Serve(h mock.Handler) error {
	m, err := mock.Start(r.spec.Addr, h, r.Scratch+"/requests.log", r.Scratch+"/debug")
	r.Mock = m
	return err
}

// ServeChat, ServeMessages and ServeGenerative serve scenario s: they seed
// its MCP server's store (Seed, when it has seed calls) and start the
// mock of one API family with its script, asked with the run's prompt:
// OpenAI chat completions (with the CLI's quirks, opts, if any), Anthropic
// Messages (search is the CLI's tool-search tool), Gemini's Generative
// Language (sub is its sub-agent tool).
func (r *Run) ServeChat(s *Scenario, opts ...mock.ChatOptions) error {
	var o mock.ChatOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return r.serve(s, mock.Chat(s.Script(r.Prompt), o))
}

func (r *Run) ServeMessages(s *Scenario, search string) error {
	return r.serve(s, mock.Messages(s.Script(r.Prompt), search))
}

func (r *Run) ServeGenerative(s *Scenario, sub string) error {
	return r.serve(s, mock.Generative(s.Script(r.Prompt), sub))
}

func (r *Run) serve(s *Scenario, h mock.Handler) (err error) {
	if r.Seeded, err = r.Seed(&s.Server); err != nil {
		return err
	}
	return r.Serve(h)
}

// Cmd is how the CLI is run.
type Cmd struct {
	Argv []string // the program and its arguments
	Env  []string // its whole environment
	// Stdout is where stdout goes, byte for byte; Stderr a file name in
	// the scratch folder (default stderr.txt).
	Stdout, Stderr string
	// Stdin feeds stdin (nil: /dev/null).
	Stdin func(w io.WriteCloser)
	// OnLine sees every stdout line as it comes.
	OnLine func(p *Proc, line []byte)
	// Signal interrupts the CLI (default SIGINT) when the mock stalls, one
	// of the Markers files appears (its value says why), or After has
	// passed since the CLI's first request to the mock; it goes
	// to the process group when Group, else to the process. Wait is the
	// pause between the cause and the signal (default 1.5 s).
	Signal  syscall.Signal
	Group   bool
	Markers map[string]string
	After   time.Duration
	Wait    time.Duration
	// PIDNamespace runs the CLI in a PID namespace of its own (unshare
	// -pf --mount-proc), under a bash that waits for it: what the CLI
	// leaves running (Cline's hub daemon) ends with it, even outside its
	// process group. bash, not sh: dash, as the namespace's init, exits
	// 130 after an interrupted child that exited 0.
	PIDNamespace bool
}

// Cmd is how a CLI runs scenario s unless it says otherwise: the
// installed program with args; PATH, HOME, env, LANG, TZ, TERM and the
// scenario's env; stdout into the scratch folder; the scenario's signal
// when a hung MCP call's marker appears or its Interrupt has passed.
func (r *Run) Cmd(s *Scenario, args []string, env ...string) Cmd {
	c := Cmd{
		Argv:    append(r.Install.Argv, args...),
		Env:     append(append(append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + r.Home}, env...), "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb"), s.Env...),
		Stdout:  r.Scratch + "/stdout.jsonl",
		Markers: r.HangMarker(&s.Server),
		After:   s.Interrupt,
	}
	if s.Signal == "SIGTERM" {
		c.Signal = syscall.SIGTERM
	}
	return c
}

// Proc is a finished run of the CLI.
type Proc struct {
	// Exit is its exit code, or 128+N when signal N killed it (as a shell
	// says); Killed names that signal.
	Exit   int
	Killed string
	// Interrupted says why the runner interrupted it ("" = it did not).
	Interrupted string
	TimedOut    bool
	Lines       int // stdout lines
	Stdout      []byte
	Signal      syscall.Signal

	mu        sync.Mutex
	pid       int
	group     bool
	done      chan struct{}
	stderr    io.Writer
	interrupt sync.Once
}

// Interrupt sends the Cmd's signal after wait, once, unless the CLI has
// ended by then.
func (p *Proc) Interrupt(why string, wait time.Duration) {
	p.interrupt.Do(func() {
		go func() {
			select {
			case <-p.done:
				return
			case <-time.After(wait):
			}
			p.mu.Lock()
			p.Interrupted = why
			p.mu.Unlock()
			fmt.Fprintf(p.stderr, "\ncapture: sending %s (%s)\n", SignalName(p.Signal), why)
			pid := p.pid
			if p.group {
				pid = -pid
			}
			_ = syscall.Kill(pid, p.Signal)
		}()
	})
}

// SignalName is a signal as the READMEs say it.
func SignalName(sig syscall.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// Exec runs the CLI to its end (or its timeout, when its whole process
// group is killed) and whatever it left behind in its process group.
func (r *Run) Exec(c Cmd) (*Proc, error) {
	if c.Signal == 0 {
		c.Signal = syscall.SIGINT
	}
	if c.Wait == 0 {
		c.Wait = 1500 * time.Millisecond
	}
	if c.Stderr == "" {
		c.Stderr = "stderr.txt"
	}
	if c.PIDNamespace {
		c.Argv = append([]string{"unshare", "--pid", "--fork", "--mount-proc", "--", "/bin/bash", "-c", `"$@"; exit $?`, "bash"}, c.Argv...)
	}
	stderr, err := os.Create(filepath.Join(r.Scratch, c.Stderr))
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = r.WorkDir, c.Env, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdin io.WriteCloser
	if c.Stdin != nil {
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	of, err := os.Create(c.Stdout)
	if err != nil {
		return nil, err
	}
	defer of.Close()
	_ = os.WriteFile(filepath.Join(r.Scratch, strings.TrimSuffix(c.Stderr, ".txt")+"-argv.txt"), []byte(strings.Join(c.Argv, "\n")+"\n"), 0o644)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{pid: cmd.Process.Pid, group: c.Group, done: make(chan struct{}), stderr: stderr, Signal: c.Signal}
	if stdin != nil {
		go c.Stdin(stdin)
	}
	copied := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := of.Write(line); werr != nil {
					copied <- werr
					return
				}
				if c.OnLine != nil {
					c.OnLine(p, line)
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
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		var first, after <-chan time.Time
		if c.After > 0 && r.Mock != nil {
			first = r.Mock.First()
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-r.hung():
				p.Interrupt("the answer is streaming", c.Wait)
			case <-first:
				first, after = nil, time.After(c.After)
			case <-after:
				p.Interrupt(fmt.Sprintf("still running after %s", c.After), c.Wait)
			case <-tick.C:
				for m, why := range c.Markers {
					if _, err := os.Stat(m); err == nil {
						p.Interrupt(why, c.Wait)
					}
				}
			}
		}
	}()
	timer := time.AfterFunc(r.spec.Timeout, func() {
		p.TimedOut = true
		fmt.Fprintf(stderr, "capture: timeout, killing %s\n", r.spec.Name)
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	})
	cerr := <-copied
	werr := cmd.Wait()
	timer.Stop()
	close(p.done)
	watch.Wait()
	// Whatever the CLI left behind in its process group (MCP servers, shells).
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	if cerr != nil {
		return p, cerr
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return p, werr
	}
	p.Exit = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		p.Exit, p.Killed = 128+int(ws.Signal()), ws.Signal().String()
	}
	if p.Stdout, err = os.ReadFile(c.Stdout); err != nil {
		return p, err
	}
	p.Lines = strings.Count(string(p.Stdout), "\n")
	return p, nil
}

// hung is the mock's stall signal (never, without a mock).
func (r *Run) hung() <-chan struct{} {
	if r.Mock == nil {
		return nil
	}
	return r.Mock.Hung()
}

// ExitText is the exit code, with the signal that killed the CLI.
func (p *Proc) ExitText() string {
	if p.Killed != "" {
		return fmt.Sprintf("%d (killed by %s)", p.Exit, p.Killed)
	}
	return fmt.Sprint(p.Exit)
}

// Capture keeps (Keep) as name what a scenario keeps: the CLI's stdout,
// or with Keep "session" the one session file the CLI wrote under HOME
// that glob (relative to HOME) matches; note says which for the
// requests.txt.
func (r *Run) Capture(s *Scenario, p *Proc, glob, name string, shape func([]byte) []byte) (note string, err error) {
	b := p.Stdout
	if s.Keep == "session" {
		found, _ := filepath.Glob(filepath.Join(r.Home, glob))
		if len(found) != 1 {
			return "", fmt.Errorf("want one session file ~/%s, found %d", glob, len(found))
		}
		if b, err = os.ReadFile(found[0]); err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(r.Home, found[0])
		note = "# " + s.Name + ".jsonl is not stdout but the session file ~/" + rel + "\n"
	}
	return note, r.Keep(name, b, shape)
}

// Keep writes a capture into the version's folder: name (a .jsonl or
// .json file; a scenario named FOLDER/NAME keeps it in that folder) and its
// shape (name's stem + .shape.txt). Check then makes sure it names no path
// outside the kit's folders.
func (r *Run) Keep(name string, b []byte, shape func([]byte) []byte) error {
	path := filepath.Join(r.Out, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
	if err := os.WriteFile(filepath.Join(r.Out, stem+".shape.txt"), shape(b), 0o644); err != nil {
		return err
	}
	r.kept = append(r.kept, name)
	return nil
}

// Requests writes <scenario>.requests.txt: meta (how the CLI was run),
// then the mock's request log.
func (r *Run) Requests(scenario, meta string) error {
	lb, _ := os.ReadFile(r.Scratch + "/requests.log")
	path := filepath.Join(r.Out, scenario+".requests.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(meta), lb...), 0o644)
}

// Finish writes <scenario>.requests.txt and checks the run.
func (r *Run) Finish(scenario, meta string, p *Proc, want int) error {
	if err := r.Requests(scenario, meta); err != nil {
		return err
	}
	return r.Check(p, want)
}

// Check fails a run that printed nothing or ended with another exit code
// than want (-1: any but 0), and a capture that names a path outside the
// kit's folders.
func (r *Run) Check(p *Proc, want int) error {
	for _, name := range r.kept {
		b, err := os.ReadFile(filepath.Join(r.Out, name))
		if err != nil {
			return err
		}
		if bad := r.foreignPaths(b); len(bad) > 0 {
			return fmt.Errorf("%s names paths outside the kit's folders: %q", name, bad)
		}
	}
	switch {
	case p.Lines == 0:
		return fmt.Errorf("%s printed nothing (see %s/stderr.txt)", r.spec.Name, r.Scratch)
	case want == -1 && p.Exit == 0, want != -1 && p.Exit != want:
		return fmt.Errorf("exit code %d, the scenario expects %d (see %s/stderr.txt)", p.Exit, want, r.Scratch)
	}
	return nil
}

// absPath finds absolute paths in a string: a "/" and a name character at
// its start or after white space, a quote, "(" or "=" (so "src/x",
// "</tag>" and a "//" comment are not).
var absPath = regexp.MustCompile("(?:^|[\\s\"'`(=])(/[A-Za-z0-9._~-][^\\s\"'`<>()\\[\\],;]*)")

// foreignPaths are the absolute paths in any JSON string of b (a JSONL
// file or one document) outside the work folder, the scratch folders, the
// npm caches and built helpers, the spec's Allowed and a few system
// folders: nothing of the machine the kit ran on may go into testdata
// beyond those.
func (r *Run) foreignPaths(b []byte) []string {
	name := r.spec.Name
	allowed := append([]string{r.WorkDir, r.spec.Scratch, "/tmp/cairn-" + name + "-npm", filepath.Dir(r.Self), "/tmp/cairn-mcp-npm", "/bin/", "/usr/", "/dev/null", "/tmp"}, r.spec.Allowed...)
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
				if !under(m[1], allowed) {
					seen[m[1]] = true
				}
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		walk(v)
	}
	return sortedKeys(seen)
}

// under says whether path is one of dirs or lies below one ("/tmp" only
// itself).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		d = strings.TrimSuffix(d, "/")
		if path == d || d != "/tmp" && strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// Quote is argv as a shell line would show it, quoting what needs it.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, s := range argv {
		if strings.ContainsAny(s, " \"'*?") {
			s = fmt.Sprintf("%q", s)
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}

// Compact is v as compact JSON (for a config file in a requests.txt).
func Compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

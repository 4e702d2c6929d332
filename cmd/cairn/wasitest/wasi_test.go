package wasitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-audit/cairn/scripts/testbuild"
)

// A run is one invocation of cairn: its arguments, its working directory,
// and its standard input (a file's path, or "" for none).
type run struct {
	name  string
	args  []string
	dir   string
	stdin string
	// pipe gives the input on a pipe rather than as a file; at most one
	// run in a test does so under Node (the Node process's own stdin).
	pipe bool
}

// result is what a run printed and its exit code.
type result struct {
	stdout, stderr string
	exit           int
}

// formats are the input formats with their flag, their controls (every
// file of testdata/controls) and one real capture each (the trajectory
// has none).
var formats = []struct {
	flag     string
	controls []string
	real     string
}{
	{"--codex-jsonl", []string{"controls/protocol-codex.jsonl"}, "codex/real/0.171.0/shell-first.jsonl"},
	{"--claude-jsonl", []string{"controls/protocol-claude.jsonl", "controls/protocol-claude-command-first.jsonl"}, "claude/real/2.1.332/parallel-calls.jsonl"},
	{"--gemini-jsonl", []string{"controls/protocol-gemini.jsonl"}, "gemini/real/0.61.0/parallel-calls.jsonl"},
	{"--pi-jsonl", []string{"controls/protocol-pi.jsonl"}, "pi/real/1.6.0/parallel-calls.jsonl"},
	{"--opencode-jsonl", []string{"controls/protocol-opencode.jsonl"}, "opencode/real/1.18.33/bash-first.jsonl"},
	{"--opencode-export", nil, "opencode/real/1.18.33/memory-first.export.json"},
	{"--copilot-jsonl", []string{"controls/protocol-copilot.jsonl"}, "copilot/real/1.0.102/parallel-calls.jsonl"},
	{"--qwen-jsonl", []string{"controls/protocol-qwen.jsonl", "controls/protocol-qwen-bridge.jsonl"}, "qwen/real/0.24.4/parallel-calls.jsonl"},
	{"--cline-jsonl", []string{"controls/protocol-cline.jsonl"}, "cline/real/3.0.65/parallel-read-first.jsonl"},
	{"--trajectory", []string{"controls/protocol-narration.json", "controls/protocol-project-search.json"}, ""},
}

// TestWASIMatchesNative builds cairn natively and for wasip1 and checks
// that the module, run under Node's WASI, prints what the native binary
// prints, byte for byte, with the same exit code: on every format's
// control and a real capture, from a file, from stdin (a file and a pipe),
// as JSON and as the human report, and on the refusals of SPEC §3.
func TestWASIMatchesNative(t *testing.T) {
	node := findNode(t)
	dir := t.TempDir()
	native, wasm := binaries(t)

	testdata, err := filepath.Abs("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	runs := cases(t, testdata, dir)

	// Node runs the module while the native binary runs here.
	start := time.Now()
	wait := underNode(t, node, wasm, dir, runs)
	want := make([]result, len(runs))
	for i, r := range runs {
		want[i] = runNative(t, native, r)
	}
	got := wait()
	t.Logf("%d runs under %s in %v", len(runs), node, time.Since(start).Round(time.Millisecond))
	for i, r := range runs {
		if want := want[i]; got[i] != want {
			t.Errorf("%s: cairn %s\nwasm:   exit %d, stdout %q, stderr %q\nnative: exit %d, stdout %q, stderr %q",
				r.name, strings.Join(r.args, " "), got[i].exit, got[i].stdout, got[i].stderr, want.exit, want.stdout, want.stderr)
		}
	}
}

// TestWASITerminalStdin checks that standard input from a terminal is a
// usage error under WASI too, never a read that waits for typing (SPEC
// §2): both binaries run with a pseudo-terminal as stdin, made by
// script(1).
func TestWASITerminalStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the terminal case is left out")
	}
	node := findNode(t)
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to make a terminal: stdin from a terminal is not compared")
	}
	native, wasm := binaries(t)
	dir := t.TempDir()
	driver, err := filepath.Abs("testdata/run.mjs")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"eval", "protocol", "--codex-jsonl", "-", "--json"}
	out := func(name string) string { return filepath.Join(dir, name) }
	jobs := fmt.Sprintf(`[{"args":["eval","protocol","--codex-jsonl","-","--json"],"env":{"CAIRN_EVAL":"1"},"cwd":%q,"stdin":"-","stdout":%q,"stderr":%q}]`,
		dir, out("wasm.out"), out("wasm.err"))
	write(t, out("jobs.json"), jobs)
	inPTY := func(command string) int {
		cmd := exec.Command(script, "-qec", command, "/dev/null")
		cmd.Env = append(os.Environ(), "CAIRN_EVAL=1")
		b, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("script -qec %s: %v\n%s", command, err, b)
		}
		return cmd.ProcessState.ExitCode()
	}
	nativeExit := inPTY(fmt.Sprintf("%s %s >%s 2>%s", quote(native), strings.Join(args, " "), quote(out("native.out")), quote(out("native.err"))))
	if code := inPTY(fmt.Sprintf("%s --no-warnings %s %s %s >%s", quote(node), quote(driver), quote(wasm), quote(out("jobs.json")), quote(out("codes")))); code != 0 {
		t.Fatalf("node under script exited %d", code)
	}
	want := result{read(t, out("native.out")), read(t, out("native.err")), nativeExit}
	got := result{read(t, out("wasm.out")), read(t, out("wasm.err")), -1}
	if codes := strings.TrimSpace(read(t, out("codes"))); codes != "2" {
		t.Errorf("node printed exit code %s, want 2", codes)
	} else {
		got.exit = 2
	}
	if got != want || want.exit != 2 {
		t.Errorf("stdin a terminal:\nwasm:   exit %d, stdout %q, stderr %q\nnative: exit %d, stdout %q, stderr %q",
			got.exit, got.stdout, got.stderr, want.exit, want.stdout, want.stderr)
	}
}

// quote quotes s for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cases are the runs to compare; inputs that must be refused are made in
// dir.
func cases(t *testing.T, testdata, dir string) []run {
	var runs []run
	piped := false
	controls := 0
	for _, f := range formats {
		controls += len(f.controls)
		ins := f.controls
		if f.real != "" && !testing.Short() {
			ins = append(ins[:len(ins):len(ins)], f.real)
		}
		for i, in := range ins {
			path := filepath.Join(testdata, in)
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(f.flag, "--") + " " + in
			runs = append(runs,
				run{name: name + " file", args: []string{"eval", "protocol", f.flag, path, "--json"}},
				run{name: name + " stdin", args: []string{"eval", "protocol", f.flag, "-", "--json"}, stdin: path, pipe: !piped})
			piped = true
			if i == 0 || len(f.controls) == 0 {
				runs = append(runs, run{name: name + " human", args: []string{"eval", "protocol", f.flag, path}})
			}
		}
	}
	if all, _ := filepath.Glob(filepath.Join(testdata, "controls", "*")); len(all) != controls {
		t.Fatalf("testdata/controls holds %d files, formats lists %d", len(all), controls)
	}
	runs = append(runs, run{name: "batch of the controls", args: append([]string{"eval", "batch", "--format", "codex-jsonl", "--json"},
		filepath.Join(testdata, "controls/protocol-codex.jsonl"), filepath.Join(testdata, "controls/protocol-claude.jsonl"))})

	// The refusals of SPEC §3, and a relative path.
	in := filepath.Join(dir, "in")
	mkdir(t, in)
	write(t, filepath.Join(in, "run.jsonl"), read(t, filepath.Join(testdata, "controls/protocol-codex.jsonl")))
	write(t, filepath.Join(in, "bom.jsonl"), "\ufeff{}\n")
	write(t, filepath.Join(in, "utf16.jsonl"), "{\x00\"\x00")
	write(t, filepath.Join(in, "latin1.jsonl"), "{\"a\":\"\xe9\"}\n")
	write(t, filepath.Join(in, "empty.jsonl"), "")
	write(t, filepath.Join(in, "bad.jsonl"), "{\"type\":\"thread.started\"\n")
	big, err := os.Create(filepath.Join(in, "big.jsonl"))
	if err == nil {
		err = big.Truncate(16<<20 + 1)
	}
	if err == nil {
		err = big.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, "run.jsonl", filepath.Join(in, "link.jsonl"))
	symlink(t, in, filepath.Join(dir, "linkdir"))
	mkdir(t, filepath.Join(in, "sub"))
	fifo := ""
	if mkfifo, err := exec.LookPath("mkfifo"); err == nil && exec.Command(mkfifo, filepath.Join(in, "fifo")).Run() == nil {
		fifo = "fifo"
	}
	for _, c := range []struct {
		name, path string
		short      bool // also under -short
		human      bool // also the human report
	}{
		{"relative path", "run.jsonl", true, false},
		{"relative path up and down", "sub/../run.jsonl", false, false},
		{"absolute path", filepath.Join(in, "run.jsonl"), false, false},
		{"input_bom", "bom.jsonl", true, true},
		{"input_utf16", "utf16.jsonl", false, false},
		{"input_not_utf8", "latin1.jsonl", false, false},
		{"empty_input", "empty.jsonl", false, false},
		{"malformed record", "bad.jsonl", true, false},
		{"input_too_large", "big.jsonl", false, false},
		{"input_symlink", "link.jsonl", true, true},
		{"input_symlink parent", filepath.Join(dir, "linkdir", "run.jsonl"), false, false},
		{"input_symlink parent relative", "../linkdir/run.jsonl", false, false},
		{"input_not_regular directory", "sub", false, false},
		{"input_not_regular trailing slash", "run.jsonl/", false, false},
		{"input_not_regular device", "/dev/null", false, false},
		{"input_not_regular fifo", fifo, false, false},
		{"input_not_found", "missing.jsonl", false, true},
		{"input_not_found parent", "missing/run.jsonl", false, false},
	} {
		if c.path == "" || testing.Short() && !c.short {
			continue
		}
		runs = append(runs, run{name: c.name, args: []string{"eval", "protocol", "--codex-jsonl", c.path, "--json"}, dir: in})
		if c.human {
			runs = append(runs, run{name: c.name + " human", args: []string{"eval", "protocol", "--codex-jsonl", c.path}, dir: in})
		}
	}
	for _, name := range []string{"bom.jsonl", "empty.jsonl", "bad.jsonl"} {
		runs = append(runs, run{name: name + " stdin", args: []string{"eval", "protocol", "--codex-jsonl", "-", "--json"}, stdin: filepath.Join(in, name)})
	}
	runs = append(runs,
		run{name: "usage error", args: []string{"eval", "protocol", "--codex-jsonl", "a", "--trajectory", "b"}},
		run{name: "explain", args: []string{"explain", "input_symlink"}},
	)
	for i := range runs {
		if runs[i].dir == "" {
			runs[i].dir = dir
		}
	}
	return runs
}

// findNode is a Node with node:wasi's preview1 (Node 20 or newer), or the
// test skips.
func findNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH: the wasip1 build is not compared with the native one (install Node 20 or newer)")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Skipf("node --version failed (%v): the wasip1 build is not compared", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil || major < 20 {
		t.Skipf("node %s has no node:wasi preview1 (Node 20 or newer has): the wasip1 build is not compared", v)
	}
	return node
}

// binaries are cairn built natively and for wasip1, once for every test
// process of the suite (testbuild.Cairn: the wasip1 build of the standard
// library is a cold cross-build, minutes on a busy machine), each with a
// deadline that kills its go command's process group.
func binaries(t *testing.T) (native, wasm string) {
	t.Helper()
	return testbuild.Cairn(t), testbuild.Cairn(t, "GOOS=wasip1", "GOARCH=wasm")
}

func runNative(t *testing.T, bin string, r run) result {
	t.Helper()
	cmd := exec.Command(bin, r.args...)
	cmd.Dir = r.dir
	cmd.Env = []string{"CAIRN_EVAL=1"}
	if r.stdin != "" {
		if r.pipe {
			cmd.Stdin = bytes.NewReader([]byte(read(t, r.stdin)))
		} else {
			f, err := os.Open(r.stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", r.name, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// nodeJobs is how many runs one Node process does (see run.mjs).
const nodeJobs = 24

// underNode starts every run under Node, in processes that compile the
// module once each and run nodeJobs runs (testdata/run.mjs), and returns a function that waits for
// them and returns their results in order. Node's own warnings (node:wasi
// is experimental) go to Node's stderr, never to a run's: each run has
// files of its own for its streams.
func underNode(t *testing.T, node, wasm, dir string, runs []run) (wait func() []result) {
	t.Helper()
	type job struct {
		Args   []string          `json:"args"`
		Env    map[string]string `json:"env"`
		Cwd    string            `json:"cwd"`
		Stdin  *string           `json:"stdin"`
		Stdout string            `json:"stdout"`
		Stderr string            `json:"stderr"`
	}
	jobs := make([]job, len(runs))
	var pipe []byte
	pipeAt := -1
	for i, r := range runs {
		jobs[i] = job{
			Args:   r.args,
			Env:    map[string]string{"CAIRN_EVAL": "1"},
			Cwd:    r.dir,
			Stdout: filepath.Join(dir, fmt.Sprintf("run%d.out", i)),
			Stderr: filepath.Join(dir, fmt.Sprintf("run%d.err", i)),
		}
		if r.stdin != "" {
			stdin := r.stdin
			if r.pipe {
				stdin = "-"
				pipe, pipeAt = []byte(read(t, r.stdin)), i
			}
			jobs[i].Stdin = &stdin
		}
	}
	b, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	jobsPath := filepath.Join(dir, "jobs.json")
	write(t, jobsPath, string(b))
	driver, err := filepath.Abs("testdata/run.mjs")
	if err != nil {
		t.Fatal(err)
	}
	// start runs the jobs from first on, nodeJobs of them at most; the one
	// that reads a pipe gets its bytes when it is among them. Node gets a
	// deadline of its own, which kills its process group.
	ctx := testbuild.Context(t, testbuild.Deadline)
	start := func(first int) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
		end := min(first+nodeJobs, len(runs))
		cmd = testbuild.Command(ctx, node, "--no-warnings", "--expose-gc", driver, wasm, jobsPath, strconv.Itoa(first), strconv.Itoa(end))
		if first <= pipeAt && pipeAt < end {
			cmd.Stdin = bytes.NewReader(pipe)
		}
		stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, stdout, stderr
	}
	cmd, stdout, stderr := start(0)
	return func() []result {
		t.Helper()
		var codes []int
		for crashes := 0; ; {
			first := len(codes)
			err := cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("node did not finish its runs before the deadline: its process group was killed")
			}
			for _, line := range strings.Fields(stdout.String()) {
				code, err := strconv.Atoi(line)
				if err != nil {
					t.Fatalf("node printed %q, not an exit code; its stderr:\n%s", line, stderr.Bytes())
				}
				codes = append(codes, code)
			}
			switch {
			case err == nil && len(codes) == min(first+nodeJobs, len(runs)):
			case err != nil && cmd.ProcessState.ExitCode() == -1 && crashes < 3:
				// Node 20 dies of a signal now and then among many WASI
				// instances (see run.mjs): three times is Node's.
				crashes++
				t.Logf("node died (%v) after %d of %d runs: started again from there", err, len(codes), len(runs))
			default:
				t.Fatalf("node %s: %v after %d of %d runs; its stderr:\n%s", driver, err, len(codes), len(runs), stderr.Bytes())
			}
			if len(codes) == len(runs) {
				break
			}
			cmd, stdout, stderr = start(len(codes))
		}
		results := make([]result, len(runs))
		for i := range runs {
			results[i] = result{read(t, jobs[i].Stdout), read(t, jobs[i].Stderr), codes[i]}
		}
		return results
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here (%v)", err)
	}
}

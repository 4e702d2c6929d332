//go:build unix

package capturekit

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Spec is one captured CLI: what the kit needs to know of it. S is its
// scenario row type, a struct that embeds Scenario.
type Spec[S any, P row[S]] struct {
	// Name is the subcommand, the testdata folder (testdata/NAME/real,
	// unless Root) and
	// the program's name in messages; the CLI works in /tmp/cairn-NAME-work,
	// a run's HOME and logs are under /tmp/cairn-NAME-run/VERSION/SCENARIO,
	// npm installs into /tmp/cairn-NAME-npm/VERSION.
	Name string
	// Versions are captured when none are named, newest first.
	Versions []string
	// Files hold scenarios.yaml, and readme_head.md and readme_tail.md
	// around the README's scenario lines.
	Files fs.FS
	// Prompt is the scenarios' prompt unless one says otherwise ("" = the
	// kit's Prompt).
	Prompt string
	// Addr is the mock's address.
	Addr string
	// Allowed are more path prefixes a capture may name (the CLI's own
	// temporary folders).
	Allowed []string
	// Root is the testdata folder of the version folders (default
	// testdata/NAME/real).
	Root string
	// CompactWant writes want.json one entry a line.
	CompactWant bool
	// Install installs the CLI (i.NPM) and says how to run it (i.Argv,
	// i.VersionArgv); the same function locates an installed CLI inside
	// the network namespace, where i.NPM installs nothing.
	Install func(i *Install) error
	// Select says whether a scenario runs with this install (nil: all).
	Select func(s P, i *Install) bool
	// Run runs one scenario: lay the configuration, serve the mock, run
	// the CLI, keep its output (r.Keep, r.Requests) and check it.
	Run func(r *Run, s P) error
	// Shape is the shape of a capture (for `capture NAME shape FILE`).
	Shape func(name string, b []byte) []byte
	// Wants are the verdicts want.json gives the captures of a scenario in
	// a version's folder (nil: <name>.jsonl gets the scenario's want).
	Wants func(dir string, s P) map[string]Verdict
	// Inventory is a version folder's inventory.txt (nil: none).
	Inventory func(dir string, ss []P) ([]byte, error)
	// ReadmeLine is a scenario's line in testdata/NAME/real/README.md;
	// Readme, for a CLI whose lines depend on its captures, all of them
	// (nil both: no README).
	ReadmeLine func(s P) (string, error)
	Readme     func(root string, ss []P) (string, error)
}

// Timeout kills a run that has not ended (a loaded machine can take a
// minute to start OpenCode).
const Timeout = 300 * time.Second

// Prompt is what every CLI but Codex is asked.
const Prompt = "What does the project memory say about the release ledger?"

// Command is a Spec ready for the command line.
type Command interface {
	name() string
	main(args []string) error
}

// Main runs `capture CLI …` for the CLIs given, `capture mcp-hang|mcp-slow
// …` through proxy; it returns the exit code.
func Main(args []string, proxy func(mode string, args []string) int, cmds ...Command) int {
	usage := func() int {
		var names []string
		for _, c := range cmds {
			names = append(names, c.name())
		}
		fmt.Fprintf(os.Stderr, "usage: capture %s [VERSION...]    (capture every scenario offline; see scripts/README.md)\n"+
			"       capture CLI run|readme|inventory|shape|list …\n"+
			"       capture mcp-hang|mcp-slow … -- CMD ARGS…\n", strings.Join(names, "|"))
		return 2
	}
	if len(args) == 0 {
		return usage()
	}
	if args[0] == "mcp-hang" || args[0] == "mcp-slow" {
		return proxy(args[0], args[1:])
	}
	for _, c := range cmds {
		if c.name() == args[0] {
			if err := c.main(args[1:]); err != nil {
				fmt.Fprintln(os.Stderr, "capture:", err)
				return 1
			}
			return 0
		}
	}
	return usage()
}

// Memory is the CLI with real memory servers from npm (SPEC §16):
// `capture NAME-memory` runs the scenarios of Files' memory folder with
// the CLI of version installed as for s, and keeps the captures in
// testdata/catalog/real/NAME/VERSION/SERVER (README: MemoryReadmeLine).
func (s *Spec[S, P]) Memory(version string) *Spec[S, P] {
	m, npm := *s, "/tmp/cairn-"+s.Name+"-npm"
	m.Name, m.Versions, m.Files, m.Root = s.Name+"-memory", []string{version}, SubFS(s.Files, "memory"), "testdata/catalog/real/"+s.Name
	m.Allowed = append(slices.Clip(s.Allowed), npm)
	m.Install = func(i *Install) error {
		i.Dir = npm + "/" + i.Version
		return s.Install(i)
	}
	m.ReadmeLine = func(sc P) (string, error) { return MemoryReadmeLine(sc.Base()), nil }
	return &m
}

func (s *Spec[S, P]) name() string { return s.Name }

func (s *Spec[S, P]) common() *common {
	return &common{Name: s.Name, Addr: s.Addr, WorkDir: "/tmp/cairn-" + s.Name + "-work", Scratch: "/tmp/cairn-" + s.Name + "-run", Timeout: Timeout, Allowed: s.Allowed}
}

// root is testdata/NAME/real, from the repository's root (the working
// folder run.sh gives).
func (s *Spec[S, P]) root() string {
	if s.Root != "" {
		return s.Root
	}
	return filepath.Join("testdata", s.Name, "real")
}

func (s *Spec[S, P]) main(args []string) error {
	src, err := fs.ReadFile(s.Files, "scenarios.yaml")
	if err != nil {
		return err
	}
	table, err := Load[S, P](src)
	if err != nil {
		return fmt.Errorf("%s scenarios: %w", s.Name, err)
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch sub {
	case "list":
		for _, sc := range table {
			fmt.Println(sc.Base().Name)
		}
		return nil
	case "shape":
		if len(args) != 2 {
			return errors.New("usage: capture " + s.Name + " shape FILE")
		}
		b, err := os.ReadFile(args[1])
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(s.Shape(filepath.Base(args[1]), b))
		return err
	case "readme":
		return s.readme(table)
	case "want":
		if len(args) != 2 {
			return errors.New("usage: capture " + s.Name + " want VERSION")
		}
		return s.rewant(args[1], table)
	case "inventory":
		if len(args) != 2 {
			return errors.New("usage: capture " + s.Name + " inventory DIR")
		}
		return s.inventory(args[1], table)
	case "run":
		return s.runAll(args[1:], table)
	}
	return s.capture(args, table)
}

func (s *Spec[S, P]) readme(table []P) error {
	var lines strings.Builder
	switch {
	case s.Readme != nil:
		text, err := s.Readme(s.root(), table)
		if err != nil {
			return err
		}
		lines.WriteString(text)
	case s.ReadmeLine != nil:
		for _, sc := range table {
			line, err := s.ReadmeLine(sc)
			if err != nil {
				return err
			}
			lines.WriteString(line)
		}
	default:
		return nil
	}
	head, err := fs.ReadFile(s.Files, "readme_head.md")
	if err != nil {
		return err
	}
	tail, err := fs.ReadFile(s.Files, "readme_tail.md")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.root(), "README.md"), []byte(string(head)+lines.String()+string(tail)), 0o644)
}

func (s *Spec[S, P]) inventory(dir string, table []P) error {
	if s.Inventory == nil {
		return nil
	}
	b, err := s.Inventory(dir, table)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "inventory.txt"), b, 0o644)
}

// capture is `capture NAME [VERSION...]`: per version, install the CLI
// and the scenarios' npm MCP servers (the one network access), clear the
// version's folder unless ONLY names scenarios, run them inside a network
// namespace with only loopback up, write the inventory; then the README.
func (s *Spec[S, P]) capture(versions []string, table []P) error {
	if os.Getuid() != 0 {
		return errors.New("needs root for unshare -n")
	}
	if len(versions) == 0 {
		versions = s.Versions
	}
	for _, v := range versions {
		if strings.Trim(v, "0123456789.") != "" || v == "" {
			return fmt.Errorf("%q is neither a version nor a subcommand (run, readme, want, inventory, shape, list)", v)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	only := os.Getenv("ONLY")
	for _, v := range versions {
		i := &Install{Version: v, Dir: fmt.Sprintf("/tmp/cairn-%s-npm/%s", s.Name, v), fetch: true}
		if err := s.Install(i); err != nil {
			return err
		}
		for _, sc := range table {
			if sv := sc.Base().Server; len(sv.NPM) > 0 {
				if err := i.server(&sv); err != nil {
					return err
				}
			}
		}
		out := filepath.Join(s.root(), v)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if only == "" {
			for _, pat := range []string{"*.jsonl", "*.json", "*.shape.txt", "*.requests.txt", "inventory.txt", "*/*.jsonl", "*/*.shape.txt", "*/*.requests.txt"} {
				old, _ := filepath.Glob(filepath.Join(out, pat))
				for _, f := range old {
					_ = os.Remove(f)
				}
			}
		}
		fmt.Printf("== capturing %s %s into %s\n", s.Name, v, out)
		start := time.Now()
		argv := []string{"-n", "bash", "-c", `ip link set lo up && exec "$@"`, "offline", self, s.Name, "run", "-version", v, "-only", only}
		c := exec.Command("unshare", argv...)
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		runErr := c.Run()
		if err := s.inventory(out, table); err != nil {
			return err
		}
		fmt.Printf("== %s done in %.0fs\n", v, time.Since(start).Seconds())
		if runErr != nil {
			return fmt.Errorf("%s %s: %w", s.Name, v, runErr)
		}
	}
	return s.readme(table)
}

// runAll is `capture NAME run -version V [-only a,b]`, inside the
// namespace.
func (s *Spec[S, P]) runAll(args []string, table []P) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	version := fs.String("version", "", "the installed version to run")
	only := fs.String("only", "", "comma-separated scenario names (default: all)")
	timeout := fs.Duration("timeout", Timeout, "kill a run after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		return errors.New("run needs -version")
	}
	if err := OnlyLoopback(); err != nil {
		return err
	}
	i := &Install{Version: *version, Dir: fmt.Sprintf("/tmp/cairn-%s-npm/%s", s.Name, *version)}
	if err := s.Install(i); err != nil {
		return err
	}
	if err := i.check(); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	for _, sc := range table {
		delete(want, sc.Base().Name)
	}
	for n := range want {
		return fmt.Errorf("no scenario %q", n)
	}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	c := s.common()
	c.Timeout = *timeout
	out := filepath.Join(s.root(), *version)
	wants := WantFile{Path: filepath.Join(out, "want.json"), Compact: s.CompactWant}
	failed := 0
	for _, sc := range table {
		name := sc.Base().Name
		if len(want) > 0 && !want[name] || s.Select != nil && !s.Select(sc, i) {
			continue
		}
		vsc, err := ForVersion[S, P](sc, *version)
		if err != nil {
			return err
		}
		scratch := filepath.Join(c.Scratch, *version, name)
		prompt := s.Prompt
		if prompt == "" {
			prompt = Prompt
		}
		r := &Run{Version: *version, Install: i, Out: out, Scratch: scratch, Home: scratch + "/home", WorkDir: c.WorkDir, Addr: s.Addr, Prompt: prompt,
			Self: self, MCPServer: filepath.Join(filepath.Dir(self), "mcpserver"), spec: c}
		start := time.Now()
		err = s.Run(r, vsc)
		requests := 0
		if r.Mock != nil {
			requests = r.Mock.Requests()
			r.Mock.Close()
		}
		line := fmt.Sprintf("%-26s %2d API requests, %5.1fs", name, requests, time.Since(start).Seconds())
		if err != nil {
			line += " ERROR: " + err.Error()
			failed++
		} else {
			if err := wants.Set(s.wants(out, vsc)); err != nil {
				return err
			}
			line += " ok: " + strings.Join(r.kept, " ")
		}
		fmt.Println(line)
	}
	if failed > 0 {
		return fmt.Errorf("%d scenarios failed", failed)
	}
	return nil
}

func (s *Spec[S, P]) wants(dir string, sc P) map[string]Verdict {
	if s.Wants != nil {
		return s.Wants(dir, sc)
	}
	return map[string]Verdict{sc.Base().Name + ".jsonl": sc.Base().Verdict()}
}

// rewant is `capture NAME want VERSION`: want.json anew from the table for
// the captures in the version's folder (after a verdict changed in the
// table, or a rule that reads the files).
func (s *Spec[S, P]) rewant(version string, table []P) error {
	dir := filepath.Join(s.root(), version)
	wants := WantFile{Path: filepath.Join(dir, "want.json"), Compact: s.CompactWant}
	if err := os.Remove(wants.Path); err != nil {
		return err
	}
	for _, sc := range table {
		vsc, err := ForVersion[S, P](sc, version)
		if err != nil {
			return err
		}
		// The captures the scenario's verdicts name that are there (a
		// CLI's Wants may name another file than <name>.jsonl).
		ws := s.wants(dir, vsc)
		for name := range ws {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				delete(ws, name)
			}
		}
		if len(ws) == 0 {
			continue
		}
		if err := wants.Set(ws); err != nil {
			return err
		}
	}
	return nil
}

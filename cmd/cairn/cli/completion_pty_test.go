//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-audit/cairn/audit/protocol"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// The completion scripts are checked the way a user meets them: a real
// bash, zsh or fish, interactive in a terminal (tmux's), loads the script
// as the guide says, a line is typed, Tab is pressed, and the test reads
// the screen. Each test skips where tmux or its shell is absent.

// The guide's lines (§19) that load each script, run here as written.
const (
	bashSource  = "source <(cairn completion bash)"
	bashInstall = "mkdir -p ~/.local/share/bash-completion/completions && cairn completion bash > ~/.local/share/bash-completion/completions/cairn"
	zshCompinit = "autoload -U compinit && compinit"
	zshSource   = "source <(cairn completion zsh)"
	zshInstall  = "mkdir -p ~/.zfunc && cairn completion zsh > ~/.zfunc/_cairn"
	zshFpath    = "fpath=(~/.zfunc $fpath)"
	fishSource  = "cairn completion fish | source"
	fishInstall = "mkdir -p ~/.config/fish/completions && cairn completion fish > ~/.config/fish/completions/cairn.fish"
)

// TestGuideHasCompletionLines: the lines the shells are tested with are
// the guide's.
func TestGuideHasCompletionLines(t *testing.T) {
	guide, err := os.ReadFile("../../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{bashSource, bashInstall, zshCompinit, zshSource, zshInstall, zshFpath, fishSource, fishInstall} {
		if !strings.Contains(string(guide), line) {
			t.Errorf("docs/guide.md does not say %q", line)
		}
	}
}

// completionHome is a home directory for the shells: a work directory with
// a directory, a directory with a space and a file with a space, and cairn
// on PATH (TestMain's: this test binary run as cairn), which the guide's
// lines run and without which fish loads no completion for it.
type completionHome struct {
	dir, work string
	env       []string
}

func newCompletionHome(t *testing.T) completionHome {
	t.Helper()
	if clitest.Race {
		// The shells start the race build of cairn dozens of times, and
		// no goroutine of cairn's is under test: go test ./... drives them.
		t.Skip("the shells are driven without the race detector")
	}
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatalf("TestMain put no cairn on PATH: %v", err)
	}
	dir := t.TempDir()
	h := completionHome{dir: dir, work: filepath.Join(dir, "w")}
	for _, d := range []string{"w/testdata", "w/dir with space"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.work, "a file.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = []string{
		"HOME=" + dir, "PATH=" + filepath.Dir(cairn) + ":/usr/local/bin:/usr/bin:/bin",
		"TERM=xterm", "LANG=C.UTF-8", "PS1=$ ", "PROMPT=$ ",
	}
	return h
}

// command is a shell run without a terminal in h's work directory and
// environment.
func (h completionHome) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = h.work, h.env
	return cmd
}

// screen is an interactive shell running in a detached tmux session.
type screen struct {
	t    *testing.T
	tmux string
	sock string
	env  []string
}

// startScreen starts argv in a 200x50 terminal in h.work.
func startScreen(t *testing.T, h completionHome, argv ...string) *screen {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux here")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Skipf("no %s here", argv[0])
	}
	// A socket path must be short (sun_path): not under t.TempDir.
	sockDir, err := os.MkdirTemp("", "cairn-tmux")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	s := &screen{t: t, tmux: tmux, sock: filepath.Join(sockDir, "s"), env: h.env}
	args := append([]string{"new-session", "-d", "-x", "200", "-y", "50", "-c", h.work}, argv...)
	s.do(args...)
	pid, err := strconv.Atoi(strings.TrimSpace(s.do("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The shell may still write its history on the way out: wait
		// for it to be gone before the home directory is removed.
		exec.Command(tmux, "-S", s.sock, "kill-server").Run()
		for i := 0; i < 400 && running(pid); i++ {
			time.Sleep(5 * time.Millisecond)
		}
	})
	return s
}

// running reports whether process pid is alive (neither gone nor a zombie
// waiting to be reaped).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}

func (s *screen) do(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.tmux, append([]string{"-f", "/dev/null", "-S", s.sock}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v: %s", args[0], err, out)
	}
	return string(out)
}

// typeKeys sends text literally, then the named keys (Tab, Enter).
func (s *screen) typeKeys(text string, keys ...string) {
	s.t.Helper()
	if text != "" {
		s.do("send-keys", "-l", text)
	}
	if len(keys) > 0 {
		s.do(append([]string{"send-keys"}, keys...)...)
	}
}

// waitFor returns the screen once every pattern matches it. A shell that
// never shows them fails the test with the screen it did show; the
// deadline only bounds the wait, nothing is timed.
func (s *screen) waitFor(patterns ...string) string {
	s.t.Helper()
	var res []*regexp.Regexp
	for _, p := range patterns {
		res = append(res, regexp.MustCompile(p))
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		text := s.do("capture-pane", "-p")
		ok := true
		for _, re := range res {
			ok = ok && re.MatchString(text)
		}
		if ok {
			return text
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", patterns, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready runs setup and waits until the shell has done it: the marker is
// printed by printf, so the typed line itself never matches.
func (s *screen) ready(setup string) {
	s.t.Helper()
	s.typeKeys(setup+"; printf '%s-%s\\n' RE ADY", "Enter")
	s.waitFor(`(?m)^RE-ADY$`)
}

// completionCase is a typed line, the keys pressed after it, and patterns
// the screen must then show.
type completionCase struct {
	typed string
	keys  []string
	want  []string
}

// tabX presses Tab and types X: what Tab inserted, and whether it put a
// space, shows before the X.
var tabX = []string{"Tab", "X"}

func runCompletionCases(t *testing.T, argv []string, setup string, cases []completionCase) {
	t.Helper()
	runCompletionCasesIn(t, newCompletionHome(t), argv, setup, cases)
}

// runCompletionCasesIn is runCompletionCases in the home h.
func runCompletionCasesIn(t *testing.T, h completionHome, argv []string, setup string, cases []completionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.typed, func(t *testing.T) {
			s := startScreen(t, h, argv...)
			s.ready(setup)
			s.typeKeys(tc.typed, tc.keys...)
			s.waitFor(tc.want...)
		})
	}
}

func TestCompletionInteractiveBash(t *testing.T) {
	bash := []string{"bash", "--norc", "--noprofile"}
	runCompletionCases(t, bash, bashSource, []completionCase{
		// A directory gets its slash and no space; a name with spaces
		// stays whole (escaped), with a space after a file.
		{"cairn eval protocol --codex-jsonl te", tabX, []string{`--codex-jsonl testdata/X`}},
		{"cairn eval protocol --claude-jsonl a", tabX, []string{`--claude-jsonl a\\ file\.jsonl X`}},
		{"cairn eval batch --format codex-jsonl di", tabX, []string{`codex-jsonl dir\\ with\\ space/X`}},
		{"cairn eval batch --format cla", tabX, []string{`--format claude-jsonl X`}},
		{"cairn help ev", tabX, []string{`cairn help eval X`}},
		{"cairn explain turn_f", tabX, []string{`cairn explain turn_failed X`}},
	})
}

// TestCompletionInteractiveBashOddNames completes file names that a list
// of names, one a line, would break: a name with a newline, and names with
// glob characters beside the names they would match. Each completed
// argument is run through a function named cairn that prints it quoted
// (%q), so the screen shows exactly the word the completion made.
func TestCompletionInteractiveBashOddNames(t *testing.T) {
	h := newCompletionHome(t)
	for _, name := range []string{"[ab].jsonl", "a.jsonl", "b.jsonl", "nl\nname.jsonl", "x*y.jsonl", "xay.jsonl"} {
		if err := os.WriteFile(filepath.Join(h.work, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bash := []string{"bash", "--norc", "--noprofile"}
	setup := bashSource + `; cairn() { printf 'ARG=%q\n' "${@: -1}"; }`
	enter := []string{"Tab", "Enter"}
	const (
		brackets = `(?m)^ARG=\\\[ab\\\]\.jsonl$`
		newline  = `(?m)^ARG=\$'nl\\nname\.jsonl'$`
		star     = `(?m)^ARG=x\\\*y\.jsonl$`
	)
	runCompletionCasesIn(t, h, bash, setup, []completionCase{
		{"cairn eval protocol --codex-jsonl [", enter, []string{brackets}},
		{"cairn eval protocol --trajectory nl", enter, []string{newline}},
		{"cairn eval protocol --claude-jsonl x*", enter, []string{star}},
		{"cairn eval batch --format codex-jsonl [", enter, []string{brackets}},
		{"cairn eval batch --json nl", enter, []string{newline}},
		{"cairn eval batch --format trajectory x*", enter, []string{star}},
	})
}

// TestCompletionInteractiveBashCompletionDir is the guide's persistent
// install for bash: the script saved in bash-completion's user directory,
// loaded on demand the first time cairn is completed.
func TestCompletionInteractiveBashCompletionDir(t *testing.T) {
	const loader = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(loader); err != nil {
		t.Skip("no bash-completion here")
	}
	bash := []string{"bash", "--norc", "--noprofile"}
	runCompletionCases(t, bash, bashInstall+" && source "+loader, []completionCase{
		{"cairn eval pro", tabX, []string{`cairn eval protocol X`}},
		{"cairn eval protocol --codex-jsonl te", tabX, []string{`--codex-jsonl testdata/X`}},
	})
}

func TestCompletionInteractiveZsh(t *testing.T) {
	zsh := []string{"zsh", "-f"}
	cases := []completionCase{
		{"cairn eval protocol --codex-jsonl te", tabX, []string{`--codex-jsonl testdata/X`}},
		{"cairn eval protocol --codex-jsonl=a", tabX, []string{`--codex-jsonl=a\\ file\.jsonl X`}},
		{"cairn eval batch --format trajectory di", tabX, []string{`trajectory dir\\ with\\ space/X`}},
		{"cairn eval batch --format cla", tabX, []string{`--format claude-jsonl X`}},
		{"cairn explain turn_f", tabX, []string{`cairn explain turn_failed X`}},
		{"cairn help ev", tabX, []string{`cairn help eval X`}},
		// Descriptions from the grammar beside commands, flags and codes.
		{"cairn eval ", []string{"Tab"}, []string{
			`(?m)^batch +-- Audit many inputs of one format in one process, a report per input\.$`,
			`(?m)^protocol +-- Audit whether an agent really used its project-memory tools\.$`}},
		{"cairn eval protocol --", []string{"Tab"}, []string{
			`(?m)^--codex-jsonl +-- Audit a codex exec --json export \(JSONL\); - reads standard input\.$`,
			`(?m)^--json +-- Print the report as one JSON object`}},
		{"cairn explain turn_", []string{"Tab"}, []string{
			`(?m)^turn_failed +-- the run ended in failure \(turn\.failed`}},
		{"cairn version -", []string{"Tab"}, []string{
			`(?m)^--help +-h +-- Show context-sensitive help\.$`,
			`(?m)^--json +-- Print the version as one JSON object\.$`}},
		// One input flag excludes the others.
		{"cairn eval protocol --codex-jsonl x --", []string{"Tab"}, []string{
			`(?m)^--capture-authorized +--`, `(?m)^--json +--`}},
	}
	t.Run("sourced", func(t *testing.T) {
		runCompletionCases(t, zsh, zshCompinit+" && "+zshSource, cases)
	})
	t.Run("fpath", func(t *testing.T) {
		runCompletionCases(t, zsh, zshInstall+" && "+zshFpath+" && "+zshCompinit, cases[:3])
	})
}

// TestCompletionZshNeedsCompinit: sourced before compinit, the script says
// what to run instead of failing on compdef.
func TestCompletionZshNeedsCompinit(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh here")
	}
	h := newCompletionHome(t)
	out, err := h.command(zsh, "-f", "-c", zshSource).CombinedOutput()
	want := `cairn completion: run "autoload -U compinit && compinit" before loading this script` + "\n"
	if err != nil || string(out) != want {
		t.Errorf("zsh -f -c 'source c.zsh': %v, %q; want %q", err, out, want)
	}
}

func TestCompletionInteractiveFish(t *testing.T) {
	fish := []string{"fish", "--no-config"}
	runCompletionCases(t, fish, fishSource, []completionCase{
		{"cairn eval protocol --codex-jsonl te", tabX, []string{`--codex-jsonl testdata/X`}},
		{"cairn eval batch --format cla", tabX, []string{`--format claude-jsonl X`}},
		{"cairn eval ", []string{"Tab"}, []string{`protocol +\(Audit whether an agent`}},
	})
}

// TestCompletionFish asks fish itself (complete -C) what it offers, with
// descriptions, from the sourced script and from the guide's persistent
// install path.
func TestCompletionFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("no fish here")
	}
	h := newCompletionHome(t)
	if out, err := h.command(fish, "--no-config", "-c", fishInstall).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", fishInstall, err, out)
	}
	// Every format of the table, as fish sorts them, with its help.
	var lines []string
	for _, f := range protocol.Formats() {
		lines = append(lines, f.Name+"\tAudit "+f.Help+"\n")
	}
	slices.Sort(lines)
	formatCompletions := strings.Join(lines, "")
	for _, tc := range []struct{ line, want string }{
		{"cairn eval ", "batch\tAudit many inputs of one format in one process, a report per input\n" +
			"protocol\tAudit whether an agent really used its project-memory tools\n" +
			"summarize\tTotal the reports of eval batch --json, from any number of shards: by status, check state and code\n"},
		{"cairn eval protocol --codex-jsonl ", "a file.jsonl\ndir with space/\ntestdata/\n"},
		{"cairn eval protocol --j", "--json\tPrint the report as one JSON object (schema cairn.eval.protocol/v1); the same as --output json\n"},
		{"cairn eval protocol --output ", "github\tGitHub Actions annotations, and a table in GITHUB_STEP_SUMMARY\n" +
			"json\tthe JSON report (schema cairn.eval.protocol/v1), as --json\n" +
			"junit\tJUnit XML, a test case per check\n" +
			"sarif\tSARIF 2.1.0, for code scanning\n" +
			"text\tthe human report (the default)\n"},
		{"cairn eval batch --paths-from ", "a file.jsonl\ndir with space/\ntestdata/\n"},
		{"cairn eval batch --shard ", ""},
		{"cairn eval summarize ", "a file.jsonl\ndir with space/\ntestdata/\n"},
		{"cairn eval batch --fail-on ", "fail\texit 1 when a check observed a violation\n" +
			"inconclusive\texit 3 when the audit is inconclusive\n" +
			"invalid\texit 2 when the input is invalid\n"},
		{"cairn eval batch --format ", formatCompletions},
		{"cairn eval batch --format=t", "--format=trajectory\tAudit a normalized Claude Code, OpenCode or Pi trajectory\n"},
		{"cairn eval batch --json te", "testdata/\n"},
		{"cairn explain turn_", "turn_failed\tthe run ended in failure (turn.failed, an error result or record, a failed or aborted attempt)\n" +
			"turn_incomplete\tthe run did not finish: the input ends before its terminal record, or the run was interrupted\n"},
		{"cairn explain capture_authorization_asserted_", "capture_authorization_asserted_by_caller\tcapture authorization is the caller's assertion, not authenticated consent\n"},
		{"cairn help ", "catalog\tList, show, check and derive memory catalogs (the memory server an audit judges)\n" +
			"completion\tPrint a shell completion script (bash, zsh or fish)\n" +
			"eval\tEvaluate saved agent sessions\n" +
			"explain\tExplain a report code and what to do about it\n" +
			"version\tPrint the version\n"},
		{"cairn help eval ", "batch\tAudit many inputs of one format in one process, a report per input\n" +
			"protocol\tAudit whether an agent really used its project-memory tools\n" +
			"summarize\tTotal the reports of eval batch --json, from any number of shards: by status, check state and code\n"},
		{"cairn completion ", "bash\nfish\nzsh\n"},
		{"cairn version -", "-h\tShow context-sensitive help\n--help\tShow context-sensitive help\n" +
			"--json\tPrint the version as one JSON object\n"},
	} {
		for _, mode := range []struct{ name, prog string }{
			{"sourced", fishSource + "; "},
			{"installed", ""}, // ~/.config/fish/completions/cairn.fish
		} {
			args := []string{"-c", mode.prog + "complete -C" + fishQuote(tc.line)}
			if mode.name == "sourced" {
				args = append([]string{"--no-config"}, args...)
			}
			out, err := h.command(fish, args...).Output()
			if err != nil || string(out) != tc.want {
				t.Errorf("%s: fish completes %q: %v\n%s\nwant\n%s", mode.name, tc.line, err, out, tc.want)
			}
		}
	}
}

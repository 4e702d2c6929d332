//go:build !wasip1

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit/protocol"
)

// The CI documents against the real consumers, where they can run here
// (SPEC §14.1 v4): every SARIF document through the SARIF multitool's
// validate with its SARIF and GitHub rules, which must report no error
// and no warning; every JUnit document through xmllint against Jenkins'
// junit-10.xsd. Each tool is found or the test skips saying how to get it
// (.ci/run installs both where it can).

// sarifMultitool is the SARIF multitool's native binary: the one
// CAIRN_SARIF_MULTITOOL names, or the platform package of npm's
// @microsoft/sarif-multitool in .ci/run's cache or npm's global folder.
// (Not the package's bin script: it runs the binary through a shell, which
// splits "Sarif;Gh".)
func sarifMultitool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CAIRN_SARIF_MULTITOOL"); p != "" {
		return p
	}
	platform := map[string]string{"windows": "win32"}[runtime.GOOS]
	if platform == "" {
		platform = runtime.GOOS
	}
	pkg := filepath.Join("@microsoft", "sarif-multitool-"+platform, "Sarif.Multitool")
	var roots []string
	if cache, err := os.UserCacheDir(); err == nil {
		roots = append(roots, filepath.Join(cache, "cairn-ci", "npm", "node_modules"))
	}
	if npm, err := exec.LookPath("npm"); err == nil {
		if out, err := exec.Command(npm, "root", "-g").Output(); err == nil {
			roots = append(roots, strings.TrimSpace(string(out)))
		}
	}
	for _, r := range roots {
		if fi, err := os.Stat(filepath.Join(r, pkg)); err == nil && fi.Mode()&0o111 != 0 {
			return filepath.Join(r, pkg)
		}
	}
	t.Skip("no SARIF multitool: npm install -g @microsoft/sarif-multitool@5.7.0, or set CAIRN_SARIF_MULTITOOL to its Sarif.Multitool (.ci/run installs it where npm is)")
	return ""
}

// consumerDoc is one document to give a consumer.
type consumerDoc struct {
	name string
	data string
}

// consumerDocs are the documents of output for every outcome: for each
// input format, the batch of all its inputs (ciInputs), which holds a
// result of every outcome, and eval protocol on one input of each outcome
// (for SARIF, whose validator is slow, of the first format only); then a
// disabled run, an empty shard and a batch stopped early. For SARIF, named are those whose inputs have a URI
// (--sarif-uri: percent-encoded paths with a space, a # and a non-ASCII
// letter), plain those with none; other formats are all plain.
func consumerDocs(t *testing.T, all map[string][]ciInput, output string) (named, plain []consumerDoc) {
	t.Helper()
	env := map[string]string{"CAIRN_EVAL": "1"}
	run := func(args ...string) string {
		_, out, _ := runCapture(args, env)
		return out
	}
	for k, f := range protocol.Formats() {
		ins := all[f.Name]
		var paths, uriArgs, uris []string
		for i, in := range ins {
			paths = append(paths, in.path)
			uris = append(uris, fmt.Sprintf("runs/run%%23%d%%20%%C3%%A9.%s", i, f.Name))
			uriArgs = append(uriArgs, "--sarif-uri", uris[i])
		}
		batch := append([]string{"eval", "batch", "--format", f.Name, "--output", output}, paths...)
		plain = append(plain, consumerDoc{f.Name + " batch", run(batch...)})
		if output == "sarif" {
			named = append(named, consumerDoc{f.Name + " batch, named", run(append(batch, uriArgs...)...)})
		}
		for _, st := range []string{"pass", "fail", "inconclusive", "invalid"} {
			if output == "sarif" && k > 0 {
				break
			}
			i := slices.IndexFunc(ins, func(in ciInput) bool { return in.status == st })
			args := []string{"eval", "protocol", "--" + f.Name, ins[i].path, "--output", output}
			plain = append(plain, consumerDoc{f.Name + " " + st, run(args...)})
			if output == "sarif" {
				named = append(named, consumerDoc{f.Name + " " + st + ", named", run(append(args, "--sarif-uri", uris[i])...)})
			}
		}
	}
	pass := mustAbs(t, "../../../testdata/controls/protocol-codex.jsonl")
	fail := mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl")
	_, disabled, _ := runCapture([]string{"eval", "batch", "--format", "codex-jsonl", "--output", output, pass, fail}, nil)
	_, disabledOne, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", pass, "--output", output}, nil)
	list := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(list, []byte(fail+"\n\n"+pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain = append(plain,
		consumerDoc{"a disabled batch", disabled},
		consumerDoc{"disabled eval protocol", disabledOne},
		consumerDoc{"an empty shard", run("eval", "batch", "--format", "codex-jsonl", "--output", output, "--shard", "3/4", pass)},
		consumerDoc{"a batch stopped early", run("eval", "batch", "--format", "codex-jsonl", "--output", output, "--paths-from", list, pass)},
	)
	for _, d := range append(named, plain...) {
		if d.data == "" {
			t.Fatalf("%s: no document", d.name)
		}
	}
	return named, plain
}

// writeDocs writes docs into dir, one file each, and returns their paths.
func writeDocs(t *testing.T, dir, ext string, docs []consumerDoc) (paths []string, names map[string]string) {
	t.Helper()
	names = map[string]string{}
	for i, d := range docs {
		p := filepath.Join(dir, fmt.Sprintf("doc%03d.%s", i, ext))
		if err := os.WriteFile(p, []byte(d.data), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		names[p] = d.name
	}
	return paths, names
}

// multitoolFindings runs the multitool's validate on files with the
// SARIF and GitHub rules and the configuration config, and returns every
// error or warning it reports (of a rule, or of the tool itself: a rule
// that crashed is ERR999), one a line, and how many files it scanned.
func multitoolFindings(t *testing.T, mt, config string, files []string) (findings []string, scanned string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	args := append([]string{"validate", "--rule-kind", "Sarif;Gh", "--config", config, "--output", out}, files...)
	cmd := exec.Command(mt, args...)
	// The multitool's .NET runtime needs no ICU for this.
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	b, _ := cmd.CombinedOutput()
	finding := regexp.MustCompile(`\b(error|warning) [A-Z]+[0-9]+`)
	// The one warning about the configuration, not a document: SARIF2006
	// is off (multitool-github.xml says why).
	disabled := regexp.MustCompile(`^SARIF\.MULTITOOL : warning WRN999\.RuleExplicitlyDisabled : Rule 'SARIF2006' was explicitly disabled`)
	for _, line := range strings.Split(string(b), "\n") {
		if finding.MatchString(line) && !disabled.MatchString(line) {
			findings = append(findings, line)
		}
	}
	if m := regexp.MustCompile(`Done\. ([0-9]+) files? scanned\.`).FindStringSubmatch(string(b)); m != nil && strings.Contains(string(b), "Analysis completed successfully") {
		scanned = m[1]
	} else {
		findings = append(findings, "the multitool did not complete:\n"+string(b))
	}
	return findings, scanned
}

// TestSARIFMultitool: the multitool reports no error or warning on any
// SARIF document of any outcome, and does on documents missing what it
// asks for (the check is not vacuous).
func TestSARIFMultitool(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the SARIF multitool takes a minute")
	}
	mt := sarifMultitool(t)
	config := mustAbs(t, "../../../testdata/sarif/multitool-github.xml")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// Documents that name no input by design (SARIF without --sarif-uri)
	// have no physical location: GH1001, which asks for one, is left off
	// for them.
	gh1001 := regexp.MustCompile(`(?s)\s*<Properties Key='GH1001\.[^']*'>.*?</Properties>`)
	if !gh1001.Match(b) {
		t.Fatal("multitool-github.xml does not turn GH1001 on")
	}
	unnamedConfig := filepath.Join(t.TempDir(), "unnamed.xml")
	if err := os.WriteFile(unnamedConfig, gh1001.ReplaceAll(b, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	named, plain := consumerDocs(t, ciInputs(t), "sarif")
	dir := t.TempDir()
	for _, set := range []struct {
		what, config string
		docs         []consumerDoc
	}{
		{"named", config, named},
		{"plain", unnamedConfig, plain},
	} {
		paths, names := writeDocs(t, filepath.Join(dir), set.what+".sarif", set.docs)
		findings, scanned := multitoolFindings(t, mt, set.config, paths)
		if scanned != fmt.Sprint(len(paths)) {
			t.Errorf("%s: the multitool scanned %s of %d documents", set.what, scanned, len(paths))
		}
		for _, f := range findings {
			for p, n := range names {
				f = strings.ReplaceAll(f, p, n)
			}
			t.Errorf("%s: %s", set.what, f)
		}
	}

	// What the multitool must refuse: the tool version cairn printed
	// before SPEC v4, rules without names, a physical location without a
	// region.
	_, good, _ := runCapture([]string{"eval", "protocol", "--codex-jsonl", mustAbs(t, "../../../testdata/codex/real/0.171.0/shell-first.jsonl"),
		"--output", "sarif", "--sarif-uri", "runs/a.jsonl"}, map[string]string{"CAIRN_EVAL": "1"})
	for _, tc := range []struct{ name, re, repl, want string }{
		{"a version that is not a number", `"version": "[^"]*",\s*"semanticVersion": "[^"]*"`, `"version": "(devel)"`, "SARIF2005"},
		{"rules without names", `(?m)^\s*"name": "[A-Z][A-Za-z]*",\n`, ``, "SARIF2012"},
		{"a location without a region", `(?s),\s*"region": \{\s*"startLine": 3\s*\}`, ``, "GH1003"},
	} {
		bad := regexp.MustCompile(tc.re).ReplaceAllString(good, tc.repl)
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", tc.name)
		}
		p := filepath.Join(dir, "bad.sarif")
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		findings, _ := multitoolFindings(t, mt, config, []string{p})
		if !slices.ContainsFunc(findings, func(f string) bool { return strings.Contains(f, tc.want) }) {
			t.Errorf("%s: the multitool reports no %s: %q", tc.name, tc.want, findings)
		}
	}
}

// TestJUnitSchema: every JUnit document of any outcome is valid against
// Jenkins' junit-10.xsd (testdata/junit), and one without what it requires
// is not.
func TestJUnitSchema(t *testing.T) {
	t.Parallel()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint: install Debian's libxml2-utils (.ci/run does where it can)")
	}
	xsd := mustAbs(t, "../../../testdata/junit/junit-10.xsd")
	_, docs := consumerDocs(t, ciInputs(t), "junit")
	dir := t.TempDir()
	paths, names := writeDocs(t, dir, "xml", docs)
	validate := func(paths []string) (string, error) {
		b, err := exec.Command(xmllint, append([]string{"--noout", "--schema", xsd}, paths...)...).CombinedOutput()
		return string(b), err
	}
	out, err := validate(paths)
	if err != nil {
		for p, n := range names {
			out = strings.ReplaceAll(out, p, n)
		}
		t.Errorf("xmllint --schema junit-10.xsd: %v\n%s", err, out)
	}
	if got := strings.Count(out, " validates\n"); got != len(paths) {
		t.Errorf("%d of %d documents validate", got, len(paths))
	}
	// Not vacuous: a suite without its tests count, an unknown child.
	for _, tc := range []struct{ name, old, new string }{
		{"no tests count", ` tests="4"`, ``},
		{"an unknown child", `<testcase name="memory_first" classname="input 1">`, `<testcase name="memory_first" classname="input 1"><why/>`},
	} {
		bad := strings.Replace(docs[0].data, tc.old, tc.new, 1)
		if bad == docs[0].data {
			t.Fatalf("%s: the mutation did not apply", tc.name)
		}
		p := filepath.Join(dir, "bad.xml")
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := validate([]string{p}); err == nil {
			t.Errorf("%s: xmllint accepts it:\n%s", tc.name, out)
		}
	}
}

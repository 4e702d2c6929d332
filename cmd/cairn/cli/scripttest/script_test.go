//go:build !wasip1

package scripttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/clitest"
)

// TestMain registers cairn the way a user's own testscript suite does.
func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{"cairn": cli.Main}))
}

// TestScript runs the CLI scripts in testdata/script. CAIRN_TEST_UPDATE=1
// rewrites their golden sections from the actual output.
func TestScript(t *testing.T) {
	testdata, err := filepath.Abs("../../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(testdata, "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("CAIRN_TEST_UPDATE") == "1",
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			e.Setenv("REPO", filepath.Dir(testdata))
			return nil
		},
		Cmds: scriptCmds,
	})
}

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"expect-exit": expectExit,
	"checks":      checksCmd,
	"invalid":     invalidCmd,
	"usage":       usageCmd,
	"counts":      countsCmd,
	"findings":    findingsCmd,
	"gen":         genCmd,
	"mkfifo":      mkfifoCmd,
}

// genCmd writes inputs too large or too odd to commit:
//
//	gen records N FILE     thread.started, turn.started, then error records: N lines
//	gen events N FILE      a trajectory with N user_input events
//	gen size N FILE        a valid codex export padded to exactly N bytes
//	gen utf16le FILE       the seed control re-encoded as UTF-16LE with a BOM
//	gen utf16nobom FILE    the same without the BOM (NUL bytes only)
//	gen nul FILE WORD...   the words, each followed by a NUL byte (a list for --null)
func genCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: gen records|events|size N FILE | gen utf16le|utf16nobom FILE | gen nul FILE WORD...")
	}
	var b []byte
	switch args[0] {
	case "nul":
		for _, w := range args[2:] {
			b = append(append(b, w...), 0)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o666))
		return
	case "records", "events", "size":
		if len(args) != 3 {
			ts.Fatalf("usage: gen %s N FILE", args[0])
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 3 {
			ts.Fatalf("gen: bad count %q", args[1])
		}
		switch args[0] {
		case "records":
			b = clitest.Records(n)
		case "events":
			b = clitest.Events(n)
		default:
			b = clitest.Size(n)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), b, 0o666))
		return
	case "utf16le", "utf16nobom":
		src, err := os.ReadFile(filepath.Join(ts.Getenv("TESTDATA"), "controls", "protocol-codex.jsonl"))
		ts.Check(err)
		if args[0] == "utf16le" {
			b = []byte{0xFF, 0xFE}
		}
		for _, r := range string(src) {
			b = append(b, byte(r), byte(r>>8))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o666))
		return
	}
	ts.Fatalf("gen: unknown kind %q", args[0])
}

// mkfifoCmd makes a named pipe: mkfifo FILE.
func mkfifoCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo FILE")
	}
	ts.Check(mkfifo(ts.MkAbs(args[0])))
}

// readReport decodes the --json report on stdout (clitest.Report, the same
// strict reading the fuzz targets use).
func readReport(ts *testscript.TestScript) clitest.Report {
	var r clitest.Report
	out := ts.ReadFile("stdout")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		ts.Fatalf("stdout is not a JSON report: %v", err)
	}
	return r
}

// checksCmd asserts the overall status and the four checks of the --json
// report on stdout, in report order:
//
//	checks STATUS EVIDENCE MEMORY_FIRST RETRIEVAL WRITE_BOUNDARY
//
// where each check is STATE or STATE:code,code (codes in report order).
func checksCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: checks STATUS EVIDENCE MEMORY_FIRST RETRIEVAL WRITE_BOUNDARY")
	}
	r := readReport(ts)
	if r.Status != args[0] {
		ts.Fatalf("status %s, want %s", r.Status, args[0])
	}
	for i, name := range []string{"evidence_complete", "memory_first", "retrieval_result", "direct_write_boundary"} {
		if r.Checks == nil {
			ts.Fatalf("report has no checks (status %s)", r.Status)
		}
		c, ok := (*r.Checks)[name]
		if !ok {
			ts.Fatalf("report has no check %s", name)
		}
		got := c.State
		if len(c.Codes) > 0 {
			got += ":" + strings.Join(c.Codes, ",")
		}
		if got != args[i+1] {
			ts.Fatalf("%s is %s, want %s", name, got, args[i+1])
		}
	}
}

// invalidCmd asserts an invalid report: its code and record (- for null),
// and when given its where (- for null).
//
//	invalid CODE RECORD [WHERE]
func invalidCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: invalid CODE RECORD [WHERE]")
	}
	r := readReport(ts)
	if r.Status != "invalid" || r.Error == nil || r.Checks != nil {
		ts.Fatalf("status %s, want invalid with an error and null checks", r.Status)
	}
	rec := "-"
	if r.Error.Record != nil {
		rec = strconv.Itoa(*r.Error.Record)
	}
	if r.Error.Code != args[0] || rec != args[1] {
		ts.Fatalf("error %s at %s, want %s at %s", r.Error.Code, rec, args[0], args[1])
	}
	if len(args) == 3 {
		where := "-"
		if r.Error.Where != nil {
			where = *r.Error.Where
		}
		if where != args[2] {
			ts.Fatalf("error %s where %s, want %s", r.Error.Code, where, args[2])
		}
	}
}

// usageCmd asserts a catalog usage error (SPEC §16.1): stdout empty, and
// stderr exactly the one fixed line naming the code and where.
//
//	usage CODE WHERE
func usageCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: usage CODE WHERE")
	}
	code, ok := audit.ParseCode(args[0])
	if !ok || code.Kind() != audit.KindUsage {
		ts.Fatalf("usage: %s is not a usage code", args[0])
	}
	if out := ts.ReadFile("stdout"); out != "" {
		ts.Fatalf("stdout is not empty")
	}
	want := fmt.Sprintf("cairn: usage error: %s at %s: %s; %s\n", code, args[1], code.Meaning(), code.Next())
	if got := ts.ReadFile("stderr"); got != want {
		ts.Fatalf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// findingsCmd asserts the findings of the report, all of them in order,
// each as RECORD:code@WHERE (- for a null record or where); none: findings -
//
//	findings 4:tool_before_project_search@command_execution -:turn_incomplete@-
func findingsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: findings RECORD:code@WHERE ... | findings -")
	}
	r := readReport(ts)
	got := []string{}
	for _, f := range r.Findings {
		rec, where := "-", "-"
		if f.Record != nil {
			rec = strconv.Itoa(*f.Record)
		}
		if f.Where != nil {
			where = *f.Where
		}
		got = append(got, rec+":"+f.Code+"@"+where)
	}
	want := args
	if len(args) == 1 && args[0] == "-" {
		want = []string{}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		ts.Fatalf("findings %q, want %q", got, want)
	}
}

// countsCmd asserts some counts of the report: counts name=N ...
func countsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: counts NAME=N ...")
	}
	r := readReport(ts)
	for _, a := range args {
		name, n, ok := strings.Cut(a, "=")
		want, err := strconv.Atoi(n)
		if !ok || err != nil {
			ts.Fatalf("usage: counts NAME=N ...")
		}
		got, ok := r.Counts[name]
		if !ok {
			ts.Fatalf("report has no count %s", name)
		}
		if got != want {
			ts.Fatalf("count %s is %d, want %d", name, got, want)
		}
	}
}

// expectExit runs a command and asserts its exact exit status:
//
//	expect-exit N exec cairn …
//
// testscript's ! only means "non-zero", which cannot tell a violation (1)
// from invalid input (2) or an inconclusive audit (3).
func expectExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("expect-exit does not take !; give the exit status")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: expect-exit N exec command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("expect-exit: %q is not an exit status", args[0])
	}
	args = args[1:]
	if args[0] == "exec" {
		args = args[1:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: expect-exit N exec command [args...]")
	}
	got := 0
	if err := ts.Exec(args[0], args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("expect-exit: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

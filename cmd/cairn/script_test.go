package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cairn": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) },
	})
}

// TestScript runs the CLI scripts in testdata/script. CAIRN_TEST_UPDATE=1
// rewrites their golden sections from the actual output.
func TestScript(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
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
			return nil
		},
		Cmds: scriptCmds,
	})
}

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"expect-exit": expectExit,
	"checks":      checksCmd,
	"invalid":     invalidCmd,
	"counts":      countsCmd,
}

// scriptReport is the part of a --json report the assertions read.
type scriptReport struct {
	Status string `json:"status"`
	Checks map[string]struct {
		State string   `json:"state"`
		Codes []string `json:"codes"`
	} `json:"checks"`
	Counts map[string]int `json:"counts"`
	Error  *struct {
		Code   string `json:"code"`
		Record *int   `json:"record"`
	} `json:"error"`
}

func readReport(ts *testscript.TestScript) scriptReport {
	var r scriptReport
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
		c, ok := r.Checks[name]
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

// invalidCmd asserts an invalid report: its code and record (- for null).
//
//	invalid CODE RECORD
func invalidCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: invalid CODE RECORD")
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

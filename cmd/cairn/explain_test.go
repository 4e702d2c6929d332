package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

func runCapture(args []string, env map[string]string) (int, string, string) {
	var out, errOut bytes.Buffer
	status := run(args, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	return status, out.String(), errOut.String()
}

func TestExplainEveryCode(t *testing.T) {
	for _, c := range audit.Codes() {
		status, out, errOut := runCapture([]string{"explain", c.String()}, nil)
		if status != 0 || errOut != "" {
			t.Errorf("explain %s: got exit %d, stderr %q; want 0 and nothing", c, status, errOut)
		}
		if !strings.HasPrefix(out, c.String()+" (") || !strings.Contains(out, c.Meaning()) || !strings.Contains(out, c.Next()) {
			t.Errorf("explain %s: got %q, want the code, its meaning and next step", c, out)
		}
	}
}

func TestExplainUnknown(t *testing.T) {
	status, out, errOut := runCapture([]string{"explain", "cnry_not_a_code"}, nil)
	if status != 2 || out != "" {
		t.Errorf("explain of an unknown code: got exit %d, stdout %q; want 2 and nothing", status, out)
	}
	if strings.Contains(errOut, "cnry") {
		t.Errorf("explain repeats the unknown word: %q", errOut)
	}
	for _, c := range audit.Codes() {
		if !strings.Contains(errOut, "  "+c.String()+"\n") {
			t.Errorf("explain of an unknown code does not list %s", c)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		status, out, _ := runCapture(args, nil)
		if status != 0 || !strings.HasPrefix(out, "cairn ") || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: got exit %d, %q; want 0 and one line starting with cairn", args, status, out)
		}
	}
}

// TestGateDoesNotApply checks that only eval protocol is gated.
func TestGateDoesNotApply(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"explain", "input_bom"}} {
		on, outOn, _ := runCapture(args, map[string]string{"CAIRN_EVAL": "1"})
		off, outOff, _ := runCapture(args, nil)
		if on != 0 || off != 0 || outOn != outOff {
			t.Errorf("%v: output depends on CAIRN_EVAL", args)
		}
	}
}

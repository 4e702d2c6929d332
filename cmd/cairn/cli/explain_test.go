package cli

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/audit/catalog"
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

// TestExplainCatalogCodes: cairn explain knows the codes of cairn catalog
// (SPEC §16.5), which are not report codes, with their kind and where.
func TestExplainCatalogCodes(t *testing.T) {
	for _, c := range catalog.Codes() {
		status, out, errOut := runCapture([]string{"explain", strings.ToUpper(c.String())}, nil)
		want := c.String() + " (" + catalogKindNames[c.Kind()] + ")\n  meaning: " + c.Meaning() + "\n  next:    " + c.Next() +
			"\n  where:   " + catalogWhereTexts[c.Kind()] + "\n"
		if status != 0 || errOut != "" || out != want || catalogKindNames[c.Kind()] == "" || catalogWhereTexts[c.Kind()] == "" {
			t.Errorf("explain %s: exit %d, %q, stderr %q; want\n%s", c, status, out, errOut, want)
		}
	}
	_, _, errOut := runCapture([]string{"explain", "tool_not_on_srever"}, nil)
	if !strings.Contains(errOut, "the nearest codes are: tool_not_on_server,") {
		t.Errorf("explain of a misspelled catalog code: %q", errOut)
	}
}

func TestExplainUnknown(t *testing.T) {
	status, out, errOut := runCapture([]string{"explain", "Turn_Fialed_cnry"}, nil)
	if status != 2 || out != "" {
		t.Errorf("explain of an unknown code: got exit %d, stdout %q; want 2 and nothing", status, out)
	}
	if strings.Contains(strings.ToLower(errOut), "cnry") || strings.Contains(errOut, "Fialed") {
		t.Errorf("explain repeats the unknown word: %q", errOut)
	}
	want := "cairn: unknown code; the nearest codes are: turn_failed, turn_incomplete, duplicate_key\nRun 'cairn explain --list' for every code.\n"
	if errOut != want {
		t.Errorf("explain of an unknown code: stderr %q, want %q", errOut, want)
	}
}

// TestExplainForms checks case-insensitive lookup, --list and --json.
func TestExplainForms(t *testing.T) {
	_, lower, _ := runCapture([]string{"explain", "turn_failed"}, nil)
	status, upper, _ := runCapture([]string{"explain", "TURN_Failed"}, nil)
	if status != 0 || upper != lower {
		t.Errorf("explain TURN_Failed: exit %d, %q; want the text of turn_failed", status, upper)
	}
	// Every code: the report's, then cairn catalog's (not report codes).
	type code interface {
		String() string
		Meaning() string
		Next() string
	}
	var codes []code
	for _, c := range audit.Codes() {
		codes = append(codes, c)
	}
	for _, c := range catalog.Codes() {
		codes = append(codes, c)
	}
	status, list, _ := runCapture([]string{"explain", "--list"}, nil)
	if status != 0 || strings.Count(list, "\n") != len(codes) {
		t.Errorf("explain --list: exit %d, %d lines; want one per code", status, strings.Count(list, "\n"))
	}
	status, js, _ := runCapture([]string{"explain", "--list", "--json"}, nil)
	var all []map[string]string
	if err := json.Unmarshal([]byte(js), &all); status != 0 || err != nil || len(all) != len(codes) {
		t.Fatalf("explain --list --json: exit %d, %v, %d entries", status, err, len(all))
	}
	for i, c := range codes {
		if all[i]["code"] != c.String() || all[i]["meaning"] != c.Meaning() || all[i]["next"] != c.Next() {
			t.Errorf("explain --list --json entry %d: %v, want %s", i, all[i], c)
		}
	}
	status, one, _ := runCapture([]string{"explain", "--json", "turn_failed"}, nil)
	var t1 map[string]string
	if err := json.Unmarshal([]byte(one), &t1); status != 0 || err != nil || t1["code"] != "turn_failed" || t1["where"] == "" {
		t.Errorf("explain --json turn_failed: exit %d, %v, %v", status, err, t1)
	}
	if status, _, errOut := runCapture([]string{"explain"}, nil); status != 2 || !strings.Contains(errOut, "give a code, or --list") {
		t.Errorf("explain alone: exit %d, %q; want a usage error", status, errOut)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		status, out, _ := runCapture(args, nil)
		if status != 0 || !strings.HasPrefix(out, "cairn ") || !strings.Contains(out, runtime.Version()) && args[0] == "version" {
			t.Errorf("%v: got exit %d, %q; want 0 and cairn with the Go version", args, status, out)
		}
	}
	status, out, _ := runCapture([]string{"version", "--json"}, nil)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); status != 0 || err != nil || v["go"] != runtime.Version() || v["platform"] != runtime.GOOS+"/"+runtime.GOARCH || v["version"] == "" {
		t.Errorf("version --json: exit %d, %v, %v", status, err, v)
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

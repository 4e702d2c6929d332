package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"slices"
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
	if !strings.Contains(errOut, "the nearest are: tool_not_on_server,") {
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
	want := "cairn: unknown code or check; the nearest are: turn_failed, turn_incomplete, duplicate_key\nRun 'cairn explain --list' for every check and code.\n"
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
	// --list: the four checks, then every code: the report's, cairn
	// catalog's (not report codes) and the stop codes.
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
	checks := int(audit.NumChecks)
	lines := checks + len(codes) + len(stopCodes)
	status, list, _ := runCapture([]string{"explain", "--list"}, nil)
	if status != 0 || strings.Count(list, "\n") != lines || !strings.HasPrefix(list, "evidence_complete ") {
		t.Errorf("explain --list: exit %d, %d lines; want one per check and code", status, strings.Count(list, "\n"))
	}
	status, js, _ := runCapture([]string{"explain", "--list", "--json"}, nil)
	var all []map[string]any
	if err := json.Unmarshal([]byte(js), &all); status != 0 || err != nil || len(all) != lines {
		t.Fatalf("explain --list --json: exit %d, %v, %d entries", status, err, len(all))
	}
	for k := range audit.NumChecks {
		if all[k]["check"] != k.String() || all[k]["kind"] != "check" {
			t.Errorf("explain --list --json entry %d: %v, want the check %s", k, all[k], k)
		}
	}
	for i, c := range codes {
		if e := all[checks+i]; e["code"] != c.String() || e["meaning"] != c.Meaning() || e["next"] != c.Next() {
			t.Errorf("explain --list --json entry %d: %v, want %s", checks+i, e, c)
		}
	}
	status, one, _ := runCapture([]string{"explain", "--json", "turn_failed"}, nil)
	var t1 map[string]string
	if err := json.Unmarshal([]byte(one), &t1); status != 0 || err != nil || t1["code"] != "turn_failed" || t1["where"] == "" {
		t.Errorf("explain --json turn_failed: exit %d, %v, %v", status, err, t1)
	}
	if status, _, errOut := runCapture([]string{"explain"}, nil); status != 2 || !strings.Contains(errOut, "give a code or a check's name, or --list") {
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

// TestExplainChecks: cairn explain knows the four check names a report
// prints (SPEC §2 v4): what each checks, its states and, state by state,
// its codes; the codes of each check are exactly those the report schema
// allows it (docs/report.schema.json), both ways.
func TestExplainChecks(t *testing.T) {
	b, err := os.ReadFile("../../../docs/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	// The schema's enum of each check's codes.
	allowed := map[string][]string{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				m, _ := x.(map[string]any)
				props, _ := m["properties"].(map[string]any)
				codes, _ := props["codes"].(map[string]any)
				items, _ := codes["items"].(map[string]any)
				if enum, ok := items["enum"].([]any); ok && slices.Contains(checkNames(), k) {
					allowed[k] = nil
					for _, c := range enum {
						allowed[k] = append(allowed[k], c.(string))
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var schema any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	walk(schema)
	for _, name := range checkNames() {
		for _, arg := range []string{name, strings.ToUpper(name)} {
			status, out, errOut := runCapture([]string{"explain", arg}, nil)
			if status != 0 || errOut != "" || !strings.HasPrefix(out, name+" (check)\n  checks:") ||
				!strings.Contains(out, "\n  pass:") || !strings.Contains(out, "\n  fail:") || !strings.Contains(out, "\n  inconclusive:") {
				t.Errorf("explain %s: exit %d, stderr %q, stdout\n%s\nwant what it checks and its three states", arg, status, errOut, out)
			}
		}
		_, js, _ := runCapture([]string{"explain", "--json", name}, nil)
		var ch checkText
		if err := json.Unmarshal([]byte(js), &ch); err != nil || ch.Check != name {
			t.Fatalf("explain --json %s: %v %q", name, err, js)
		}
		var codes []string
		for _, st := range ch.States {
			for _, c := range st.Codes {
				if _, ok := audit.ParseCode(c); !ok || slices.Contains(codes, c) {
					t.Errorf("%s: %q is not a code, or is listed twice", name, c)
				}
				codes = append(codes, c)
			}
		}
		want := allowed[name]
		slices.Sort(codes)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(codes, want) {
			t.Errorf("explain %s lists the codes %v; the report schema allows %v", name, codes, want)
		}
	}
	// The stop codes of eval batch's documents are explained too.
	for _, s := range stopCodes {
		status, out, _ := runCapture([]string{"explain", s.code}, nil)
		if status != 0 || !strings.HasPrefix(out, s.code+" (run stopped, exit 2)\n  meaning: "+s.meaning+"\n  next:    "+s.next+"\n") {
			t.Errorf("explain %s: exit %d, %q", s.code, status, out)
		}
	}
}

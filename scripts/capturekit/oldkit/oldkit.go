// Package oldkit is (until the last harness is ported to the kit) what the capture harnesses of real agent CLIs
// (scripts/claude-real, gemini-real, pi-real, opencode-real) share: the
// model of a want.json verdict and its writer, the shape summary of a JSON
// value, the check that a run is offline, and the demo project the agents
// work in. Each harness keeps its own scripted model server and scenarios.
package oldkit

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
)

// Check is one check of a verdict: its state and its codes, sorted.
type Check struct {
	State string   `json:"state"`
	Codes []string `json:"codes"`
}

// Checks are a verdict's four checks, in report order.
type Checks struct {
	EvidenceComplete    Check `json:"evidence_complete"`
	MemoryFirst         Check `json:"memory_first"`
	RetrievalResult     Check `json:"retrieval_result"`
	DirectWriteBoundary Check `json:"direct_write_boundary"`
}

// Verdict is one entry of want.json: the report's status, exit code and
// checks, and for an invalid report (checks null) its error.
type Verdict struct {
	Status   string  `json:"status"`
	ExitCode int     `json:"exit_code"`
	Checks   *Checks `json:"checks"`
	Error    *Error  `json:"error,omitempty"`
}

// Error is an invalid report's error: its code, the record it was
// detected at (null for the input as a whole) and where (null when the
// report names no place).
type Error struct {
	Code   string  `json:"code"`
	Record *int    `json:"record"`
	Where  *string `json:"where"`
}

// InvalidAt is an invalid verdict's error: code at record, where ("" =
// null).
func InvalidAt(code string, record int, where string) *Error {
	e := &Error{Code: code, Record: &record}
	if where != "" {
		e.Where = &where
	}
	return e
}

// Verdict is the invalid verdict of e.
func (e *Error) Verdict() Verdict { return Verdict{Status: "invalid", ExitCode: 2, Error: e} }

// Verdict is the verdict of c: the worst state's status and exit code
// (fail over inconclusive over pass), each check's codes sorted.
func (c Checks) Verdict() Verdict {
	v := Verdict{Status: "pass", Checks: &c}
	for _, ch := range []*Check{&c.EvidenceComplete, &c.MemoryFirst, &c.RetrievalResult, &c.DirectWriteBoundary} {
		ch.Codes = append([]string{}, ch.Codes...)
		sort.Strings(ch.Codes)
		switch ch.State {
		case "fail":
			v.Status, v.ExitCode = "fail", 1
		case "inconclusive":
			if v.Status == "pass" {
				v.Status, v.ExitCode = "inconclusive", 3
			}
		}
	}
	return v
}

// UpdateWant sets key's verdict in the want.json at path, keeping the
// others.
func UpdateWant(path, key string, v Verdict) error {
	m := map[string]Verdict{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	m[key] = v
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ShapeValue reads one JSON value from dec and returns its shape: member
// names in order and the types of their values, an array's distinct
// element shapes; never a string's or a number's value.
func ShapeValue(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var parts []string
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				v, err := ShapeValue(dec)
				if err != nil {
					return "", err
				}
				parts = append(parts, fmt.Sprint(k)+":"+v)
			}
			if _, err := dec.Token(); err != nil {
				return "", err
			}
			return "{" + strings.Join(parts, ",") + "}", nil
		case '[':
			var parts []string
			seen := map[string]bool{}
			for dec.More() {
				v, err := ShapeValue(dec)
				if err != nil {
					return "", err
				}
				if !seen[v] {
					seen[v] = true
					parts = append(parts, v)
				}
			}
			if _, err := dec.Token(); err != nil {
				return "", err
			}
			return "[" + strings.Join(parts, "|") + "]", nil
		}
	case string:
		return "string", nil
	case json.Number:
		return "number", nil
	case bool:
		return "bool", nil
	case nil:
		return "null", nil
	}
	return "", fmt.Errorf("unexpected token %v", tok)
}

// OnlyLoopback refuses to go on when a network interface other than
// loopback is up: the harness must run inside `unshare -n` (its run.sh,
// named in the error).
func OnlyLoopback(runScript string) error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp != 0 && i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("interface %s is up: run inside `unshare -n` (%s)", i.Name, runScript)
		}
	}
	return nil
}

// LayWorkDir lays the demo project every agent works in at dir, afresh.
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

// Fatal ends the harness with err.
func Fatal(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(1)
}

// Four are the checks evidence_complete, memory_first, retrieval_result
// and direct_write_boundary, in report order.
func Four(ec, mf, rr, dwb Check) Checks {
	return Checks{EvidenceComplete: ec, MemoryFirst: mf, RetrievalResult: rr, DirectWriteBoundary: dwb}
}

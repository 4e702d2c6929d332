//go:build unix

package capturekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
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

// list is the four checks with their names, in report order.
func (c *Checks) list() []struct {
	Name  string
	Check *Check
} {
	return []struct {
		Name  string
		Check *Check
	}{{"evidence_complete", &c.EvidenceComplete}, {"memory_first", &c.MemoryFirst}, {"retrieval_result", &c.RetrievalResult}, {"direct_write_boundary", &c.DirectWriteBoundary}}
}

// Verdict is one entry of want.json: the report's status, exit code and
// checks, and for an invalid report (checks null) its error. A capture of
// a real memory server also names the catalog it is audited under, the
// --memory-server names, and its verdict under cairn-memory/1 (Default).
type Verdict struct {
	Status        string   `json:"status"`
	ExitCode      int      `json:"exit_code"`
	Checks        *Checks  `json:"checks"`
	Error         *Error   `json:"error,omitempty"`
	Catalog       string   `json:"catalog,omitempty"`
	MemoryServers []string `json:"memory_servers,omitempty"`
	Default       *Verdict `json:"default_catalog,omitempty"`
}

// Error is an invalid report's error: its code, the record it was
// detected at (null for the input as a whole) and where (null when the
// report names no place).
type Error struct {
	Code   string  `json:"code"`
	Record *int    `json:"record"`
	Where  *string `json:"where"`
}

// Want is the verdict a scenario table gives a capture: four checks, each
// "STATE[ CODE…]" (`[pass, fail tool_before_project_search, pass,
// inconclusive opaque_tool_effects]`), or an invalid report's error
// (`{invalid: CODE, record: N, where: MEMBER}`).
type Want struct {
	Checks *Checks
	Err    *Error
}

// UnmarshalYAML reads a Want.
func (w *Want) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var e struct {
			Invalid string `yaml:"invalid"`
			Record  int    `yaml:"record"`
			Where   string `yaml:"where"`
		}
		if err := n.Decode(&e); err != nil || e.Invalid == "" {
			return fmt.Errorf("line %d: an invalid verdict is {invalid: CODE, record: N, where: MEMBER}", n.Line)
		}
		w.Err = &Error{Code: e.Invalid, Record: &e.Record}
		if e.Where != "" {
			w.Err.Where = &e.Where
		}
		return nil
	}
	var four []string
	if err := n.Decode(&four); err != nil || len(four) != 4 {
		return fmt.Errorf("line %d: a verdict is four checks, each \"STATE CODE…\"", n.Line)
	}
	w.Checks = &Checks{}
	for i, c := range w.Checks.list() {
		f := strings.Fields(four[i])
		if len(f) == 0 || f[0] != "pass" && f[0] != "fail" && f[0] != "inconclusive" || (f[0] == "pass") != (len(f) == 1) {
			return fmt.Errorf("line %d: %q is not a check: pass, or fail or inconclusive with codes", n.Line, four[i])
		}
		*c.Check = Check{State: f[0], Codes: f[1:]}
	}
	return nil
}

// Verdict is the report the want demands: for checks, the worst state's
// status and exit code (fail over inconclusive over pass), each check's
// codes sorted; for an error, invalid with exit code 2.
func (w Want) Verdict() Verdict {
	if w.Err != nil {
		return Verdict{Status: "invalid", ExitCode: 2, Error: w.Err}
	}
	c := Checks{}
	if w.Checks != nil {
		c = *w.Checks
	}
	v := Verdict{Status: "pass", Checks: &c}
	for _, ch := range c.list() {
		ch.Check.Codes = append([]string{}, ch.Check.Codes...)
		sort.Strings(ch.Check.Codes)
		switch ch.Check.State {
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

// Describe is the verdict as a README line says it: "STATUS (exit N" plus
// what withCodes and withError add.
func (v Verdict) Describe(withCodes bool, whereNull string) string {
	s := fmt.Sprintf("%s (exit %d", v.Status, v.ExitCode)
	if withCodes && v.Checks != nil {
		var parts []string
		for _, c := range v.Checks.list() {
			if c.Check.State != "pass" {
				parts = append(parts, fmt.Sprintf("%s %s %s", c.Name, c.Check.State, strings.Join(c.Check.Codes, "+")))
			}
		}
		if len(parts) > 0 {
			s += "; " + strings.Join(parts, ", ")
		}
	}
	if e := v.Error; e != nil {
		s += ", " + e.Code
		if e.Record != nil {
			s += fmt.Sprintf(" at line %d", *e.Record)
		}
		if e.Where != nil {
			s += " at `" + *e.Where + "`"
		} else {
			s += whereNull
		}
	}
	return s + ")"
}

// WantFile is want.json: the verdicts of a version's captures by file
// name. Compact writes one line per entry (Codex's); else it is indented.
type WantFile struct {
	Path    string
	Compact bool
}

// Set sets the verdicts of files, keeping the other entries.
func (f WantFile) Set(verdicts map[string]Verdict) error {
	m := map[string]json.RawMessage{}
	if b, err := os.ReadFile(f.Path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	for k, v := range verdicts {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		m[k] = b
	}
	if len(m) == 0 {
		return nil
	}
	var out []byte
	if f.Compact {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.WriteString("{\n")
		for i, k := range keys {
			var c bytes.Buffer
			_ = json.Compact(&c, m[k])
			fmt.Fprintf(&b, "  %s: %s", marshalString(k), c.Bytes())
			if i < len(keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		out = append(b.Bytes(), "}\n"...)
	} else {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		out = append(b, '\n')
	}
	return os.WriteFile(f.Path, out, 0o644)
}

func marshalString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

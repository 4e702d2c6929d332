package audit

import (
	"encoding/hex"
)

// Schema is the report's schema name (SPEC §7.1).
const Schema = "cairn.eval.protocol/v1"

// Status is the overall status of a run.
type Status string

const (
	StatusPass         Status = "pass"
	StatusFail         Status = "fail"
	StatusInconclusive Status = "inconclusive"
	StatusInvalid      Status = "invalid"
	StatusDisabled     Status = "disabled"
)

// ExitCode is the process exit status for a status (SPEC §2.2).
func (s Status) ExitCode() int {
	switch s {
	case StatusFail:
		return 1
	case StatusInvalid:
		return 2
	case StatusInconclusive:
		return 3
	}
	return 0
}

// Precedence orders the statuses of enabled runs for an overall status
// or a batch's exit code (SPEC §2.2, §10): invalid (3) over fail (2) over
// inconclusive (1) over pass (0).
func (s Status) Precedence() int {
	switch s {
	case StatusInconclusive:
		return 1
	case StatusFail:
		return 2
	case StatusInvalid:
		return 3
	}
	return 0
}

// Report is the JSON report of an enabled run; its members are declared in
// the order SPEC §7.1 prints them.
type Report struct {
	Schema      string       `json:"schema"`
	Enabled     bool         `json:"enabled"`
	Status      Status       `json:"status"`
	ExitCode    int          `json:"exit_code"`
	Input       Input        `json:"input"`
	Policy      Policy       `json:"policy"`
	Checks      *Checks      `json:"checks"`
	Counts      Counts       `json:"counts"`
	Findings    []Finding    `json:"findings"`
	Error       *ReportError `json:"error"`
	Limitations []Code       `json:"limitations"`

	looksLike string
}

// LooksLike is the format (a Format constant) whose input this one looks
// like, when the audit did not pass and its input seems to be another
// format's than the one it was read as (SPEC §14.3): a hint for the caller,
// never part of the report's JSON. "" otherwise.
func (r *Report) LooksLike() string { return r.looksLike }

// SetLooksLike records the format the input looks like.
func (r *Report) SetLooksLike(format string) { r.looksLike = format }

// Input describes what was read, never what it said.
type Input struct {
	Format  string  `json:"format"`
	Source  string  `json:"source"`
	Harness *string `json:"harness"`
	SHA256  *string `json:"sha256"`
	Bytes   int64   `json:"bytes"`
	Records int     `json:"records"`
	Events  int     `json:"events"`
}

// Policy identifies the policy the checks applied.
type Policy struct {
	Catalog           string `json:"catalog"`
	CaptureAuthorized bool   `json:"capture_authorized"`
	SHA256            string `json:"sha256"`
}

// ReportError is the code of an invalid input and where it was found: the
// record, and a name of the contract's vocabulary (for schema_violation the
// member that is missing or mistyped), each nil when there is none.
type ReportError struct {
	Code   Code    `json:"code"`
	Record *int    `json:"record"`
	Where  *string `json:"where"`
}

// Disabled is the envelope printed when the gate is off (SPEC §2.1).
type Disabled struct {
	Schema  string `json:"schema"`
	Enabled bool   `json:"enabled"`
	Status  Status `json:"status"`
}

// DisabledReport returns the disabled envelope.
func DisabledReport() Disabled {
	return Disabled{Schema: Schema, Enabled: false, Status: StatusDisabled}
}

// Format names of the inputs (the rows of protocol.Formats).
const (
	FormatCodex      = "codex-jsonl"
	FormatClaude     = "claude-jsonl"
	FormatGemini     = "gemini-jsonl"
	FormatPi         = "pi-jsonl"
	FormatOpenCode   = "opencode-jsonl"
	FormatOpenCodeEx = "opencode-export"
	FormatCopilot    = "copilot-jsonl"
	FormatQwen       = "qwen-jsonl"
	FormatCline      = "cline-jsonl"
	FormatTrajectory = "trajectory"
)

// NewReport starts a report for an input judged by rules.
func NewReport(format, source string, rules Rules) *Report {
	lim := []Code{TaskQualityNotCertified, IndirectEffectsNotCertified, InputNotAuthenticated}
	if rules.CaptureAuthorized {
		lim = append(lim, CaptureAuthorizationAssertedByCaller)
	}
	if rules.catalog().ScopeAsserted() {
		lim = append(lim, ProjectScopeAssertedByCatalog) // SPEC §16.4
	}
	return &Report{
		Schema:      Schema,
		Enabled:     true,
		Input:       Input{Format: format, Source: source},
		Policy:      rules.Policy(),
		Findings:    []Finding{},
		Limitations: lim,
	}
}

// SetHarness records the harness that produced the input.
func (r *Report) SetHarness(h string) { r.Input.Harness = &h }

// SetDigest records the SHA-256 of the whole input.
func (r *Report) SetDigest(sum []byte) {
	if sum == nil {
		r.Input.SHA256 = nil
		return
	}
	s := hex.EncodeToString(sum)
	r.Input.SHA256 = &s
}

// Invalidate makes the report that of an invalid input.
func (r *Report) Invalidate(e *InputError) {
	r.Status = StatusInvalid
	r.ExitCode = StatusInvalid.ExitCode()
	r.Checks = nil
	r.Input.SHA256 = nil
	re := &ReportError{Code: e.Code}
	if e.Record >= 0 {
		n := e.Record
		re.Record = &n
	}
	if e.Where != "" {
		w := e.Where
		re.Where = &w
	}
	r.Error = re
	r.Findings = []Finding{}
}

// SetFindings records the findings of the checks (Engine.Findings).
func (r *Report) SetFindings(fs []Finding) {
	if fs == nil {
		fs = []Finding{}
	}
	r.Findings = fs
}

// Conclude sets the checks and the overall status from them: fail wins over
// inconclusive, which wins over pass.
func (r *Report) Conclude(c Checks) {
	r.Checks = &c
	st := StatusPass
	for _, v := range c.All() {
		switch {
		case v.State == Fail:
			st = StatusFail
		case v.State == Inconclusive && st == StatusPass:
			st = StatusInconclusive
		}
	}
	r.Status = st
	r.ExitCode = st.ExitCode()
}

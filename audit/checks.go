package audit

import (
	"fmt"
	"iter"
)

// Check is one of the four checks of SPEC §6, in report order. Arrays by
// check are sized by NumChecks, so that a fifth check cannot compile into
// an index out of range.
type Check uint8

const (
	CheckEvidenceComplete Check = iota
	CheckMemoryFirst
	CheckRetrievalResult
	CheckDirectWriteBoundary

	// NumChecks is how many checks there are.
	NumChecks
)

// checkNames are the checks' names: the members of the report's checks
// (a test holds them to Checks' JSON members, in order).
var checkNames = [NumChecks]string{
	CheckEvidenceComplete:    "evidence_complete",
	CheckMemoryFirst:         "memory_first",
	CheckRetrievalResult:     "retrieval_result",
	CheckDirectWriteBoundary: "direct_write_boundary",
}

// String is the check's name in the report.
func (c Check) String() string {
	if c < NumChecks {
		return checkNames[c]
	}
	return fmt.Sprintf("check(%d)", uint8(c))
}

// State is a check's state.
type State string

const (
	Pass         State = "pass"
	Fail         State = "fail"
	Inconclusive State = "inconclusive"
)

// Verdict is one check's verdict: a state and its codes, sorted.
type Verdict struct {
	State State  `json:"state"`
	Codes []Code `json:"codes"`
}

// Checks are the four checks' verdicts as the report prints them: the
// members are the schema's stable shape (SPEC §7.1), declared in report
// order; At and All read them by Check.
type Checks struct {
	EvidenceComplete    Verdict `json:"evidence_complete"`
	MemoryFirst         Verdict `json:"memory_first"`
	RetrievalResult     Verdict `json:"retrieval_result"`
	DirectWriteBoundary Verdict `json:"direct_write_boundary"`
}

// At is the verdict of check k, the member k names.
func (c *Checks) At(k Check) *Verdict {
	switch k {
	case CheckEvidenceComplete:
		return &c.EvidenceComplete
	case CheckMemoryFirst:
		return &c.MemoryFirst
	case CheckRetrievalResult:
		return &c.RetrievalResult
	case CheckDirectWriteBoundary:
		return &c.DirectWriteBoundary
	}
	panic("audit: no " + k.String())
}

// All yields every check with its verdict, in report order: renderers
// take the checks and their names from here.
func (c *Checks) All() iter.Seq2[Check, Verdict] {
	return func(yield func(Check, Verdict) bool) {
		for k := range NumChecks {
			if !yield(k, *c.At(k)) {
				return
			}
		}
	}
}

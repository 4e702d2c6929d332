package audit

// AbsenceCut lists the evidence codes that keep an absence from being
// proven (SPEC §6), for the schema test.
func AbsenceCut() []Code { return absenceCut.list() }

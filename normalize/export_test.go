package normalize

// Record is record, for the external tests: the record on 1-based line n,
// checked first.
func (c *Codex) Record(line []byte, n int) error { return c.record(line, n) }

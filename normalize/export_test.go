package normalize

// Record is record, for the external tests: the record on 1-based line n,
// checked first.
func (c *Codex) Record(line []byte, n int) error { return c.record(line, n) }

// GeminiRowsFit reports whether every Gemini CLI record type's members fit
// the reader's fixed array of member values.
func GeminiRowsFit() bool {
	var g Gemini
	for _, r := range geminiRecords {
		if len(r.members) > len(g.values) {
			return false
		}
	}
	return true
}

// ClaudeBenign lists the benign record types and "system/SUBTYPE"s, for the
// test that checks them against the captures and the SDK.
func ClaudeBenign() []string {
	out := append([]string{}, claudeBenign...)
	for _, s := range claudeBenignSystem {
		out = append(out, "system/"+s)
	}
	return out
}

// CopilotRowsFit reports whether every judged Copilot CLI record type's
// members fit the reader's fixed array of member values.
func CopilotRowsFit() bool {
	var c Copilot
	for _, r := range copilotRecords {
		if len(r.members) > len(c.values) {
			return false
		}
	}
	return true
}

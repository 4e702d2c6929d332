package audit

import (
	"strconv"
	"strings"
)

// The spec's limits (SPEC §1, §3, §4.1, §5), defined once: the reader, the
// checker, the engine, the code texts and the help texts all quote these.
const (
	MaxBytes   = 16 << 20 // an input's size
	MaxRecords = 50_000   // JSONL records or trajectory events
	MaxEvents  = 50_000   // normalized events given to the checks
	MaxDepth   = 128      // arrays and objects nested together
)

// thousands writes n with a comma between each group of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Texts of the limits, for the code and help texts.
var (
	MaxBytesText   = strconv.Itoa(MaxBytes>>20) + " MiB (" + thousands(MaxBytes) + " bytes)"
	MaxRecordsText = thousands(MaxRecords)
	MaxEventsText  = thousands(MaxEvents)
	MaxDepthText   = strconv.Itoa(MaxDepth)
)

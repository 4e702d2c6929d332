package cli

import (
	"os"
	"syscall"

	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// A run can end before its last input (SPEC §14.1): eval batch stops at a
// bad entry of its list of paths, when its output cannot be written, or
// on SIGINT or SIGTERM. No input is at fault, so this is no report's code
// (SPEC §8); its document says so instead of reading as a complete run:
// SARIF's invocation is unsuccessful and names the code, JUnit gains an
// error test case, the github format an ::error and a row of the step
// summary, and every totals line gives the exit, 2. cairn explain knows
// these codes too.

// A stopCode is one reason a run stops early, with its meaning and what
// to do, as cairn explain prints them.
type stopCode struct {
	code, meaning, next string
}

// The stop codes, in the order explain --list gives them.
var (
	stopListUnreadable   = stopCode{"list_unreadable", "the list of paths (--paths-from) could not be read to its end", "check that the list's file or pipe stays readable until cairn has read it all"}
	stopListEntryEmpty   = stopCode{"list_entry_empty", "an entry of the list of paths is empty (an empty line, or two separators in a row)", "remove empty lines from the list; a path is never empty"}
	stopListEntryLong    = stopCode{"list_entry_too_long", "an entry of the list of paths is longer than 64 KiB", "give one path a line, or NUL-separated with --null"}
	stopListEntryNUL     = stopCode{"list_entry_nul", "an entry of a list of lines holds a NUL byte", "a NUL-separated list (find -print0) needs --null"}
	stopOutputUnwritable = stopCode{"output_unwritable", "standard output could not be written (a full disk, a closed file, an I/O error)", "free space or fix where standard output goes, then run the batch again"}
	stopSummaryFailed    = stopCode{"summary_unwritable", "the file GITHUB_STEP_SUMMARY names could not be appended to", "check the runner's disk and that the step may write its summary, then run again"}
	stopInterrupted      = stopCode{"interrupted", "cairn received SIGINT or SIGTERM and stopped before auditing every input", "run the batch again; the inputs it did not reach were not audited"}
)

var stopCodes = []stopCode{stopListUnreadable, stopListEntryEmpty, stopListEntryLong, stopListEntryNUL, stopOutputUnwritable, stopSummaryFailed, stopInterrupted}

// stop is the document's Stop: the code and its one line, "MEANING;
// NEXT".
func (s stopCode) stop() *render.Stop {
	return &render.Stop{Code: s.code, Text: s.meaning + "; " + s.next}
}

// stopOf is the stop code of a problem with the list of paths.
func stopOf(le *listError) stopCode {
	switch le.problem {
	case listEmptyEntry:
		return stopListEntryEmpty
	case listLongEntry:
		return stopListEntryLong
	case listNULEntry:
		return stopListEntryNUL
	}
	return stopListUnreadable
}

// stopCodeNamed is the stop code called name, and false for none.
func stopCodeNamed(name string) (stopCode, bool) {
	for _, s := range stopCodes {
		if s.code == name {
			return s, true
		}
	}
	return stopCode{}, false
}

// stopSignals are the signals that stop a batch with its document closed
// (SIGINT and SIGTERM where the system has them).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

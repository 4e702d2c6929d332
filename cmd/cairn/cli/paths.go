package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/alecthomas/kong"
)

// The inputs of eval batch (SPEC §15): the PATH arguments, then the
// entries of the list --paths-from names, one path a line (LF or CRLF) or
// NUL-separated with --null; --shard I/N keeps those whose position in
// that combined list, from 0, is I modulo N. The list is read as the
// batch goes, an entry at a time, so that memory is bounded by --jobs and
// the longest entry, never by the length of the list. Neither a path nor
// any byte of the list is ever printed: a problem with the list is one
// fixed line naming the entry's number (decisions.md, Batch).

// maxListEntry is the longest entry a list of paths may hold, in bytes:
// more than any file system's path (Linux's PATH_MAX is 4,096, a Windows
// long path 32,767 UTF-16 units), and small enough that the entries held
// at once (two per job) stay a few MiB at the most jobs.
const maxListEntry = 64 << 10

// shardFlag is --shard I/N: two whole numbers, digits only, 0 ≤ I < N.
// Anything else is one fixed usage line (kong's own message would quote
// the value).
type shardFlag struct {
	i, n int
	set  bool
}

func (s *shardFlag) Decode(ctx *kong.DecodeContext) error {
	var v string
	if err := ctx.Scan.PopValueInto("I/N", &v); err != nil {
		return err
	}
	is, ns, ok := bytes.Cut([]byte(v), []byte("/"))
	i, okI := wholeNumber(is)
	n, okN := wholeNumber(ns)
	if !ok || !okI || !okN || i >= n {
		return usageRefusal(usageBadShard)
	}
	*s = shardFlag{i: i, n: n, set: true}
	return nil
}

// wholeNumber reads s, ASCII digits only (no sign, no space), as an int.
func wholeNumber(s []byte) (int, bool) {
	if len(s) == 0 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(s))
	return n, err == nil
}

// keeps reports whether the input at position pos (from 0) is the
// shard's; every input is when --shard was not given.
func (s shardFlag) keeps(pos int) bool { return !s.set || pos%s.n == s.i }

// listFlag is --paths-from FILE: given at most once (kong would let a
// second one win, and the batch would audit another list than the caller
// may think).
type listFlag struct {
	path string
	set  bool
}

func (f *listFlag) Decode(ctx *kong.DecodeContext) error {
	if f.set {
		return usageRefusal(usageRepeatedList)
	}
	if err := ctx.Scan.PopValueInto("FILE", &f.path); err != nil {
		return err
	}
	f.set = true
	return nil
}

// listProblem is what was wrong with the list of paths.
type listProblem int

const (
	listUnreadable listProblem = iota // it could not be opened or read
	listEmptyEntry                    // an empty line, or two separators in a row
	listLongEntry                     // an entry longer than maxListEntry
	listNULEntry                      // a NUL byte in a line: a NUL-separated list without --null
	listNothing                       // no entry and no PATH argument: nothing to audit
)

// listError is a problem with the list of paths, at its entry-th entry
// (from 1; 0 for the list as a whole).
type listError struct {
	problem listProblem
	entry   int
	cause
}

func (e *listError) Error() string { return listWhat + ": " + e.text() }

// listWhat names the list in its problems' lines.
const listWhat = "list of paths"

// cause is the error behind a problem with what a command reads besides
// the inputs it audits (a list of paths, reports): kept for tests, never
// printed, as it may name a file.
type cause struct{ err error }

func (c cause) Unwrap() error { return c.err }

// writeInvalidLine prints the one fixed line of such a problem: "cairn:
// invalid WHAT: TEXT".
func writeInvalidLine(w io.Writer, what, text string) {
	fmt.Fprintf(w, "cairn: invalid %s: %s\n", what, text)
}

// text is the fixed line, after "cairn: invalid list of paths: ".
func (e *listError) text() string {
	switch e.problem {
	case listEmptyEntry:
		return fmt.Sprintf("entry %d is empty; remove empty lines (a path is never empty)", e.entry)
	case listLongEntry:
		return fmt.Sprintf("entry %d is longer than %d bytes; give one path a line, or NUL-separated with --null", e.entry, maxListEntry)
	case listNULEntry:
		return fmt.Sprintf("entry %d holds a NUL byte; a NUL-separated list (find -print0) needs --null", e.entry)
	case listNothing:
		return "it is empty and no PATH was given, so nothing was audited; check the command that wrote the list"
	}
	return "--paths-from could not be opened or read; check that the file exists and that cairn may read it"
}

// pathList reads the entries of a list of paths one at a time.
type pathList struct {
	r     *bufio.Reader
	null  bool // entries end at NUL, not at LF
	entry int  // entries read
}

func newPathList(r io.Reader, null bool) *pathList {
	return &pathList{r: bufio.NewReaderSize(r, maxListEntry+2), null: null}
}

// next returns the next entry, io.EOF after the last one, or a
// *listError. A final separator is optional; in a list of lines, the
// CR of a CRLF ends the line too (as git's --pathspec-from-file reads
// one), so a path that ends in CR, or holds an LF, needs --null. The
// slice is valid until the next call.
func (l *pathList) next() ([]byte, error) {
	sep := byte('\n')
	if l.null {
		sep = 0
	}
	b, err := l.r.ReadSlice(sep)
	switch {
	case err == io.EOF && len(b) == 0:
		return nil, io.EOF
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, &listError{problem: listLongEntry, entry: l.entry + 1}
	case err != nil && err != io.EOF:
		return nil, &listError{problem: listUnreadable, cause: cause{err}}
	}
	l.entry++
	b = bytes.TrimSuffix(b, []byte{sep})
	if !l.null {
		b = bytes.TrimSuffix(b, []byte("\r"))
		if bytes.IndexByte(b, 0) >= 0 {
			return nil, &listError{problem: listNULEntry, entry: l.entry}
		}
	}
	switch {
	case len(b) == 0:
		return nil, &listError{problem: listEmptyEntry, entry: l.entry}
	case len(b) > maxListEntry:
		return nil, &listError{problem: listLongEntry, entry: l.entry}
	}
	return b, nil
}

// batchInput is an input of the batch: its position in the combined list
// (from 0) and its path.
type batchInput struct {
	pos  int
	path string
}

// pathSource is the combined list of a batch: the PATH arguments, then
// the list's entries.
type pathSource struct {
	args  []string
	list  *pathList // nil without --paths-from
	shard shardFlag
}

// openPathSource opens the list of c, if any: stdin for -, else the file
// (a named pipe or a process substitution included). close releases it.
func (c *evalBatchCmd) openPathSource(stdin io.Reader) (src *pathSource, close func(), err error) {
	src = &pathSource{args: c.Paths, shard: c.Shard}
	close = func() {}
	if !c.PathsFrom.set {
		return src, close, nil
	}
	r := stdin
	if c.PathsFrom.path != "-" {
		f, err := os.Open(c.PathsFrom.path)
		if err == nil {
			// A directory opens, and fails only at its first read.
			if fi, serr := f.Stat(); serr == nil && fi.IsDir() {
				f.Close()
				err = errors.New("a directory")
			}
		}
		if err != nil {
			return nil, nil, &listError{problem: listUnreadable, cause: cause{err}}
		}
		r, close = f, func() { f.Close() }
	}
	src.list = newPathList(r, c.Null)
	return src, close, nil
}

// each hands the shard's inputs to fn in order, until fn returns false,
// and returns how many inputs the combined list has, the others'
// included (up to where fn stopped it). A problem with the list stops it
// there, after the inputs before it.
func (s *pathSource) each(fn func(batchInput) bool) (total int, err error) {
	for _, p := range s.args {
		if s.shard.keeps(total) && !fn(batchInput{total, p}) {
			return total, nil
		}
		total++
	}
	if s.list == nil {
		return total, nil
	}
	for {
		b, err := s.list.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, err
		}
		if s.shard.keeps(total) && !fn(batchInput{total, string(b)}) {
			return total, nil
		}
		total++
	}
	if total == 0 {
		return 0, &listError{problem: listNothing}
	}
	return total, nil
}

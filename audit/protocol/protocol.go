// Package protocol audits one input with one call: what cairn eval
// protocol does, for a Go program. AuditFile and AuditStream read a file or
// a stream once, in a given format, and AuditBytes audits an input already
// in memory; each returns the report, encoded with
// encoding/json it is byte for byte what `cairn eval protocol --json`
// prints for the same input (without the final newline). When the audit
// did not pass and the input looks like another format of Formats, the
// report's LooksLike names it (SPEC §14.3), from the input's first bytes
// as they were read: the input is still read once.
//
// The three functions are safe for concurrent use: any number of audits
// may run at once in one process, each on its own input, and each report
// is what the same audit gives alone.
//
// Stable: the three functions, Options, the Format constants of package
// audit and the report's JSON (schema cairn.eval.protocol/v1, SPEC §7.1).
// The report's Go fields follow the JSON and may gain members as the
// schema does; everything else in this module is internal to the tool.
//
// The gate (CAIRN_EVAL) is the command's, not this package's: a caller
// that embeds the audit decides itself when to run it.
package protocol

import (
	"bytes"
	"errors"
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
)

// Options say how to read an input.
type Options struct {
	// Format is the Name of one of Formats (audit.FormatCodex, …).
	Format string
	// CaptureAuthorized asserts that memory capture was authorized (an
	// assertion, not authenticated consent), as --capture-authorized does.
	CaptureAuthorized bool
	// Catalog is the memory catalog the checks judge by (SPEC §16), as
	// --catalog and --catalog-file choose it: catalog.Builtin or
	// catalog.Parse of package audit/catalog, with Catalog.WithServers for
	// --memory-server. nil is cairn-memory/1.
	Catalog *audit.Catalog
}

// rules are what the options judge by.
func (o Options) rules() audit.Rules {
	return audit.Rules{Catalog: o.Catalog, CaptureAuthorized: o.CaptureAuthorized}
}

// ErrFormat is returned for an Options.Format that is not one of the
// formats.
var ErrFormat = errors.New("protocol: unknown input format")

// AuditFile audits the file at path. The path is walked as written, with
// no symbolic link on the way, and the file must be a regular file that
// does not change while it is read (SPEC §3); otherwise, as for any invalid
// input, the report's status is invalid and its error says why.
func AuditFile(path string, opts Options) (*audit.Report, error) {
	rep, read, err := start(opts, "file")
	if err != nil {
		return nil, err
	}
	if path == "" {
		rep.Invalidate(audit.Invalid(audit.InputNotFound, -1, nil))
		return rep, nil
	}
	f, err := stream.Open(path)
	if err != nil {
		var big *stream.SizeError
		if errors.As(err, &big) {
			rep.Input.Bytes = big.Size
		}
		rep.Invalidate(asInputError(err))
		return rep, nil
	}
	defer f.Close()
	if testHookOpened != nil {
		testHookOpened(path)
	}
	head := stream.NewHead(headWords)
	in := read(sniffedFile{sniffed{f, head}, f}, opts.rules())
	// The size, never the offset of a problem: that would tell how long
	// recorded content was (SPEC §3).
	rep.Input.Bytes = f.Size()
	if in.Err == nil {
		in.Err = f.Verify()
	} else if changed := f.VerifyUnchanged(); changed != nil {
		// input_changed wins over whatever the content seemed to say.
		in.Err = changed
	}
	finish(rep, in)
	hint(rep, head)
	return rep, nil
}

// AuditStream audits r as cairn audits its standard input: read once, and
// after an early verdict (an invalid record, more than 16 MiB) read to its
// end, up to 1 GiB in all, and discarded, so that a producer upstream is
// never cut off; input.bytes is every byte read.
//
// A reader that cannot be read, a nil one or one whose Read returns a
// count outside 0..len(p) included, is the report's input_unreadable. A
// panic in r's Read is the caller's: AuditStream panics with it on the
// caller's goroutine, whichever goroutine read r.
func AuditStream(r io.Reader, opts Options) (*audit.Report, error) {
	rep, read, err := start(opts, "stdin")
	if err != nil {
		return nil, err
	}
	// Checked before anything counts or scans what it returns; the
	// trajectory scanner reads r directly.
	head := stream.NewHead(headWords)
	piped := &stdinReader{r: sniffed{stream.StrictReader(r), head}}
	in := read(piped, opts.rules())
	if in.Err != nil {
		rep.Input.Bytes = piped.drain()
	} else {
		rep.Input.Bytes = in.Bytes
	}
	finish(rep, in)
	hint(rep, head)
	return rep, nil
}

// AuditBytes audits b, an input already in memory (a host that received
// it over the network, read it from a store, or audits many in one
// process). Its report is AuditStream's on the same bytes, byte for byte:
// input.source is "stdin", the report schema's word for an input that was
// not a file walked by path (SPEC §3's file rules do not apply to it), and
// input.bytes is len(b) (at most the 1 GiB AuditStream reads). It reads b
// on the calling goroutine when b is small (256 KiB or less), like a small
// file, and never modifies or keeps b.
func AuditBytes(b []byte, opts Options) (*audit.Report, error) {
	rep, read, err := start(opts, "stdin")
	if err != nil {
		return nil, err
	}
	head := stream.NewHead(headWords)
	in := read(sniffedBytes{sniffed{bytes.NewReader(b), head}, int64(len(b))}, opts.rules())
	if in.Err != nil {
		// What AuditStream's drain counts: every byte, up to 1 GiB.
		rep.Input.Bytes = min(int64(len(b)), maxStdin)
	} else {
		rep.Input.Bytes = in.Bytes
	}
	finish(rep, in)
	hint(rep, head)
	return rep, nil
}

// testHookOpened, when set by a test, runs after the input file is opened
// and before it is read: a file that changes under the audit.
var testHookOpened func(path string)

func start(opts Options, source string) (*audit.Report, normalize.Reader, error) {
	f, ok := FormatNamed(opts.Format)
	if !ok {
		return nil, nil, ErrFormat
	}
	rep := audit.NewReport(opts.Format, source, opts.rules())
	if opts.Format == audit.FormatCodex {
		rep.SetHarness(f.Harness)
	}
	return rep, f.read, nil
}

// finish fills rep from what reading gave.
func finish(rep *audit.Report, in normalize.Input) {
	if in.Harness != "" {
		rep.SetHarness(in.Harness)
	}
	rep.Input.Records = in.Records
	rep.Input.Events = in.Engine.Events()
	if in.Err != nil {
		rep.Counts = in.Engine.Counts()
		rep.Invalidate(asInputError(in.Err))
		return
	}
	checks, counts := in.Engine.Finish()
	rep.SetDigest(in.Sum)
	rep.Counts = counts
	rep.Conclude(checks)
	rep.SetFindings(in.Engine.Findings())
}

func asInputError(err error) *audit.InputError {
	var ie *audit.InputError
	if !errors.As(err, &ie) {
		ie = audit.Invalid(audit.InputUnreadable, -1, err)
	}
	return ie
}

package normalize

import (
	"errors"
	"io"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// Input is what reading one input gives, whatever its format: every front
// end owns its stream wiring and returns this.
type Input struct {
	// Engine holds the checks; on an error, the counts so far.
	Engine *audit.Engine
	// Harness is the harness that produced the input, "" while unknown.
	Harness string
	// Bytes is how many input bytes were consumed; Records how many
	// records (JSONL lines or trajectory events) were read.
	Bytes   int64
	Records int
	// Sum is the input's SHA-256, nil unless it was read whole.
	Sum []byte
	// Err is the *audit.InputError (or a read error) that stopped the
	// input; nil when it was read to its end.
	Err error
}

// A Reader reads one input of its format, judged by the rules.
type Reader func(r io.Reader, rules audit.Rules) Input

// smallInput is the size up to which a file is read on one goroutine: the
// read-ahead stages pay for themselves only on inputs of several batches,
// and a batch of small exports is the common case (SPEC §10).
const smallInput = 256 << 10

// sized is an input that knows its size (a stream.File).
type sized interface{ Size() int64 }

// checkedLines is what ReadCodex and ReadClaude read records from: Lines
// with each record checked, either ahead on other goroutines (Prefetch)
// or in line.
type checkedLines interface {
	Next() ([]byte, error)
	Record() int
	Bytes() int64
	Sum() []byte
	Checked() stream.Verdict
}

// inlineLines checks each record of a Lines as it is read.
type inlineLines struct {
	*stream.Lines
	checker *stream.Checker
	v       stream.Verdict
}

func (l *inlineLines) Next() ([]byte, error) {
	line, err := l.Lines.Next()
	if err == nil {
		code := l.checker.Check(line)
		l.v = stream.Verdict{Code: code, Cause: l.checker.Cause(), Located: l.checker.Located}
	}
	return line, err
}

func (l *inlineLines) Checked() stream.Verdict { return l.v }

// records frames r and checks each record with c: on one goroutine for a
// small file, else ahead on two more. Both give, record by record, the
// same results. The caller must call the returned stop.
func records(r io.Reader, c *stream.Checker) (checkedLines, func()) {
	if s, ok := r.(sized); ok && s.Size() <= smallInput {
		return &inlineLines{Lines: stream.NewLines(r), checker: c}, func() {}
	}
	p := stream.NewPrefetch(stream.NewLines(r), c)
	return p, p.Close
}

// record is what every JSONL front end keeps of the record being read: the
// engine it feeds, the catalog it resolves tool names with (the engine's)
// and the record's 1-based line, with the ways to report at that record.
type record struct {
	engine  *audit.Engine
	catalog *audit.Catalog
	n       int
}

func newRecord(e *audit.Engine) record { return record{engine: e, catalog: e.Catalog()} }

func (r *record) invalid(code audit.Code, where string) error {
	return audit.InvalidAt(code, r.n, where, nil)
}

func (r *record) violation(where string) error { return r.invalid(audit.SchemaViolation, where) }

// add gives the engine ev, at the record being read unless ev names its
// own (JSONL records are numbered from 1).
func (r *record) add(ev audit.Event) error {
	if ev.Record == 0 {
		ev.Record = r.n
	}
	if code := r.engine.Add(ev); code != 0 {
		return audit.Invalid(code, r.n, nil)
	}
	return nil
}

func (r *record) note(code audit.Code, where string) { r.engine.Note(code, r.n, where) }

// A recordFeed is a JSONL front end: it takes each checked record, then
// the end of input (which may still find the input invalid: too many
// events, when a front end holds a step's calls until it ends).
type recordFeed interface {
	Checked(line []byte, n int, v stream.Verdict) error
	End() error
}

// readRecords runs every record of r, checked by c, through feed, and
// reports what was read. Framing and the JSON check may run ahead on other
// goroutines; what they return, and in which order, is exactly what
// stream.Lines and the checker return record by record.
func readRecords(r io.Reader, c *stream.Checker, engine *audit.Engine, harness string, feed recordFeed) Input {
	lines, stop := records(r, c)
	defer stop()
	result := func(err error) Input {
		in := Input{Engine: engine, Harness: harness, Bytes: lines.Bytes(), Records: lines.Record(), Err: err}
		if err == nil {
			in.Sum = lines.Sum()
		}
		return in
	}
	for {
		line, err := lines.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = feed.Checked(line, lines.Record(), lines.Checked())
		}
		if err != nil {
			return result(err)
		}
	}
	return result(feed.End())
}

// ReadCodex runs a codex exec --json stream (SPEC §4) through the engine.
func ReadCodex(r io.Reader, rules audit.Rules) Input {
	stream.Mark("read")
	engine := audit.NewEngine(rules)
	in := readRecords(r, NewChecker(), engine, "codex", NewCodex(engine))
	stream.Mark("read-end")
	return in
}

// A documentFeed is a front end of one JSON document streamed by
// stream.Document: it takes each top-level member, each element of the
// document's array, then the end of the document.
type documentFeed interface {
	Member(name, v []byte) error
	// Event takes the element at 0-based index i, and what the document's
	// checker located in it (empty unless the front end's readDocument
	// asked for a Locate).
	Event(v []byte, loc stream.Located, i int) error
	// End takes the end of the document (hasArray: its array was read)
	// and returns the engine whose checks the report uses.
	End(hasArray bool) (*audit.Engine, error)
	// Engine is the engine of the counts so far; Harness the input's
	// harness, "" while unknown.
	Engine() *audit.Engine
	Harness() string
}

// readDocument streams the document in r, whose array is array, through
// feed, and reports what was read. Given loc, the checker locates those
// members of each element of the array (stream.NewDocumentLocating).
func readDocument(r io.Reader, array string, feed documentFeed, loc *stream.Locate) Input {
	var doc *stream.Document
	if loc != nil {
		doc = stream.NewDocumentLocating(r, array, *loc)
	} else {
		doc = stream.NewDocumentOf(r, array)
	}
	result := func(e *audit.Engine, err error) Input {
		in := Input{Engine: e, Harness: feed.Harness(), Bytes: doc.Bytes(), Records: doc.Events(), Err: err}
		if err == nil {
			in.Sum = doc.Sum()
		}
		return in
	}
	for {
		p, err := doc.Next()
		if err == nil {
			switch p.Kind {
			case stream.Member:
				err = feed.Member(p.Name, p.Value)
			case stream.Event:
				err = feed.Event(p.Value, doc.Located(), p.Index)
			case stream.End:
				engine, err := feed.End(doc.HasEvents())
				if err != nil {
					return result(feed.Engine(), err)
				}
				return result(engine, nil)
			}
		}
		if err != nil {
			return result(feed.Engine(), err)
		}
	}
}

// ReadTrajectory streams a normalized trajectory (SPEC §5) through the
// engine of its harness.
func ReadTrajectory(r io.Reader, rules audit.Rules) Input {
	return readDocument(r, "events", NewTrajectory(rules), nil)
}

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

// A Reader reads one input of its format with the capture assertion.
type Reader func(r io.Reader, captureAuthorized bool) Input

// ReadCodex runs a codex exec --json stream (SPEC §4) through the engine.
func ReadCodex(r io.Reader, capture bool) Input {
	stream.Mark("read")
	engine := audit.NewEngine(capture)
	codex := NewCodex(engine)
	// Framing and the JSON check run ahead on a second goroutine; what it
	// returns, and in which order, is exactly what stream.Lines and the
	// checker return record by record.
	lines := stream.NewPrefetch(stream.NewLines(r), NewChecker())
	defer lines.Close()
	result := func(err error) Input {
		in := Input{Engine: engine, Harness: "codex", Bytes: lines.Bytes(), Records: lines.Record(), Err: err}
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
			err = codex.Checked(line, lines.Record(), lines.Checked())
		}
		if err != nil {
			return result(err)
		}
	}
	codex.End()
	stream.Mark("read-end")
	return result(nil)
}

// ReadTrajectory streams a normalized trajectory (SPEC §5) through the
// engine of its harness.
func ReadTrajectory(r io.Reader, capture bool) Input {
	traj := NewTrajectory(capture)
	doc := stream.NewDocument(r)
	result := func(e *audit.Engine, err error) Input {
		in := Input{Engine: e, Harness: traj.Harness(), Bytes: doc.Bytes(), Records: doc.Events(), Err: err}
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
				err = traj.Member(p.Name, p.Value)
			case stream.Event:
				err = traj.Event(p.Value, p.Index)
			case stream.End:
				engine, err := traj.End(doc.HasEvents())
				if err != nil {
					return result(traj.Engine(), err)
				}
				return result(engine, nil)
			}
		}
		if err != nil {
			return result(traj.Engine(), err)
		}
	}
}

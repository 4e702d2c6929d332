package normalize_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/lifecycle"
	"github.com/cairn-audit/cairn/normalize"
	"github.com/cairn-audit/cairn/stream"
	"github.com/cairn-audit/cairn/stream/streamtest"
)

// padded writes each record of in with n unknown members at the start and
// n at the end of the record and of the objects that inner returns (the
// values of members located by the checker c, which has checked the
// record). A line the checker refuses, and an empty object, stay as they
// are.
func padded(in []byte, n int, c *stream.Checker, inner func(line []byte, c *stream.Checker) [][2]int) []byte {
	var out []byte
	for line := range bytes.Lines(in) {
		body := bytes.TrimRight(line, "\r\n")
		if c.Check(body) != 0 {
			out = append(out, line...)
			continue
		}
		// Each object as the offsets of its braces.
		objects := [][2]int{{bytes.IndexByte(body, '{'), bytes.LastIndexByte(body, '}')}}
		objects = append(objects, inner(body, c)...)
		edits := map[int][]byte{}
		for k, o := range objects {
			if len(bytes.TrimSpace(body[o[0]+1:o[1]])) == 0 {
				continue
			}
			for m := range n {
				edits[o[0]+1] = fmt.Appendf(edits[o[0]+1], `"pad%d_a%d":0,`, k, m)
				edits[o[1]] = fmt.Appendf(edits[o[1]], `,"pad%d_z%d":0`, k, m)
			}
		}
		prev := 0
		for _, at := range slices.Sorted(maps.Keys(edits)) {
			out = append(append(out, body[prev:at]...), edits[at]...)
			prev = at
		}
		out = append(append(out, body[prev:]...), line[len(body):]...)
	}
	return out
}

// codexObjects are a checked codex record's item and the item's result,
// where they are objects.
func codexObjects(line []byte, c *stream.Checker) [][2]int {
	var objects [][2]int
	for _, spans := range []struct {
		in   []stream.Span
		name string
	}{{c.Root, "item"}, {c.Child, "result"}} {
		for _, sp := range spans.in {
			if name, value := sp.In(line); string(name) == spans.name && stream.TypeOf(value) == stream.Object {
				objects = append(objects, [2]int{int(sp.ValueStart), int(sp.ValueEnd) - 1})
			}
		}
	}
	return objects
}

// objectNamed returns what locates a checked record's member name, where
// it is an object: a Copilot record's data, a Cline record's event, an
// OpenCode record's part.
func objectNamed(name string) func(line []byte, c *stream.Checker) [][2]int {
	return func(line []byte, c *stream.Checker) [][2]int {
		for _, sp := range c.Root {
			if n, value := sp.In(line); string(n) == name && stream.TypeOf(value) == stream.Object {
				return [][2]int{{int(sp.ValueStart), int(sp.ValueEnd) - 1}}
			}
		}
		return nil
	}
}

// claudeObjects are a checked Claude Code or Qwen Code record's message
// and the message's content blocks, where they are objects (the checker
// locates them with Locate.Child and ChildElements).
func claudeObjects(line []byte, c *stream.Checker) [][2]int {
	objects := objectNamed("message")(line, c)
	for _, sp := range c.Elements {
		if stream.TypeOf(sp.Value(line)) == stream.Object {
			objects = append(objects, [2]int{int(sp.ValueStart), int(sp.ValueEnd) - 1})
		}
	}
	return objects
}

// TestReadsCoversWhatIsRead checks each JSONL front end's Locate.Reads
// against every real capture and fixture: with 20 unknown members before
// and after the members of every object it reads, which puts those past
// the first 16 of their object, where only the names Reads accepts are
// located, a front end concludes what it concludes with the fewest
// unknown members there (one for codex, whose reports name them; none for
// Claude Code, which ignores them).
func TestReadsCoversWhatIsRead(t *testing.T) {
	codex, _ := filepath.Glob("../testdata/codex/*.jsonl")
	real, _ := filepath.Glob("../testdata/codex/real/*/*.jsonl")
	codex = append(codex, real...)
	claude, _ := filepath.Glob("../testdata/claude/real/*/*.jsonl")
	qwen, _ := filepath.Glob("../testdata/qwen/real/*/*.jsonl")
	gemini, _ := filepath.Glob("../testdata/gemini/real/*/*.jsonl")
	pi, _ := filepath.Glob("../testdata/pi/real/*/*.jsonl")
	opencode, _ := filepath.Glob("../testdata/opencode/real/*/*.jsonl")
	copilot, _ := filepath.Glob("../testdata/copilot/real/*/*.jsonl")
	cline, _ := filepath.Glob("../testdata/cline/real/*/*.jsonl")
	if len(codex) < 10 || len(claude) < 10 || len(qwen) < 10 || len(gemini) < 10 || len(pi) < 10 || len(opencode) < 10 || len(copilot) < 10 || len(cline) < 10 {
		t.Fatalf("%d codex, %d Claude Code, %d Gemini, %d Pi, %d OpenCode, %d Copilot CLI and %d Cline captures, want the real ones",
			len(codex), len(claude), len(gemini), len(pi), len(opencode), len(copilot), len(cline))
	}
	none := func([]byte, *stream.Checker) [][2]int { return nil }
	claudeLocate := stream.Locate{Child: "message", ChildElements: "content"}
	codexLocate := lifecycle.Locate
	codexLocate.Reads = nil
	for _, tc := range []struct {
		name    string
		files   []string
		checker stream.Checker // locates every member of the objects to pad
		inner   func(line []byte, c *stream.Checker) [][2]int
		read    func(r *bytes.Reader) normalize.Input
		fewest  int
	}{
		{"codex", codex, stream.Checker{Locate: codexLocate}, codexObjects,
			func(r *bytes.Reader) normalize.Input { return normalize.ReadCodex(r, audit.DefaultRules(false)) }, 1},
		// The message and its content blocks are padded too: an unknown
		// member of a tool_use or tool_result block is noted, once per
		// record and place.
		{"claude", claude, stream.Checker{Locate: claudeLocate}, claudeObjects,
			func(r *bytes.Reader) normalize.Input { return normalize.ReadClaude(r, audit.DefaultRules(false)) }, 1},
		{"qwen", qwen, stream.Checker{Locate: claudeLocate}, claudeObjects,
			func(r *bytes.Reader) normalize.Input { return normalize.ReadQwen(r, audit.DefaultRules(false)) }, 1},
		// Gemini CLI records are closed: one unknown member is as many.
		{"gemini", gemini, stream.Checker{}, none,
			func(r *bytes.Reader) normalize.Input { return normalize.ReadGemini(r, audit.DefaultRules(false)) }, 1},
		{"pi", pi, stream.Checker{}, none,
			func(r *bytes.Reader) normalize.Input { return normalize.ReadPi(r, audit.DefaultRules(false)) }, 0},
		{"opencode", opencode, stream.Checker{Locate: stream.Locate{Child: "part"}}, objectNamed("part"),
			func(r *bytes.Reader) normalize.Input { return normalize.ReadOpenCode(r, audit.DefaultRules(false)) }, 0},
		// The judged records and their data are closed.
		{"copilot", copilot, stream.Checker{Locate: stream.Locate{Child: "data"}}, objectNamed("data"),
			func(r *bytes.Reader) normalize.Input { return normalize.ReadCopilot(r, audit.DefaultRules(false)) }, 1},
		// Cline records and events are closed: one unknown member is as
		// many; its event (Locate.Child) is padded too.
		{"cline", cline, stream.Checker{Locate: stream.Locate{Child: "event"}}, objectNamed("event"),
			func(r *bytes.Reader) normalize.Input { return normalize.ReadCline(r, audit.DefaultRules(false)) }, 1},
	} {
		outcome := func(b []byte) string {
			in := tc.read(bytes.NewReader(b))
			return claudeOutcomeOf(in.Engine, in.Err)
		}
		for _, path := range tc.files {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := outcome(padded(b, tc.fewest, &tc.checker, tc.inner))
			if got := outcome(padded(b, 20, &tc.checker, tc.inner)); got != want {
				t.Errorf("%s: %s with 20 unknown members around those read:\n%s\nwant (%d around):\n%s", tc.name, path, got, tc.fewest, want)
			}
		}
	}
}

// TestClaudeHostileNames: an assistant record of about two million
// distinct short top-level members (SPEC §1) is located in a few spans,
// not one a member, and read by the Claude Code front end without
// allocating per member. Bytes, not times.
func TestClaudeHostileNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 16 MiB record")
	}
	const init = `{"type":"system","subtype":"init","session_id":"s","mcp_servers":[{"name":"cairn-memory","status":"connected"}]}`
	names, n := streamtest.Names(nil, stream.MaxBytes-1024, "type", "uuid")
	rec := slices.Concat([]byte(`{"type":"assistant","message":{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"Done."}]},"parent_tool_use_id":null,"uuid":"u"`), names, []byte(`}`))
	engine := audit.NewEngine(audit.DefaultRules(false))
	claude := normalize.NewClaude(engine)
	c := normalize.NewClaudeChecker()
	for i, line := range [][]byte{[]byte(init), rec} {
		if code := c.Check(line); code != 0 {
			t.Fatalf("record %d refused: %v", i+1, code)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := claude.Checked(line, i+1, stream.Verdict{Located: c.Located})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if i == 1 {
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d names: %d located, %d bytes allocated to read the record", n, len(c.Root), got)
			// the first 16, those the front end reads, and one other
			if len(c.Root) > 32 {
				t.Errorf("%d of %d members located, want at most 32", len(c.Root), n)
			}
			if got > 64<<10 {
				t.Errorf("%d bytes allocated to read a record of %d members, want at most 64 KiB", got, n)
			}
		}
	}
}

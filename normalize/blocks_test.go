package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// reverdict is a front end whose verdicts are changed before it takes
// them.
type reverdict struct {
	*Claude
	change func(v *stream.Verdict)
}

func (r reverdict) Checked(line []byte, n int, v stream.Verdict) error {
	r.change(&v)
	return r.Claude.Checked(line, n, v)
}

// TestBlocksLocatedOrWalked: the Claude Code and Qwen Code readers take a
// message's content blocks as the checker located them, or walk the array
// where it did not (ElementsCut: more than it locates; or no elements
// located at all, as a checker without ChildElements gives). Every real
// capture, and the fixtures, come out the same all three ways: outcome,
// counts and findings.
func TestBlocksLocatedOrWalked(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../testdata/claude/real/*/*.jsonl", "../testdata/qwen/real/*/*.jsonl",
		"../testdata/claude/*.jsonl", "../testdata/qwen/*.jsonl", "../testdata/catalog/real/claude/*/*/*.jsonl"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("%d captures, want the real ones", len(files))
	}
	changes := map[string]func(v *stream.Verdict){
		"located": func(*stream.Verdict) {},
		"cut": func(v *stream.Verdict) {
			v.Elements, v.ElementMembers, v.ElementsCut = nil, nil, len(v.Elements) > 0
		},
		"not located": func(v *stream.Verdict) { v.Elements, v.ElementMembers = nil, nil },
	}
	blocks := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, ch := claudeCode, NewClaudeChecker()
		if bytes.Contains(b, []byte(`"qwen_code_version"`)) {
			d, ch = qwenCode, NewQwenChecker()
		}
		outcomes := map[string]string{}
		for name, change := range changes {
			engine := audit.NewEngine(audit.DefaultRules(false))
			feed := reverdict{newClaudeReader(engine, d), func(v *stream.Verdict) {
				blocks += len(v.Elements)
				change(v)
			}}
			in := readRecords(bytes.NewReader(b), ch, engine, d.harness, feed)
			outcomes[name] = outcomeOf(in)
		}
		for name, got := range outcomes {
			if want := outcomes["located"]; got != want {
				t.Errorf("%s, blocks %s:\n%s\nwant (located):\n%s", path, name, got, want)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("the checker located no content block")
	}
}

// outcomeOf is what an input's reading concluded: its error, or its
// outcome, counts and findings.
func outcomeOf(in Input) string {
	if in.Err != nil {
		return "error " + in.Err.Error()
	}
	c, counts := in.Engine.Finish()
	s := fmt.Sprintf("%v %+v", c, counts)
	for _, f := range in.Engine.Findings() {
		s += fmt.Sprintf(" %v:%s@%v", deref(f.Record), f.Code, deref(f.Where))
	}
	return s
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestExportParts: the OpenCode export reader takes a message's parts as
// the document's checker located them, or walks them where it located
// none (more than it locates), and its Locate.Reads names every member of
// a part it reads. Each real export concludes the same with benign
// step-start parts before every message's own, 200 (located) or 300
// (walked), as without; and with 20 unknown members before and after
// every part's own, which puts those past the first 16 of the part, where
// only the names Reads accepts are located, as with one.
func TestExportParts(t *testing.T) {
	files, _ := filepath.Glob("../testdata/opencode/real/*/*.export.json")
	if len(files) < 10 {
		t.Fatalf("%d exports, want the real ones", len(files))
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		read := func(parts, members int) string {
			return outcomeOf(ReadOpenCodeExport(bytes.NewReader(paddedExport(t, b, parts, members)), audit.DefaultRules(false)))
		}
		for _, tc := range []struct{ parts, members, wantParts, wantMembers int }{
			{200, 0, 0, 0}, {300, 0, 0, 0}, {0, 20, 0, 1},
		} {
			if got, want := read(tc.parts, tc.members), read(tc.wantParts, tc.wantMembers); got != want {
				t.Errorf("%s with %d parts before each message's and %d members around each part's:\n%s\nwant (%d and %d):\n%s",
					path, tc.parts, tc.members, got, tc.wantParts, tc.wantMembers, want)
			}
		}
	}
}

// paddedExport is the export b with n step-start parts before each
// message's own, and around each part's members m unknown ones (named to
// sort first and last: encoding/json writes a map's members sorted).
func paddedExport(t *testing.T, b []byte, n, m int) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, msg := range doc["messages"].([]any) {
		msg := msg.(map[string]any)
		parts := msg["parts"].([]any)
		for _, p := range parts {
			for k := range m {
				p.(map[string]any)[fmt.Sprintf("AAA%02d", k)] = 0
				p.(map[string]any)[fmt.Sprintf("zzz%02d", k)] = 0
			}
		}
		pad := make([]any, n, n+len(parts))
		for i := range pad {
			pad[i] = map[string]any{"type": "step-start"}
		}
		msg["parts"] = append(pad, parts...)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

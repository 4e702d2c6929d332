package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/stream"
)

// sample is one input of a format from testdata.
type sample struct {
	name string // where it came from
	data []byte
	real bool // a real capture or a control, not a script's input
}

// samples are, for each format of the table, its real captures
// (testdata/DIR/real, DIR the name up to its first dash), the controls
// and testdata/DIR/*, and the inputs of its scripts
// (testdata/script/DIR_*.txtar; an OpenCode export's are the .json files
// of opencode_export_* or opencode_export.txtar, a trajectory's those of
// trajectory_*).
func samples(t *testing.T) map[string][]sample {
	t.Helper()
	out := map[string][]sample{}
	add := func(format, name string, data []byte, real bool) {
		out[format] = append(out[format], sample{name, data, real})
	}
	for _, f := range formats {
		dir, _, _ := strings.Cut(f.Name, "-")
		ext := ".jsonl"
		var files, scripts []string
		switch f.Unit {
		case "line":
			files, _ = filepath.Glob("../../testdata/" + dir + "/real/*/*.jsonl")
			more, _ := filepath.Glob("../../testdata/" + dir + "/*.jsonl")
			controls, _ := filepath.Glob("../../testdata/controls/protocol-" + dir + "*.jsonl")
			files = append(append(files, more...), controls...)
			scripts, _ = filepath.Glob("../../testdata/script/" + dir + "_*.txtar")
			if dir == "opencode" {
				scripts, _ = filepath.Glob("../../testdata/script/opencode_stream*.txtar")
			}
		case "message":
			ext = ".json"
			files, _ = filepath.Glob("../../testdata/" + dir + "/real/*/*.export.json")
			scripts, _ = filepath.Glob("../../testdata/script/opencode_export*.txtar")
		case "event":
			ext = ".json"
			files, _ = filepath.Glob("../../testdata/controls/*.json")
			scripts, _ = filepath.Glob("../../testdata/script/trajectory_*.txtar")
		}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			add(f.Name, p, b, true)
		}
		for _, a := range scripts {
			ar, err := txtar.ParseFile(a)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range ar.Files {
				if strings.HasSuffix(file.Name, ext) {
					add(f.Name, filepath.Base(a)+":"+file.Name, file.Data, false)
				}
			}
		}
	}
	return out
}

// headOf is what a Head notes of b.
func headOf(b []byte) *stream.Head {
	h := stream.NewHead(headWords)
	h.Write(b)
	return h
}

// notTheFormat are real captures kept beside a format's to show what its
// reader does with another output of the same CLI (testdata/gemini/real's
// README): they need not look like the format, only like no other.
var notTheFormat = map[string]bool{"json-output.jsonl": true, "session-file.jsonl": true}

// TestLooksTellFormatsApart holds the rows' Looks to the inputs in
// testdata: every real capture and control looks like its own format, no
// input of a format looks like another, and every row's Looks matches
// some input of its format.
func TestLooksTellFormatsApart(t *testing.T) {
	all := samples(t)
	for _, f := range formats {
		ins := all[f.Name]
		if len(ins) == 0 {
			t.Errorf("%s: no inputs in testdata", f.Name)
		}
		own := 0
		for _, in := range ins {
			got := looksLike(headOf(in.data))
			switch {
			case got == f.Name:
				own++
			case in.real && !notTheFormat[filepath.Base(in.name)]:
				t.Errorf("%s: looks like %q, want %s", in.name, got, f.Name)
			case got != "":
				t.Errorf("%s: an input of %s looks like %s", in.name, f.Name, got)
			}
		}
		if own == 0 {
			t.Errorf("%s: no input looks like it", f.Name)
		}
		t.Logf("%s: %d of %d inputs look like it", f.Name, own, len(ins))
	}
}

// TestHintNamesTheFormat: an input read as another format of the table
// is not a pass, and its report names the format it looks like, from a
// file and from a stream; read as its own format, it names none.
func TestHintNamesTheFormat(t *testing.T) {
	all := samples(t)
	dir := t.TempDir()
	for _, f := range formats {
		var in sample
		for _, s := range all[f.Name] {
			if looksLike(headOf(s.data)) == f.Name {
				in = s
				break
			}
		}
		path := filepath.Join(dir, f.Name)
		if err := os.WriteFile(path, in.data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, g := range formats {
			opts := Options{Format: g.Name}
			fromFile, err := AuditFile(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			fromStream, err := AuditStream(bytes.NewReader(in.data), opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, rep := range []*audit.Report{fromFile, fromStream} {
				want := f.Name
				if g.Name == f.Name || rep.Status == audit.StatusPass {
					want = ""
				}
				if g.Name != f.Name && rep.Status == audit.StatusPass {
					t.Errorf("%s read as %s (%s): pass", in.name, g.Name, rep.Input.Source)
				}
				if got := rep.LooksLike(); got != want {
					t.Errorf("%s read as %s (%s, %s): looks like %q, want %q", in.name, g.Name, rep.Input.Source, rep.Status, got, want)
				}
			}
		}
	}
}

// TestNoHintOnPass: a passing audit names no format, even when its input
// begins like another's.
func TestNoHintOnPass(t *testing.T) {
	rep := audit.NewReport(audit.FormatCodex, "stdin", audit.DefaultRules(false))
	rep.Status = audit.StatusPass
	hint(rep, headOf([]byte(`{"type":"system","subtype":"init","mcp_servers":[]}`)))
	if got := rep.LooksLike(); got != "" {
		t.Errorf("a pass looks like %q, want none", got)
	}
	rep.Status = audit.StatusInconclusive
	hint(rep, headOf([]byte(`{"type":"system","subtype":"init","mcp_servers":[]}`)))
	if got := rep.LooksLike(); got != audit.FormatClaude {
		t.Errorf("an inconclusive audit looks like %q, want %s", got, audit.FormatClaude)
	}
}

// TestHeadWordsFit: the table's words fit a Head.
func TestHeadWordsFit(t *testing.T) {
	if len(headWords) > stream.MaxHeadWords {
		t.Errorf("%d words for a Head of %d", len(headWords), stream.MaxHeadWords)
	}
	for _, f := range formats {
		if f.Noun == "" {
			t.Errorf("%s: no noun", f.Name)
		}
		if len(f.Looks.Members) == 0 && len(f.Looks.Values) == 0 && f.Looks.First == "" {
			t.Errorf("%s: no Looks", f.Name)
		}
	}
}

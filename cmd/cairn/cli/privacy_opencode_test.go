//go:build !wasip1

package cli

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyOpenCodeNoInputContent is TestPrivacyClaudeNoInputContent
// for OpenCode run streams (SPEC §13): the real captures (when there are
// any) and the streams of opencode_stream.txtar, rewritten with canaries
// except record and part types, statuses, step reasons and, in some
// variants, the catalog's tool names, invalid and task; the session id and
// call ids renamed consistently.
func TestPrivacyOpenCodeNoInputContent(t *testing.T) {
	var inputs []privInput
	if m, _ := filepath.Glob("../../../testdata/opencode/real/*/*.jsonl"); len(m) > 0 {
		inputs = privCaptures(t, "../../../testdata/opencode/real/*/*.jsonl")
	}
	a, err := txtar.ParseFile("../../../testdata/script/opencode_stream.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		inputs = append(inputs, privInput{"script/" + f.Name, f.Data})
	}
	privacyStreams(t, audit.FormatOpenCode, inputs, (*pcGen).openCodeRecord, rand.New(rand.NewPCG(0x6f63, 0x636e7279)))
}

// openCodeKept are the tool names the variants that keep the catalog keep.
func openCodeKept(name string) bool {
	if name == "invalid" || name == "task" {
		return true
	}
	for _, server := range audit.Servers {
		if tool, ok := strings.CutPrefix(name, server+"_"); ok && audit.LookupTool(tool) != audit.NoTool {
			return true
		}
	}
	return false
}

// openCodeRecord rewrites one OpenCode record in place.
func (g *pcGen) openCodeRecord(rec *pcNode) {
	for _, m := range rec.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(12) == 0 {
				m.val.raw = g.lit()
			}
			continue
		case `"sessionID"`:
			g.id(m.val)
			continue
		case `"part"`:
			if m.val.kind == 'o' {
				g.openCodePart(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	g.inject(rec)
}

func (g *pcGen) openCodePart(part *pcNode) {
	for _, m := range part.members {
		switch m.name {
		case `"type"`, `"reason"`:
			continue
		case `"callID"`, `"sessionID"`:
			g.id(m.val)
			continue
		case `"tool"`:
			if g.v.keepCatalog && m.val.kind == 's' && openCodeKept(m.val.str) {
				continue
			}
		case `"state"`:
			if m.val.kind == 'o' {
				for _, sm := range m.val.members {
					switch {
					case sm.name == `"status"`:
						continue
					case sm.name == `"input"` && sm.val.kind == 'o':
						for _, im := range sm.val.members {
							if im.name == `"tool"` && g.v.keepCatalog && im.val.kind == 's' && openCodeKept(im.val.str) {
								continue
							}
							if g.v.sameVerdict && im.name == `"scope"` && im.val.kind == 's' {
								continue
							}
							g.value2(im.val, 4)
						}
						g.inject(sm.val)
						continue
					}
					g.value2(sm.val, 3)
				}
				g.inject(m.val)
				continue
			}
		}
		g.value2(m.val, 2)
	}
	g.inject(part)
}

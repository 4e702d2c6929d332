//go:build !wasip1

package leaktest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyOpenCodeNoInputContent is TestPrivacyClaudeNoInputContent
// for OpenCode run streams (SPEC §13): the real captures (when there are
// any) and the streams of opencode_stream.txtar, rewritten with canaries
// except record and part types, statuses, step reasons and, in some
// variants, the catalog's tool names, invalid and task; the session id and
// call ids renamed consistently.
func TestPrivacyOpenCodeNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := append(privCaptures(t, "../../../../testdata/opencode/real/*/*.jsonl"), privScripts(t, "opencode_stream.txtar", nil)...)
	privacyStreams(t, audit.FormatOpenCode, inputs, (*pcGen).openCodeRecord, rand.New(rand.NewPCG(0x6f63, 0x636e7279)))
}

// TestPrivacyOpenCodeExportNoInputContent is the same property for
// OpenCode exports (SPEC §13, --opencode-export): every real export (and
// each task's child session), rewritten with canaries except part types,
// statuses, message roles and finish reasons, the session's parentID
// (its presence, not its value) and, in some variants, the catalog's tool
// names; ids renamed consistently.
func TestPrivacyOpenCodeExportNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := privCaptures(t, "../../../../testdata/opencode/real/*/*.export.json")
	inputs = append(inputs, privScripts(t, "opencode_export.txtar", func(name string, data []byte) bool {
		return !strings.HasSuffix(name, ".json") || !json.Valid(data) || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
	})...)
	privacyStreams(t, audit.FormatOpenCodeEx, inputs, (*pcGen).openCodeExport, rand.New(rand.NewPCG(0x6f78, 0x636e7279)))
}

// openCodeExport rewrites one OpenCode export in place: the session's
// info, then each message's info and parts.
func (g *pcGen) openCodeExport(doc *pcNode) {
	for _, m := range doc.members {
		switch {
		case m.name == `"info"` && m.val.kind == 'o':
			for _, im := range m.val.members {
				if im.name == `"id"` {
					g.id(im.val)
					continue
				}
				g.value2(im.val, 2) // parentID keeps its kind: a string stays a string
			}
			g.inject(m.val)
		case m.name == `"messages"` && m.val.kind == 'a':
			for _, msg := range m.val.elems {
				g.openCodeMessage(msg)
			}
		default:
			g.value2(m.val, 1)
		}
	}
	g.inject(doc)
}

func (g *pcGen) openCodeMessage(msg *pcNode) {
	if msg.kind != 'o' {
		g.value2(msg, 2)
		return
	}
	for _, m := range msg.members {
		switch {
		case m.name == `"info"` && m.val.kind == 'o':
			for _, im := range m.val.members {
				switch im.name {
				case `"role"`, `"finish"`:
					continue
				case `"id"`, `"sessionID"`, `"parentID"`:
					g.id(im.val)
					continue
				}
				g.value2(im.val, 3)
			}
			g.inject(m.val)
		case m.name == `"parts"` && m.val.kind == 'a':
			for _, p := range m.val.elems {
				if p.kind == 'o' {
					g.openCodePart(p)
				} else {
					g.value2(p, 3)
				}
			}
			if g.v.types && g.r.IntN(4) == 0 {
				// A part of an unknown type.
				k := g.r.IntN(len(m.val.elems) + 1)
				p := &pcNode{kind: 'r', raw: `{"type":` + g.lit() + `,` + g.lit() + `:` + g.value(1) + `}`}
				m.val.elems = append(m.val.elems[:k], append([]*pcNode{p}, m.val.elems[k:]...)...)
			}
		default:
			g.value2(m.val, 2)
		}
	}
	g.inject(msg)
}

// openCodeKept are the tool names the variants that keep the catalog keep.
func openCodeKept(name string) bool {
	if name == "invalid" || name == "task" {
		return true
	}
	for _, server := range audit.CairnMemory.Servers() {
		if tool, ok := strings.CutPrefix(name, server+"_"); ok && audit.CairnMemory.Bare([]byte(tool)) != audit.NoTool {
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

//go:build !wasip1

package leaktest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyGeminiNoInputContent is TestPrivacyClaudeNoInputContent for
// Gemini CLI streams (SPEC §11): every real capture
// (testdata/gemini/real, every version, and testdata/catalog/real/gemini)
// and every stream of
// gemini_stream.txtar, rewritten so that every JSON string value is a
// canary except the values the semantics need (record types, role,
// status, and in some variants the catalog's tool names, update_topic,
// invoke_agent and an error's tool_not_registered), with tool_ids renamed
// consistently and unknown members, record types and escapes added: no
// canary reaches stdout or stderr, every where is a place of the format,
// and the rewrite that keeps the semantics keeps the verdict.
func TestPrivacyGeminiNoInputContent(t *testing.T) {
	t.Parallel()
	var inputs []privInput
	captures := privCaptures(t, "../../../../testdata/gemini/real/*/*.jsonl")
	for _, in := range append(captures, privCaptures(t, "../../../../testdata/catalog/real/gemini/*/*/*.jsonl")...) {
		// --output-format json is one document over many lines: not
		// records the rewrite can keep the shape of.
		if !strings.HasSuffix(in.name, "/json-output.jsonl") {
			inputs = append(inputs, in)
		}
	}
	inputs = append(inputs, privScripts(t, "gemini_stream.txtar", func(name string, _ []byte) bool {
		// Not records the rewrite can keep the shape of.
		return name == "json-output.jsonl" || name == "no-params.jsonl" || name == "empty-id.jsonl"
	})...)
	privacyStreams(t, audit.FormatGemini, inputs, (*pcGen).geminiRecord, rand.New(rand.NewPCG(0x67656d, 0x636e7279)))
}

// geminiKept are the tool names the variants that keep the catalog keep.
func geminiKept(name string) bool {
	if name == "update_topic" || name == "invoke_agent" {
		return true
	}
	for _, server := range audit.CairnMemory.Servers() {
		if len(name) > len(server)+5 && name[:len(server)+5] == "mcp_"+server+"_" {
			return audit.CairnMemory.Bare([]byte(name[len(server)+5:])) != audit.NoTool
		}
	}
	return false
}

// geminiRecord rewrites one Gemini CLI record in place.
func (g *pcGen) geminiRecord(rec *pcNode) {
	for _, m := range rec.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(12) == 0 {
				m.val.raw = g.lit() // an unknown record type
			}
			continue
		case `"role"`, `"status"`:
			if g.v.types && g.r.IntN(8) == 0 {
				m.val.raw = g.lit() // an unknown enum value
			}
			continue
		case `"tool_id"`:
			g.id(m.val)
			continue
		case `"tool_name"`:
			if g.v.keepCatalog && m.val.kind == 's' && geminiKept(m.val.str) {
				continue
			}
		case `"error"`:
			if m.val.kind == 'o' {
				for _, em := range m.val.members {
					if em.name == `"type"` && g.v.sameVerdict && em.val.kind == 's' && em.val.str == "tool_not_registered" {
						continue
					}
					g.value2(em.val, 3)
				}
				g.inject(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	g.inject(rec)
}

//go:build !wasip1

package leaktest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyCopilotNoInputContent is TestPrivacyClaudeNoInputContent for
// GitHub Copilot CLI streams (SPEC §17): the real captures
// (testdata/copilot/real, every version) and the streams of
// copilot_stream.txtar and copilot_catalog.txtar, rewritten so that every
// JSON string value is a canary except the values the semantics need
// (record types, servers[].status, a result's content block types, an empty
// message content, and in some variants the catalog's tool names, task and
// the memory server's name), every toolCallId, parentToolCallId and
// sessionId renamed consistently: no canary reaches stdout or stderr,
// every where is a place of the format, and the rewrite that keeps the
// semantics keeps the verdict.
func TestPrivacyCopilotNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := privCaptures(t, "../../../../testdata/copilot/real/*/*.jsonl")
	inputs = append(inputs, privScripts(t, "copilot_*.txtar", func(name string, _ []byte) bool {
		// Not records the rewrite can keep the shape of.
		return name == "no-type.jsonl" || name == "no-data.jsonl" || name == "empty-id.jsonl"
	})...)
	privacyStreams(t, audit.FormatCopilot, inputs, (*pcGen).copilotRecord, rand.New(rand.NewPCG(0x636f70, 0x636e7279)))
}

// copilotKept are the tool names the variants that keep the catalog keep:
// the catalog's tools as S-T, and task.
func copilotKept(name string) bool {
	if name == "task" {
		return true
	}
	for _, server := range audit.CairnMemory.Servers() {
		if tool, ok := strings.CutPrefix(name, server+"-"); ok && audit.CairnMemory.Bare([]byte(tool)) != audit.NoTool {
			return true
		}
	}
	return false
}

// copilotRecord rewrites one Copilot CLI record in place.
func (g *pcGen) copilotRecord(rec *pcNode) {
	for _, m := range rec.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(12) == 0 {
				m.val.raw = g.lit() // an unknown record type
			}
			continue
		case `"sessionId"`:
			g.id(m.val)
			continue
		case `"data"`:
			if m.val.kind == 'o' {
				g.copilotData(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	g.inject(rec)
}

// copilotData rewrites a record's data.
func (g *pcGen) copilotData(d *pcNode) {
	for _, m := range d.members {
		switch m.name {
		case `"toolCallId"`, `"parentToolCallId"`:
			g.id(m.val)
			continue
		case `"toolName"`:
			g.copilotName(m.val)
			continue
		case `"content"`:
			if m.val.kind == 's' && m.val.str == "" {
				continue // no narration stays none
			}
		case `"toolRequests"`:
			if m.val.kind == 'a' {
				for _, e := range m.val.elems {
					g.copilotRequest(e)
				}
				continue
			}
		case `"servers"`:
			if m.val.kind == 'a' {
				for _, s := range m.val.elems {
					g.server(s)
				}
				continue
			}
		case `"result"`:
			g.piResult(m.val, 2) // a content block's type stays
			continue
		}
		g.value2(m.val, 2)
	}
	g.inject(d)
}

// copilotName renames a tool name as ids are, unless the variant keeps the
// catalog and it is one of copilotKept.
func (g *pcGen) copilotName(n *pcNode) {
	if !g.v.keepCatalog || n.kind != 's' || !copilotKept(n.str) {
		g.id(n)
	}
}

func (g *pcGen) copilotRequest(e *pcNode) {
	if e.kind != 'o' {
		g.value2(e, 3)
		return
	}
	for _, m := range e.members {
		switch m.name {
		case `"toolCallId"`:
			g.id(m.val)
			continue
		case `"name"`:
			g.copilotName(m.val)
			continue
		}
		g.value2(m.val, 4)
	}
	g.inject(e)
}

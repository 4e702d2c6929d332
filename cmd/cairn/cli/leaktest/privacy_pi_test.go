//go:build !wasip1

package leaktest

import (
	"math/rand/v2"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyPiNoInputContent is TestPrivacyClaudeNoInputContent for Pi
// streams (SPEC §12): the real captures (testdata/pi/real, when there are
// any) and the streams of pi_stream.txtar, rewritten with canaries except
// the values the semantics need (record types, roles, stop reasons, block
// types, and in some variants the catalog's tool names, codemode,
// tool_search and the adapter's mcp proxy), every call id renamed
// consistently (toolCall.id, toolCallId, parentToolCallId) and every
// string of a call's arguments too, so that a start still matches its
// toolCall.
func TestPrivacyPiNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := append(privCaptures(t, "../../../../testdata/pi/real/*/*.jsonl"), privScripts(t, "pi_stream.txtar", nil)...)
	privacyStreams(t, audit.FormatPi, inputs, (*pcGen).piRecord, rand.New(rand.NewPCG(0x7069, 0x636e7279)))
}

// piKept are the tool names the variants that keep the catalog keep.
func piKept(name string) bool {
	switch name {
	case "codemode", "tool_search", "mcp", "mcpScript":
		return true
	}
	for _, server := range audit.CairnMemory.Servers() {
		if name == "mcp__"+server {
			return true // pi-mcp-adapter's namespace proxy
		}
		for _, prefix := range []string{"mcp__" + server + "__", server + "_"} {
			if len(name) > len(prefix) && name[:len(prefix)] == prefix && audit.CairnMemory.Bare([]byte(name[len(prefix):])) != audit.NoTool {
				return true
			}
		}
	}
	return false
}

// piRecord rewrites one Pi record in place.
func (g *pcGen) piRecord(rec *pcNode) {
	for _, m := range rec.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(12) == 0 {
				m.val.raw = g.lit() // an unknown record type
			}
			continue
		case `"toolCallId"`, `"parentToolCallId"`:
			g.id(m.val)
			continue
		case `"toolName"`:
			// Renamed as ids are, so that a start still names its call.
			if !g.v.keepCatalog || m.val.kind != 's' || !piKept(m.val.str) {
				g.id(m.val)
			}
			continue
		case `"args"`:
			g.idsIn(m.val)
			continue
		case `"result"`:
			g.piResult(m.val, 2)
			continue
		case `"message"`:
			if m.val.kind == 'o' {
				g.piMessage(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	g.inject(rec)
}

func (g *pcGen) piMessage(msg *pcNode) {
	for _, m := range msg.members {
		switch m.name {
		case `"role"`, `"stopReason"`:
			continue
		case `"content"`:
			if m.val.kind == 'a' {
				for _, b := range m.val.elems {
					g.piBlock(b)
				}
				continue
			}
		case `"toolsAdded"`:
			if m.val.kind == 'a' {
				for _, e := range m.val.elems {
					if e.kind != 'o' {
						continue
					}
					for _, em := range e.members {
						if em.name == `"name"` && g.v.keepCatalog && em.val.kind == 's' && piKept(em.val.str) {
							continue
						}
						g.value2(em.val, 4)
					}
				}
				continue
			}
		}
		g.value2(m.val, 2)
	}
	g.inject(msg)
}

func (g *pcGen) piBlock(b *pcNode) {
	if b.kind != 'o' {
		g.value2(b, 3)
		return
	}
	for _, m := range b.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(10) == 0 {
				m.val.raw = g.lit()
			}
			continue
		case `"id"`:
			g.id(m.val)
			continue
		case `"name"`:
			if !g.v.keepCatalog || m.val.kind != 's' || !piKept(m.val.str) {
				g.id(m.val)
			}
			continue
		case `"arguments"`:
			g.idsIn(m.val)
			continue
		}
		g.value2(m.val, 4)
	}
	g.inject(b)
}

// piResult rewrites a tool result: the type of each content block stays,
// so that a text block is still one.
func (g *pcGen) piResult(n *pcNode, depth int) {
	switch n.kind {
	case 'o':
		for _, m := range n.members {
			if m.name == `"type"` && m.val.kind == 's' && m.val.str == "text" {
				continue
			}
			if g.v.sameVerdict && (m.name == `"mode"` || m.name == `"scope"`) && m.val.kind == 's' {
				continue
			}
			g.piResult(m.val, depth+1)
		}
		if depth < 6 {
			g.inject(n)
		}
	case 'a':
		for _, e := range n.elems {
			g.piResult(e, depth+1)
		}
	default:
		g.value2(n, depth)
	}
}

// idsIn renames every string of a call's arguments consistently (as ids
// are), except, in the variant that keeps the semantics, a scope, so that
// the same arguments written twice stay equal.
func (g *pcGen) idsIn(n *pcNode) {
	switch n.kind {
	case 's':
		g.id(n)
	case 'o':
		for _, m := range n.members {
			if g.v.sameVerdict && m.name == `"scope"` && m.val.kind == 's' {
				continue
			}
			g.idsIn(m.val)
		}
	case 'a':
		for _, e := range n.elems {
			g.idsIn(e)
		}
	}
}

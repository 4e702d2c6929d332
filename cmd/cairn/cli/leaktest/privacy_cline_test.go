//go:build !wasip1

package leaktest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyClineNoInputContent is TestPrivacyClaudeNoInputContent for
// Cline CLI streams (SPEC §19): every real capture (testdata/cline/real,
// every version) and every stream of the cline_*.txtar scripts, rewritten
// with canaries except the values the semantics need (record types,
// hookEventName, event types, contentType, finishReason, content block
// types, a search's scope and a result's mode, and in some variants the
// catalog's tool names, spawn_agent and team_*), with toolCallId, every
// agent and task id and every other tool name renamed consistently, so
// that an end still names its start and a sub-agent its parent.
func TestPrivacyClineNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := privCaptures(t, "../../../../testdata/cline/real/*/*.jsonl")
	inputs = append(inputs, privScripts(t, "cline_*.txtar", func(name string, _ []byte) bool {
		return name == "empty-call-id.jsonl" // an empty id renamed is no longer empty
	})...)
	privacyStreams(t, audit.FormatCline, inputs, (*pcGen).clineRecord, rand.New(rand.NewPCG(0x636c696e, 0x636e7279)))
}

// clineKept are the tool names the variants that keep the catalog keep:
// the memory tools, and the calls that start sub-agents.
func clineKept(name string) bool {
	if name == "spawn_agent" || strings.HasPrefix(name, "team_") {
		return true
	}
	for _, server := range audit.CairnMemory.Servers() {
		if tool, ok := strings.CutPrefix(name, server+"__"); ok && audit.CairnMemory.Bare([]byte(tool)) != audit.NoTool {
			return true
		}
	}
	return false
}

// clineRecord rewrites one Cline record in place.
func (g *pcGen) clineRecord(rec *pcNode) {
	for _, m := range rec.members {
		switch m.name {
		case `"type"`, `"hookEventName"`:
			if g.v.types && g.r.IntN(12) == 0 {
				m.val.raw = g.lit() // an unknown record type or hook
			}
			continue
		case `"finishReason"`:
			continue
		case `"agentId"`, `"parentAgentId"`, `"taskId"`:
			g.id(m.val)
			continue
		case `"event"`:
			if m.val.kind == 'o' {
				g.clineEvent(m.val)
				continue
			}
		}
		g.value2(m.val, 1)
	}
	g.inject(rec)
}

// clineEvent rewrites an agent_event's event.
func (g *pcGen) clineEvent(ev *pcNode) {
	for _, m := range ev.members {
		switch m.name {
		case `"type"`:
			if g.v.types && g.r.IntN(10) == 0 {
				m.val.raw = g.lit() // an unknown event type
			}
			continue
		case `"contentType"`:
			continue
		case `"toolCallId"`:
			g.id(m.val)
			continue
		case `"toolName"`:
			// Renamed as ids are, so that an end still names its call.
			if !g.v.keepCatalog || m.val.kind != 's' || !clineKept(m.val.str) {
				g.id(m.val)
			}
			continue
		case `"output"`:
			g.piResult(m.val, 3)
			continue
		}
		g.value2(m.val, 2)
	}
	g.inject(ev)
}

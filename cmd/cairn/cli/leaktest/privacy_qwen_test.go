//go:build !wasip1

package leaktest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
)

// TestPrivacyQwenNoInputContent is TestPrivacyClaudeNoInputContent for
// Qwen Code streams (SPEC §18): every real capture (testdata/qwen/real,
// every version) and every stream of testdata/script/qwen_*.txtar,
// rewritten by the Claude Code test's generator (Qwen Code prints Claude
// Code's records) with what Qwen Code's reader reads besides kept in the
// variants that keep the catalog or the verdict: the names tool_search,
// tool_call and agent, a bridged call's catalog tool (input.name), the
// [API Error: prefix of a text, a task's tool_use_id (renamed with the
// call's id), and a result whose first line is a JSON object (rewritten
// inside, its text after the line a canary). No canary, nor any 6-letter
// piece of one, may reach stdout or stderr; every where is one of
// normalize.QwenPlaces(); the variant that keeps the semantics keeps the
// verdict.
func TestPrivacyQwenNoInputContent(t *testing.T) {
	t.Parallel()
	inputs := privCaptures(t, "../../../../testdata/qwen/real/*/*.jsonl")
	inputs = append(inputs, privScripts(t, "qwen_*.txtar", func(name string, _ []byte) bool {
		return !strings.HasSuffix(name, ".jsonl")
	})...)
	privacyStreams(t, audit.FormatQwen, inputs, (*pcGen).qwenRecord, rand.New(rand.NewPCG(0x717765, 0x636e7279)))
}

// qwenTools are Qwen Code's own tools whose names the reader reads.
var qwenTools = map[string]bool{"tool_search": true, "tool_call": true, "agent": true}

// qwenRecord rewrites one record as (*pcGen).record does, then puts back
// what Qwen Code's reader reads besides Claude Code's.
func (g *pcGen) qwenRecord(rec *pcNode) {
	var after []func()
	keep := func(n *pcNode) {
		if n != nil && n.kind == 's' {
			after = append(after, func() { n.raw = quote(n.str) })
		}
	}
	if msg := rec.get("message"); msg != nil && msg.kind == 'o' {
		if content := msg.get("content"); content != nil && content.kind == 'a' {
			for _, b := range content.elems {
				if b.kind != 'o' {
					continue
				}
				if name := b.get("name"); g.v.keepCatalog && name != nil && name.kind == 's' && qwenTools[name.str] {
					keep(name)
					if in := b.get("input"); name.str == "tool_call" && in != nil && in.kind == 'o' {
						if target := in.get("name"); target != nil && target.kind == 's' && pcCatalogTool(target.str) {
							keep(target)
						}
					}
				}
				if text := b.get("text"); g.v.sameVerdict && text != nil && text.kind == 's' && strings.HasPrefix(text.str, "[API Error: ") {
					after = append(after, func() { text.raw = quote("[API Error: " + g.c() + "]") })
				}
				if c := b.get("content"); c != nil && c.kind == 's' {
					if first, rest, ok := strings.Cut(c.str, "\n"); ok {
						if doc, err := pcParseBytes([]byte(first)); err == nil && doc.kind == 'o' {
							after = append(after, func() {
								g.inner(doc)
								c.raw = quote(doc.String() + "\n" + strings.Repeat(g.c(), min(1, len(rest))))
							})
						}
					}
				}
			}
		}
	}
	if data := rec.get("data"); data != nil && data.kind == 'o' {
		if id := data.get("tool_use_id"); id != nil && id.kind == 's' {
			after = append(after, func() {
				if c, ok := g.ids[id.str]; ok {
					id.raw = quote(c)
				}
			})
		}
	}
	g.record(rec)
	for _, f := range after {
		f()
	}
}

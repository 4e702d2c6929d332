package leaktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli"
)

// TestPrivacyTrajectory is the property of SPEC §7.2 for trajectories: no
// substring of a JSON string value from the input, nor the input's path,
// reaches stdout or stderr — whatever the verdict, the output mode or the
// source. Every string value of a generated document (session and call ids,
// the project root, non-memory tool names, input keys and values, outputs,
// texts, unknown member names and kinds) holds its own canary, "cnry" and
// 16 random hex digits; the test looks for each canary's random part.
//
// The documents are random; CAIRN_PRIVACY_SEED=N replays one run.
func TestPrivacyTrajectory(t *testing.T) {
	seed := rand.Uint64()
	if s := os.Getenv("CAIRN_PRIVACY_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CAIRN_PRIVACY_SEED=%q is not a number", s)
		}
		seed = n
	}
	t.Logf("CAIRN_PRIVACY_SEED=%d", seed)
	r := rand.New(rand.NewPCG(seed, 0x636e7279))

	const perKind = 30
	kinds := []struct {
		name string
		exit int
		make func(g *trajGen) trajCase
	}{
		{"pass", 0, (*trajGen).passing},
		{"fail", 1, (*trajGen).failing},
		{"inconclusive", 3, (*trajGen).inconclusive},
		{"invalid", 2, (*trajGen).invalid},
	}
	dir := t.TempDir()
	for _, k := range kinds {
		for i := range perKind {
			g := &trajGen{r: r, round: i}
			tc := k.make(g)
			// The path carries a canary too, in a directory and in the name.
			sub := filepath.Join(dir, g.canary())
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(sub, "session-"+g.canary()+".json")
			if err := os.WriteFile(path, tc.doc, 0o644); err != nil {
				t.Fatal(err)
			}
			// The generator's own check: every canary is in the input or
			// its path (a document cut short loses those after the cut).
			for _, h := range g.hex {
				if !bytes.Contains(tc.doc, []byte(h)) && !strings.Contains(path, h) && tc.variant != "ends-inside-a-string" {
					t.Fatalf("%s/%d/%s: canary cnry%s is not in the input", k.name, i, tc.variant, h)
				}
			}
			for _, src := range []string{"file", "stdin"} {
				for _, asJSON := range []bool{true, false} {
					name := fmt.Sprintf("%s/%d/%s/%s/json=%v", k.name, i, tc.variant, src, asJSON)
					args := []string{"eval", "protocol", "--trajectory", path}
					stdin := bytes.NewReader(nil)
					if src == "stdin" {
						args[3] = "-"
						stdin = bytes.NewReader(tc.doc)
					}
					if asJSON {
						args = append(args, "--json")
					}
					if tc.captureAuthorized {
						args = append(args, "--capture-authorized")
					}
					var stdout, stderr bytes.Buffer
					got := cli.Run(args, stdin, &stdout, &stderr, func(k string) string {
						if k == "CAIRN_EVAL" {
							return "1"
						}
						return ""
					})
					fail := func(format string, a ...any) {
						t.Helper()
						t.Errorf("%s (CAIRN_PRIVACY_SEED=%d): %s\ninput:\n%s\nstdout:\n%s\nstderr:\n%s",
							name, seed, fmt.Sprintf(format, a...), tc.doc, stdout.String(), stderr.String())
					}
					if got != k.exit {
						fail("exit %d, want %d", got, k.exit)
					}
					for _, h := range g.hex {
						if strings.Contains(stdout.String(), h) || strings.Contains(stderr.String(), h) {
							fail("canary cnry%s reached the output", h)
						}
					}
					if asJSON {
						var rep struct {
							Status   string `json:"status"`
							ExitCode int    `json:"exit_code"`
							Error    *struct {
								Where *string `json:"where"`
							} `json:"error"`
							Findings []struct {
								Where *string `json:"where"`
							} `json:"findings"`
						}
						if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.ExitCode != k.exit {
							fail("report exit_code %d (%v), want %d", rep.ExitCode, err, k.exit)
						}
						// Every place named is the contract's, never a name
						// from the document.
						places := fzPlaces(audit.FormatTrajectory)
						if rep.Error != nil && rep.Error.Where != nil && !places[*rep.Error.Where] {
							fail("error at %q, not a place of the contract", *rep.Error.Where)
						}
						for _, f := range rep.Findings {
							if f.Where != nil && !places[*f.Where] {
								fail("finding at %q, not a place of the contract", *f.Where)
							}
						}
					}
					if t.Failed() {
						return // one input is enough to read
					}
				}
			}
		}
	}
}

// trajCase is one generated document and the flag it is audited with.
type trajCase struct {
	variant           string
	doc               []byte
	captureAuthorized bool
}

// trajGen builds one trajectory document whose string values each hold a
// fresh canary. It keeps the random part of every canary it handed out.
type trajGen struct {
	r     *rand.Rand
	round int // picks the variant, so that every variant runs
	hex   []string

	harness       string
	schemaVersion string
	events        []string
	extra         [][2]string // unknown top-level members: raw name, raw value
	capture       map[string]string
	sequenceN     func(int) int // the sequence written for the i-th event
}

func (g *trajGen) canary() string {
	h := fmt.Sprintf("%016x", g.r.Uint64())
	g.hex = append(g.hex, h)
	return "cnry" + h
}

// quote is s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// str is a JSON string holding a fresh canary, sometimes between characters
// that JSON escapes or that are not ASCII.
func (g *trajGen) str() string {
	around := []string{"", "", " ", "é", "\n", `\`, `"`, "\t", "\u2028", "日本"}
	return quote(around[g.r.IntN(len(around))] + g.canary() + around[g.r.IntN(len(around))])
}

func (g *trajGen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// memorySearchName is one of the harness's spellings of memory_search.
func (g *trajGen) memorySearchName() string {
	switch g.harness {
	case "claude-code":
		return g.pick("memory_search", "mcp__cairn-memory__memory_search", "mcp__cairn_memory__memory_search")
	case "opencode":
		return g.pick("memory_search", "cairn-memory_memory_search", "cairn_memory_memory_search")
	}
	return "memory_search"
}

func (g *trajGen) event(kind, payload string) {
	n := len(g.events)
	seq := n
	if g.sequenceN != nil {
		seq = g.sequenceN(n)
	}
	g.events = append(g.events, fmt.Sprintf(`{"sequence":%d,"kind":%s,"payload":%s}`, seq, kind, payload))
}

func (g *trajGen) invocation(id, tool, input string) {
	g.event(`"tool_invocation"`, fmt.Sprintf(`{"call_id":%s,"tool_name":%s,"input":%s}`, id, tool, input))
}

func (g *trajGen) result(id string, isError bool, output string) {
	g.event(`"tool_result"`, fmt.Sprintf(`{"call_id":%s,"is_error":%v,"output":%s}`, id, isError, output))
}

func (g *trajGen) text(kind string) {
	g.event(quote(kind), fmt.Sprintf(`{"text":%s}`, g.str()))
}

// searchInput is a project-scoped search input full of canaries.
func (g *trajGen) searchInput() string {
	return fmt.Sprintf(`{"scope":"project","query":%s,%s:%s}`, g.str(), g.str(), g.str())
}

// searchOutput is a retrieval result in one of the three forms of SPEC §5.
func (g *trajGen) searchOutput() string {
	obj := fmt.Sprintf(`{"mode":%q,"count":1,"results":[{"key":%s,"text":%s,%s:%s}]}`,
		g.pick("semantic", "substring"), g.str(), g.str(), g.str(), g.str())
	switch g.r.IntN(4) {
	case 0:
		return obj
	case 1:
		return quote(obj)
	case 2:
		return fmt.Sprintf(`[{"type":"text","text":%s}]`, quote(obj))
	}
	return fmt.Sprintf(`[{"type":"image","data":%s},{"type":"text","text":%s},{"type":"text","text":%s}]`, g.str(), quote(obj), g.str())
}

// chatter adds user input and narration, sometimes none.
func (g *trajGen) chatter() {
	for range g.r.IntN(3) {
		g.text(g.pick("user_input", "model_output"))
	}
}

// search adds a project search and its result.
func (g *trajGen) search() {
	id := g.str()
	g.invocation(id, quote(g.memorySearchName()), g.searchInput())
	g.result(id, false, g.searchOutput())
}

// reads adds memory reads, which keep a passing document passing.
func (g *trajGen) reads() {
	for range g.r.IntN(3) {
		id := g.str()
		g.invocation(id, quote(g.pick("memory_get", "memory_list")), fmt.Sprintf(`{"key":%s}`, g.str()))
		g.result(id, g.r.IntN(2) == 0, g.str())
	}
}

func (g *trajGen) opaqueCall() {
	id := g.str()
	g.invocation(id, g.str(), fmt.Sprintf(`{"command":%s,%s:%s}`, g.str(), g.str(), g.str()))
	g.result(id, g.r.IntN(2) == 0, g.str())
}

func (g *trajGen) start() {
	g.harness = g.pick("claude-code", "opencode", "pi")
	g.schemaVersion = "1"
	g.capture = map[string]string{
		"captured_at":              `"2026-10-07T00:01:00Z"`,
		"omitted_reasoning_blocks": strconv.Itoa(g.r.IntN(3)),
		"omitted_unknown_records":  "0",
		"truncated":                "false",
	}
}

// render writes the document with its top-level members in a random order
// (so that harness and capture may follow the events) and random spacing.
func (g *trajGen) render() []byte {
	capture := make([]string, 0, len(g.capture))
	for _, k := range []string{"captured_at", "omitted_reasoning_blocks", "omitted_unknown_records", "truncated"} {
		if v, ok := g.capture[k]; ok {
			capture = append(capture, quote(k)+":"+v)
		}
	}
	for k, v := range g.capture {
		if strings.HasPrefix(k, `"`) { // an unknown member, already quoted
			capture = append(capture, k+":"+v)
		}
	}
	sep := g.pick(",", ",\n  ", ", ")
	members := [][2]string{
		{`"schema_version"`, g.schemaVersion},
		{`"session_id"`, g.str()},
		{`"harness"`, quote(g.harness)},
		{`"project_root"`, g.str()},
		{`"started_at"`, `"2026-10-07T00:00:00Z"`},
		{`"ended_at"`, `"2026-10-07T00:01:00.5+02:00"`},
		{`"events"`, "[" + strings.Join(g.events, sep) + "]"},
		{`"capture"`, "{" + strings.Join(capture, ",") + "}"},
	}
	members = append(members, g.extra...)
	g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = m[0] + ":" + m[1]
	}
	return []byte("{" + strings.Join(parts, sep) + "}" + g.pick("", "\n", " \n"))
}

// passing: a project search first, then reads, narration and user input;
// sometimes an authorized memory_store.
func (g *trajGen) passing() trajCase {
	g.start()
	g.chatter()
	g.search()
	g.reads()
	tc := trajCase{variant: "search"}
	if g.r.IntN(3) == 0 {
		id := g.str()
		g.invocation(id, `"memory_store"`, fmt.Sprintf(`{"key":%s,"value":%s}`, g.str(), g.str()))
		g.result(id, false, g.str())
		tc = trajCase{variant: "authorized-store", captureAuthorized: true}
	}
	g.chatter()
	tc.doc = g.render()
	return tc
}

// failing: an observed violation, sometimes with evidence gaps as well.
func (g *trajGen) failing() trajCase {
	g.start()
	g.chatter()
	var variant string
	switch g.round % 4 {
	case 0:
		variant = "opaque-first"
		g.opaqueCall()
		g.search()
	case 1:
		variant = "unauthorized-store"
		g.search()
		id := g.str()
		g.invocation(id, `"memory_store"`, fmt.Sprintf(`{"key":%s,"value":%s}`, g.str(), g.str()))
		g.result(id, g.r.IntN(2) == 0, g.str())
	case 2:
		variant = "narration-only"
		g.text("model_output")
	case 3:
		variant = "unscoped-search"
		id := g.str()
		g.invocation(id, quote(g.memorySearchName()), fmt.Sprintf(`{"scope":%s,"query":%s}`, g.str(), g.str()))
		g.result(id, false, g.searchOutput())
	}
	if g.r.IntN(2) == 0 {
		variant += "+unknown-member"
		g.extra = append(g.extra, [2]string{g.str(), g.str()})
	}
	g.chatter()
	return trajCase{variant: variant, doc: g.render()}
}

// inconclusive: a passing session with at least one evidence gap and no
// violation.
func (g *trajGen) inconclusive() trajCase {
	g.start()
	g.chatter()
	var variant string
	switch g.round % 10 {
	case 0:
		variant = "unknown-top-level-member"
		g.search()
		g.extra = append(g.extra, [2]string{g.str(), fmt.Sprintf(`{%s:%s}`, g.str(), g.str())})
	case 1:
		variant = "unknown-event-member"
		g.search()
		g.text("model_output")
		last := len(g.events) - 1
		g.events[last] = strings.Replace(g.events[last], `{"sequence"`, fmt.Sprintf(`{%s:%s,"sequence"`, g.str(), g.str()), 1)
	case 2:
		variant = "unknown-payload-member"
		id := g.str()
		g.invocation(id, quote(g.memorySearchName()), g.searchInput())
		last := len(g.events) - 1
		g.events[last] = strings.Replace(g.events[last], `"payload":{`, fmt.Sprintf(`"payload":{%s:%s,`, g.str(), g.str()), 1)
		g.result(id, false, g.searchOutput())
	case 3:
		variant = "unknown-kind"
		if g.r.IntN(2) == 0 {
			g.event(g.str(), fmt.Sprintf(`{%s:%s}`, g.str(), g.str()))
			g.search()
		} else {
			g.search()
			g.event(g.str(), fmt.Sprintf(`{%s:%s}`, g.str(), g.str()))
		}
	case 4:
		variant = "error-result"
		id := g.str()
		g.invocation(id, quote(g.memorySearchName()), g.searchInput())
		var out string
		if g.r.IntN(2) == 0 {
			out = g.searchOutput() // an error result even so
		} else {
			out = g.str()
		}
		g.result(id, true, out)
	case 5:
		variant = "uninterpretable-result"
		id := g.str()
		g.invocation(id, quote(g.memorySearchName()), g.searchInput())
		var out string
		switch g.r.IntN(3) {
		case 0:
			out = g.str()
		case 1:
			out = quote(`{"mode":` + g.str() + `}`)
		case 2:
			out = fmt.Sprintf(`[{"type":"text","text":%s}]`, g.str())
		}
		g.result(id, false, out)
	case 6:
		variant = "missing-result"
		g.invocation(g.str(), quote(g.memorySearchName()), g.searchInput())
	case 7:
		variant = "sequence-gap"
		gap := 1 + g.r.IntN(5)
		g.sequenceN = func(i int) int { return i + gap }
		g.search()
	case 8:
		variant = "capture"
		g.search()
		if g.r.IntN(2) == 0 {
			g.capture["truncated"] = "true"
		} else {
			g.capture["omitted_unknown_records"] = strconv.Itoa(1 + g.r.IntN(4))
		}
		if g.r.IntN(2) == 0 {
			g.capture[g.str()] = g.str()
		}
	case 9:
		variant = "opaque-after-search"
		g.search()
		g.opaqueCall()
	}
	g.reads()
	g.chatter()
	return trajCase{variant: variant, doc: g.render()}
}

// invalid: a document refused with an invalid code, its canaries close to
// the place a parser would quote.
func (g *trajGen) invalid() trajCase {
	g.start()
	g.chatter()
	g.search()
	var variant string
	var doc []byte
	switch g.round % 16 {
	case 0:
		variant = "unsupported-harness"
		g.harness = g.canary()
	case 1:
		variant = "schema-version-string"
		g.schemaVersion = g.str()
	case 2:
		variant = "timestamp"
		g.capture["captured_at"] = g.str()
	case 3:
		variant = "orphan-result"
		g.result(g.str(), false, g.searchOutput())
	case 4:
		variant = "duplicate-call-id"
		id := g.str()
		g.invocation(id, g.str(), g.searchInput())
		g.invocation(id, g.str(), g.searchInput())
	case 5:
		variant = "duplicate-result"
		id := g.str()
		g.invocation(id, g.str(), g.searchInput())
		g.result(id, false, g.str())
		g.result(id, false, g.str())
	case 6:
		variant = "duplicate-top-level-member"
		name, v := g.str(), g.str()
		g.extra = append(g.extra, [2]string{name, v}, [2]string{name, g.str()})
	case 7:
		variant = "duplicate-input-key"
		name := g.str()
		g.invocation(g.str(), g.str(), fmt.Sprintf(`{%s:%s,%s:%s}`, name, g.str(), name, g.str()))
	case 8:
		variant = "malformed-event"
		g.events = append(g.events, fmt.Sprintf(`{"sequence":%d,"kind":%s "payload":{"text":%s}}`, len(g.events), g.str(), g.str()))
	case 9:
		variant = "trailing-data"
		doc = append(g.render(), []byte(g.pick(" ", "\n")+g.str()+"\n")...)
	case 10:
		variant = "ends-inside-a-string"
		c := g.canary()
		g.events = append(g.events, fmt.Sprintf(`{"sequence":%d,"kind":"model_output","payload":{"text":"%s`, len(g.events), c))
		doc = g.render()
		doc = doc[:bytes.Index(doc, []byte(c))+len(c)]
	case 11:
		variant = "not-utf8"
		g.events = append(g.events, fmt.Sprintf(`{"sequence":%d,"kind":"user_input","payload":{"text":"%s`+"\xff\xfe"+`"}}`, len(g.events), g.canary()))
	case 12:
		variant = "bom"
		doc = append([]byte("\xef\xbb\xbf"), g.render()...)
	case 13:
		variant = "nesting-too-deep"
		deep := strings.Repeat(`{"k":[`, 70) + g.str() + strings.Repeat(`]}`, 70)
		g.invocation(g.str(), g.str(), fmt.Sprintf(`{%s:%s}`, g.str(), deep))
	case 14:
		variant = "sequence-out-of-order"
		g.events = append(g.events, fmt.Sprintf(`{"sequence":0,"kind":"model_output","payload":{"text":%s}}`, g.str()))
	case 15:
		variant = "input-not-an-object"
		g.invocation(g.str(), g.str(), g.str())
	}
	if doc == nil {
		doc = g.render()
	}
	return trajCase{variant: variant, doc: doc}
}

// TestPrivacyTrajectoryPaths: a path refused before any byte is read (not
// found, a directory, a symbolic link, a link among its parents) or named in
// a usage error is never printed either, in either output mode.
func TestPrivacyTrajectoryPaths(t *testing.T) {
	g := &trajGen{r: rand.New(rand.NewPCG(rand.Uint64(), 1))}
	dir := t.TempDir()
	real := filepath.Join(dir, g.canary())
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(real, g.canary()+".json")
	if err := os.WriteFile(file, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	linkFile := filepath.Join(real, g.canary()+".json")
	linkDir := filepath.Join(dir, g.canary())
	if err := os.Symlink(file, linkFile); err != nil {
		t.Skip("no symbolic links here")
	}
	if err := os.Symlink(real, linkDir); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"not-found":      {"--trajectory", filepath.Join(real, g.canary()+".json")},
		"directory":      {"--trajectory", real},
		"symlink":        {"--trajectory", linkFile},
		"symlink-parent": {"--trajectory", filepath.Join(linkDir, filepath.Base(file))},
		"both-inputs":    {"--trajectory", file, "--codex-jsonl", file},
		"unknown-flag":   {"--trajectory", file, "--" + g.canary()},
		"flag=path":      {"--trajectory=" + filepath.Join(real, g.canary())},
	}
	for name, flags := range cases {
		for _, asJSON := range []bool{true, false} {
			args := append([]string{"eval", "protocol"}, flags...)
			if asJSON {
				args = append(args, "--json")
			}
			var stdout, stderr bytes.Buffer
			got := cli.Run(args, bytes.NewReader(nil), &stdout, &stderr, func(k string) string {
				if k == "CAIRN_EVAL" {
					return "1"
				}
				return ""
			})
			if got != 2 {
				t.Errorf("%s json=%v: exit %d, want 2", name, asJSON, got)
			}
			for _, h := range g.hex {
				if strings.Contains(stdout.String(), h) || strings.Contains(stderr.String(), h) {
					t.Errorf("%s json=%v: canary cnry%s of the path reached the output:\n%s%s", name, asJSON, h, stdout.String(), stderr.String())
				}
			}
		}
	}
}

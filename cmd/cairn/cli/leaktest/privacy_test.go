package leaktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-audit/cairn/audit"
	"github.com/cairn-audit/cairn/cmd/cairn/cli"
	"github.com/cairn-audit/cairn/cmd/cairn/cli/render"
)

// TestPrivacyNoInputContent proves SPEC §7.2 over many generated codex
// exports: every JSON string value, and every member name inside free-form
// payloads, carries its own random canary, and so do the directory and
// file name of the input. Passing, failing, inconclusive and invalid
// streams are audited through run(), with and without --json and with
// every --output format of the table (render.Formats; github with a step
// summary), from a file and from standard input. No canary, nor any 8-character piece of one, may
// appear on stdout, stderr or in the step summary; the exit code and
// status must be the ones the case was built for.
func TestPrivacyNoInputContent(t *testing.T) {
	t.Parallel()
	g := &privGen{r: rand.New(rand.NewPCG(0x63617269, 0x726e2d70))}
	dir := filepath.Join(t.TempDir(), g.c())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var cases []privCase
	for range 30 {
		cases = append(cases, g.passCase())
	}
	for range 40 {
		cases = append(cases, g.failCase())
	}
	for range 40 {
		cases = append(cases, g.inconclusiveCase())
	}
	for range 3 {
		for _, f := range privFaults {
			cases = append(cases, g.invalidCase(f))
		}
	}
	paths := make([]string, len(cases))
	for i, tc := range cases {
		paths[i] = filepath.Join(dir, g.c()+".jsonl")
		if err := os.WriteFile(paths[i], tc.input, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	leaks := g.windows(privWindow)
	summary := filepath.Join(dir, g.c()+".md")
	for i, tc := range cases {
		path := paths[i]
		for _, fromFile := range []bool{true, false} {
			for _, f := range render.Formats() {
				name := fmt.Sprintf("%d-%s/file=%v/output=%s", i, tc.name, fromFile, f.Name)
				args := []string{"eval", "protocol", "--codex-jsonl", "-", "--output", f.Name}
				if fromFile {
					args[3] = path
				}
				if tc.capture {
					args = append(args, "--capture-authorized")
				}
				os.Remove(summary)
				var stdout, stderr bytes.Buffer
				code := cli.Run(args, bytes.NewReader(tc.input), &stdout, &stderr, func(k string) string {
					return map[string]string{"CAIRN_EVAL": "1", "GITHUB_STEP_SUMMARY": summary}[k]
				})
				written, _ := os.ReadFile(summary)
				privNoLeak(t, name, leaks, stdout.Bytes(), append(stderr.Bytes(), written...))
				if code != tc.exit || stdout.Len() == 0 || (stderr.Len() > 0) != (tc.exit == 2) || (len(written) > 0) != f.StepSummary {
					t.Fatalf("%s: got exit %d, %d bytes of stdout, stderr %q, %d bytes of summary; want exit %d", name, code, stdout.Len(), stderr.Bytes(), len(written), tc.exit)
				}
			}
			for _, asJSON := range []bool{true, false} {
				name := fmt.Sprintf("%d-%s/file=%v/json=%v", i, tc.name, fromFile, asJSON)
				args := []string{"eval", "protocol", "--codex-jsonl", "-"}
				if fromFile {
					args[3] = path
				}
				if asJSON {
					args = append(args, "--json")
				}
				if tc.capture {
					args = append(args, "--capture-authorized")
				}
				code, stdout, stderr := privRun(args, tc.input)
				privNoLeak(t, name, leaks, stdout, stderr)
				if code != tc.exit {
					t.Fatalf("%s: got exit %d, want %d\nstdout: %s\nstderr: %s\ninput:\n%s", name, code, tc.exit, stdout, stderr, tc.input)
				}
				if len(stdout) == 0 {
					t.Fatalf("%s: empty stdout", name)
				}
				if (len(stderr) > 0) != (tc.exit == 2) {
					t.Fatalf("%s: got stderr %q, want a message exactly for invalid input", name, stderr)
				}
				status := privStatus[tc.exit]
				if !asJSON {
					if want := "cairn eval protocol: " + strings.ToUpper(status); !strings.HasPrefix(string(stdout), want) {
						t.Fatalf("%s: human report starts %q, want %q", name, privFirstLine(stdout), want)
					}
					continue
				}
				var rep struct {
					Status   string `json:"status"`
					ExitCode int    `json:"exit_code"`
					Error    *struct {
						Code   string  `json:"code"`
						Record *int    `json:"record"`
						Where  *string `json:"where"`
					} `json:"error"`
					Findings []struct {
						Where *string `json:"where"`
					} `json:"findings"`
				}
				if err := json.Unmarshal(stdout, &rep); err != nil {
					t.Fatalf("%s: stdout is not one JSON object: %v", name, err)
				}
				// Every place named is the contract's: the canaries in
				// unknown member names, types and tool names never are.
				places := fzPlaces(audit.FormatCodex)
				if rep.Error != nil && rep.Error.Where != nil && !places[*rep.Error.Where] {
					t.Fatalf("%s: error at %q, not a place of the contract", name, *rep.Error.Where)
				}
				for _, f := range rep.Findings {
					if f.Where != nil && !places[*f.Where] {
						t.Fatalf("%s: finding at %q, not a place of the contract", name, *f.Where)
					}
				}
				if rep.Status != status || rep.ExitCode != tc.exit {
					t.Fatalf("%s: got status %q exit_code %d, want %q %d", name, rep.Status, rep.ExitCode, status, tc.exit)
				}
				if tc.code != "" {
					if rep.Error == nil || rep.Error.Code != tc.code {
						t.Fatalf("%s: got error %+v, want code %s\ninput:\n%s", name, rep.Error, tc.code, tc.input)
					}
					if got := privRecord(rep.Error.Record); got != tc.record {
						t.Fatalf("%s: error %s at record %d, want %d\ninput:\n%s", name, tc.code, got, tc.record, tc.input)
					}
				}
			}
		}
	}
}

// TestPrivacyArgumentsNotEchoed checks that usage errors and file errors
// never repeat an argument: an unknown flag, a stray word, a flag value or
// a path that names a canary.
func TestPrivacyArgumentsNotEchoed(t *testing.T) {
	t.Parallel()
	g := &privGen{r: rand.New(rand.NewPCG(7, 11))}
	tmp := filepath.Join(t.TempDir(), g.c())
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(tmp, g.c()+".jsonl")
	if err := os.WriteFile(real, []byte(`{"type":"turn.started"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, g.c())
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, g.c(), g.c()+".jsonl")
	c := g.c
	// Lists of paths that name canaries: missing files, then each problem
	// a list can have (an empty line, a NUL in a line, an entry too long).
	list := func(entries ...string) string {
		f := filepath.Join(tmp, g.c()+".txt")
		if err := os.WriteFile(f, []byte(strings.Join(entries, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	missingList := list(missing, c()+"/"+c(), real, link, "")
	blankList := list(missing, "", c())
	nulList := list(missing, c()+"\x00"+c())
	longList := list(missing, strings.Repeat(c(), maxListEntry/20+1))
	batch := func(args ...string) []string {
		return append([]string{"eval", "batch", "--format", "codex-jsonl"}, args...)
	}
	tests := []struct {
		name string
		args []string
		env  string
		exit int
	}{
		{"unknown flag", []string{"eval", "protocol", "--codex-jsonl", "-", "--" + c()}, "1", 2},
		{"unknown flag with value", []string{"eval", "protocol", "--codex-jsonl", "-", "--" + c() + "=" + c()}, "1", 2},
		{"unknown short flags", []string{"eval", "protocol", "--codex-jsonl", "-", "-" + c()}, "1", 2},
		{"stray word", []string{"eval", "protocol", "--codex-jsonl", "-", c()}, "1", 2},
		{"unknown command", []string{c(), "--json"}, "1", 2},
		{"unknown subcommand", []string{"eval", c()}, "1", 2},
		{"bool flag value", []string{"eval", "protocol", "--codex-jsonl", "-", "--json=" + c()}, "1", 2},
		{"both inputs", []string{"eval", "protocol", "--codex-jsonl", c(), "--trajectory", c()}, "1", 2},
		{"missing file", []string{"eval", "protocol", "--codex-jsonl", missing}, "1", 2},
		{"missing file json", []string{"eval", "protocol", "--json", "--codex-jsonl=" + missing}, "1", 2},
		{"missing trajectory", []string{"eval", "protocol", "--json", "--trajectory", missing}, "1", 2},
		{"directory", []string{"eval", "protocol", "--json", "--codex-jsonl", tmp}, "1", 2},
		{"symlink", []string{"eval", "protocol", "--codex-jsonl", link}, "1", 2},
		{"relative missing", []string{"eval", "protocol", "--codex-jsonl", c() + "/" + c()}, "1", 2},
		{"gate off", []string{"eval", "protocol", "--codex-jsonl", missing}, "0", 0},
		{"gate off json", []string{"eval", "protocol", "--json", "--codex-jsonl", missing}, "off", 0},
		{"explain unknown", []string{"explain", c()}, "", 2},
		{"batch list of missing paths", batch("--paths-from", missingList), "1", 2},
		{"batch list of missing paths json", batch("--json", "--paths-from", missingList, missing), "1", 2},
		{"batch list of missing paths sarif", batch("--output", "sarif", "--paths-from", missingList), "1", 2},
		{"batch list with a blank line", batch("--paths-from", blankList), "1", 2},
		{"batch list with a NUL", batch("--json", "--paths-from", nulList), "1", 2},
		{"batch list with a long entry", batch("--paths-from", longList), "1", 2},
		{"batch list nul-separated", batch("--paths-from", missingList, "--null"), "1", 2},
		{"batch missing list", batch("--paths-from", missing), "1", 2},
		{"batch directory list", batch("--paths-from", tmp), "1", 2},
		{"batch missing list gate off", batch("--json", "--paths-from", missing), "0", 2},
		{"batch list gate off", batch("--json", "--paths-from", missingList), "0", 0},
		{"batch two lists", batch("--paths-from", missingList, "--paths-from", c()), "1", 2},
		{"batch shard canary", batch("--shard", c(), missing), "1", 2},
		{"batch shard of a canary", batch("--shard=1/"+c(), missing), "1", 2},
	}
	leaks := g.windows(privWindow)
	for _, tc := range tests {
		code, stdout, stderr := privRunEnv(tc.args, nil, tc.env)
		privNoLeak(t, tc.name, leaks, stdout, stderr)
		if code != tc.exit {
			t.Errorf("%s: got exit %d, want %d (stderr %q)", tc.name, code, tc.exit, stderr)
		}
		if len(stdout)+len(stderr) == 0 {
			t.Errorf("%s: no output at all", tc.name)
		}
	}
}

var privStatus = map[int]string{0: "pass", 1: "fail", 2: "invalid", 3: "inconclusive"}

func privRecord(r *int) int {
	if r == nil {
		return -1
	}
	return *r
}

func privFirstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// maxListEntry is the longest entry --paths-from takes (cli's paths.go).
const maxListEntry = 64 << 10

func privRun(args []string, stdin []byte) (int, []byte, []byte) {
	return privRunEnv(args, stdin, "1")
}

func privRunEnv(args []string, stdin []byte, gate string) (int, []byte, []byte) {
	var stdout, stderr bytes.Buffer
	code := cli.Run(args, bytes.NewReader(stdin), &stdout, &stderr, func(k string) string {
		if k == "CAIRN_EVAL" {
			return gate
		}
		return ""
	})
	return code, stdout.Bytes(), stderr.Bytes()
}

// privNoLeak fails when stdout or stderr holds "cnry" or any of leaks'
// windows of a canary's random part.
func privNoLeak(t *testing.T, name string, leaks leakWindows, stdout, stderr []byte) {
	t.Helper()
	for _, out := range []struct {
		stream string
		b      []byte
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if i := bytes.Index(out.b, []byte(privPrefix)); i >= 0 {
			t.Fatalf("%s: %s repeats a canary: %q", name, out.stream, out.b[i:min(len(out.b), i+20)])
		}
		for i := 0; i+leaks.n <= len(out.b); i++ {
			if leaks.set[string(out.b[i:i+leaks.n])] {
				t.Fatalf("%s: %s holds a piece of a canary: %q in\n%s", name, out.stream, out.b[i:i+leaks.n], out.b)
			}
		}
	}
}

const (
	privPrefix = "cnry"
	// privAlphabet has 16 letters and no hex digit, so that no window of a
	// canary can match a piece of the SHA-256 digests a report prints,
	// and no vowel but y, so that none spells a word of the report.
	privAlphabet = "ghjkmnpqrstvwxyz"
	privWindow   = 8
)

// privGen generates canaries and streams from a fixed seed.
type privGen struct {
	r        *rand.Rand
	canaries []string
}

// c returns a new canary: "cnry" and 16 random letters.
func (g *privGen) c() string {
	b := []byte(privPrefix)
	for range 16 {
		b = append(b, privAlphabet[g.r.IntN(len(privAlphabet))])
	}
	g.canaries = append(g.canaries, string(b))
	return string(b)
}

// leakWindows are the n-letter windows of the canaries' random parts.
type leakWindows struct {
	n   int
	set map[string]bool
}

// windows returns every n-letter window of the canaries' random parts.
func (g *privGen) windows(n int) leakWindows {
	w := leakWindows{n, map[string]bool{}}
	for _, c := range g.canaries {
		rnd := c[len(privPrefix):]
		for i := 0; i+n <= len(rnd); i++ {
			w.set[rnd[i:i+n]] = true
		}
	}
	return w
}

func (g *privGen) coin() bool { return g.r.IntN(2) == 0 }

// s returns a JSON string literal that holds a new canary, sometimes with
// other text around it and sometimes with one of its letters escaped, so
// that only the decoded value holds the canary whole.
func (g *privGen) s() string {
	c := g.c()
	switch g.r.IntN(5) {
	case 0:
		k := len(privPrefix) + g.r.IntN(16)
		return fmt.Sprintf(`"%s\u%04x%s"`, c[:k], c[k], c[k+1:])
	case 1:
		return `"line one\n` + c + `\t<b>&amp;</b> é ✓"`
	case 2:
		return `"` + c + ` ` + g.c() + `"`
	}
	return `"` + c + `"`
}

// value returns a free-form JSON value full of canaries, names included.
func (g *privGen) value(depth int) string {
	n := 6
	if depth >= 3 {
		n = 3
	}
	switch g.r.IntN(n) {
	case 0:
		return fmt.Sprint(g.r.IntN(1000) - 500)
	case 1:
		return []string{"true", "false", "null", "1.5e3"}[g.r.IntN(4)]
	case 2, 3:
		return g.s()
	case 4:
		var parts []string
		for range 1 + g.r.IntN(3) {
			parts = append(parts, g.value(depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return g.object(depth + 1)
}

// object returns a free-form JSON object whose names are canaries.
func (g *privGen) object(depth int, fixed ...string) string {
	parts := fixed
	for range 1 + g.r.IntN(3) {
		parts = append(parts, g.s()+":"+g.value(depth))
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + strings.Join(parts, ",") + "}"
}

// The records of a codex exec stream, with a canary in every string.

func (g *privGen) threadStarted() string {
	return `{"type":"thread.started","thread_id":` + g.s() + `}`
}

func (g *privGen) turnCompleted() string {
	if g.coin() {
		return `{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":20,"output_tokens":45}}`
	}
	return `{"type":"turn.completed","usage":{"input_tokens":120,"cached_input_tokens":20,"output_tokens":45,"reasoning_output_tokens":9}}`
}

func (g *privGen) streamError() string { return `{"type":"error","message":` + g.s() + `}` }

func (g *privGen) textItem(typ string) string {
	field := "text"
	if typ == "error" {
		field = "message"
	}
	return `{"type":"item.completed","item":{"id":` + g.s() + `,"type":"` + typ + `","` + field + `":` + g.s() + `}}`
}

// todo returns the started, updated and completed records of a todo list.
func (g *privGen) todo() []string {
	id := g.s()
	rec := func(ev string) string {
		items := `[{"text":` + g.s() + `,"completed":false},{"text":` + g.s() + `,"completed":true}]`
		return `{"type":"item.` + ev + `","item":{"id":` + id + `,"type":"todo_list","items":` + items + `}}`
	}
	return []string{rec("started"), rec("updated"), rec("completed")}
}

// searchResult returns an MCP result holding a memory search result, in
// the structured content or in the first text block.
func (g *privGen) searchResult() string {
	hit := g.object(1, `"id":`+g.s(), `"title":`+g.s(), `"snippet":`+g.s())
	doc := `{"mode":"substring","count":1,"results":[` + hit + `]}`
	blocks := []string{
		`{"type":"image","data":` + g.s() + `,"mimeType":"image/png"}`,
		`{"type":"resource","resource":{"uri":` + g.s() + `,"mimeType":"text/plain","text":` + g.s() + `}}`,
		`{"type":"resource_link","uri":` + g.s() + `,"name":` + g.s() + `,"annotations":` + g.object(2) + `,"_meta":` + g.object(2) + `}`,
	}
	g.r.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	blocks = blocks[:g.r.IntN(len(blocks)+1)]
	quoted, _ := json.Marshal(doc)
	if g.coin() {
		blocks = append(blocks, `{"type":"text","text":`+string(quoted)+`}`)
		return `{"content":[` + strings.Join(blocks, ",") + `],"structured_content":null}`
	}
	blocks = append(blocks, `{"type":"text","text":`+g.s()+`}`)
	structured := g.object(1, `"mode":"semantic"`, `"count":1`, `"results":[`+hit+`]`)
	return `{"content":[` + strings.Join(blocks, ",") + `],"structured_content":` + structured + `}`
}

// privMCP describes one mcp_tool_call.
type privMCP struct {
	server, tool string // JSON literals
	args         string
	status       string
	result       string // JSON, at completion
	errored      bool
	extra        string // a member outside the contract, or ""
}

// mcp returns the started and completed records of a call.
func (g *privGen) mcp(c privMCP) []string {
	id := g.s()
	if c.status == "" {
		c.status = "completed"
	}
	if c.result == "" {
		c.result = `{"content":[{"type":"text","text":` + g.s() + `}],"structured_content":` + g.value(1) + `}`
	}
	errv := "null"
	if c.errored {
		errv = `{"message":` + g.s() + `}`
	}
	item := func(result, errv, status string) string {
		return `{"id":` + id + `,"type":"mcp_tool_call","server":` + c.server + `,"tool":` + c.tool +
			`,"arguments":` + c.args + `,"result":` + result + `,"error":` + errv + `,"status":"` + status + `"` + c.extra + `}`
	}
	return []string{
		`{"type":"item.started","item":` + item("null", "null", "in_progress") + `}`,
		`{"type":"item.completed","item":` + item(c.result, errv, c.status) + `}`,
	}
}

func (g *privGen) server() string {
	return []string{`"cairn-memory"`, `"cairn_memory"`, `"cairn\u002dmemory"`}[g.r.IntN(3)]
}

// projectSearch is a project-scoped memory_search with a search result.
func (g *privGen) projectSearch() []string {
	return g.mcp(privMCP{server: g.server(), tool: `"memory_search"`,
		args: g.object(1, `"scope":"project"`, `"query":`+g.s()), result: g.searchResult()})
}

// readCall is a memory_get or memory_list, sometimes failed.
func (g *privGen) readCall() []string {
	c := privMCP{server: g.server(), tool: []string{`"memory_get"`, `"memory_list"`}[g.r.IntN(2)], args: g.object(1)}
	if g.coin() {
		c.status, c.errored = "failed", true
	}
	return g.mcp(c)
}

func (g *privGen) command(status string) []string {
	id, cmd := g.s(), g.s()
	return []string{
		`{"type":"item.started","item":{"id":` + id + `,"type":"command_execution","command":` + cmd + `,"aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":` + id + `,"type":"command_execution","command":` + cmd + `,"aggregated_output":` + g.s() + `,"exit_code":1,"status":` + status + `}}`,
	}
}

func (g *privGen) fileChange() []string {
	id := g.s()
	changes := `[{"path":` + g.s() + `,"kind":"add"},{"path":` + g.s() + `,"kind":"update"}]`
	return []string{
		`{"type":"item.started","item":{"id":` + id + `,"type":"file_change","changes":` + changes + `,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":` + id + `,"type":"file_change","changes":` + changes + `,"status":"completed"}}`,
	}
}

func (g *privGen) webSearch() []string {
	id := g.s()
	return []string{
		`{"type":"item.started","item":{"id":` + id + `,"type":"web_search","id":` + g.s() + `,"query":"","action":{"type":"other"}}}`,
		`{"type":"item.completed","item":{"id":` + id + `,"type":"web_search","id":` + g.s() + `,"query":` + g.s() +
			`,"action":{"type":"search","query":` + g.s() + `,"queries":[` + g.s() + `,` + g.s() + `]}}}`,
	}
}

func (g *privGen) collab() []string {
	id, sender, receiver, prompt := g.s(), g.s(), g.s(), g.s()
	item := func(states, status string) string {
		return `{"id":` + id + `,"type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":` + sender +
			`,"receiver_thread_ids":[` + receiver + `],"prompt":` + prompt + `,"agents_states":` + states + `,"status":"` + status + `"}`
	}
	states := `{` + receiver + `:{"status":"completed","message":` + g.s() + `},` + g.s() + `:{"status":"running","message":null}}`
	return []string{
		`{"type":"item.started","item":` + item("{}", "in_progress") + `}`,
		`{"type":"item.completed","item":` + item(states, "completed") + `}`,
	}
}

// otherMCP is an opaque MCP call: a server or a tool outside the catalog.
func (g *privGen) otherMCP() []string {
	c := privMCP{server: g.s(), tool: g.s(), args: g.value(0), status: "failed", errored: g.coin()}
	if g.coin() {
		c.server, c.tool = g.server(), g.s()
	}
	return g.mcp(c)
}

// privStream is a stream under construction: the records before the
// first project search, the search, the middle, and the end.
type privStream struct {
	head, middle []string
	groups       [][]string
	tail         []string
	end          string // terminal record, or "" for none
}

func (s *privStream) lines() (lines []string, turn, end int) {
	lines = append(lines, s.head...)
	turn = -1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"turn.started"`) {
			turn = i
		}
	}
	lines = append(lines, s.middle...)
	for _, grp := range s.groups {
		lines = append(lines, grp...)
	}
	lines = append(lines, s.tail...)
	end = len(lines)
	if s.end != "" {
		lines = append(lines, s.end)
	}
	return lines, turn, end
}

// base returns a passing stream: one project search first, then reads,
// narration, reasoning, notices and a todo list, never an opaque call.
func (g *privGen) base() *privStream {
	s := &privStream{end: g.turnCompleted()}
	if g.r.IntN(4) > 0 {
		s.head = append(s.head, g.threadStarted())
	}
	for range g.r.IntN(3) {
		s.head = append(s.head, g.textItem("error"))
	}
	s.head = append(s.head, `{"type":"turn.started"}`)
	var todo []string
	if g.coin() {
		todo = g.todo()
		s.head = append(s.head, todo[0])
	}
	if g.coin() {
		s.head = append(s.head, g.textItem("reasoning"))
	}
	search := g.projectSearch()
	s.head = append(s.head, search[0])
	if g.coin() {
		s.head = append(s.head, g.textItem("agent_message"))
	}
	s.middle = append(s.middle, search[1])
	for range g.r.IntN(4) {
		switch g.r.IntN(6) {
		case 0:
			s.groups = append(s.groups, g.readCall())
		case 1:
			s.groups = append(s.groups, []string{g.textItem("agent_message")})
		case 2:
			s.groups = append(s.groups, []string{g.textItem("reasoning")})
		case 3:
			s.groups = append(s.groups, []string{g.streamError()})
		case 4:
			s.groups = append(s.groups, []string{g.textItem("error")})
		case 5:
			s.groups = append(s.groups, g.projectSearch())
		}
	}
	if todo != nil {
		s.groups = append(s.groups, todo[1:2])
		s.tail = append(s.tail, todo[2])
	}
	return s
}

func (g *privGen) shuffleGroups(s *privStream) {
	g.r.Shuffle(len(s.groups), func(i, j int) { s.groups[i], s.groups[j] = s.groups[j], s.groups[i] })
}

// privCase is one generated input and what auditing it must give.
type privCase struct {
	name    string
	input   []byte
	capture bool
	exit    int
	code    string // for invalid inputs: the error code
	record  int    // and its record, -1 for the input as a whole
}

func privJoin(lines []string, g *privGen) []byte {
	b := []byte(strings.Join(lines, "\n"))
	if g.r.IntN(4) > 0 {
		b = append(b, '\n')
	}
	return b
}

func (g *privGen) passCase() privCase {
	s := g.base()
	capture := g.coin()
	if capture && g.coin() {
		s.groups = append(s.groups, g.mcp(privMCP{server: g.server(), tool: `"memory_store"`, args: g.object(1)}))
	}
	g.shuffleGroups(s)
	lines, _, _ := s.lines()
	return privCase{name: "pass", input: privJoin(lines, g), capture: capture, exit: 0}
}

// privIngredient adds something that makes a stream inconclusive (and
// never failing); orderSafe ones keep the first call established.
type privIngredient struct {
	name      string
	orderSafe bool
	add       func(g *privGen, s *privStream)
}

var privIngredients = []privIngredient{
	{"command", true, func(g *privGen, s *privStream) {
		s.groups = append(s.groups, g.command([]string{`"completed"`, `"failed"`, `"declined"`}[g.r.IntN(3)]))
	}},
	{"file change", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.fileChange()) }},
	{"web search", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.webSearch()) }},
	{"collab", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.collab()) }},
	{"other mcp", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.otherMCP()) }},
	{"unknown item type", true, func(g *privGen, s *privStream) {
		id, typ := g.s(), g.s()
		s.groups = append(s.groups, []string{
			`{"type":"item.started","item":{"id":` + id + `,"type":` + typ + `,` + g.s() + `:` + g.value(1) + `}}`,
			`{"type":"item.completed","item":{"id":` + id + `,"type":` + typ + `,` + g.s() + `:` + g.value(1) + `}}`,
		})
	}},
	{"unknown record", true, func(g *privGen, s *privStream) {
		s.groups = append(s.groups, []string{`{"type":` + g.s() + `,` + g.s() + `:` + g.value(0) + `}`})
	}},
	{"unknown field", true, func(g *privGen, s *privStream) {
		c := privMCP{server: g.server(), tool: `"memory_get"`, args: g.object(1), extra: `,` + g.s() + `:` + g.value(1)}
		s.groups = append(s.groups, g.mcp(c))
	}},
	{"unknown status", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.command(g.s())) }},
	{"call incomplete", true, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.command(`"completed"`)[:1]) }},
	{"terminal-only call", false, func(g *privGen, s *privStream) { s.groups = append(s.groups, g.otherMCP()[1:]) }},
	{"turn failed", true, func(g *privGen, s *privStream) { s.end = `{"type":"turn.failed","error":{"message":` + g.s() + `}}` }},
	{"turn incomplete", true, func(g *privGen, s *privStream) { s.end = "" }},
}

func (g *privGen) addIngredients(s *privStream, orderSafeOnly bool, n int) []string {
	var names []string
	for len(names) < n {
		in := privIngredients[g.r.IntN(len(privIngredients))]
		if orderSafeOnly && !in.orderSafe {
			continue
		}
		in.add(g, s)
		names = append(names, in.name)
	}
	return names
}

func (g *privGen) inconclusiveCase() privCase {
	s := g.base()
	names := g.addIngredients(s, false, 1+g.r.IntN(3))
	g.shuffleGroups(s)
	lines, _, _ := s.lines()
	return privCase{name: "inconclusive " + strings.Join(names, ", "), input: privJoin(lines, g), exit: 3}
}

func (g *privGen) failCase() privCase {
	s := g.base()
	var why string
	orderSafe := false
	capture := false
	switch g.r.IntN(5) {
	case 0:
		why = "destructive mutation"
		c := privMCP{server: g.server(), tool: []string{`"memory_update"`, `"memory_delete"`}[g.r.IntN(2)], args: g.object(1)}
		if g.coin() {
			c.status, c.errored = "declined", true
		}
		s.groups = append(s.groups, g.mcp(c))
		capture = g.coin()
	case 1:
		why = "unauthorized capture"
		s.groups = append(s.groups, g.mcp(privMCP{server: g.server(), tool: `"memory_store"`, args: g.object(1)}))
	case 2:
		why = "tool before search"
		orderSafe = true
		first := []func() []string{
			func() []string { return g.command(`"completed"`) }, g.fileChange, g.webSearch, g.collab, g.otherMCP, g.readCall,
		}[g.r.IntN(6)]()
		// the first call goes right after turn.started
		at := slicesIndexPrefix(s.head, `{"type":"turn.started"`) + 1
		s.head = append(s.head[:at], append(first, s.head[at:]...)...)
	case 3:
		why = "first search not project scoped"
		orderSafe = true
		bad := g.mcp(privMCP{server: g.server(), tool: `"memory_search"`, args: g.object(1, `"scope":`+g.s())})
		at := slicesIndexPrefix(s.head, `{"type":"turn.started"`) + 1
		s.head = append(s.head[:at], append(bad, s.head[at:]...)...)
	case 4:
		why = "no project search"
		// drop every project search: keep only the records that are not one
		drop := func(lines []string) []string {
			var out []string
			for _, l := range lines {
				if !strings.Contains(l, `"tool":"memory_search"`) {
					out = append(out, l)
				}
			}
			return out
		}
		s.head, s.middle = drop(s.head), drop(s.middle)
		for i := range s.groups {
			s.groups[i] = drop(s.groups[i])
		}
	}
	names := g.addIngredients(s, orderSafe, g.r.IntN(3))
	g.shuffleGroups(s)
	lines, _, _ := s.lines()
	return privCase{name: "fail " + why + " " + strings.Join(names, ", "), input: privJoin(lines, g), capture: capture, exit: 1}
}

func slicesIndexPrefix(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// privFault makes a stream invalid: it returns the lines to insert, where
// they may go (after turn.started, before or after the terminal record),
// and the expected code and the offset of the rejected line among them.
type privFault struct {
	code  string
	where int // 0 anywhere, 1 inside the turn, 2 before turn.started, 3 after the end, 4 not first, 5 not after the end
	make  func(g *privGen) (lines []string, bad int)
	file  bool // the error concerns the input as a whole (no record)
}

var privFaults = []privFault{
	{code: "malformed_json", make: func(g *privGen) ([]string, int) {
		return []string{[]string{
			`{"type":"error","message":` + g.s(),
			`{"type":"error","message":` + g.s() + `}}`,
			`{"type":"error","message":` + g.s() + `} {` + g.s() + `:1}`,
			`[` + g.s() + `]`,
			`{` + g.s() + `:}`,
			`{"type":"error","message":"` + g.c() + "\t\"}",
			`{"type":"error","message":"` + g.c() + `\x41"}`,
			`{"type":"error","message":"` + g.c() + `\ud800"}`,
			g.s(),
		}[g.r.IntN(9)]}, 0
	}},
	{code: "duplicate_key", make: func(g *privGen) ([]string, int) {
		name := g.c()
		switch g.r.IntN(4) {
		case 0:
			return []string{`{"type":"error","message":` + g.s() + `,"` + name + `":1,"` + name + `":2}`}, 0
		case 1:
			return []string{`{"type":"error","message":` + g.s() + `,"` + name + `":1,"` + name[:6] + `\u00` + fmt.Sprintf("%02x", name[6]) + name[7:] + `":2}`}, 0
		case 2:
			return []string{g.mcp(privMCP{server: g.server(), tool: `"memory_get"`, args: `{"` + name + `":` + g.s() + `,"x":{"` + name + `":1},"` + name + `":` + g.s() + `}`})[0]}, 0
		}
		return []string{`{"type":"item.started","item":{"id":` + g.s() + `,"type":"command_execution","id":` + g.s() + `}}`}, 0
	}},
	// After the terminal record, a schema violation is event_after_terminal_turn.
	{code: "schema_violation", where: 5, make: func(g *privGen) ([]string, int) {
		return []string{[]string{
			`{"type":"error","message":` + g.object(1) + `}`,
			`{"type":"item.started","item":{"id":7,"type":` + g.s() + `}}`,
			`{"type":"item.started","item":{"id":"","type":"reasoning","text":` + g.s() + `}}`,
			`{"type":17,"message":` + g.s() + `}`,
			`{"message":` + g.s() + `}`,
			`{"type":"item.started","item":{"id":` + g.s() + `,"type":"mcp_tool_call","tool":` + g.s() + `,"arguments":null,"result":null,"error":null,"status":"in_progress"}}`,
			`{"type":"item.completed","item":` + g.s() + `}`,
			`{"type":"thread.started","thread_id":[` + g.s() + `]}`,
		}[g.r.IntN(8)]}, 0
	}},
	{code: "nesting_too_deep", make: func(g *privGen) ([]string, int) {
		deep := strings.Repeat(`{"`+g.c()+`":[`, 70) + g.s() + strings.Repeat(`]}`, 70)
		return []string{`{"type":"error","message":` + g.s() + `,"x":` + deep + `}`}, 0
	}},
	{code: "blank_record", make: func(g *privGen) ([]string, int) {
		return []string{[]string{"", " ", "\t \r"}[g.r.IntN(3)]}, 0
	}},
	{code: "input_not_utf8", file: true, make: func(g *privGen) ([]string, int) {
		return []string{[]string{
			`{"type":"error","message":"` + g.c() + "\xff" + g.c() + `"}`,
			`{"type":"error","message":"` + g.c() + "\xe2\x82" + `"}`,
			`{"type":"error","` + g.c() + "\xc0\xaf" + `":1}`,
		}[g.r.IntN(3)]}, 0
	}},
	{code: "input_utf16", file: true, make: func(g *privGen) ([]string, int) {
		return []string{`{"type":"error","message":"` + g.c() + "\x00" + g.c() + `"}`}, 0
	}},
	{code: "orphan_update", where: 1, make: func(g *privGen) ([]string, int) {
		return []string{`{"type":"item.updated","item":{"id":` + g.s() + `,"type":"todo_list","items":[{"text":` + g.s() + `,"completed":false}]}}`}, 0
	}},
	{code: "item_mismatch", where: 1, make: func(g *privGen) ([]string, int) {
		c := g.mcp(privMCP{server: g.server(), tool: `"memory_get"`, args: g.object(1)})
		other := g.mcp(privMCP{server: g.server(), tool: `"memory_get"`, args: g.object(1)})
		// the completion of the first call with the arguments of the second
		i := strings.Index(c[1], `"arguments":`)
		j := strings.Index(other[1], `"arguments":`)
		k := strings.Index(other[1], `,"result":`)
		l := strings.Index(c[1], `,"result":`)
		return []string{c[0], c[1][:i] + other[1][j:k] + c[1][l:]}, 1
	}},
	{code: "duplicate_item_id", where: 1, make: func(g *privGen) ([]string, int) {
		c := g.command(`"completed"`)
		if g.coin() {
			return []string{c[0], c[0]}, 1
		}
		return []string{c[0], c[1], c[1]}, 2
	}},
	{code: "multiple_turns", where: 1, make: func(g *privGen) ([]string, int) {
		return []string{`{"type":"turn.started"}`}, 0
	}},
	{code: "thread_started_misplaced", where: 4, make: func(g *privGen) ([]string, int) {
		return []string{g.threadStarted()}, 0
	}},
	{code: "event_outside_turn", where: 2, make: func(g *privGen) ([]string, int) {
		return []string{g.command(`"completed"`)[0]}, 0
	}},
	{code: "event_after_terminal_turn", where: 3, make: func(g *privGen) ([]string, int) {
		return []string{[]string{g.streamError(), g.textItem("agent_message"), g.threadStarted(),
			`{"type":"error","message":` + g.object(1) + `}`}[g.r.IntN(4)]}, 0
	}},
}

func (g *privGen) invalidCase(f privFault) privCase {
	s := g.base()
	if g.coin() {
		g.addIngredients(s, false, 1+g.r.IntN(2))
	}
	if f.where == 3 && s.end == "" {
		s.end = g.turnCompleted()
	}
	g.shuffleGroups(s)
	lines, turn, end := s.lines()
	lo, hi := 0, len(lines)
	switch f.where {
	case 1:
		lo, hi = turn+1, end
	case 2:
		hi = turn
	case 3:
		lo = len(lines)
	case 4:
		lo, hi = 1, end
	case 5:
		hi = end
	}
	at := lo + g.r.IntN(hi-lo+1)
	bad, off := f.make(g)
	lines = append(lines[:at], append(bad, lines[at:]...)...)
	record := at + off + 1
	if f.file {
		record = -1
	}
	input := privJoin(lines, g)
	if f.code == "blank_record" && at == len(lines)-1 && !bytes.HasSuffix(input, []byte("\n")) {
		input = append(input, '\n') // a blank last line needs its newline to exist
	}
	return privCase{name: "invalid " + f.code, input: input, exit: 2, code: f.code, record: record}
}

// runCapture is privRunEnv with empty stdin, env as the environment, and
// the outputs as strings.
func runCapture(args []string, env map[string]string) (int, string, string) {
	code, stdout, stderr := privRunEnv(args, nil, env["CAIRN_EVAL"])
	return code, string(stdout), string(stderr)
}

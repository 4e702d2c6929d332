//go:build unix

package capturekit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

type testRow struct {
	Scenario `yaml:",inline"`
	Flag     bool `yaml:"flag"`
}

const table = `
- name: real-memory
  about: a real server from npm
  server:
    name: memory
    npm: ["@example/memory-server@1.0.0"]
    bin: mcp-server-memory
    env: {MEMORY_FILE_PATH: "{work}/.memory.jsonl"}
    hang: search_nodes
  flag: true
  main:
    - Just text.
    - - {call: mcp__memory__search_nodes, id: c1, args: {query: ledger}}
    - {status: 500, error: api_error, message: down}
  exit: 1
  want: [inconclusive turn_failed, pass, pass, fail direct_mutation_unauthorized]
  versions:
    "1.0.0": {exit: 130, want: {invalid: malformed_json, record: 1}}
- name: scripted
  server: {flags: [-search-error], entry: {trust: true, excludeTools: [memory_store]}}
  want: [pass, pass, inconclusive search_result_error, pass]
`

// TestLoad reads a table: the kit's members and the CLI's, steps and
// parts, verdicts, per-version overrides, the entry's member order.
func TestLoad(t *testing.T) {
	ss, err := Load[testRow](([]byte)(table))
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if !s.Flag || s.Server.ConfiguredName() != "memory" || len(s.Main) != 3 || s.Main[1].Parts[0].Name != "mcp__memory__search_nodes" || string(s.Main[1].Parts[0].Args) != `{"query":"ledger"}` || s.Main[2].Status != 500 {
		t.Errorf("read %+v", s)
	}
	if v, _ := json.Marshal(s.Want.Verdict()); string(v) != `{"status":"fail","exit_code":1,"checks":{"evidence_complete":{"state":"inconclusive","codes":["turn_failed"]},"memory_first":{"state":"pass","codes":[]},"retrieval_result":{"state":"pass","codes":[]},"direct_write_boundary":{"state":"fail","codes":["direct_mutation_unauthorized"]}}}` {
		t.Errorf("verdict %s", v)
	}
	v, err := ForVersion[testRow](s, "1.0.0")
	if err != nil || v.Exit != 130 || v.Want.Verdict().Status != "invalid" || v.About != s.About || !v.Flag {
		t.Errorf("version 1.0.0: %+v, %v", v, err)
	}
	if got := s.Overrides("want"); len(got) != 1 || got[0] != "1.0.0" {
		t.Errorf("overrides %v", got)
	}
	if e, _ := json.Marshal(ss[1].Server.Entry); string(e) != `{"trust":true,"excludeTools":["memory_store"]}` {
		t.Errorf("entry %s", e)
	}
	if ss[1].Server.ConfiguredName() != "cairn-memory" {
		t.Errorf("default name %s", ss[1].Server.ConfiguredName())
	}
}

// TestLoadRefuses: a member no testRow has, a verdict that is not four checks,
// a part of no known kind, a step member none has.
func TestLoadRefuses(t *testing.T) {
	for _, src := range []string{
		"- {name: a, flags: true}\n",
		"- {name: a, want: [pass, pass, pass]}\n",
		"- {name: a, want: [pass, fail, pass, pass]}\n",
		"- {name: a, main: [[{tool: x}]]}\n",
		"- {name: a, main: [{parts: [x], stauts: 500}]}\n",
		"- {name: a}\n- {name: a}\n",
	} {
		if _, err := Load[testRow]([]byte(src)); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

// TestServerCommand: how a CLI starts a scenario's server, with the kit's
// paths or their placeholders.
func TestServerCommand(t *testing.T) {
	ss, err := Load[testRow]([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{WorkDir: "/tmp/w", Scratch: "/tmp/s", Self: "/bin/capture", MCPServer: "/bin/mcpserver"}
	cmd, args, env := r.ServerCommand(&ss[0].Server, false)
	if got := cmd + " " + strings.Join(args, " "); got != "/bin/capture mcp-hang -marker /tmp/s/mcp-hang.marker -tool search_nodes -- /tmp/cairn-mcp-npm/example+memory-server1.0.0/node_modules/.bin/mcp-server-memory" {
		t.Errorf("npm server: %s", got)
	}
	if env["MEMORY_FILE_PATH"] != "/tmp/w/.memory.jsonl" {
		t.Errorf("env %v", env)
	}
	cmd, args, _ = r.ServerCommand(&ss[1].Server, true)
	if got := cmd + " " + strings.Join(args, " "); got != "MCPSERVER -name cairn-memory -search-error" {
		t.Errorf("scripted server: %s", got)
	}
}

// TestCmd: the installed program with the run's arguments, the
// environment in order (the kit's, the CLI's, the scenario's), the
// scenario's signal, the hung call's marker and its Interrupt.
func TestCmd(t *testing.T) {
	ss, err := Load[testRow]([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0].Scenario
	s.Env, s.Signal, s.Interrupt = []string{"EXTRA=1"}, "SIGTERM", time.Minute
	r := &Run{Install: &Install{Argv: []string{"/n/node", "/n/cli.js"}}, Scratch: "/s", Home: "/s/home"}
	c := r.Cmd(&s, []string{"-p", "x"}, "A=1", "B=2")
	for _, tc := range []struct{ what, got, want string }{
		{"argv", strings.Join(c.Argv, " "), "/n/node /n/cli.js -p x"},
		{"env", strings.Join(c.Env, " "), "PATH=/usr/local/bin:/usr/bin:/bin HOME=/s/home A=1 B=2 LANG=C.UTF-8 TZ=UTC TERM=dumb EXTRA=1"},
		{"stdout", c.Stdout, "/s/stdout.jsonl"},
		{"signal, after", fmt.Sprint(c.Signal, " ", c.After), "terminated 1m0s"},
		{"markers", fmt.Sprint(c.Markers), "map[/s/mcp-hang.marker:the MCP tool call is running]"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.what, tc.got, tc.want)
		}
	}
	if c := r.Cmd(&ss[1].Scenario, nil); c.Signal != 0 || c.Markers != nil || c.After != 0 {
		t.Errorf("defaults: signal %v, markers %v, after %v", c.Signal, c.Markers, c.After)
	}
}

// TestProgram: an installed program runs as itself or under node, both
// asked --version; Node is beside the CLI's versions. Nothing installed
// inside the namespace (no fetch): a missing program is an error.
func TestProgram(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/npm/1.0/bin", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/npm/1.0/bin/cli", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	i := &Install{Version: "1.0", Dir: dir + "/npm/1.0"}
	if err := i.Program("", "bin/cli", "cli@1.0"); err != nil || strings.Join(i.VersionArgv, " ") != dir+"/npm/1.0/bin/cli --version" || len(i.Argv) != 1 {
		t.Errorf("binary: %v, %q, %q", err, i.Argv, i.VersionArgv)
	}
	if err := i.Program("/usr/bin/node", "bin/cli", "cli@1.0"); err != nil || strings.Join(i.Argv, " ") != "/usr/bin/node "+dir+"/npm/1.0/bin/cli" {
		t.Errorf("script: %v, %q", err, i.Argv)
	}
	node, err := i.Node("22.23.3")
	if node != dir+"/npm/node-22.23.3/node_modules/node/bin/node" || err == nil || !strings.Contains(err.Error(), "node@22.23.3 is not installed") {
		t.Errorf("node: %s, %v", node, err)
	}
}

// TestMCPServers: the entry's members in order: head, command, args, env,
// tail, the scenario's entry members.
func TestMCPServers(t *testing.T) {
	ss, err := Load[testRow]([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{WorkDir: "/w", Scratch: "/s", Self: "/k/capture", MCPServer: "/k/mcpserver"}
	for _, tc := range []struct {
		sv   *Server
		want string
	}{
		{&ss[0].Server, `{"memory":{"type":"local","command":"CAPTURE","args":["mcp-hang","-marker","SCRATCH/mcp-hang.marker","-tool","search_nodes","--","NPM/node_modules/.bin/mcp-server-memory"],"env":{"MEMORY_FILE_PATH":"/w/.memory.jsonl"},"timeout":60}}`},
		{&ss[1].Server, `{"cairn-memory":{"type":"local","command":"MCPSERVER","args":["-name","cairn-memory","-search-error"],"timeout":60,"trust":true,"excludeTools":["memory_store"]}}`},
	} {
		if got := Compact(r.MCPServers(tc.sv, true, []any{"type", "local"}, "timeout", 60)); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

// TestCapture: a scenario keeps the CLI's stdout, or with keep: session
// the one session file under HOME, with a note; none or two is an error.
func TestCapture(t *testing.T) {
	r := testRun(t, time.Minute)
	r.Home = r.Scratch + "/home"
	p := &Proc{Stdout: []byte("{\"out\":1}\n")}
	shape := func(b []byte) []byte { return b }
	if note, err := r.Capture(&Scenario{Name: "a"}, p, "s/*.jsonl", "a.jsonl", shape); note != "" || err != nil || r.kept[0] != "a.jsonl" {
		t.Errorf("stdout: %q, %v, %v", note, err, r.kept)
	}
	s := &Scenario{Name: "b", Keep: "session"}
	if _, err := r.Capture(s, p, "s/*.jsonl", "b.jsonl", shape); err == nil || len(r.kept) != 1 {
		t.Errorf("no session file: %v, %v", err, r.kept)
	}
	if err := os.MkdirAll(r.Home+"/s", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Home+"/s/1.jsonl", []byte("{\"session\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	note, err := r.Capture(s, p, "s/*.jsonl", "b.jsonl", shape)
	if b, _ := os.ReadFile(r.Out + "/b.jsonl"); err != nil || note != "# b.jsonl is not stdout but the session file ~/s/1.jsonl\n" || string(b) != "{\"session\":1}\n" {
		t.Errorf("session: %q, %v, %q", note, err, b)
	}
}

// TestReadmeLine: the scenario's verdict, then each version's that
// overrides it.
func TestReadmeLine(t *testing.T) {
	ss, err := Load[testRow]([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	line, err := ReadmeLine(ss[0], "real-memory.jsonl", "about", "cli", true, ", where null")
	if want := "- `real-memory.jsonl` — about. cli exit 1. **fail (exit 1; evidence_complete inconclusive turn_failed, direct_write_boundary fail direct_mutation_unauthorized)**: . **In 1.0.0: invalid (exit 2, malformed_json at line 1)**: .\n"; line != want || err != nil {
		t.Errorf("got %q, %v, want %q", line, err, want)
	}
}

// TestServeSeeds: serving a scenario seeds its server first (here a
// shell that answers every request) and says so for the requests.txt; a
// server that does not answer stops the run before the mock starts.
func TestServeSeeds(t *testing.T) {
	r := testRun(t, time.Minute)
	r.Home, r.spec.Addr = r.Scratch, "127.0.0.1:0"
	server := r.Scratch + "/server.sh"
	answer := `while read -r l; do case "$l" in *'"id":'*) id=${l#*'"id":'}; echo "{\"jsonrpc\":\"2.0\",\"id\":${id%%[,\}]*},\"result\":{\"content\":[]}}";; esac; done`
	if err := os.WriteFile(server, []byte("#!/bin/sh\n"+answer+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Server: Server{Command: server, Seed: []SeedCall{{Tool: "create_entities"}, {Tool: "add_observations"}}}}
	if err := r.ServeChat(s); err != nil || r.Seeded != "# before the run the kit seeded the server's store by tools/call: create_entities, add_observations\n" || r.Mock == nil {
		t.Fatalf("seeded %q, %v", r.Seeded, err)
	}
	r.Mock.Close()
	r.Mock, s.Server.Command = nil, "/bin/false"
	if err := r.ServeMessages(s, "ToolSearch"); err == nil || r.Mock != nil {
		t.Errorf("a server that does not answer: %v, mock %v", err, r.Mock)
	}
}

// TestMemorySpec: a CLI's memory table is its Spec with its own name, one
// version, the memory folder's scenarios, the catalog captures' folder,
// the CLI's install (where Spec keeps it, which its captures may name) and
// the memory README lines.
func TestMemorySpec(t *testing.T) {
	var dirs []string
	s := &Spec[testRow, *testRow]{Name: "x", Versions: []string{"2.0", "1.0"}, Files: fstest.MapFS{"memory/scenarios.yaml": {Data: []byte(table)}},
		Allowed: make([]string, 1, 4), Install: func(i *Install) error { dirs = append(dirs, i.Dir); return nil }}
	m := s.Memory("2.0")
	i := &Install{Version: "2.0", Dir: "/tmp/cairn-x-memory-npm/2.0"}
	if err := m.Install(i); err != nil || m.Name != "x-memory" || fmt.Sprint(m.Versions) != "[2.0]" || m.root() != "testdata/catalog/real/x" ||
		fmt.Sprint(m.Allowed) != "[ /tmp/cairn-x-npm]" || len(s.Allowed) != 1 || fmt.Sprint(dirs) != "[/tmp/cairn-x-npm/2.0]" {
		t.Errorf("got %s %v %s %q (Spec's %q), installed in %v: %v", m.Name, m.Versions, m.root(), m.Allowed, s.Allowed, dirs, err)
	}
	src, _ := fs.ReadFile(m.Files, "scenarios.yaml")
	ss, err := Load[testRow](src)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := m.ReadmeLine(ss[0]); err != nil || line != MemoryReadmeLine(&ss[0].Scenario) {
		t.Errorf("readme line %q, %v", line, err)
	}
}

// TestRecordFacts: a member as a record, and the forms of a tool's output.
func TestRecordFacts(t *testing.T) {
	var rec Record
	if err := json.Unmarshal([]byte(`{"o":{"a":"x"},"s":"{\"k\":1}","e":"","t":"text","n":3,"z":null}`), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Obj("o").Str("a") != "x" || rec.Obj("s") != nil || rec.Obj("none") != nil {
		t.Errorf("Obj: %v %v", rec.Obj("o"), rec.Obj("s"))
	}
	for k, want := range map[string]string{"none": "no output", "n": "output not a string", "e": "output empty string", "z": "output empty string",
		"s": "output a JSON object text", "t": "output other text", "o": "output not a string"} {
		if got := OutputForm(rec[k]); got != want {
			t.Errorf("%s: got %q, want %q", k, got, want)
		}
	}
}

// TestShape: member names and types in order, never values; an array's
// distinct element shapes, or its runs in the codex style.
func TestShape(t *testing.T) {
	line := []byte(`{"type":"x","n":1.5,"a":[{"k":"v"},{"k":"w"},2],"m":{"id1":true}}`)
	if got := string(Shape(append(line, '\n'), func(Record) string { return "x/t" })); got != "1 x/t {type:string,n:number,a:[{k:string}|number],m:{id1:bool}}\n" {
		t.Errorf("plain: %s", got)
	}
	st := Style{Sep: " ", Integers: true, Runs: true, IDKeyed: map[string]bool{"m": true}}
	if got := st.ShapeOf(line); got != "{type:string n:number a:[{k:string}*2 integer] m:{<id>:bool}}" {
		t.Errorf("codex style: %s", got)
	}
}

// testRun is a run in a temporary folder, killed after timeout.
func testRun(t *testing.T, timeout time.Duration) *Run {
	t.Helper()
	dir := t.TempDir()
	return &Run{Out: dir, Scratch: dir, WorkDir: dir, Self: "/tmp/kit-bin/capture",
		spec: &common{Name: "x", Scratch: "/tmp/cairn-x-run", Timeout: timeout}}
}

// TestExec: stdout kept byte for byte, a marker file interrupts the
// process group, a run past the timeout is killed, and the exit codes say
// how it ended.
func TestExec(t *testing.T) {
	r := testRun(t, 5*time.Minute)
	marker := r.Scratch + "/started"
	var lines []string
	p, err := r.Exec(Cmd{Argv: []string{"/bin/sh", "-c", "echo one; printf 'two\\nthree'; touch " + marker + "; sleep 120; echo never"},
		Stdout: r.Scratch + "/out", Group: true, Wait: 10 * time.Millisecond,
		Markers: map[string]string{marker: "the marker is there"},
		OnLine:  func(_ *Proc, line []byte) { lines = append(lines, string(line)) }})
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Stdout) != "one\ntwo\nthree" || p.Lines != 2 || len(lines) != 3 {
		t.Errorf("stdout %q, %d lines, seen %q", p.Stdout, p.Lines, lines)
	}
	if p.Exit != 130 || p.Killed != "interrupt" || p.Interrupted != "the marker is there" || p.ExitText() != "130 (killed by interrupt)" {
		t.Errorf("exit %s, interrupted %q", p.ExitText(), p.Interrupted)
	}
	r = testRun(t, time.Second)
	p, err = r.Exec(Cmd{Argv: []string{"/bin/sh", "-c", "sleep 120"}, Stdout: r.Scratch + "/out2"})
	if err != nil || !p.TimedOut || p.Exit != 137 {
		t.Errorf("past the timeout: %v, timed out %v, exit %d", err, p.TimedOut, p.Exit)
	}
}

// TestCheck: a run that printed nothing, another exit code, or a capture
// that names a path outside the kit's folders fails.
func TestCheck(t *testing.T) {
	r := testRun(t, time.Minute)
	ok := &Proc{Lines: 1, Exit: 0}
	capture := func(s string) {
		if err := r.Keep("c.jsonl", []byte(s), func(b []byte) []byte { return b }); err != nil {
			t.Fatal(err)
		}
	}
	capture(`{"cwd":"` + r.WorkDir + `/src","bin":"/usr/bin/env","tmp":"/tmp"}` + "\n")
	if err := r.Check(ok, 0); err != nil {
		t.Errorf("a good run: %v", err)
	}
	for _, tc := range []struct {
		p    *Proc
		want int
	}{{&Proc{Lines: 0}, 0}, {&Proc{Lines: 1, Exit: 1}, 0}, {&Proc{Lines: 1, Exit: 0}, -1}} {
		if err := r.Check(tc.p, tc.want); err == nil {
			t.Errorf("lines %d exit %d want %d: no error", tc.p.Lines, tc.p.Exit, tc.want)
		}
	}
	capture(`{"text":"see /root/.ssh/id_rsa (or /tmp/other)"}` + "\n")
	if err := r.Check(ok, 0); err == nil || !strings.Contains(err.Error(), "/root/.ssh/id_rsa") || !strings.Contains(err.Error(), "/tmp/other") {
		t.Errorf("a foreign path: %v", err)
	}
}

// TestLoadMemoryRows: an anchor set in one row is used in the next (a
// whole server, a merge with another name, a verdict), and want.json
// records the catalog, the --memory-server names and the verdict under
// cairn-memory/1 only for a row with a catalog.
func TestLoadMemoryRows(t *testing.T) {
	ss, err := Load[testRow]([]byte(`
- name: sm/first
  server: &sm {name: memory, npm: ["@example/memory-server@1.0.0"], bin: m, seed: [{tool: create_entities, args: {entities: [{name: a}]}}]}
  catalog: mcp-server-memory
  want: [pass, pass, pass, pass]
  want_default: &def [pass, inconclusive memory_server_unavailable, inconclusive memory_server_unavailable, inconclusive opaque_tool_effects]
- name: sm/kg
  server: {<<: *sm, name: kg}
  catalog: mcp-server-memory
  memory_servers: [kg]
  want: [pass, fail tool_before_project_search, pass, pass]
  want_default: *def
- name: plain
  want: [pass, pass, pass, pass]
`))
	if err != nil {
		t.Fatal(err)
	}
	if sv := ss[1].Server; sv.Name != "kg" || sv.Bin != "m" || len(sv.Seed) != 1 || sv.Seed[0].Tool != "create_entities" || ss[0].Server.Name != "memory" {
		t.Errorf("servers %+v, %+v", ss[0].Server, sv)
	}
	v, _ := json.Marshal(ss[1].Verdict())
	if want := `{"status":"fail","exit_code":1,"checks":{"evidence_complete":{"state":"pass","codes":[]},"memory_first":{"state":"fail","codes":["tool_before_project_search"]},"retrieval_result":{"state":"pass","codes":[]},"direct_write_boundary":{"state":"pass","codes":[]}},` +
		`"catalog":"mcp-server-memory","memory_servers":["kg"],"default_catalog":{"status":"inconclusive","exit_code":3,"checks":{"evidence_complete":{"state":"pass","codes":[]},"memory_first":{"state":"inconclusive","codes":["memory_server_unavailable"]},"retrieval_result":{"state":"inconclusive","codes":["memory_server_unavailable"]},"direct_write_boundary":{"state":"inconclusive","codes":["opaque_tool_effects"]}}}}`; string(v) != want {
		t.Errorf("verdict\n%s\nwant\n%s", v, want)
	}
	p, _ := json.Marshal(ss[2].Verdict())
	if w, _ := json.Marshal(ss[2].Want.Verdict()); string(p) != string(w) {
		t.Errorf("a row without a catalog: %s, want %s", p, w)
	}
	if line := MemoryReadmeLine(&ss[1].Scenario); !strings.Contains(line, "**fail (exit 1; memory_first fail tool_before_project_search)** under `--catalog mcp-server-memory` `--memory-server kg`: . Under cairn-memory/1: **inconclusive (exit 3;") {
		t.Errorf("README line %s", line)
	}
}

// TestSeed: initialize, the initialized notification, then each call,
// each after the answer before it; an isError result or a JSON-RPC error
// stops it.
func TestSeed(t *testing.T) {
	calls := []SeedCall{{Tool: "store", Args: map[string]any{"text": "x"}}, {Tool: "tag", Args: map[string]any{}}}
	for _, tc := range []struct {
		answers []string // the server's answer to each request with an id
		fail    string
	}{
		{[]string{`{"protocolVersion":"2025-06-18"}`, `{"content":[]}`, `{"content":[],"isError":false}`}, ""},
		{[]string{`{}`, `{"content":[],"isError":true}`}, "store answered"},
	} {
		toServer, fromSeed := io.Pipe()
		fromServer, toSeed := io.Pipe()
		var got []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			br := bufio.NewReader(toServer)
			n := 0
			for {
				line, err := br.ReadBytes('\n')
				if err != nil {
					return
				}
				var m struct {
					ID     *int   `json:"id"`
					Method string `json:"method"`
				}
				_ = json.Unmarshal(line, &m)
				got = append(got, m.Method)
				if m.ID != nil && n < len(tc.answers) {
					// A log line and a notification first: seed skips them.
					fmt.Fprintf(toSeed, "not json\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":%s}\n", *m.ID, tc.answers[n])
					n++
				}
			}
		}()
		err := seed(fromSeed, fromServer, calls)
		fromSeed.Close()
		<-done
		switch {
		case tc.fail == "" && err != nil, tc.fail != "" && (err == nil || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("answers %v: error %v, want %q", tc.answers, err, tc.fail)
		case tc.fail == "" && strings.Join(got, ",") != "initialize,notifications/initialized,tools/call,tools/call":
			t.Errorf("requests %v", got)
		}
	}
}

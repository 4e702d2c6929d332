//go:build unix

// Package pi is what the capture kit needs of the Pi coding agent: how npm
// installs it (with node 22, and pi-mcp-adapter before built-in MCP), its
// ~/.pi/agent files and flags, how its --mode json stream is shaped and
// inventoried, and its scenarios (scenarios.yaml). `capture pi` runs it;
// README.md says how.
package pi

import (
	"embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's, and pi's settings.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// Exposure is mcp.json's exposure of the server: "" (not written:
	// pi's default, codemode), "direct", "deferred".
	Exposure string `yaml:"exposure"`
	// Adapter marks a scenario of the pi-mcp-adapter extension (pi before
	// 0.99, without built-in MCP): it runs only with those versions, the
	// others only without. server.entry holds the adapter's own members
	// (directTools).
	Adapter      bool     `yaml:"adapter"`
	DefaultTools []string `yaml:"default_tools"` // settings.json defaultTools
}

const (
	adapter  = "pi-mcp-adapter@2.36.0" // for pi before 0.99
	provider = "cairn-mock"
	model    = "mock-model"
)

//go:embed scenarios.yaml readme_head.md readme_tail.md
var fsys embed.FS

// Spec is Pi for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "pi", Versions: []string{"1.6.0", "1.3.0", "0.86.1"}, Files: fsys,
	Addr: "127.0.0.1:18383",
	Install: func(i *kit.Install) error {
		node, err := i.Node("22.23.3") // pi 1.x needs node 22.19 or newer
		if err != nil {
			return err
		}
		pkgs := []string{"@earendil-works/pi-coding-agent@" + i.Version}
		if kit.VersionLess(i.Version, "0.99.0") {
			pkgs = append(pkgs, adapter)
			i.Extra = map[string]string{"adapter": filepath.Join(i.Dir, "node_modules/pi-mcp-adapter")}
			if err := i.NPM(i.Dir, "node_modules/pi-mcp-adapter/package.json", nil, pkgs...); err != nil {
				return err
			}
		}
		i.VersionEnv = []string{"PI_OFFLINE=1"}
		return i.Program(node, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js", pkgs...)
	},
	Select:    func(s *scenario, i *kit.Install) bool { return s.Adapter == (i.Extra["adapter"] != "") },
	Run:       run,
	Shape:     func(_ string, b []byte) []byte { return shape(b) },
	Inventory: inventory,
	ReadmeLine: func(s *scenario) (string, error) {
		return kit.ReadmeLine(s, s.Name+".jsonl", s.About+" (exposure "+exposure(s)+")", "pi", true, ", where null")
	},
}

// exposure is the server's exposure as the README says it.
func exposure(s *scenario) string {
	switch {
	case s.Adapter && len(s.Server.Entry) > 0 && s.Server.Entry[0].K == "directTools":
		return "pi-mcp-adapter, directTools"
	case s.Adapter:
		return "pi-mcp-adapter, proxy"
	case s.Server.None:
		return "none: no MCP server configured"
	case s.Exposure == "":
		return "codemode (default)"
	}
	return s.Exposure
}

// files are ~/.pi/agent's models.json, settings.json and mcp.json (nil:
// not written) for a scenario.
func files(r *kit.Run, s *scenario, placeholders bool) (models, settings, mcp ordered.Obj) {
	o, kv := ordered.O, ordered.Member
	models = o("providers", o(provider, o(
		"name", "cairn offline mock",
		"baseUrl", "http://"+r.Addr+"/v1",
		"api", "openai-completions",
		"apiKey", "cairn-offline-fake-key-0000",
		"models", []any{o("id", model, "name", "Mock Model", "contextWindow", 128000, "maxTokens", 4096,
			"cost", o("input", 0, "output", 0, "cacheRead", 0, "cacheWrite", 0))},
	)))
	// Short retry delays: 200, 400, 800 ms instead of 2, 4, 8 s.
	settings = o("defaultProvider", provider, "defaultModel", model, "retry", o("baseDelayMs", 200))
	if len(s.DefaultTools) > 0 {
		settings = append(settings, kv("defaultTools", s.DefaultTools))
	}
	if s.Adapter {
		ext := r.Install.Extra["adapter"]
		if placeholders {
			ext = "ADAPTER"
		}
		settings = append(settings, kv("extensions", []string{ext}))
	}
	if s.Server.None {
		return models, settings, nil
	}
	var tail []any
	if s.Exposure != "" {
		tail = append(tail, "exposure", s.Exposure)
	}
	if s.Adapter {
		// Connect at startup, so that direct tools are declared in the
		// first request.
		tail = append(tail, "lifecycle", "eager")
	}
	return models, settings, o("mcpServers", r.MCPServers(&s.Server, placeholders, nil, tail...))
}

func run(r *kit.Run, s *scenario) error {
	// TMPDIR is shared by a version's runs: it holds node's compile cache
	// and jiti's cache of the TypeScript extensions pi-mcp-adapter ships,
	// which would otherwise be compiled anew on every run (tens of seconds).
	tmp := filepath.Dir(r.Scratch) + "/tmp"
	agent := r.Home + "/.pi/agent"
	if err := r.Lay(tmp, agent); err != nil {
		return err
	}
	models, settings, mcp := files(r, s, false)
	for name, v := range map[string]ordered.Obj{"models.json": models, "settings.json": settings, "mcp.json": mcp} {
		if v != nil {
			if err := kit.WriteJSON(agent+"/"+name, v); err != nil {
				return err
			}
		}
	}
	if err := r.ServeChat(&s.Scenario); err != nil {
		return err
	}
	argv := []string{"--mode", "json"}
	if s.Keep != "session" {
		argv = append(argv, "--no-session")
	}
	argv = append(append(argv, s.Args...), r.Prompt)
	c := r.Cmd(&s.Scenario, argv, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "TMPDIR="+tmp)
	c.Group = true
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("# pi argv (after node cli.js): %s\n# pi exit code: %s\n", kit.Quote(argv), p.ExitText())
	if p.Interrupted != "" {
		meta += fmt.Sprintf("# the harness sent %s to pi's process group\n", kit.SignalName(p.Signal))
	}
	note, err := r.Capture(&s.Scenario, p, ".pi/agent/sessions/*/*.jsonl", s.Name+".jsonl", shape)
	if err != nil {
		return err
	}
	meta += note
	models, settings, mcp = files(r, s, true)
	meta += "# ~/.pi/agent/models.json: " + kit.Compact(models) + "\n# ~/.pi/agent/settings.json: " + kit.Compact(settings) + "\n"
	if mcp == nil {
		meta += "# ~/.pi/agent/mcp.json: not written\n"
	} else {
		meta += "# ~/.pi/agent/mcp.json: " + kit.Compact(mcp) + "\n"
	}
	return r.Finish(s.Name, meta, p, s.Exit)
}

// shape is one line per record: its type (and, for message records, the
// message's role and stopReason; for message_update, the
// assistantMessageEvent type; "nested" for a call made by another tool;
// "isError" for an error result), then every member with its JSON type.
func shape(b []byte) []byte {
	type record struct {
		Type    string
		Message *struct{ Role, StopReason string }
		Event   *struct{ Type string } `json:"assistantMessageEvent"`
		IsError *bool
		Parent  *string `json:"parentToolCallId"`
	}
	return kit.Shape(b, func(rec record) string {
		var tags []string
		if m := rec.Message; m != nil && m.Role != "" {
			tags = append(tags, m.Role, m.StopReason)
		}
		if rec.Event != nil {
			tags = append(tags, rec.Event.Type)
		}
		if rec.Parent != nil {
			tags = append(tags, "nested")
		}
		if rec.IsError != nil && *rec.IsError {
			tags = append(tags, "isError")
		}
		return kit.Typed(rec.Type, tags...)
	})
}

// inventory is every record type with each member list it was seen with,
// the messages' roles and members, the assistant stopReasons and content
// blocks, the assistantMessageEvent types, the tools started (top level or
// nested) and how their ends look, the tools and sections the system
// messages declare, retries, settling and the last record; for the session
// files, their records' member lists.
func inventory(dir string, ss []*scenario) ([]byte, error) {
	f, sessions := kit.Facts{}, kit.Sessions(ss)
	nSessions, err := kit.EachSession(dir, sessions, func(name string, line []byte, rec kit.Record) { sessionFact(f, name, line, rec) })
	if err != nil {
		return nil, err
	}
	systems := map[string]int{}
	streams, err := f.Streams(dir, "", func(name string) bool { return sessions[name] }, func(name, typ string, line []byte, rec kit.Record, addFact func(string)) string {
		add := func(format string, args ...any) { addFact(fmt.Sprintf(format, args...)) }
		switch typ {
		case "message_start", "message_end":
			m := rec.Obj("message")
			role := m.Str("role")
			add("%s role %s members %s", typ, role, kit.Members(rec["message"]))
			switch {
			case role == "assistant":
				add("%s assistant stopReason %s", typ, m.Str("stopReason"))
				if typ != "message_end" {
					break
				}
				var blocks []json.RawMessage
				_ = json.Unmarshal(m["content"], &blocks)
				for _, bl := range blocks {
					var t struct{ Type string }
					_ = json.Unmarshal(bl, &t)
					add("assistant content block %s members %s", t.Type, kit.Members(bl))
				}
				if len(blocks) == 0 {
					add("assistant message_end with content []")
				}
			case role == "system" && typ == "message_end":
				systems[name]++
				which := "first"
				if systems[name] > 1 {
					which = "later"
				}
				var tools []struct{ Name string }
				_ = json.Unmarshal(m["toolsAdded"], &tools)
				var names []string
				for _, t := range tools {
					names = append(names, t.Name)
				}
				add("%s system message_end toolsAdded [%s]", which, strings.Join(names, ","))
				var sections map[string]json.RawMessage
				_ = json.Unmarshal(m["sections"], &sections)
				var keys []string
				for k := range sections {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				add("%s system message_end sections [%s]", which, strings.Join(keys, ","))
			case role == "toolResult":
				add("%s toolResult %s isError %s", typ, m.Str("toolName"), m["isError"])
			}
		case "message_update":
			e := rec.Obj("assistantMessageEvent")
			add("assistantMessageEvent %s members %s", e.Str("type"), kit.Members(rec["assistantMessageEvent"]))
		case "tool_execution_start":
			nested := ""
			if _, ok := rec["parentToolCallId"]; ok {
				nested = " (nested: parentToolCallId)"
			}
			add("tool_execution_start %s%s", rec.Str("toolName"), nested)
		case "tool_execution_end":
			nested, dur := "", ", durationMs"
			if _, ok := rec["parentToolCallId"]; ok {
				nested = " nested"
			}
			if _, ok := rec["durationMs"]; !ok {
				dur = ", no durationMs"
			}
			add("tool_execution_end%s %s isError %s%s, result members %s", nested, rec.Str("toolName"), rec["isError"], dur, kit.Members(rec["result"]))
			res := rec.Obj("result")
			if sc, ok := res["structuredContent"]; ok {
				form := "an object, members " + kit.Members(sc)
				switch {
				case strings.HasPrefix(string(sc), `"`):
					form = "a string"
				case !strings.HasPrefix(string(sc), "{"):
					form = "not an object"
				}
				add("tool_execution_end %s result.structuredContent %s", rec.Str("toolName"), form)
			}
		case "auto_retry_end":
			add("auto_retry_end success %s", rec["success"])
		case "agent_settled":
			add("agent_settled aborted %s", rec["aborted"])
		case "agent_end":
			add("agent_end willRetry %s", rec["willRetry"])
		case "entry_appended":
			e := rec.Obj("entry")
			add("entry_appended entry %s members %s", e.Str("type"), kit.Members(rec["entry"]))
		}
		return ""
	})
	return f.Write(fmt.Sprintf("# inventory of %d pi --mode json captures and %d session files (generated by scripts/capturekit/run.sh pi)", streams, nSessions)), err
}

// sessionFact is the fact of a session file's line: its record kind with
// its members, and a message entry's role.
func sessionFact(f kit.Facts, name string, line []byte, rec kit.Record) {
	const prefix = "not stdout, session file: "
	switch typ := rec.Str("type"); {
	case rec == nil:
		f.Add(prefix+"NOT-JSON line", name)
	case typ == "message":
		m := rec.Obj("message")
		f.Add(fmt.Sprintf("%srecord message members %s, message role %s", prefix, kit.Members(line), m.Str("role")), name)
	case typ != "":
		f.Add(fmt.Sprintf("%srecord %s members %s", prefix, typ, kit.Members(line)), name)
	default:
		f.Add(fmt.Sprintf("%sline (no type) members %s", prefix, kit.Members(line)), name)
	}
}

//go:build unix

// Package copilot is what the capture kit needs of GitHub Copilot CLI: how
// npm installs its native binary (@github/copilot-linux-x64), its MCP
// configuration file, environment and flags (its own-provider settings
// point it at the kit's chat-completions mock), how its --output-format
// json stream is shaped and inventoried, and its scenarios
// (scenarios.yaml). `capture copilot` runs it; README.md says how.
package copilot

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's, and Copilot's settings.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// NoAllowAll leaves out --allow-all-tools: only the scenario's own
	// --allow-tool flags approve calls.
	NoAllowAll bool `yaml:"no_allow_all"`
	// InterruptIn sends SIGINT once a tool.execution_start of this tool
	// is printed (the tool then runs).
	InterruptIn string `yaml:"interrupt_in"`
}

const model = "mock-model"

//go:embed scenarios.yaml readme_head.md readme_tail.md
var fsys embed.FS

// Spec is GitHub Copilot CLI for the capture kit. The binary unpacks
// itself into ~/.cache/copilot/pkg at every start (about 8 s), and six
// HTTP 500 attempts back off for about 15 s: the kit's timeout covers both.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "copilot", Versions: []string{"1.0.102", "1.0.80"}, Files: fsys,
	Addr: "127.0.0.1:18395",
	// model.call_failure names the API endpoint it called; the system
	// prompt in the session file names slash commands and (1.0.80)
	// example paths under /repo.
	Allowed: []string{"/chat/completions", "/security-review", "/subagents", "/repo"},
	Install: func(i *kit.Install) error {
		if err := i.Program("", "node_modules/@github/copilot-linux-x64/copilot", "@github/copilot-linux-x64@"+i.Version); err != nil {
			return err
		}
		i.VersionArgv = append(i.Argv, "version") // --version ends the number with a period
		return nil
	},
	Run:       run,
	Shape:     func(_ string, b []byte) []byte { return shape(b) },
	Inventory: inventory,
	ReadmeLine: func(s *scenario) (string, error) {
		return kit.ReadmeLine(s, s.Name+".jsonl", s.About, "copilot", true, ", where null")
	},
}

// mcpConfig is the file --additional-mcp-config @FILE names (nil: no
// server configured).
func mcpConfig(r *kit.Run, s *scenario, placeholders bool) ordered.Obj {
	if s.Server.None {
		return nil
	}
	return ordered.O("mcpServers", r.MCPServers(&s.Server, placeholders, []any{"type", "local"}, "tools", []string{"*"}))
}

// argv is copilot's arguments after the binary; cfg the MCP file's path.
func argv(s *scenario, prompt, cfg string) []string {
	a := []string{"-p", prompt, "--output-format", "json"}
	if !s.NoAllowAll {
		a = append(a, "--allow-all-tools")
	}
	if cfg != "" {
		a = append(a, "--additional-mcp-config", "@"+cfg)
	}
	return append(a, s.Args...)
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(); err != nil {
		return err
	}
	cfg := ""
	if c := mcpConfig(r, s, false); c != nil {
		cfg = r.Scratch + "/mcp-config.json"
		if err := kit.WriteJSON(cfg, c); err != nil {
			return err
		}
	}
	if err := r.ServeChat(&s.Scenario); err != nil {
		return err
	}
	args := argv(s, r.Prompt, cfg)
	c := r.Cmd(&s.Scenario, args, "COPILOT_PROVIDER_BASE_URL=http://"+r.Addr+"/v1", "COPILOT_PROVIDER_API_KEY=cairn-offline-fake-key-0000",
		"COPILOT_MODEL="+model, "COPILOT_OFFLINE=true")
	c.OnLine = func(p *kit.Proc, line []byte) {
		if s.InterruptIn != "" && strings.Contains(string(line), `"type":"tool.execution_start"`) &&
			strings.Contains(string(line), `"toolName":"`+s.InterruptIn+`"`) {
			p.Interrupt(s.InterruptIn+" runs", 3*time.Second)
		}
	}
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	if cfg != "" {
		args[len(args)-len(s.Args)-1] = "@SCRATCH/mcp-config.json"
	}
	meta := fmt.Sprintf("# copilot argv: %s\n# copilot exit code: %s\n", kit.Quote(args), p.ExitText())
	if p.Interrupted != "" {
		meta += fmt.Sprintf("# the harness sent %s to copilot (%s)\n", kit.SignalName(p.Signal), p.Interrupted)
	}
	note, err := r.Capture(&s.Scenario, p, ".copilot/session-state/*/events.jsonl", s.Name+".jsonl", shape)
	if err != nil {
		return err
	}
	meta += note
	if c := mcpConfig(r, s, true); c != nil {
		meta += "# SCRATCH/mcp-config.json: " + kit.Compact(c) + "\n"
	} else {
		meta += "# no MCP configuration\n"
	}
	return r.Finish(s.Name, meta, p, s.Exit)
}

// shape is one line per record: its type (with "sub" for a record of a
// sub-agent, "ephemeral", and "failed" for a call that did not succeed),
// then every member with its JSON type.
func shape(b []byte) []byte {
	type record struct {
		Type      string
		Ephemeral bool
		Data      *struct {
			Parent  *string `json:"parentToolCallId"`
			Success *bool
		}
	}
	return kit.Shape(b, func(rec record) string {
		var tags []string
		if d := rec.Data; d != nil {
			if d.Parent != nil {
				tags = append(tags, "sub")
			}
			if d.Success != nil && !*d.Success {
				tags = append(tags, "failed")
			}
		}
		if rec.Ephemeral {
			tags = append(tags, "ephemeral")
		}
		return kit.Typed(rec.Type, tags...)
	})
}

// inventory is every record type with each member list it was seen with
// (the record's and its data's), the tools started and how they ended
// (success, error code, result members), the MCP servers' statuses, the
// failures, interruptions and exit codes, and the session files' records.
func inventory(dir string, ss []*scenario) ([]byte, error) {
	f, sessions := kit.Facts{}, kit.Sessions(ss)
	nSessions, err := kit.EachSession(dir, sessions, func(name string, line []byte, rec kit.Record) {
		f.Add(fmt.Sprintf("not stdout, session file: record %s members %s, data %s", rec.Str("type"), kit.Members(line), kit.Members(rec["data"])), name)
	})
	if err != nil {
		return nil, err
	}
	streams, err := f.Streams(dir, "", func(name string) bool { return sessions[name] }, func(name, typ string, line []byte, rec kit.Record, addFact func(string)) string {
		add := func(format string, args ...any) { addFact(fmt.Sprintf(format, args...)) }
		if d := rec["data"]; d != nil {
			add("record %s data %s", typ, kit.Members(d))
		}
		data := rec.Obj("data")
		sub := ""
		if _, ok := data["parentToolCallId"]; ok {
			sub = " (sub-agent)"
		}
		switch typ {
		case "tool.execution_start":
			add("tool.execution_start %s%s", data.Str("toolName"), sub)
		case "tool.execution_complete":
			e, res := data.Obj("error"), data.Obj("result")
			add("tool.execution_complete success %s, error code %q%s, result members %s", data["success"], e.Str("code"), sub, kit.Members(data["result"]))
			if sc, ok := res["structuredContent"]; ok {
				add("tool.execution_complete result.structuredContent members %s", kit.Members(sc))
			}
		case "assistant.message":
			var reqs []json.RawMessage
			_ = json.Unmarshal(data["toolRequests"], &reqs)
			for _, q := range reqs {
				add("assistant.message toolRequests[] members %s", kit.Members(q))
			}
		case "session.mcp_servers_loaded":
			var servers []kit.Record
			_ = json.Unmarshal(data["servers"], &servers)
			for _, s := range servers {
				add("session.mcp_servers_loaded server status %s", s.Str("status"))
			}
		case "session.mcp_server_status_changed":
			add("session.mcp_server_status_changed status %s", data.Str("status"))
		case "model.call_failure":
			add("model.call_failure statusCode %s", data["statusCode"])
		case "abort":
			add("abort reason %s", data.Str("reason"))
		case "agent.interrupted":
			add("agent.interrupted activity %s", data.Str("activity"))
		case "result":
			add("result exitCode %s", rec["exitCode"])
		}
		return ""
	})
	return f.Write(fmt.Sprintf("# inventory of %d copilot --output-format json captures and %d session files (generated by scripts/capturekit/run.sh copilot)", streams, nSessions)), err
}

//go:build unix

// Package claude is what the capture kit needs of Claude Code: how npm
// installs it, its MCP config and flags, how its stream-json is shaped and
// inventoried, and its scenarios (scenarios.yaml). `capture claude` runs it
// (scripts/capturekit/run.sh claude); README.md says how.
package claude

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
)

// scenario is a row of scenarios.yaml: the kit's, and claude's flags.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// Mode is --permission-mode ("" = manual, printed as "default").
	Mode string `yaml:"mode"`
	// Allow and Disallow are --allowedTools beyond the defaults and
	// --disallowedTools.
	Allow    []string `yaml:"allow"`
	Disallow []string `yaml:"disallow"`
	// Prompts, two or more, are fed as --input-format stream-json, each
	// after the previous turn's result.
	Prompts []string `yaml:"prompts"`
	// SigInt interrupts claude once the scripted long Bash command runs
	// (it touches the bash marker).
	SigInt bool `yaml:"sigint"`
}

//go:embed scenarios.yaml readme_head.md readme_tail.md memory
var fsys embed.FS

// Spec is Claude Code for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "claude", Versions: []string{"2.1.332", "2.1.290"}, Files: fsys,
	Addr: "127.0.0.1:18181",
	// claude's own temporary folders, named in its init record.
	Allowed: []string{"/tmp/cc-socks", "/tmp/claude-0"},
	Install: install,
	Run:     run,
	Shape:   func(_ string, b []byte) []byte { return shape(b) },
	Inventory: func(dir string, _ []*scenario) ([]byte, error) {
		return inventory(dir)
	},
	ReadmeLine: func(s *scenario) (string, error) {
		return fmt.Sprintf("- `%s.jsonl` — %s. **%s**: %s.\n", s.Name, s.About, s.Want.Verdict().Describe(false, ""), s.Why), nil
	},
}

// Memory is Claude Code with real memory servers from npm (SPEC §16):
// `capture claude-memory` runs memory/scenarios.yaml.
var Memory = Spec.Memory("2.1.332")

// install installs a version of claude into i.Dir. The native build is the
// optional dependency @anthropic-ai/claude-code-linux-x64; the postinstall
// (which only links it into bin/) is not needed.
func install(i *kit.Install) error {
	return i.Program("", "node_modules/@anthropic-ai/claude-code-linux-x64/claude", "--ignore-scripts", "@anthropic-ai/claude-code@"+i.Version)
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(".claude"); err != nil {
		return err
	}
	server := s.Server.ConfiguredName()
	cfg := mcpConfig(r, &s.Server)
	mcpPath := r.Scratch + "/mcp.json"
	if err := os.WriteFile(mcpPath, cfg, 0o644); err != nil {
		return err
	}
	if err := r.ServeMessages(&s.Scenario, "ToolSearch"); err != nil {
		return err
	}
	mode := s.Mode
	if mode == "" {
		mode = "manual"
	}
	allowed := []string{"ToolSearch", "Bash", "Read", "Agent", "Task"}
	if len(s.Server.NPM) == 0 {
		// The kit's server; a real one's tools are the scenario's allow.
		allowed = append(allowed, "mcp__"+server+"__memory_search")
	}
	allowed = append(allowed, s.Allow...)
	argv := []string{"-p"}
	if len(s.Prompts) == 0 {
		argv = append(argv, r.Prompt)
	}
	argv = append(argv, "--output-format", "stream-json", "--verbose", "--mcp-config", mcpPath, "--strict-mcp-config",
		"--permission-mode", mode, "--allowedTools", strings.Join(allowed, ","))
	if len(s.Disallow) > 0 {
		argv = append(argv, "--disallowedTools", strings.Join(s.Disallow, ","))
	}
	if len(s.Prompts) > 0 {
		argv = append(argv, "--input-format", "stream-json")
	}
	argv = append(argv, s.Args...)
	c := r.Cmd(&s.Scenario, argv, "CLAUDE_CONFIG_DIR="+r.Home+"/.claude", "ANTHROPIC_BASE_URL=http://"+r.Addr,
		"ANTHROPIC_API_KEY=sk-ant-api03-cairn-offline-fake-key-0000000000000000", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_MAX_RETRIES=2")
	if s.SigInt {
		// The scripted Bash command touches it before it sleeps.
		c.Markers = map[string]string{r.WorkDir + "/.bash-started": "the long Bash command is running"}
	}
	if len(s.Prompts) > 0 {
		results := make(chan struct{}, 8)
		c.OnLine = func(_ *kit.Proc, line []byte) {
			if bytes.Contains(line, []byte(`"type":"result"`)) {
				results <- struct{}{}
			}
		}
		c.Stdin = func(w io.WriteCloser) {
			for i, p := range s.Prompts {
				if i > 0 {
					awaitResult(results)
				}
				msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
				w.Write(append(msg, '\n'))
			}
			awaitResult(results)
			w.Close()
		}
	}
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	if err := r.Keep(s.Name+".jsonl", p.Stdout, shape); err != nil {
		return err
	}
	meta := fmt.Sprintf("# claude argv (after the binary): %s\n# claude exit code: %d\n", kit.Quote(argv), p.Exit) + r.Seeded
	if len(s.Env) > 0 {
		meta += "# extra env: " + strings.Join(s.Env, " ") + "\n"
	}
	return r.Finish(s.Name, meta, p, s.Exit)
}

func awaitResult(results <-chan struct{}) {
	select {
	case <-results:
	case <-time.After(120 * time.Second):
	}
}

// shape is one line per record: its type (and subtype), the types of its
// content blocks (or of its stream event), then every member with its JSON
// type.
func shape(b []byte) []byte {
	return kit.Shape(b, func(rec kit.Record) string {
		head := kit.Tagged(rec.Str("type"), rec.Str("subtype"))
		switch rec.Str("type") {
		case "assistant", "user":
			var msg struct {
				Content json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(rec["message"], &msg)
			head += " " + blockTypes(msg.Content)
		case "stream_event":
			e := strings.Join(streamEvent(rec["event"]), ":")
			head += " <" + e + ">"
		}
		return head
	})
}

// blockTypes is a message content's block types, "[string]" for a string.
func blockTypes(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "[no content]"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "[string]"
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "[?]"
	}
	var ts []string
	for _, b := range blocks {
		ts = append(ts, b.Type)
	}
	return "[" + strings.Join(ts, ",") + "]"
}

// inventory is every record type and system subtype, every content block
// type (by record type), the member sets of the evidence-carrying blocks
// (tool_use, tool_result, which SPEC §9 closes), the block types inside
// tool_result content, init's tools, permission modes and mcp_servers
// statuses, and stream_event types: what the adapter's benign list and
// closed-block rules must be checked against.
func inventory(dir string) ([]byte, error) {
	f := kit.Facts{}
	add := func(section, item, file string) { f.Add(section+"\x00"+item, file) }
	err := kit.EachRecord(dir, ".jsonl", func(name string, line []byte, rec kit.Record) {
		if rec == nil {
			add("unparseable lines", "line", name)
			return
		}
		typ, sub := rec.Str("type"), rec.Str("subtype")
		rt := typ
		if typ == "system" || typ == "result" {
			rt += "/" + sub
		}
		add("record type[/subtype]", rt, name)
		switch {
		case typ == "system" && sub == "init":
			var init struct {
				Tools []string `json:"tools"`
				PM    string   `json:"permissionMode"`
				MCP   []struct {
					Name, Status string
				} `json:"mcp_servers"`
			}
			_ = json.Unmarshal(line, &init)
			for _, t := range init.Tools {
				add("init tools", t, name)
			}
			add("init permissionMode", init.PM, name)
			if len(init.MCP) == 0 {
				add("init mcp_servers", "(empty list)", name)
			}
			for _, s := range init.MCP {
				add("init mcp_servers", s.Name+": "+s.Status, name)
			}
		case typ == "stream_event":
			add("stream_event event types", strings.Join(streamEvent(rec["event"]), " "), name)
		case typ == "assistant" || typ == "user":
			members, _ := kit.MemberNames(line)
			for _, k := range members {
				add(typ+" record members", k, name)
			}
			var msg struct {
				Content json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(rec["message"], &msg)
			var blocks []json.RawMessage
			if json.Unmarshal(msg.Content, &blocks) != nil {
				add(typ+" content blocks", "(content is not an array)", name)
				return
			}
			for _, bl := range blocks {
				var bt struct {
					Type    string          `json:"type"`
					Content json.RawMessage `json:"content"`
				}
				_ = json.Unmarshal(bl, &bt)
				add(typ+" content blocks", bt.Type, name)
				if bt.Type == "tool_use" || bt.Type == "tool_result" {
					members, _ := kit.MemberNames(bl)
					add(bt.Type+" block members (in order)", strings.Join(members, ","), name)
				}
				if bt.Type != "tool_result" {
					continue
				}
				var inner []struct {
					Type string `json:"type"`
				}
				if json.Unmarshal(bt.Content, &inner) != nil {
					add("tool_result content", "string", name)
				}
				for _, in := range inner {
					add("tool_result content", "array of "+in.Type, name)
				}
			}
		}
	})
	return f.Sections(), err
}

// streamEvent is a stream_event's event type, and its content block's and
// delta's types where it has them.
func streamEvent(raw json.RawMessage) []string {
	var ev struct {
		Type         string `json:"type"`
		ContentBlock struct {
			Type string `json:"type"`
		} `json:"content_block"`
		Delta struct {
			Type string `json:"type"`
		} `json:"delta"`
	}
	_ = json.Unmarshal(raw, &ev)
	out := []string{ev.Type}
	for _, t := range []string{ev.ContentBlock.Type, ev.Delta.Type} {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// mcpConfig is the --mcp-config file for the scenario's server.
func mcpConfig(r *kit.Run, sv *kit.Server) []byte {
	cmd, args, env := r.ServerCommand(sv, false)
	if sv.Command != "" {
		// "args": null, as server-missing was captured: Claude Code then
		// leaves the server out of init.mcp_servers altogether; with
		// "args": [] it lists it as failed.
		args = nil
	}
	srv := map[string]any{"type": "stdio", "command": cmd, "args": args}
	if env != nil {
		srv["env"] = env
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{sv.ConfiguredName(): srv}})
	return b
}

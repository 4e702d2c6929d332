//go:build unix

// Package cline is what the capture kit needs of the Cline CLI: how npm
// installs its native binary, its provider and MCP settings and flags,
// how its --json stream is shaped and inventoried, and its scenarios
// (scenarios.yaml). `capture cline` runs it; README.md says how.
package cline

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's, and Cline's settings.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// InterruptOn interrupts the CLI once a stdout line holds this text
	// (a command's content_start, so that SIGINT comes while it runs).
	InterruptOn string `yaml:"interrupt_on"`
}

const (
	provider = "openai-compatible"
	model    = "mock-model"
	apiKey   = "cairn-offline-fake-key-0000"
	// sessionGlob is the session's messages file under HOME.
	sessionGlob = ".cline/data/sessions/*/*.messages.json"
)

//go:embed scenarios.yaml readme_head.md readme_tail.md
var fsys embed.FS

// Spec is the Cline CLI for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "cline", Versions: []string{"3.0.65", "3.0.57"}, Files: fsys,
	Addr: "127.0.0.1:18484",
	Install: func(i *kit.Install) error {
		// The npm package cline is a launcher whose postinstall picks the
		// platform's binary; the binary's own package is what runs.
		return i.Program("", "node_modules/@cline/cli-linux-x64/bin/cline", "@cline/cli-linux-x64@"+i.Version)
	},
	Run:       run,
	Shape:     func(_ string, b []byte) []byte { return shape(b) },
	Inventory: inventory,
	Wants: func(_ string, s *scenario) map[string]kit.Verdict {
		return map[string]kit.Verdict{capture(s): s.Want.Verdict()}
	},
	ReadmeLine: func(s *scenario) (string, error) {
		return kit.ReadmeLine(s, capture(s), s.About, "cline", true, ", where null")
	},
}

// capture is the file a scenario keeps: its stdout, or the session's
// messages file (a JSON document, not JSONL).
func capture(s *scenario) string {
	if s.Keep == "session" {
		return s.Name + ".json"
	}
	return s.Name + ".jsonl"
}

// settings are ~/.cline/data/settings/providers.json (as `cline auth -p
// openai -k KEY -m mock-model -b URL` writes it) and the MCP settings
// file CLINE_MCP_SETTINGS_PATH names (no server when none is configured).
func settings(r *kit.Run, s *scenario, placeholders bool) (providers, mcp ordered.Obj) {
	o := ordered.O
	providers = o("version", 1, "lastUsedProvider", provider, "modes", o(), "providers", o(provider, o(
		"settings", o("provider", provider, "apiKey", apiKey, "model", model, "baseUrl", "http://"+r.Addr+"/v1"),
		"updatedAt", "2026-12-06T00:00:00.000Z", "tokenSource", "manual")))
	if s.Server.None {
		return providers, o("mcpServers", o())
	}
	// timeout (seconds): the default, 3 s, is missed on a busy machine.
	return providers, o("mcpServers", r.MCPServers(&s.Server, placeholders, nil, "timeout", 60))
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(".cline/data/settings", r.Scratch+"/tmp"); err != nil {
		return err
	}
	providers, mcp := settings(r, s, false)
	if err := kit.WriteJSON(r.Home+"/.cline/data/settings/providers.json", providers); err != nil {
		return err
	}
	mcpPath := r.Scratch + "/mcp_settings.json"
	if err := kit.WriteJSON(mcpPath, mcp); err != nil {
		return err
	}
	if err := r.ServeChat(&s.Scenario); err != nil {
		return err
	}
	argv := append(append([]string{"--json"}, s.Args...), r.Prompt)
	c := r.Cmd(&s.Scenario, argv, "CLINE_MCP_SETTINGS_PATH="+mcpPath, "TMPDIR="+r.Scratch+"/tmp", "NO_COLOR=1")
	c.Group, c.PIDNamespace = true, true
	if s.InterruptOn != "" {
		c.OnLine = func(p *kit.Proc, line []byte) {
			if bytes.Contains(line, []byte(s.InterruptOn)) {
				p.Interrupt("a line holds "+s.InterruptOn, 2*time.Second)
			}
		}
	}
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("# cline argv: %s\n# cline exit code: %s\n", kit.Quote(argv), p.ExitText())
	if p.Interrupted != "" {
		meta += fmt.Sprintf("# the harness sent %s to cline's process group (%s)\n", kit.SignalName(p.Signal), p.Interrupted)
	}
	if len(s.Env) > 0 {
		meta += "# extra env: " + strings.Join(s.Env, " ") + "\n"
	}
	note, err := r.Capture(&s.Scenario, p, sessionGlob, capture(s), shape)
	if err != nil {
		return err
	}
	meta += note
	providers, mcp = settings(r, s, true)
	meta += "# ~/.cline/data/settings/providers.json: " + kit.Compact(providers) + "\n# CLINE_MCP_SETTINGS_PATH: " + kit.Compact(mcp) + "\n"
	return r.Finish(s.Name, meta, p, s.Exit)
}

// shape is one line per record: its type (with hookEventName; an
// agent_event's event type and contentType, and "error" for a tool's
// content_end with an error; a run_result's finishReason), then every
// member with its JSON type. A document (the session's messages file) is
// one line.
func shape(b []byte) []byte {
	type record struct {
		Type          string
		HookEventName string
		FinishReason  string
		Event         *struct {
			Type, ContentType string
			Error             json.RawMessage
		}
	}
	return kit.Shape(b, func(rec record) string {
		tags := []string{rec.HookEventName, rec.FinishReason}
		if e := rec.Event; e != nil {
			tags = append(tags, e.Type, e.ContentType)
			if e.Type == "content_end" && len(e.Error) > 0 {
				tags = append(tags, "error")
			}
		}
		return kit.Typed(rec.Type, tags...)
	})
}

// inventory is every record type with each member list it was seen with,
// the hooks and whether they name a parent agent, every event type (and
// contentType) with its members, the tools called, how their content_end
// looks (output's form, error), the error events, the run_result
// finishReasons and the last record; for the session files, their
// document's members and message blocks.
func inventory(dir string, ss []*scenario) ([]byte, error) {
	f := kit.Facts{}
	streams, err := f.Streams(dir, "", nil, func(_, typ string, line []byte, rec kit.Record, add func(string)) string {
		switch typ {
		case "hook_event":
			parent := "parentAgentId null"
			if p := string(rec["parentAgentId"]); p != "null" && p != "" {
				parent = "parentAgentId set"
			}
			add(fmt.Sprintf("hook_event %s, %s", rec.Str("hookEventName"), parent))
			return " " + rec.Str("hookEventName")
		case "agent_event":
			e := rec.Obj("event")
			et, ct := e.Str("type"), e.Str("contentType")
			add(fmt.Sprintf("event %s members %s", kit.Tagged(et, ct), kit.Members(rec["event"])))
			switch {
			case et == "content_start" && ct == "tool":
				add("tool called " + e.Str("toolName"))
			case et == "content_end" && ct == "tool":
				errText := "no error"
				if _, ok := e["error"]; ok {
					errText = "error " + form(e["error"])
				}
				add(fmt.Sprintf("content_end tool %s: output %s, %s", e.Str("toolName"), form(e["output"]), errText))
			case et == "error":
				add(fmt.Sprintf("error event recoverable %s, errorClass %q, error members %s", e["recoverable"], e.Str("errorClass"), kit.Members(e["error"])))
			case et == "done":
				add("done reason " + e.Str("reason"))
			}
			return " " + kit.Tagged(et, ct)
		case "run_result":
			add("run_result finishReason " + rec.Str("finishReason"))
		}
		return ""
	})
	sessions := 0
	for name := range kit.Sessions(ss) {
		if b, err := os.ReadFile(filepath.Join(dir, name+".json")); err == nil {
			sessions++
			sessionFacts(f, name, b)
		}
	}
	return f.Write(fmt.Sprintf("# inventory of %d cline --json captures and %d session messages files (generated by scripts/capturekit/run.sh cline)", streams, sessions)), err
}

// form says what a JSON value is: an object with its members, an array
// of objects with the first's members, or its type.
func form(v json.RawMessage) string {
	t := strings.TrimSpace(string(v))
	switch {
	case t == "":
		return "absent"
	case strings.HasPrefix(t, "{"):
		return "object " + kit.Members(v)
	case strings.HasPrefix(t, "["):
		var els []json.RawMessage
		_ = json.Unmarshal(v, &els)
		if len(els) > 0 && strings.HasPrefix(strings.TrimSpace(string(els[0])), "{") {
			return "array of objects " + kit.Members(els[0])
		}
		return "array"
	case strings.HasPrefix(t, `"`):
		return "string"
	}
	return t
}

// sessionFacts are the facts of a session's messages file: not stdout,
// one JSON document; its members, and each message's role and blocks.
func sessionFacts(f kit.Facts, name string, doc []byte) {
	const prefix = "not stdout, session messages file: "
	var d struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if json.Unmarshal(doc, &d) != nil {
		f.Add(prefix+"not one JSON document", name)
		return
	}
	f.Add(fmt.Sprintf("%sone JSON document of %d lines, members %s", prefix, len(kit.Lines(doc)), kit.Members(doc)), name)
	for _, m := range d.Messages {
		var blocks []json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			f.Add(fmt.Sprintf("%smessage role %s, content %s", prefix, m.Role, form(m.Content)), name)
			continue
		}
		for _, b := range blocks {
			f.Add(fmt.Sprintf("%smessage role %s, block %s", prefix, m.Role, kit.Members(b)), name)
		}
	}
}

//go:build unix

// Package gemini is what the capture kit needs of Gemini CLI: how npm
// installs it, its settings.json and flags, how its stream-json is shaped
// and inventoried, and its scenarios (scenarios.yaml). `capture gemini`
// runs it; README.md says how.
package gemini

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's, and gemini's settings
// and flags.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	NoYolo       bool   `yaml:"no_yolo"`       // run without --yolo (the default approval mode)
	MaxAttempts  int    `yaml:"max_attempts"`  // general.maxAttempts; 0 = the CLI's default
	MaxTurns     int    `yaml:"max_turns"`     // model.maxSessionTurns; 0 = the CLI's default
	OutputFormat string `yaml:"output_format"` // --output-format; "" = stream-json
}

func (s *scenario) format() string {
	if s.OutputFormat == "" {
		return "stream-json"
	}
	return s.OutputFormat
}

//go:embed scenarios.yaml readme_head.md readme_tail.md memory
var fsys embed.FS

// Spec is Gemini CLI for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "gemini", Versions: []string{"0.61.0", "0.56.0"}, Files: fsys,
	Addr:      "127.0.0.1:18282",
	Install:   install,
	Run:       run,
	Shape:     func(_ string, b []byte) []byte { return shape(b) },
	Inventory: inventory,
	ReadmeLine: func(s *scenario) (string, error) {
		return kit.ReadmeLine(s, s.Name+".jsonl", s.About, "gemini", false, "")
	},
}

// Memory is Gemini CLI with real memory servers from npm (SPEC §16):
// `capture gemini-memory` runs memory/scenarios.yaml.
var Memory = Spec.Memory("0.61.0")

// install installs a version of gemini into i.Dir.
func install(i *kit.Install) error {
	return i.Program("/usr/bin/node", "node_modules/@google/gemini-cli/bundle/gemini.js", "@google/gemini-cli@"+i.Version)
}

// settings is ~/.gemini/settings.json for a scenario.
func settings(r *kit.Run, s *scenario, placeholders bool) ordered.Obj {
	o, kv := ordered.O, ordered.Member
	general := o("enableAutoUpdate", false, "enableAutoUpdateNotification", false)
	if s.MaxAttempts > 0 {
		general = append(general, kv("maxAttempts", s.MaxAttempts))
	}
	set := o("general", general, "privacy", o("usageStatisticsEnabled", false), "security", o("auth", o("selectedType", "gemini-api-key")))
	if s.MaxTurns > 0 {
		set = append(set, kv("model", o("maxSessionTurns", s.MaxTurns)))
	}
	return append(set, kv("mcpServers", r.MCPServers(&s.Server, placeholders, nil, "timeout", 60000)))
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(".gemini", r.Scratch+"/tmp"); err != nil {
		return err
	}
	if err := kit.WriteJSON(r.Home+"/.gemini/settings.json", settings(r, s, false)); err != nil {
		return err
	}
	if err := r.ServeGenerative(&s.Scenario, "complete_task"); err != nil {
		return err
	}
	argv := []string{"-p", r.Prompt, "--output-format", s.format(), "-m", "gemini-2.5-pro"}
	if !s.NoYolo {
		argv = append(argv, "--yolo")
	}
	argv = append(argv, s.Args...)
	// The CLI writes error reports (with the whole request) to TMPDIR.
	c := r.Cmd(&s.Scenario, argv, "GOOGLE_GEMINI_BASE_URL=http://"+r.Addr, "GEMINI_API_KEY=cairn-offline-fake-key-0000",
		"GEMINI_CLI_TRUST_WORKSPACE=true", "TMPDIR="+r.Scratch+"/tmp")
	c.Group = true
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("# gemini argv (after node bundle/gemini.js): %s\n# gemini exit code: %d\n", kit.Quote(argv), p.Exit) + r.Seeded
	if p.Interrupted != "" {
		meta += "# the harness sent SIGINT to gemini's process group\n"
	}
	if len(s.Env) > 0 {
		meta += "# extra env: " + strings.Join(s.Env, " ") + "\n"
	}
	note, err := r.Capture(&s.Scenario, p, ".gemini/tmp/*/chats/session-*.jsonl", s.Name+".jsonl", shape)
	if err != nil {
		return err
	}
	meta += note
	meta += "# ~/.gemini/settings.json: " + kit.Compact(settings(r, s, true)) + "\n"
	return r.Finish(s.Name, meta, p, s.Exit)
}

// shape is one line per record: its type (and, for message records, the
// role; for tool_result, the status and error type), then every member
// with its JSON type. The free-form members (tool_use.parameters,
// result.stats) are shown like any other.
func shape(b []byte) []byte {
	type record struct {
		Type, Role, Status, Severity string
		Error                        *struct{ Type string }
	}
	return kit.Shape(b, func(rec record) string {
		errType := ""
		if rec.Error != nil && rec.Error.Type != "" {
			errType = "error.type=" + rec.Error.Type
		}
		return kit.Typed(rec.Type, rec.Role, rec.Status, rec.Severity, errType)
	})
}

// inventory is every record type with each member list it was seen with,
// the message roles, tool names and tool_id forms, tool_result status,
// error.type and output forms, error record severities and messages,
// result status and error.type, and the last record; for the captures that
// are not stream-json, their records' member lists.
func inventory(dir string, ss []*scenario) ([]byte, error) {
	f := kit.Facts{}
	other := map[string]string{} // captures that are not stream-json: what they are
	for _, s := range ss {
		switch {
		case s.Keep == "session":
			other[s.Name] = "session file"
		case s.format() != "stream-json":
			other[s.Name] = "--output-format " + s.format()
		}
	}
	streams, err := f.Streams(dir, "", func(name string) bool { return other[name] != "" }, func(_, typ string, line []byte, rec kit.Record, add func(string)) string {
		switch typ {
		case "message":
			d := ""
			if _, ok := rec["delta"]; ok {
				d = " delta"
			}
			add("message role " + rec.Str("role") + d)
		case "tool_use":
			id, tn := rec.Str("tool_id"), rec.Str("tool_name")
			add("tool_use tool_name " + tn)
			switch {
			case !strings.HasPrefix(id, tn+"__"):
				add("tool_id not <tool_name>__…")
			case strings.HasPrefix(id, tn+"__"+tn+"_"):
				add("tool_id <tool_name>__<tool_name>_<ms>_<index> (made by the CLI)")
			default:
				add("tool_id <tool_name>__<other>")
			}
		case "tool_result":
			add(errorFact("tool_result status "+rec.Str("status"), rec, false) + ", " + kit.OutputForm(rec["output"]))
		case "error":
			add(fmt.Sprintf("error severity %s message %q", rec.Str("severity"), rec.Str("message")))
		case "result":
			add(errorFact("result status "+rec.Str("status"), rec, true))
		}
		return ""
	})
	others := 0
	for name, what := range other {
		b, err := os.ReadFile(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			continue
		}
		others++
		otherFacts(f, name, "not stream-json, "+what+": ", b)
	}
	return f.Write(fmt.Sprintf("# inventory of %d stream-json captures and %d other outputs of the CLI (generated by scripts/capturekit/run.sh gemini)", streams, others)), err
}

// otherFacts are the facts of a capture that is not stream-json: a JSON
// document's members and its objects' members, or a JSONL file's record
// kinds (its type, else "no type") with their member lists, and the
// members of $set updates.
func otherFacts(f kit.Facts, name, prefix string, b []byte) {
	lines := kit.Lines(b)
	if len(lines) > 1 && !json.Valid(lines[0]) && json.Valid(b) {
		f.Add(fmt.Sprintf("%sone JSON document of %d lines, members %s", prefix, len(lines), kit.Members(b)), name)
		var doc map[string]json.RawMessage
		_ = json.Unmarshal(b, &doc)
		for k, v := range doc {
			if strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
				f.Add(fmt.Sprintf("%sdocument %s members %s", prefix, k, kit.Members(v)), name)
			}
		}
		return
	}
	for i, line := range lines {
		var rec kit.Record
		switch {
		case json.Unmarshal(line, &rec) != nil:
			f.Add(prefix+"NOT-JSON line", name)
		case rec.Str("type") != "":
			f.Add(fmt.Sprintf("%srecord type %s members %s", prefix, rec.Str("type"), kit.Members(line)), name)
		case rec["$set"] != nil:
			f.Add(fmt.Sprintf("%s$set update members %s", prefix, kit.Members(rec["$set"])), name)
		default:
			f.Add(fmt.Sprintf("%sline %d (no type) members %s", prefix, i+1, kit.Members(line)), name)
		}
	}
}

// errorFact is fact with the record's error.type, or, with absent,
// "(no error member)" when it has none.
func errorFact(fact string, rec kit.Record, absent bool) string {
	var e struct{ Type string }
	_ = json.Unmarshal(rec["error"], &e)
	switch _, ok := rec["error"]; {
	case e.Type != "":
		fact += " error.type " + e.Type
	case !ok && absent:
		fact += " (no error member)"
	}
	return fact
}

//go:build unix

// Package opencode is what the capture kit needs of OpenCode: how npm
// installs it, its opencode.json and flags, the two outputs of a run (the
// `opencode run --format json` stream, then `opencode export` of its
// session, and of a task's child session), how both are shaped and
// inventoried, the want.json rule it applies from the files, and its
// scenarios (scenarios.yaml). `capture opencode` runs it; README.md says
// how.
package opencode

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/capturekit/mock"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's (want and why are the
// run stream's), OpenCode's config, and the verdicts on its exports.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	Permission   ordered.Obj `yaml:"permission"` // opencode.json permission
	Tools        ordered.Obj `yaml:"tools"`      // opencode.json tools
	Export       fileWant    `yaml:"export"`
	// Child, when set, is the verdict on the export of the task call's
	// sub-agent session (<name>.child.export.json), which is then made.
	Child *fileWant `yaml:"child"`
}

type fileWant struct {
	Want kit.Want `yaml:"want"`
	Why  string   `yaml:"why"`
}

//go:embed scenarios.yaml readme_head.md readme_tail.md
var fsys embed.FS

// Spec is OpenCode for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name: "opencode", Versions: []string{"1.18.33", "1.3.2"}, Files: fsys,
	Addr: "127.0.0.1:18383",
	Install: func(i *kit.Install) error {
		// The native binary ships in the optional dependency
		// opencode-linux-x64 (the package's bin/opencode.exe is a copy its
		// postinstall makes).
		i.VersionEnv = []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1"}
		return i.Program("", "node_modules/opencode-linux-x64/bin/opencode", "opencode-ai@"+i.Version)
	},
	Run: run,
	Shape: func(name string, b []byte) []byte {
		if strings.HasSuffix(name, ".json") {
			return exportShape(b)
		}
		return shape(b)
	},
	Inventory: func(dir string, _ []*scenario) ([]byte, error) { return inventory(dir) },
	Wants:     wants,
	Readme:    readme,
}

// config is ~/.config/opencode/opencode.json for a scenario.
func config(r *kit.Run, s *scenario, placeholders bool) ordered.Obj {
	o, kv := ordered.O, ordered.Member
	cmd, args, env := r.ServerCommand(&s.Server, placeholders)
	srv := o("type", "local", "command", append([]string{cmd}, args...), "enabled", true)
	if env != nil {
		srv = append(srv, kv("environment", env))
	}
	c := o(
		"$schema", "https://opencode.ai/config.json",
		"autoupdate", false,
		"share", "disabled",
		"model", "mock/mock-model",
		"small_model", "mock/mock-model",
		"provider", o("mock", o(
			"npm", "@ai-sdk/openai-compatible",
			"name", "Mock",
			"options", o("baseURL", "http://"+r.Addr+"/v1", "apiKey", "cairn-offline-fake-key-0000"),
			"models", o("mock-model", o("name", "Mock Model", "tool_call", true, "limit", o("context", 128000, "output", 8192))),
		)),
		"mcp", o(s.Server.ConfiguredName(), srv),
	)
	if s.Permission != nil {
		c = append(c, kv("permission", s.Permission))
	}
	if s.Tools != nil {
		c = append(c, kv("tools", s.Tools))
	}
	return c
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(r.Scratch+"/tmp", ".config/opencode", ".local/share", ".cache", ".local/state"); err != nil {
		return err
	}
	if err := kit.WriteJSON(r.Home+"/.config/opencode/opencode.json", config(r, s, false)); err != nil {
		return err
	}
	if err := r.ServeChat(&s.Scenario, mock.ChatOptions{Side: "Release ledger memory", LogTime: true}); err != nil {
		return err
	}
	argv := append(append([]string{"run", "--format", "json"}, s.Args...), r.Prompt)
	c := r.Cmd(&s.Scenario, argv, "XDG_CONFIG_HOME="+r.Home+"/.config", "XDG_DATA_HOME="+r.Home+"/.local/share",
		"XDG_CACHE_HOME="+r.Home+"/.cache", "XDG_STATE_HOME="+r.Home+"/.local/state", "PWD="+r.WorkDir, "TMPDIR="+r.Scratch+"/tmp",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1")
	c.Group = true
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("# opencode argv: %s\n# opencode run exit code: %s\n", kit.Quote(argv), p.ExitText())
	if p.Interrupted != "" {
		meta += fmt.Sprintf("# the harness sent SIGINT to opencode's process group (%s)\n", p.Interrupted)
	}
	meta += "# ~/.config/opencode/opencode.json: " + kit.Compact(config(r, s, true)) + "\n"
	if err := r.Keep(s.Name+".jsonl", p.Stdout, shape); err != nil {
		return err
	}
	if p.Lines == 0 {
		return r.Check(p, s.Exit)
	}
	sid, err := sessionID(p.Stdout)
	if err != nil {
		return err
	}
	exp, err := export(r, c.Env, sid, s.Name+".export.json")
	if err != nil {
		return err
	}
	meta += "# then: opencode export SESSION (exit code 0)\n"
	if s.Child != nil {
		child, err := childSession(exp)
		if err != nil {
			return err
		}
		if _, err := export(r, c.Env, child, s.Name+".child.export.json"); err != nil {
			return err
		}
		meta += "# then: opencode export CHILDSESSION, the task's sub-agent session (exit code 0)\n"
	}
	return r.Finish(s.Name, meta, p, s.Exit)
}

// wants are the verdicts on a scenario's files in dir: the table's, with
// the state rule applied from the files.
func wants(dir string, s *scenario) map[string]kit.Verdict {
	out := map[string]kit.Verdict{}
	for name, w := range files(s) {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			out[name], _ = adjusted(w.Want.Verdict(), b)
		}
	}
	return out
}

// files are a scenario's files and their verdicts.
func files(s *scenario) map[string]fileWant {
	fs := map[string]fileWant{s.Name + ".jsonl": {s.Want, s.Why}, s.Name + ".export.json": s.Export}
	if s.Child != nil {
		fs[s.Name+".child.export.json"] = *s.Child
	}
	return fs
}

// export runs `opencode export ID` with the run's environment and keeps
// its stdout, byte for byte.
func export(r *kit.Run, env []string, id, name string) ([]byte, error) {
	p, err := r.Exec(kit.Cmd{Argv: append(r.Install.Argv, "export", id), Env: env, Stdout: r.Scratch + "/" + name, Stderr: strings.TrimSuffix(name, ".json") + "-stderr.txt"})
	if err != nil {
		return nil, err
	}
	if err := r.Keep(name, p.Stdout, exportShape); err != nil {
		return nil, err
	}
	if p.Exit != 0 || len(p.Stdout) == 0 {
		return nil, fmt.Errorf("opencode export exit %d, %d bytes (see %s)", p.Exit, len(p.Stdout), r.Scratch)
	}
	return p.Stdout, nil
}

// sessionID is the sessionID of the run's records (the same on every line).
func sessionID(b []byte) (string, error) {
	id := ""
	for _, line := range kit.Lines(b) {
		var rec struct{ SessionID string }
		if err := json.Unmarshal(line, &rec); err != nil {
			return "", fmt.Errorf("a stdout line that is not JSON: %w", err)
		}
		if rec.SessionID == "" || (id != "" && rec.SessionID != id) {
			return "", fmt.Errorf("stdout lines name sessions %q and %q", id, rec.SessionID)
		}
		id = rec.SessionID
	}
	return id, nil
}

// childSession is the session of the export's task call (its
// state.metadata.sessionId).
func childSession(exp []byte) (string, error) {
	var doc struct {
		Messages []struct {
			Parts []struct {
				Type, Tool string
				State      struct{ Metadata map[string]any }
			}
		}
	}
	if err := json.Unmarshal(exp, &doc); err != nil {
		return "", err
	}
	for _, m := range doc.Messages {
		for _, p := range m.Parts {
			if id, ok := p.State.Metadata["sessionId"].(string); ok && p.Type == "tool" && p.Tool == "task" && id != "" {
				return id, nil
			}
		}
	}
	return "", errors.New("the export has no task part naming its sub-agent session (state.metadata.sessionId)")
}

// referenceStateMembers are the members of a tool part's state that
// reference/opencode-json.md lists (completed: status, input, output,
// title, metadata, time; error: error instead of output; pending and
// running states hold a subset). §13 closes the state over them.
var referenceStateMembers = []string{"status", "input", "output", "title", "metadata", "time", "error", "attachments"}

// adjusted is v with unknown_field added to evidence_complete when the
// capture's tool states carry members the reference does not list.
func adjusted(v kit.Verdict, b []byte) (kit.Verdict, []string) {
	extra := stateExtras(b)
	if len(extra) == 0 || v.Checks == nil {
		return v, nil
	}
	c := *v.Checks
	if !slices.Contains(c.EvidenceComplete.Codes, "unknown_field") {
		c.EvidenceComplete = kit.Check{State: "inconclusive", Codes: append(append([]string{}, c.EvidenceComplete.Codes...), "unknown_field")}
	}
	return kit.Want{Checks: &c}.Verdict(), extra
}

// stateExtras are the member names of the tool parts' state objects in a
// capture (a run's JSONL or an export) that the reference does not list,
// sorted.
func stateExtras(b []byte) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if st, ok := t["state"].(map[string]any); ok && t["type"] == "tool" {
				for k := range st {
					if !slices.Contains(referenceStateMembers, k) {
						seen[k] = true
					}
				}
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		if dec.Decode(&v) != nil {
			break
		}
		walk(v)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// readme is testdata/opencode/real/README.md: per scenario, what it does,
// opencode's exit code, and for each file the verdict want.json holds and
// why, for every version captured under root; a version is named only
// where it differs.
func readme(root string, ss []*scenario) (string, error) {
	ms, err := filepath.Glob(filepath.Join(root, "*", "want.json"))
	if err != nil {
		return "", err
	}
	var versions []string
	for _, m := range ms {
		versions = append(versions, filepath.Base(filepath.Dir(m)))
	}
	sort.Slice(versions, func(i, j int) bool { return kit.VersionLess(versions[j], versions[i]) })
	var b strings.Builder
	fmt.Fprintf(&b, "Versions captured: %s. Verdicts are the same in every version unless versions are named.\n\n", strings.Join(versions, ", "))
	for _, s := range ss {
		by := map[string]*scenario{}
		for _, v := range versions {
			if by[v], err = kit.ForVersion(s, v); err != nil {
				return "", err
			}
		}
		fmt.Fprintf(&b, "- **`%s`** — %s. `opencode run` exit %s.\n", s.Name, s.About, perVersion(versions, func(v string) string {
			if e := by[v].Exit; e != 130 {
				return fmt.Sprint(e)
			}
			return "130 (SIGINT)"
		}))
		for _, name := range []string{s.Name + ".jsonl", s.Name + ".export.json", s.Name + ".child.export.json"} {
			if _, ok := files(s)[name]; !ok {
				continue
			}
			line := perVersion(versions, func(v string) string {
				w := files(by[v])[name]
				return fmt.Sprintf("**%s**: %s", w.Want.Verdict().Describe(false, ""), w.Why)
			}) + "."
			// The state rule of want.json, per version, after the scripted verdicts.
			for _, v := range versions {
				c, err := os.ReadFile(filepath.Join(root, v, name))
				if os.IsNotExist(err) {
					line += fmt.Sprintf(" In %s: not captured.", v)
					continue
				} else if err != nil {
					return "", err
				}
				if vd, extra := adjusted(files(by[v])[name].Want.Verdict(), c); len(extra) > 0 {
					line += fmt.Sprintf(" In %s: **%s**, evidence_complete also `unknown_field`: its tool states carry `%s`, which the reference does not list.",
						v, vd.Describe(false, ""), strings.Join(extra, "`, `"))
				}
			}
			fmt.Fprintf(&b, "  - `%s`: %s\n", name, line)
		}
	}
	return b.String(), nil
}

// perVersion is f's text, once when every version gives the same, else
// "in V1, V2: …; in V3: …" grouping the versions that agree.
func perVersion(versions []string, f func(string) string) string {
	var order []string
	by := map[string][]string{}
	for _, v := range versions {
		t := f(v)
		if by[t] == nil {
			order = append(order, t)
		}
		by[t] = append(by[t], v)
	}
	if len(order) == 1 {
		return order[0]
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, "in "+strings.Join(by[t], ", ")+": "+t)
	}
	return strings.Join(parts, "; ")
}

// partTags are the tags of a part: its type, a tool part's status, a
// step-finish's reason.
type partTags struct {
	Type, Reason string
	State        *struct{ Status string }
}

func (p *partTags) tags() string {
	if p == nil {
		return ""
	}
	tags := []string{p.Type}
	if p.State != nil {
		tags = append(tags, p.State.Status)
	}
	if p.Reason != "" {
		tags = append(tags, p.Reason)
	}
	return strings.Join(tags, "/")
}

// shape is a run's stdout, one line per record: its type, with the part's
// type, a tool part's state.status and a step_finish's reason, then every
// member with its JSON type.
func shape(b []byte) []byte {
	type record struct {
		Type string
		Part *partTags
	}
	return kit.Shape(b, func(rec record) string {
		if rec.Part != nil {
			return kit.Typed(rec.Type) + "/" + rec.Part.tags()
		}
		return kit.Typed(rec.Type)
	})
}

// exportShape is an export's: a line for the document's members and for
// the session info, then one per message info (with role and finish) and
// one per part (with its tags), each with its members and their types.
func exportShape(b []byte) []byte {
	var out bytes.Buffer
	var doc struct {
		Info     json.RawMessage
		Messages []struct {
			Info  json.RawMessage
			Parts []json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return []byte("NOT-JSON\n")
	}
	fmt.Fprintf(&out, "document %s\ninfo %s\n", kit.Members(b), kit.Plain.ShapeOf(doc.Info))
	for i, m := range doc.Messages {
		var mi struct {
			Role, Finish string
			Error        json.RawMessage
		}
		_ = json.Unmarshal(m.Info, &mi)
		tags := []string{mi.Role}
		if mi.Finish != "" {
			tags = append(tags, "finish="+mi.Finish)
		}
		if len(mi.Error) > 0 {
			tags = append(tags, "error")
		}
		fmt.Fprintf(&out, "messages[%d].info/%s %s\n", i, strings.Join(tags, "/"), kit.Plain.ShapeOf(m.Info))
		for j, p := range m.Parts {
			var pt partTags
			_ = json.Unmarshal(p, &pt)
			fmt.Fprintf(&out, "messages[%d].parts[%d]/%s %s\n", i, j, pt.tags(), kit.Plain.ShapeOf(p))
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteString("(no final newline)\n")
	}
	return out.Bytes()
}

// inventory is, for the run streams, every record type with each member
// list it was seen with, the parts, tool names, tool state statuses with
// their members and output forms, error records and the last record; for
// the exports, the document, session info and message info members,
// roles, finish values, errors, parts and tool states.
func inventory(dir string) ([]byte, error) {
	f := kit.Facts{}
	runs, err := f.Streams(dir, "run: ", nil, func(_, typ string, line []byte, rec kit.Record, add func(string)) string {
		last := ""
		if p, ok := rec["part"]; ok {
			partFacts(typ+" ", p, add)
			if typ == "step_finish" {
				var pt partTags
				_ = json.Unmarshal(p, &pt)
				last = " reason " + pt.Reason
			}
		}
		if e, ok := rec["error"]; ok {
			var er struct {
				Name string
				Data json.RawMessage
			}
			_ = json.Unmarshal(e, &er)
			add(fmt.Sprintf("error record error.name %s, error members %s, data members %s", er.Name, kit.Members(e), kit.Members(er.Data)))
		}
		return last
	})
	if err != nil {
		return nil, err
	}
	exports, err := filepath.Glob(filepath.Join(dir, "*.export.json"))
	if err != nil {
		return nil, err
	}
	for _, path := range exports {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		add := func(fact string) { f.Add("export: "+fact, name) }
		var doc struct {
			Info     json.RawMessage
			Messages []struct {
				Info  json.RawMessage
				Parts []json.RawMessage
			}
		}
		if json.Unmarshal(b, &doc) != nil {
			add("NOT-JSON")
			continue
		}
		add("document members " + kit.Members(b))
		add("info members " + kit.Members(doc.Info))
		var info struct{ ParentID *string }
		if json.Unmarshal(doc.Info, &info); info.ParentID != nil {
			add("info.parentID set (a child session)")
		}
		lastMsg := ""
		for _, m := range doc.Messages {
			var mi struct {
				Role, Finish string
				Time         struct{ Completed *json.Number }
				Error        *struct {
					Name string
					Data json.RawMessage
				}
			}
			_ = json.Unmarshal(m.Info, &mi)
			add(fmt.Sprintf("message info %s members %s", mi.Role, kit.Members(m.Info)))
			lastMsg = mi.Role
			if mi.Role == "assistant" {
				fin := "finish " + mi.Finish
				if mi.Finish == "" {
					fin = "no finish"
				}
				if mi.Time.Completed == nil {
					fin += ", no time.completed"
				}
				if mi.Error != nil {
					fin += ", error " + mi.Error.Name + " data members " + kit.Members(mi.Error.Data)
				}
				add("assistant message " + fin)
				lastMsg += " (" + fin + ")"
			}
			for _, p := range m.Parts {
				partFacts(mi.Role+" ", p, add)
			}
		}
		add("last message " + lastMsg)
	}
	return f.Write(fmt.Sprintf("# inventory of %d run streams and %d exports (generated by scripts/capturekit/run.sh opencode)", runs, len(exports))), nil
}

// partFacts are the facts of one part: its members by type, and for a
// tool part its tool, state status with the state's members, the output's
// form, an error and an invalid call's input members.
func partFacts(prefix string, raw json.RawMessage, add func(string)) {
	var p struct {
		Type, Tool string
		State      *struct {
			Status               string
			Input, Output, Error json.RawMessage
		}
	}
	_ = json.Unmarshal(raw, &p)
	add(fmt.Sprintf("%spart %s members %s", prefix, p.Type, kit.Members(raw)))
	if p.Type != "tool" || p.State == nil {
		return
	}
	add(prefix + "tool " + p.Tool)
	var full struct{ State json.RawMessage }
	_ = json.Unmarshal(raw, &full)
	add(fmt.Sprintf("%stool state %s members %s", prefix, p.State.Status, kit.Members(full.State)))
	if out := p.State.Output; out != nil {
		add(fmt.Sprintf("%stool %s %s %s", prefix, p.Tool, p.State.Status, kit.OutputForm(out)))
	}
	if p.State.Error != nil {
		e := strings.ReplaceAll(kit.Str(p.State.Error), "\n", `\n`)
		if len(e) > 120 {
			e = e[:120] + fmt.Sprintf("…(%d bytes)", len(e))
		}
		add(fmt.Sprintf("%stool %s error %q", prefix, p.Tool, e))
	}
	if p.Tool == "invalid" {
		add(fmt.Sprintf("%stool invalid input members %s", prefix, kit.Members(p.State.Input)))
	}
}

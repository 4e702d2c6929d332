//go:build unix

// Package qwen is what the capture kit needs of Qwen Code: how npm
// installs it (with node 22), its ~/.qwen/settings.json and flags, and its
// scenarios (scenarios.yaml). Its stream-json is Claude Code's dialect
// (SPEC §18), so its shape and inventory are Claude Code's harness's.
// `capture qwen` runs it (scripts/capturekit/run.sh qwen); README.md says
// how.
package qwen

import (
	"embed"
	"fmt"
	"strings"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	claude "github.com/cairn-audit/cairn/scripts/claude-real"
	"github.com/cairn-audit/cairn/scripts/ordered"
)

// scenario is a row of scenarios.yaml: the kit's, and qwen's flags.
type scenario struct {
	kit.Scenario `yaml:",inline"`
	// Approval is --approval-mode ("" = --yolo).
	Approval string `yaml:"approval"`
}

const (
	addr   = "127.0.0.1:18484"
	prompt = "What does the project memory say about the release ledger?"
	model  = "mock-model"
)

//go:embed scenarios.yaml readme_head.md readme_tail.md
var fsys embed.FS

// Spec is Qwen Code for the capture kit.
var Spec = &kit.Spec[scenario, *scenario]{
	Name:     "qwen",
	Versions: []string{"0.24.4", "0.21.10"},
	Files:    fsys,
	Prompt:   prompt,
	Addr:     addr,
	Install: func(i *kit.Install) error {
		node, err := i.Node("22.23.3") // qwen 0.2x needs node 22
		if err != nil {
			return err
		}
		return i.Program(node, "node_modules/@qwen-code/qwen-code/cli.js", "@qwen-code/qwen-code@"+i.Version)
	},
	Run:       run,
	Shape:     func(_ string, b []byte) []byte { return shape(b) },
	Inventory: func(dir string, _ []*scenario) ([]byte, error) { return claude.Spec.Inventory(dir, nil) },
	Readme: func(_ string, ss []*scenario) (string, error) {
		// The scenario lines, with each version's own verdict (the kit
		// puts readme_head.md and readme_tail.md around them).
		var b strings.Builder
		for _, s := range ss {
			fmt.Fprintf(&b, "- `%s.jsonl` — %s. qwen exit %d. **%s**: %s.", s.Name, s.About, s.Exit, s.Want.Verdict().Describe(true, ""), s.Why)
			for _, v := range s.Overrides("exit", "want", "why") {
				vs, err := kit.ForVersion(s, v)
				if err != nil {
					return "", err
				}
				fmt.Fprintf(&b, " **In %s: qwen exit %d, %s**: %s.", v, vs.Exit, vs.Want.Verdict().Describe(true, ""), vs.Why)
			}
			b.WriteString("\n")
		}
		return b.String(), nil
	},
}

// settings is ~/.qwen/settings.json for a scenario: the OpenAI-compatible
// provider is chosen by the flags and the environment; this holds the MCP
// server (none when the scenario configures none) and turns off what
// would phone home.
func settings(r *kit.Run, s *scenario, placeholders bool) ordered.Obj {
	o, kv := ordered.O, ordered.Member
	st := o("security", o("auth", o("selectedType", "openai")),
		"privacy", o("usageStatisticsEnabled", false),
		"telemetry", o("enabled", false),
		"general", o("disableAutoUpdate", true, "disableUpdateNag", true))
	if s.Server.None {
		return st
	}
	return append(st, kv("mcpServers", r.MCPServers(&s.Server, placeholders, nil, "timeout", 30000)))
}

func run(r *kit.Run, s *scenario) error {
	if err := r.Lay(".qwen"); err != nil {
		return err
	}
	if err := kit.WriteJSON(r.Home+"/.qwen/settings.json", settings(r, s, false)); err != nil {
		return err
	}
	if err := r.ServeChat(&s.Scenario); err != nil {
		return err
	}
	argv := []string{"-p", prompt, "--output-format", "stream-json", "--auth-type", "openai", "--model", model}
	if s.Approval == "" {
		argv = append(argv, "--yolo")
	} else {
		argv = append(argv, "--approval-mode", s.Approval)
	}
	argv = append(argv, s.Args...)
	c := r.Cmd(&s.Scenario, argv, "OPENAI_BASE_URL=http://"+addr+"/v1", "OPENAI_API_KEY=sk-cairn-offline-fake-key-0000",
		"OPENAI_MODEL="+model, "QWEN_CODE_DISABLE_TELEMETRY=1", "NO_COLOR=1")
	c.Group = true
	p, err := r.Exec(c)
	if err != nil {
		return err
	}
	if err := r.Keep(s.Name+".jsonl", p.Stdout, shape); err != nil {
		return err
	}
	meta := fmt.Sprintf("# qwen argv (after node cli.js): %s\n# qwen exit code: %s\n", kit.Quote(argv), p.ExitText())
	if p.Interrupted != "" {
		meta += "# the harness sent SIGINT to qwen's process group\n"
	}
	if len(s.Env) > 0 {
		meta += "# extra env: " + strings.Join(s.Env, " ") + "\n"
	}
	meta += "# ~/.qwen/settings.json: " + kit.Compact(settings(r, s, true)) + "\n"
	return r.Finish(s.Name, meta, p, s.Exit)
}

// shape is Claude Code's: the stream-json is its dialect.
func shape(b []byte) []byte { return claude.Spec.Shape("", b) }

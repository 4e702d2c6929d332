//go:build unix

package capturekit

import (
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/cairn-audit/cairn/scripts/capturekit/mock"
	"github.com/cairn-audit/cairn/scripts/ordered"
	"go.yaml.in/yaml/v3"
)

// Scenario is one row of a CLI's scenario table (its scenarios.yaml):
// what the scripted model answers, which MCP server the CLI gets, and the
// verdict SPEC demands of what the CLI prints, with its reasoning. A CLI's
// own row type embeds it (`yaml:",inline"`) and adds the CLI's own members
// (flags, settings). scripts/README.md describes the format.
type Scenario struct {
	Name  string `yaml:"name"`
	About string `yaml:"about"` // what the run does (README)
	Why   string `yaml:"why"`   // the reasoning for its verdict (README)
	// Prompt is the run's prompt ("" = the CLI's).
	Prompt string   `yaml:"prompt"`
	Server Server   `yaml:"server"`
	Env    []string `yaml:"env"`  // more environment, NAME=VALUE
	Args   []string `yaml:"args"` // more CLI flags
	// Main are the main agent's answers, by step; Sub a sub-agent's, whose
	// first user message holds SubMarker.
	Main      []mock.Step `yaml:"main"`
	Sub       []mock.Step `yaml:"sub"`
	SubMarker string      `yaml:"sub_marker"`
	// Exit is the CLI's exit code the run must end with (-1: any but 0).
	Exit int  `yaml:"exit"`
	Want Want `yaml:"want"`
	// Catalog is the catalog (SPEC §16) a capture of a real memory server
	// is audited under (`--catalog NAME`), MemoryServers its
	// `--memory-server` names, and WantDefault the verdict SPEC demands of
	// the same capture under the default catalog cairn-memory/1: want.json
	// records the three (Scenario.Verdict).
	Catalog       string   `yaml:"catalog"`
	MemoryServers []string `yaml:"memory_servers"`
	WantDefault   *Want    `yaml:"want_default"`
	// Keep is what <name>.jsonl holds: "" the CLI's stdout, "session" the
	// session file it wrote (stdout then stays in the scratch folder).
	Keep string `yaml:"keep"`
	// Signal is what interrupts the CLI when the run stalls ("" =
	// SIGINT); Interrupt interrupts it that long after its first request
	// to the mock (a loaded machine can take a minute to start it).
	Signal    string        `yaml:"signal"`
	Interrupt time.Duration `yaml:"interrupt"`
	// Versions override members for one version each: `versions: {1.3.2:
	// {exit: 130, want: […], why: …}}` (see ForVersion).
	Versions map[string]yaml.Node `yaml:"versions"`

	node *yaml.Node
}

// Base is the scenario itself (a CLI's row type gets it by embedding).
func (s *Scenario) Base() *Scenario { return s }

// Script is what the mock answers in this scenario.
func (s *Scenario) Script(prompt string) mock.Script {
	if s.Prompt != "" {
		prompt = s.Prompt
	}
	return mock.Script{Name: s.Name, Prompt: prompt, Main: s.Main, Sub: s.Sub, SubMarker: s.SubMarker}
}

// Verdict is the want.json entry of the scenario's capture: its Want's
// verdict, and with a catalog, the catalog, the --memory-server names and
// the verdict under cairn-memory/1.
func (s *Scenario) Verdict() Verdict {
	v := s.Want.Verdict()
	if s.Catalog != "" {
		v.Catalog, v.MemoryServers = s.Catalog, s.MemoryServers
		if s.WantDefault != nil {
			d := s.WantDefault.Verdict()
			v.Default = &d
		}
	}
	return v
}

// MemoryReadmeLine is the README line of a scenario whose capture is
// audited under a catalog: what it does, its verdict with its codes under
// the catalog (and --memory-server) and under cairn-memory/1, and why.
func MemoryReadmeLine(s *Scenario) string {
	v := s.Verdict()
	under := "`--catalog " + s.Catalog + "`"
	for _, m := range s.MemoryServers {
		under += " `--memory-server " + m + "`"
	}
	line := fmt.Sprintf("- `%s.jsonl` — %s. **%s** under %s: %s.", s.Name, s.About, v.Describe(true, ""), under, s.Why)
	if v.Default != nil {
		line += fmt.Sprintf(" Under cairn-memory/1: **%s**.", v.Default.Describe(true, ""))
	}
	return line + "\n"
}

// Server is the MCP server a scenario configures: the kit's scripted one
// (with Flags) unless Command or NPM says otherwise.
type Server struct {
	// Name is the name it is configured under ("" = cairn-memory).
	Name  string   `yaml:"name"`
	Flags []string `yaml:"flags"` // flags of the scripted server (mcpserver -h)
	// Command starts instead of the scripted server (one that does not
	// exist, say).
	Command string `yaml:"command"`
	// NPM starts a real server from npm: the packages to install
	// (name@version …), Bin its executable in node_modules/.bin, Env its
	// environment ({work} is the project folder). BuildFromSource builds
	// native modules from source against the system's node (better-sqlite3
	// 12 for @ai-devkit/memory on Node 20; 13 segfaults there).
	NPM             []string          `yaml:"npm"`
	Bin             string            `yaml:"bin"`
	Env             map[string]string `yaml:"env"`
	BuildFromSource bool              `yaml:"build_from_source"`
	// Seed are tool calls the kit makes on the server before the CLI runs
	// (Run.Seed: the same command, environment and HOME), so that a search
	// finds what the store was primed with through the server's own tools.
	Seed []SeedCall `yaml:"seed"`
	// Hang puts the server behind `capture mcp-hang`: calls of this tool
	// never return, and the runner interrupts the CLI while one runs.
	// Slow puts it behind `capture mcp-slow`: calls of this tool reach it
	// 5 s late, so a parallel call finishes first (on a loaded machine a
	// bash `ls` can take 3 s).
	Hang string `yaml:"hang"`
	Slow string `yaml:"slow"`
	// Entry are members the CLI adds to its configuration entry of the
	// server, in this order (Gemini CLI's trust, Pi's directTools, …).
	Entry ordered.Obj `yaml:"entry"`
	// None configures no MCP server at all.
	None bool `yaml:"none"`
}

// ConfiguredName is the name the server is configured under.
func (sv *Server) ConfiguredName() string {
	if sv.Name == "" {
		return "cairn-memory"
	}
	return sv.Name
}

// row is what the kit needs of a CLI's scenario type: a pointer to a
// struct that embeds Scenario.
type row[S any] interface {
	*S
	Base() *Scenario
}

// Load reads a scenario table; every member must be known to S.
func Load[S any, P row[S]](src []byte) ([]P, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("a scenario table is a list of scenarios")
	}
	var out []P
	seen := map[string]bool{}
	for _, n := range doc.Content[0].Content {
		unalias(n)
		s := P(new(S))
		if err := decodeStrict(n, s); err != nil {
			return nil, fmt.Errorf("scenario at line %d: %w", n.Line, err)
		}
		b := s.Base()
		if b.Name == "" || seen[b.Name] {
			return nil, fmt.Errorf("scenario at line %d: no name, or a name already used", n.Line)
		}
		seen[b.Name] = true
		b.node = n
		out = append(out, s)
	}
	return out, nil
}

// SubFS is the folder dir of fsys (a second scenario table embedded with
// a CLI's first, say).
func SubFS(fsys fs.FS, dir string) fs.FS {
	f, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return f
}

// unalias replaces the aliases below n (`*server`) by copies of what they
// name, so that a row decodes on its own: an anchor set in one row (a real
// server's block, say) may be used in the next.
func unalias(n *yaml.Node) {
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			cp := *c.Alias
			cp.Anchor = ""
			cp.Content = append([]*yaml.Node{}, c.Alias.Content...)
			n.Content[i] = &cp
		}
		unalias(n.Content[i])
	}
}

// ForVersion is s as it holds for version: the members its versions entry
// for that version gives replace s's own.
func ForVersion[S any, P row[S]](s P, version string) (P, error) {
	b := s.Base()
	over, ok := b.Versions[version]
	if !ok {
		return s, nil
	}
	merged := *b.node
	merged.Content = nil
	given := map[string]bool{}
	for i := 0; i+1 < len(over.Content); i += 2 {
		given[over.Content[i].Value] = true
	}
	for i := 0; i+1 < len(b.node.Content); i += 2 {
		if k := b.node.Content[i].Value; !given[k] && k != "versions" {
			merged.Content = append(merged.Content, b.node.Content[i], b.node.Content[i+1])
		}
	}
	merged.Content = append(merged.Content, over.Content...)
	v := P(new(S))
	if err := decodeStrict(&merged, v); err != nil {
		return nil, fmt.Errorf("scenario %s, version %s: %w", b.Name, version, err)
	}
	v.Base().node = b.node
	v.Base().Versions = b.Versions
	return v, nil
}

// decodeStrict decodes n into v, refusing members v does not have.
var decodeStrict = mock.DecodeStrict

// Overrides are the versions of s whose entry sets any of the members
// named, sorted.
func (s *Scenario) Overrides(members ...string) []string {
	var vs []string
	for v, n := range s.Versions {
		for i := 0; i+1 < len(n.Content); i += 2 {
			for _, m := range members {
				if n.Content[i].Value == m {
					vs = append(vs, v)
				}
			}
		}
	}
	return sortVersions(dedupe(vs))
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sortVersions sorts dotted versions, oldest first.
func sortVersions(vs []string) []string {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && VersionLess(vs[j], vs[j-1]); j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	return vs
}

// VersionLess says whether dotted version a comes before b.
func VersionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		var x, y int
		fmt.Sscan(as[i], &x)
		fmt.Sscan(bs[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// ReadmeLine is a scenario's line in a README: "- `FILE` — ABOUT. CLI
// exit N. **VERDICT**: WHY.", then " **In V: VERDICT**: WHY." for each
// version whose entry overrides want; withCodes and whereNull say the
// verdicts as Describe does (the versions' without whereNull).
func ReadmeLine[S any, P row[S]](s P, file, about, cli string, withCodes bool, whereNull string) (string, error) {
	b := s.Base()
	line := fmt.Sprintf("- `%s` — %s. %s exit %d. **%s**: %s.", file, about, cli, b.Exit, b.Want.Verdict().Describe(withCodes, whereNull), b.Why)
	for _, v := range b.Overrides("want") {
		vs, err := ForVersion[S, P](s, v)
		if err != nil {
			return "", err
		}
		line += fmt.Sprintf(" **In %s: %s**: %s.", v, vs.Base().Want.Verdict().Describe(withCodes, ""), vs.Base().Why)
	}
	return line + "\n", nil
}

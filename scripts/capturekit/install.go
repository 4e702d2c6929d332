//go:build unix

package capturekit

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-audit/cairn/scripts/ordered"
)

// Install is one installed version of a CLI: where npm put it and how to
// run it. Spec.Install fills it; outside the network namespace NPM
// installs what is missing, inside it only says whether it is there.
type Install struct {
	Version string
	// Dir is the version's npm folder, /tmp/cairn-NAME-npm/VERSION.
	Dir string
	// Argv runs the CLI (the program and the arguments before the CLI's
	// own); VersionArgv and VersionEnv print its version, one word of which
	// must be Version.
	Argv, VersionArgv, VersionEnv []string
	// Extra are paths the CLI's Run needs (Pi's pi-mcp-adapter).
	Extra map[string]string

	fetch bool
}

// NPM installs pkgs into dir, a private package folder, unless the file
// has (relative to dir) is there already. env is added to npm's.
func (i *Install) NPM(dir, has string, env []string, pkgs ...string) error {
	if _, err := os.Stat(filepath.Join(dir, has)); err == nil {
		return nil
	}
	if !i.fetch {
		return fmt.Errorf("%s is not installed (no %s): capture installs it outside the namespace", strings.Join(pkgs, " "), filepath.Join(dir, has))
	}
	fmt.Printf("== installing %s into %s\n", strings.Join(pkgs, " "), dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"cairn-capture","private":true}`+"\n"), 0o644); err != nil {
			return err
		}
	}
	c := exec.Command("npm", append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)...)
	c.Dir, c.Env, c.Stdout, c.Stderr = dir, append(os.Environ(), env...), os.Stdout, os.Stderr
	return c.Run()
}

// Program installs pkgs into i.Dir (unless bin, relative to it, is there)
// and runs bin: under node when node is not "" (bin is a script), else
// itself; bin --version says its version.
func (i *Install) Program(node, bin string, pkgs ...string) error {
	if err := i.NPM(i.Dir, bin, nil, pkgs...); err != nil {
		return err
	}
	i.Argv = []string{filepath.Join(i.Dir, bin)}
	if node != "" {
		i.Argv = []string{node, i.Argv[0]}
	}
	i.VersionArgv = append(i.Argv, "--version")
	return nil
}

// Node installs node of version beside the CLI's versions, for a CLI that
// needs a newer one than the machine's, and returns the program.
func (i *Install) Node(version string) (string, error) {
	dir, node := filepath.Join(filepath.Dir(i.Dir), "node-"+version), "node_modules/node/bin/node"
	return filepath.Join(dir, node), i.NPM(dir, node, nil, "node@"+version)
}

// check runs the version command and compares.
func (i *Install) check() error {
	if len(i.VersionArgv) == 0 {
		return nil
	}
	home, err := os.MkdirTemp("", "cairn-version-home")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	c := exec.Command(i.VersionArgv[0], i.VersionArgv[1:]...)
	c.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}, i.VersionEnv...)
	out, err := c.Output()
	got := strings.TrimSpace(string(out))
	for _, f := range strings.Fields(got) {
		if f == i.Version {
			fmt.Printf("== %s\n", got)
			return nil
		}
	}
	return fmt.Errorf("%s says %q (%v), want %s", strings.Join(i.VersionArgv, " "), got, err, i.Version)
}

// serverDir is where a scenario's npm MCP server is installed.
func serverDir(sv *Server) string {
	name := strings.NewReplacer("/", "+", "@", "").Replace(strings.Join(sv.NPM, "+"))
	return filepath.Join("/tmp/cairn-mcp-npm", name)
}

// server installs a scenario's npm MCP server. Native modules are built
// from source against the system's node when the server says so (headers
// from /usr/include/node: no download).
func (i *Install) server(sv *Server) error {
	var env []string
	if sv.BuildFromSource {
		env = []string{"npm_config_build_from_source=true", "npm_config_nodedir=/usr"}
	}
	return i.NPM(serverDir(sv), "node_modules/.bin/"+sv.Bin, env, sv.NPM...)
}

// OnlyLoopback refuses to go on when a network interface other than
// loopback is up: the runner must be inside `unshare -n`.
func OnlyLoopback() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp != 0 && i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("interface %s is up: run inside `unshare -n` (scripts/capturekit/run.sh does)", i.Name)
		}
	}
	return nil
}

// ServerCommand is how a CLI starts the scenario's MCP server: the
// program, its arguments and its environment ({work} in a value is the
// project folder). With placeholders the kit's paths are written MCPSERVER,
// CAPTURE, SCRATCH and NPM (what a requests.txt shows).
func (r *Run) ServerCommand(sv *Server, placeholders bool) (cmd string, args []string, env map[string]string) {
	mcpserver, self, scratch, npm := r.MCPServer, r.Self, r.Scratch, ""
	if len(sv.NPM) > 0 {
		npm = serverDir(sv)
	}
	if placeholders {
		mcpserver, self, scratch, npm = "MCPSERVER", "CAPTURE", "SCRATCH", "NPM"
	}
	cmd, args = mcpserver, append([]string{"-name", "cairn-memory"}, sv.Flags...)
	switch {
	case sv.Command != "":
		cmd, args = sv.Command, []string{}
	case len(sv.NPM) > 0:
		cmd, args = npm+"/node_modules/.bin/"+sv.Bin, []string{}
		// By its real path, not the link: @ai-devkit/memory serves only
		// when argv[1] is its own file.
		if real, err := filepath.EvalSymlinks(cmd); err == nil && !placeholders {
			cmd = real
		}
	}
	switch {
	case sv.Hang != "":
		cmd, args = self, append([]string{"mcp-hang", "-marker", scratch + "/mcp-hang.marker", "-tool", sv.Hang, "--", cmd}, args...)
	case sv.Slow != "":
		cmd, args = self, append([]string{"mcp-slow", "-delay", "5s", "-tool", sv.Slow, "--", cmd}, args...)
	}
	if len(sv.Env) > 0 {
		env = map[string]string{}
		for k, v := range sv.Env {
			env[k] = strings.ReplaceAll(v, "{work}", r.WorkDir)
		}
	}
	return cmd, args, env
}

// MCPServers is the one server a scenario configures as most CLIs' MCP
// settings hold it, {NAME: entry}: the entry is head, command, args, env
// (when the server has one), tail, then the scenario's own entry members.
// With placeholders the kit's paths are written as ServerCommand says.
func (r *Run) MCPServers(sv *Server, placeholders bool, head []any, tail ...any) ordered.Obj {
	cmd, args, env := r.ServerCommand(sv, placeholders)
	srv := ordered.O(append(head, "command", cmd, "args", args)...)
	if env != nil {
		srv = append(srv, ordered.Member("env", env))
	}
	return ordered.O(sv.ConfiguredName(), append(append(srv, ordered.O(tail...)...), sv.Entry...))
}

// HangMarker is the file the mcp-hang proxy creates when the held call
// comes, as Cmd.Markers takes it (nil without one).
func (r *Run) HangMarker(sv *Server) map[string]string {
	if sv.Hang == "" {
		return nil
	}
	return map[string]string{r.Scratch + "/mcp-hang.marker": "the MCP tool call is running"}
}

package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

type versionCmd struct {
	JSON bool `name:"json"`
}

func (versionCmd) Help() string {
	return `Prints cairn's version: a release's own (scripts/release.sh stamps it), else
the module version as go version -m sees the binary (a pseudo-version for a
build from a clone); then the Go version, the OS and architecture, and the
VCS revision and time when the build was stamped.

Examples:
  cairn version
  cairn version --json`
}

// buildInfo is what the version command prints.
type buildInfo struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

func (c versionCmd) Run(e *env) error {
	b := readBuild()
	if c.JSON {
		writeJSON(e.stdout, b)
		return nil
	}
	fmt.Fprintf(e.stdout, "cairn %s (%s, %s)\n", b.Version, b.Go, b.Platform)
	if b.Revision != "" {
		dirty := ""
		if b.Modified {
			dirty = ", modified"
		}
		fmt.Fprintf(e.stdout, "revision %s%s", b.Revision, dirty)
		if b.Time != "" {
			fmt.Fprintf(e.stdout, ", %s", b.Time)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

// stampedVersion is a release's version, stamped at link time by
// scripts/release.sh (-ldflags -X
// github.com/cairn-audit/cairn/cmd/cairn/cli.stampedVersion=v1.2.3). A
// release is built in a clone, whose module version is a pseudo-version
// or "(devel)": when set, this wins.
var stampedVersion string

// readBuild reads the build: a stamped release version, or the module
// version (go install MODULE@VERSION gives a release; a build in a clone a
// pseudo-version or "(devel)"), and the VCS stamp when there is one.
func readBuild() buildInfo {
	b := buildInfo{Version: "unknown", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if stampedVersion != "" {
		b.Version = stampedVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" && stampedVersion == "" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// version is the one-word version, for --version.
func version() string { return readBuild().Version }

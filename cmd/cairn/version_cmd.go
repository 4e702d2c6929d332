package main

import (
	"fmt"
	"runtime/debug"
)

type versionCmd struct{}

func (versionCmd) Help() string {
	return "Prints cairn's version: the module version, or the VCS revision of a source build."
}

func (versionCmd) Run(e *env) error {
	fmt.Fprintln(e.stdout, "cairn "+version())
	return nil
}

// version reads the build: the module version when installed with go
// install MODULE@VERSION, else the VCS revision the binary was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "devel " + rev + modified
}

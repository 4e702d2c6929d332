//go:build !unix

package testbuild

import (
	"os"
	"os/exec"
)

// ownGroup: without process groups, exec.CommandContext kills the
// command alone.
func ownGroup(cmd *exec.Cmd) {}

// tryLock: no lock across processes here; the builds may overlap.
func tryLock(f *os.File) (bool, error) { return true, nil }

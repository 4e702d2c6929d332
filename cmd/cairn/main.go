// Command cairn audits, offline, whether an AI coding agent really used
// its project-memory tools; see package cli and docs/guide.md.
package main

import (
	"os"

	"github.com/cairn-audit/cairn/cmd/cairn/cli"
	"github.com/cairn-audit/cairn/stream"
)

func main() {
	stream.Mark("main")
	status := cli.Main()
	stream.Mark("exit")
	stream.WriteTimeline(os.Stderr) // only in a -tags timeline build
	os.Exit(status)
}

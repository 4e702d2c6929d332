package main

import (
	"os"

	"github.com/cairn-audit/cairn/stream"
)

func main() {
	stream.Mark("main")
	status := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stream.Mark("exit")
	stream.WriteTimeline(os.Stderr) // only in a -tags timeline build
	os.Exit(status)
}

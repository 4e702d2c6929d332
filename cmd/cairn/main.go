// Command cairn audits, offline, whether an AI coding agent really used its
// project-memory tools. See README.md and docs/.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) }

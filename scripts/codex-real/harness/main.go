//go:build unix

// Command harness runs the real codex CLI offline against a scripted
// Responses-API server and a stdio MCP server, and records what
// `codex exec --json` prints on stdout, byte for byte.
//
// It is not part of cairn: it is the tool that makes the captures under
// testdata/codex/real. scripts/codex-real/run.sh is the entry point; it
// installs codex, builds this program and runs it inside a network
// namespace that has only a loopback interface.
//
// Subcommands:
//
//	harness run -codex BIN -version V -out DIR [-logs DIR] [SCENARIO...]
//	harness mcp -mode MODE [-log FILE]     (the cairn-memory MCP server; codex starts it)
//	harness shape FILE.jsonl               (prints the shape of each record)
//	harness list                           (prints the scenario names)
//
// Standard library only.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(os.Args[2:])
	case "mcp":
		err = cmdMCP(os.Args[2:])
	case "shape":
		err = cmdShape(os.Args[2:])
	case "list":
		for _, s := range scenarios() {
			fmt.Println(s.Name)
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: harness run|mcp|shape|list ...")
	os.Exit(2)
}

//go:build unix

// Command mcpserver is the capture kit's scripted stdio MCP server
// (package mcp); the CLIs under capture start it.
package main

import (
	"os"

	"github.com/cairn-audit/cairn/scripts/capturekit/mcp"
)

func main() { os.Exit(mcp.Main(os.Args[1:])) }

//go:build unix

// Command capture runs real agent CLIs offline against the kit's scripted
// model servers and MCP server, one subcommand per CLI, and keeps what they
// print under testdata/CLI/real/VERSION (scripts/README.md).
//
//	capture CLI [VERSION...]            install, capture every scenario, inventory, README
//	capture CLI run -version V          the scenarios, inside `unshare -n` (capture CLI does that)
//	capture CLI readme|list|shape FILE|inventory DIR
//	capture mcp-hang|mcp-slow … -- CMD ARGS…   the MCP proxies a scenario's server may run behind
package main

import (
	"os"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
	"github.com/cairn-audit/cairn/scripts/capturekit/mcp"
	claude "github.com/cairn-audit/cairn/scripts/claude-real"
	cline "github.com/cairn-audit/cairn/scripts/cline-real"
	codex "github.com/cairn-audit/cairn/scripts/codex-real"
	copilot "github.com/cairn-audit/cairn/scripts/copilot-real"
	gemini "github.com/cairn-audit/cairn/scripts/gemini-real"
	opencode "github.com/cairn-audit/cairn/scripts/opencode-real"
	pi "github.com/cairn-audit/cairn/scripts/pi-real"
	qwen "github.com/cairn-audit/cairn/scripts/qwen-real"
)

func main() {
	os.Exit(kit.Main(os.Args[1:], mcp.Proxy, claude.Spec, codex.Spec, gemini.Spec, opencode.Spec, pi.Spec, copilot.Spec, qwen.Spec, cline.Spec,
		claude.Memory, gemini.Memory))
}

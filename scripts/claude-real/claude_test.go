//go:build unix

package claude

import (
	"testing"

	kit "github.com/cairn-audit/cairn/scripts/capturekit"
)

// TestMCPConfig: a server whose command is given gets "args": null (as
// server-missing was captured); every other server gets its arguments, a
// real one from npm an empty list and its environment: with null, Claude
// Code would leave it out of init.mcp_servers.
func TestMCPConfig(t *testing.T) {
	r := &kit.Run{WorkDir: "/w", Scratch: "/s", MCPServer: "/bin/mcpserver"}
	for _, tc := range []struct {
		sv   kit.Server
		want string
	}{
		{kit.Server{}, `{"mcpServers":{"cairn-memory":{"args":["-name","cairn-memory"],"command":"/bin/mcpserver","type":"stdio"}}}`},
		{kit.Server{Command: "/nonexistent/x"}, `{"mcpServers":{"cairn-memory":{"args":null,"command":"/nonexistent/x","type":"stdio"}}}`},
		{kit.Server{Name: "memory", NPM: []string{"@example/memory-server@1.0.0"}, Bin: "mcp-server-memory", Env: map[string]string{"MEMORY_FILE_PATH": "{work}/m.jsonl"}},
			`{"mcpServers":{"memory":{"args":[],"command":"/tmp/cairn-mcp-npm/example+memory-server1.0.0/node_modules/.bin/mcp-server-memory","env":{"MEMORY_FILE_PATH":"/w/m.jsonl"},"type":"stdio"}}}`},
	} {
		if got := string(mcpConfig(r, &tc.sv)); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
